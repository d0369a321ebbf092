//! How much one caller may hold of a server (connections, calls in flight, time to send a
//! frame, time to take its answers), and the counters of what the limits turned away.
//!
//! Each refusal or close is also one `tracing` event naming the caller (`peer`), the setting
//! (`limit`) and its value: `warn` when the server is at a capacity limit or a caller does
//! not read its answers (an operator may need to raise a limit or find the caller), `debug`
//! for the read timeouts (routine for idle callers, and a flood of them under an attack must
//! not flood the log).
//!
//! The names and defaults are those of `dubbo-proxy`'s listener settings
//! (`max_connections`, `max_inflight`, `frame_timeout_ms`, `first_frame_timeout_ms`,
//! `idle_timeout_ms`), so a server behind the proxy and the proxy itself bound callers alike.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::State;

/// The limits a [`ServerBuilder`](super::ServerBuilder) sets. A zero timeout means never.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Limits {
    pub(super) max_connections: usize,
    pub(super) max_inflight: usize,
    pub(super) write_timeout: Duration,
    pub(super) first_frame_timeout: Duration,
    pub(super) frame_timeout: Duration,
    pub(super) idle_timeout: Duration,
}

/// Default of [`ServerBuilder::max_connections`](super::ServerBuilder::max_connections).
pub const DEFAULT_MAX_CONNECTIONS: usize = 10_000;
/// Default of [`ServerBuilder::max_inflight`](super::ServerBuilder::max_inflight).
pub const DEFAULT_MAX_INFLIGHT: usize = 4_096;
/// Default of [`ServerBuilder::write_timeout`](super::ServerBuilder::write_timeout).
pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// Default of [`ServerBuilder::first_frame_timeout`](super::ServerBuilder::first_frame_timeout):
/// above Dubbo's 60 s heartbeat (a consumer that connects and waits sends its first heartbeat
/// after 60 s), under the idle timeout.
pub const DEFAULT_FIRST_FRAME_TIMEOUT: Duration = Duration::from_secs(90);
/// Default of [`ServerBuilder::frame_timeout`](super::ServerBuilder::frame_timeout).
pub const DEFAULT_FRAME_TIMEOUT: Duration = Duration::from_secs(10);
/// Default of [`ServerBuilder::idle_timeout`](super::ServerBuilder::idle_timeout): three of
/// Java's 60 s heartbeats.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(180);

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_inflight: DEFAULT_MAX_INFLIGHT,
            write_timeout: DEFAULT_WRITE_TIMEOUT,
            first_frame_timeout: DEFAULT_FIRST_FRAME_TIMEOUT,
            frame_timeout: DEFAULT_FRAME_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
        }
    }
}

/// Zero means never.
pub(super) fn enabled(timeout: Duration) -> Option<Duration> {
    Some(timeout).filter(|t| !t.is_zero())
}

/// Why the server closed a caller's connection on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Closed {
    /// No frame at all within the first-frame timeout.
    NoFrame,
    /// A frame began and did not finish within the frame timeout.
    PartialFrame,
    /// No frame for the idle timeout.
    Idle,
    /// Its answers could not be written for the write timeout.
    WriteTimeout,
}

impl Closed {
    /// The setting that closed the connection, and its value in milliseconds.
    fn limit(self, limits: &Limits) -> (&'static str, u64) {
        let (name, timeout) = match self {
            Closed::NoFrame => ("first_frame_timeout", limits.first_frame_timeout),
            Closed::PartialFrame => ("frame_timeout", limits.frame_timeout),
            Closed::Idle => ("idle_timeout", limits.idle_timeout),
            Closed::WriteTimeout => ("write_timeout", limits.write_timeout),
        };
        (name, u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX))
    }
}

/// Why a caller was refused at the TLS door (feature `tls` for all but the first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum TlsRefused {
    /// It opened with a TLS handshake on a server without TLS.
    HandshakeOnPlain,
    /// Its first byte was not a TLS handshake record, on a TLS server.
    #[cfg_attr(not(feature = "tls"), allow(dead_code))]
    Plaintext,
    /// Its handshake failed: what rustls said (no client certificate, one the CA did not
    /// sign or out of its validity, no common protocol version, ...).
    #[cfg_attr(not(feature = "tls"), allow(dead_code))]
    Handshake(String),
    /// Its handshake did not finish within the handshake timeout (ms).
    #[cfg_attr(not(feature = "tls"), allow(dead_code))]
    HandshakeTimeout(u64),
    /// Its address had this many handshakes under way already.
    #[cfg_attr(not(feature = "tls"), allow(dead_code))]
    Flood(usize),
}

/// What the limits did, counted since the server started ([`Server::stats`](super::Server::stats)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerStats {
    /// Connections accepted and served.
    pub connections_accepted: u64,
    /// Connections closed at once because `max_connections` were open.
    pub connections_refused: u64,
    /// Calls turned away because `max_inflight` calls of their connection were running:
    /// answered `SERVER_THREADPOOL_EXHAUSTED_ERROR` (a one-way call is dropped).
    pub calls_rejected: u64,
    /// Connections closed because no frame came within `first_frame_timeout`.
    pub closed_no_frame: u64,
    /// Connections closed because a frame was not finished within `frame_timeout`.
    pub closed_partial_frame: u64,
    /// Connections closed because no frame came for `idle_timeout`.
    pub closed_idle: u64,
    /// Connections closed because their answers could not be written for `write_timeout`
    /// (the caller was not reading); the answers waiting for them were dropped.
    pub closed_write_timeout: u64,
    /// TLS handshakes completed (feature `tls`).
    pub tls_handshakes: u64,
    /// Connections closed because their TLS handshake failed: no client certificate where
    /// one is required, one from another CA, self-signed or expired, no common version.
    pub tls_handshake_failed: u64,
    /// Connections closed because their TLS handshake did not finish within the handshake
    /// timeout.
    pub tls_handshake_timeout: u64,
    /// Connections to a TLS server closed because they did not open with a TLS handshake.
    pub tls_plaintext_refused: u64,
    /// Connections to a server without TLS closed because they opened with a TLS handshake.
    pub tls_on_plain_refused: u64,
    /// Connections closed at once because their IP address had `max_handshakes_per_ip`
    /// handshakes under way.
    pub tls_handshake_flood_refused: u64,
}

