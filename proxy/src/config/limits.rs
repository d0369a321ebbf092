//! `[limits]`: backpressure on every connection's outbox.

use serde::{Deserialize, Serialize};

use super::Problems;

/// `[limits]`: how much may wait to be written on one connection (caller or provider) before
/// the proxy pushes back. See the crate's `core::flow`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// `limits.outbox_high_watermark`: bytes waiting on a connection above which it is
    /// "backed up": a caller connection's requests stop being read (it is not reading its
    /// answers); a provider connection gets new calls only when no other connection or
    /// endpoint of the cluster can take them.
    #[serde(default = "default_outbox_high")]
    pub outbox_high_watermark: usize,
    /// `limits.outbox_low_watermark`: a backed-up connection is released once what waits on
    /// it has been written down to this many bytes.
    #[serde(default = "default_outbox_low")]
    pub outbox_low_watermark: usize,
    /// `limits.outbox_hard_cap`: a caller connection whose answers pile up past this many
    /// bytes (its requests already paused: only the answers to its calls in flight can add
    /// to it) is closed, what waits on it dropped; a provider connection past it takes no
    /// calls at all (with no other connection, callers get
    /// SERVER_THREADPOOL_EXHAUSTED_ERROR). Must be at least the high watermark plus every
    /// cluster's `max_payload`, so one answer to a caller below the high watermark never
    /// trips it.
    #[serde(default = "default_outbox_cap")]
    pub outbox_hard_cap: usize,
    /// `limits.max_buffered_bytes`: what all callers together may make the proxy hold, over
    /// all workers: frames begun and not finished in read buffers, plus answers waiting to
    /// be written to them. Past it, a caller with part of a frame in is paused (its frame
    /// timeout still runs) and one with more than the low watermark of unread answers is
    /// closed at its next answer; reads resume once the total is back under it. See the
    /// README's worst-case formula.
    #[serde(default = "default_max_buffered")]
    pub max_buffered_bytes: usize,
    /// `limits.fd_reserve`: file descriptors callers may not take, kept for provider
    /// connections, admin requests, the registry and the log. Callers get `RLIMIT_NOFILE`
    /// (whose soft limit the proxy raises to the hard one at start) less the descriptors
    /// open at start less this; a caller past that is closed at once and `/healthz` answers
    /// 503 `overloaded` (see the crate's `core::fd_budget`). Read at start only. Raise it when
    /// the proxy keeps more provider connections than this (every worker opens its own).
    #[serde(default = "default_fd_reserve")]
    pub fd_reserve: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            outbox_high_watermark: default_outbox_high(),
            outbox_low_watermark: default_outbox_low(),
            outbox_hard_cap: default_outbox_cap(),
            max_buffered_bytes: default_max_buffered(),
            fd_reserve: default_fd_reserve(),
        }
    }
}

fn default_outbox_high() -> usize {
    1024 * 1024
}
fn default_outbox_low() -> usize {
    256 * 1024
}
fn default_outbox_cap() -> usize {
    16 * 1024 * 1024
}
fn default_max_buffered() -> usize {
    256 * 1024 * 1024
}
fn default_fd_reserve() -> u64 {
    64
}

impl Limits {
    /// `largest_payload`: the largest `clusters.*.max_payload`, which one answer to a caller
    /// may be.
    pub(super) fn validate(&self, largest_payload: usize, p: &mut Problems) {
        if self.outbox_high_watermark == 0 {
            p.bad("limits.outbox_high_watermark", "must be > 0");
        }
        if self.outbox_low_watermark >= self.outbox_high_watermark {
            p.bad(
                "limits.outbox_low_watermark",
                "must be below limits.outbox_high_watermark",
            );
        }
        let least = self
            .outbox_high_watermark
            .saturating_add(largest_payload + 16);
        if self.max_buffered_bytes < 1024 * 1024 {
            p.bad(
                "limits.max_buffered_bytes",
                "must be at least 1048576 (1 MiB)",
            );
        }
        if self.outbox_hard_cap < least {
            p.bad(
                "limits.outbox_hard_cap",
                format!(
                    "must be at least limits.outbox_high_watermark + the largest clusters.*.max_payload + 16 ({least}), so that one answer never trips it"
                ),
            );
        }
    }
}
