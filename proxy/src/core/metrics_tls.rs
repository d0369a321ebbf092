//! Counters of listener TLS: handshakes done, and the callers refused at the TLS door, each
//! also one log line with the caller's address (`warn`; `debug` for the timeout, as the
//! read timeouts, so that a flood of slow handshakers does not flood the log).

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Why a caller was refused at a TLS listener.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TlsRefusal {
    /// Its first byte was not a TLS handshake record.
    Plaintext,
    /// rustls refused its handshake (no client certificate where one is required, one from
    /// another CA, self-signed or expired, no common version): what rustls said.
    Handshake(String),
    /// Its handshake did not finish within `handshake_timeout_ms`.
    Timeout(u64),
    /// Its address had `max_handshakes_per_ip` (the value) handshakes under way.
    Crowded(usize),
}

/// See the [module docs](self).
#[derive(Debug, Default)]
pub struct TlsMetrics {
    /// Handshakes completed.
    pub handshakes: AtomicU64,
    failed: AtomicU64,
    timeout: AtomicU64,
    plaintext: AtomicU64,
    crowded: AtomicU64,
    upstream_failed: AtomicU64,
}

impl TlsMetrics {
    /// Counts and logs a caller at `peer` refused for `why`.
    pub fn refused(&self, peer: Option<SocketAddr>, why: &TlsRefusal) {
        let peer = peer.map_or_else(|| "?".to_owned(), |p| p.to_string());
        match why {
            TlsRefusal::Plaintext => {
                self.plaintext.fetch_add(1, Relaxed);
                tracing::warn!(%peer, "caller closed: not TLS on a TLS listener");
            }
            TlsRefusal::Handshake(error) => {
                self.failed.fetch_add(1, Relaxed);
                tracing::warn!(%peer, %error, "caller closed: TLS handshake failed");
            }
            TlsRefusal::Timeout(value_ms) => {
                self.timeout.fetch_add(1, Relaxed);
                tracing::debug!(%peer, limit = "handshake_timeout_ms", value_ms, "caller closed: TLS handshake not finished in time");
            }
            TlsRefusal::Crowded(value) => {
                self.crowded.fetch_add(1, Relaxed);
                tracing::warn!(%peer, limit = "max_handshakes_per_ip", value, "caller closed: its address has max_handshakes_per_ip TLS handshakes under way");
            }
        }
    }

    /// Counts and logs a provider connection at `peer` closed for `why` (its handshake
    /// failed or did not finish: a certificate not from the cluster's CA or not valid for the
    /// server name, a provider that required a client certificate, one that is not TLS).
    pub fn upstream_refused(&self, peer: Option<SocketAddr>, why: &TlsRefusal) {
        self.upstream_failed.fetch_add(1, Relaxed);
        let peer = peer.map_or_else(|| "?".to_owned(), |p| p.to_string());
        tracing::warn!(%peer, error = ?why, "provider connection closed: TLS handshake failed");
    }

    /// Appends the Prometheus text of the counters.
    pub fn render(&self, out: &mut String) {
        for (name, help, v) in [
            ("dubbo_proxy_tls_handshakes_total", "TLS handshakes completed by callers.", &self.handshakes),
            ("dubbo_proxy_tls_handshake_failed_total", "Callers closed because their TLS handshake failed (client certificate missing, from another CA, self-signed or expired, ...).", &self.failed),
            ("dubbo_proxy_tls_handshake_timeout_total", "Callers closed because their TLS handshake did not finish within handshake_timeout_ms.", &self.timeout),
            ("dubbo_proxy_tls_plaintext_refused_total", "Callers closed because they did not open with a TLS handshake on a TLS listener.", &self.plaintext),
            ("dubbo_proxy_tls_handshake_crowded_total", "Callers closed at accept because their address had max_handshakes_per_ip TLS handshakes under way.", &self.crowded),
            ("dubbo_proxy_tls_upstream_handshake_failed_total", "Provider connections closed because their TLS handshake failed or did not finish.", &self.upstream_failed),
        ] {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter\n{name} {}", v.load(Relaxed));
        }
    }
}