/// The live counters behind [`ServerStats`].
#[derive(Debug, Default)]
pub(super) struct Counters {
    pub(super) accepted: AtomicU64,
    refused: AtomicU64,
    rejected: AtomicU64,
    no_frame: AtomicU64,
    partial_frame: AtomicU64,
    idle: AtomicU64,
    write_timeout: AtomicU64,
    pub(super) tls_handshakes: AtomicU64,
    tls_failed: AtomicU64,
    tls_timeout: AtomicU64,
    tls_plaintext: AtomicU64,
    tls_on_plain: AtomicU64,
    tls_flood: AtomicU64,
}

impl Counters {
    /// A connection from `peer` closed at once: `max_connections` were open.
    pub(super) fn refused(&self, peer: SocketAddr, max_connections: usize) {
        self.refused.fetch_add(1, Ordering::Relaxed);
        tracing::warn!(%peer, limit = "max_connections", value = max_connections, "connection refused: the server has max_connections open");
    }

    /// A call of `peer` turned away: `max_inflight` calls of its connection were running.
    pub(super) fn rejected(&self, peer: SocketAddr, request_id: u64, max_inflight: usize) {
        self.rejected.fetch_add(1, Ordering::Relaxed);
        tracing::warn!(%peer, request_id, limit = "max_inflight", value = max_inflight, "call rejected: max_inflight calls of its connection are running");
    }

    /// The connection of `peer` closed by the timeout `why`.
    pub(super) fn closed(&self, why: Closed, peer: SocketAddr, limits: &Limits) {
        let counter = match why {
            Closed::NoFrame => &self.no_frame,
            Closed::PartialFrame => &self.partial_frame,
            Closed::Idle => &self.idle,
            Closed::WriteTimeout => &self.write_timeout,
        };
        counter.fetch_add(1, Ordering::Relaxed);
        let (limit, value_ms) = why.limit(limits);
        match why {
            Closed::WriteTimeout => {
                tracing::warn!(%peer, limit, value_ms, "connection closed: the caller did not read its answers")
            }
            Closed::NoFrame => {
                tracing::debug!(%peer, limit, value_ms, "connection closed: no frame since it opened")
            }
            Closed::PartialFrame => {
                tracing::debug!(%peer, limit, value_ms, "connection closed: a frame began and did not finish")
            }
            Closed::Idle => tracing::debug!(%peer, limit, value_ms, "connection closed: idle"),
        }
    }

    /// The connection of `peer` refused at the TLS door for `why`.
    pub(super) fn tls_refused(&self, peer: SocketAddr, why: TlsRefused) {
        match why {
            TlsRefused::HandshakeOnPlain => {
                self.tls_on_plain.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(%peer, "connection closed: a TLS handshake on a port without TLS");
            }
            TlsRefused::Plaintext => {
                self.tls_plaintext.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(%peer, "connection closed: not TLS on a TLS port");
            }
            TlsRefused::Handshake(error) => {
                self.tls_failed.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(%peer, %error, "connection closed: TLS handshake failed");
            }
            TlsRefused::HandshakeTimeout(value_ms) => {
                self.tls_timeout.fetch_add(1, Ordering::Relaxed);
                // As the read timeouts: routine for slow callers, and a flood of them must
                // not flood the log.
                tracing::debug!(%peer, limit = "handshake_timeout", value_ms, "connection closed: TLS handshake not finished in time");
            }
            TlsRefused::Flood(value) => {
                self.tls_flood.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(%peer, limit = "max_handshakes_per_ip", value, "connection closed: its address has max_handshakes_per_ip handshakes under way");
            }
        }
    }

    pub(super) fn snapshot(&self) -> ServerStats {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        ServerStats {
            connections_accepted: get(&self.accepted),
            connections_refused: get(&self.refused),
            calls_rejected: get(&self.rejected),
            closed_no_frame: get(&self.no_frame),
            closed_partial_frame: get(&self.partial_frame),
            closed_idle: get(&self.idle),
            closed_write_timeout: get(&self.write_timeout),
            tls_handshakes: get(&self.tls_handshakes),
            tls_handshake_failed: get(&self.tls_failed),
            tls_handshake_timeout: get(&self.tls_timeout),
            tls_plaintext_refused: get(&self.tls_plaintext),
            tls_on_plain_refused: get(&self.tls_on_plain),
            tls_handshake_flood_refused: get(&self.tls_flood),
        }
    }
}

/// One open connection in `State::open`, until dropped (whatever ends the connection's
/// task, a panic included).
pub(super) struct Open(Arc<State>);

impl Open {
    pub(super) fn new(state: &Arc<State>) -> Open {
        state.open.fetch_add(1, Ordering::AcqRel);
        Open(state.clone())
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::AcqRel);
    }
}
