//! The process-level settings: the I/O engine and its options, the admin endpoint, logging and
//! the shutdown drain.

use std::net::SocketAddr;

use serde::{Deserialize, Serialize};

use super::Problems;

/// The I/O engine that drives the proxy's core.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// tokio, one current-thread runtime per worker thread.
    #[default]
    Tokio,
    /// mio, edge-triggered epoll, one event loop per worker thread.
    Epoll,
}

/// `[epoll]`: settings of the epoll engine (ignored by the tokio engine).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EpollOptions {
    /// `epoll.busy_poll`: after a poll that returned events, poll again with a zero timeout;
    /// block only once a poll returns nothing (Netpoll's `msec = 0 / -1`). Off by default:
    /// `proxy_load` measures no gain from it, and it costs a system call whenever the loop
    /// goes idle.
    #[serde(default = "default_busy_poll")]
    pub busy_poll: bool,
    /// `epoll.busy_poll_us`: with `busy_poll`, keep polling with a zero timeout until nothing
    /// has come for this many microseconds (a spin that spares the wake-up from a blocked
    /// poll, at the price of a core kept busy); 0: one zero-timeout poll only.
    #[serde(default)]
    pub busy_poll_us: u64,
    /// `epoll.forward_by_reference`: a call or response body at least this long is written
    /// from the buffer it was read into (`writev` of the rewritten header and the body)
    /// instead of being copied into the outbox; 0 copies every body.
    #[serde(default = "default_forward_by_reference")]
    pub forward_by_reference: usize,
    /// `epoll.short_read`: a read that did not fill its buffer ends the read, without the
    /// `read` that would only return `WouldBlock` (Linux only: epoll(7) raises an edge for
    /// every arrival on a stream socket). On by default: it saves one system call per
    /// arrival on each side of a call (`perf stat` in `benches/proxy-compare`: 1 read per
    /// call from each caller instead of 2); off, every readable socket is drained until
    /// `WouldBlock`, as mio asks of edge-triggered sources on every platform.
    #[serde(default = "default_short_read")]
    pub short_read: bool,
}

impl EpollOptions {
    /// The defaults.
    pub const DEFAULT: EpollOptions = EpollOptions {
        busy_poll: false,
        busy_poll_us: 0,
        forward_by_reference: 16 * 1024,
        short_read: true,
    };
}

impl Default for EpollOptions {
    fn default() -> Self {
        EpollOptions::DEFAULT
    }
}

fn default_busy_poll() -> bool {
    EpollOptions::DEFAULT.busy_poll
}
fn default_short_read() -> bool {
    EpollOptions::DEFAULT.short_read
}
fn default_forward_by_reference() -> usize {
    EpollOptions::DEFAULT.forward_by_reference
}

/// `[admin]`: the loopback HTTP endpoint.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Admin {
    /// `admin.address`: a loopback `IP:PORT`; `""` turns the admin endpoint off.
    #[serde(default = "default_admin_address")]
    pub address: String,
}

impl Default for Admin {
    fn default() -> Self {
        Admin {
            address: default_admin_address(),
        }
    }
}

/// `[log]`
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Log {
    /// `log.level`: a `tracing` filter (`info`, `debug`, `dubbo_proxy=trace`...).
    #[serde(default = "default_log_level")]
    pub level: String,
    /// `log.access_log`: one line per call (at `info`); off by default, and switched off
    /// at run time by `/api/v1/downgrade/on`.
    #[serde(default)]
    pub access_log: bool,
}

impl Default for Log {
    fn default() -> Self {
        Log {
            level: default_log_level(),
            access_log: false,
        }
    }
}

/// `[shutdown]`
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Shutdown {
    /// `shutdown.drain_timeout_ms`: after SIGTERM, how long in-flight calls may take before
    /// the proxy exits anyway.
    #[serde(default = "default_drain_timeout")]
    pub drain_timeout_ms: u64,
}

impl Default for Shutdown {
    fn default() -> Self {
        Shutdown {
            drain_timeout_ms: default_drain_timeout(),
        }
    }
}

fn default_admin_address() -> String {
    "127.0.0.1:20882".into()
}
fn default_log_level() -> String {
    "info".into()
}
fn default_drain_timeout() -> u64 {
    10_000
}

impl EpollOptions {
    pub(super) fn validate(&self, p: &mut Problems) {
        if self.busy_poll_us > 1_000_000 {
            p.bad("epoll.busy_poll_us", "must be at most 1000000 (1 s)");
        }
    }
}

impl Admin {
    pub(super) fn validate(&self, p: &mut Problems) {
        if self.address.is_empty() {
            return;
        }
        match self.address.parse::<SocketAddr>() {
            Ok(a) if !a.ip().is_loopback() => p.bad(
                "admin.address",
                "must be a loopback address (127.0.0.0/8 or ::1)",
            ),
            Ok(_) => {}
            Err(_) => p.bad("admin.address", "must be IP:PORT"),
        }
    }
}

impl Log {
    pub(super) fn validate(&self, p: &mut Problems) {
        if !is_plain_log_filter(&self.level) {
            p.bad(
                "log.level",
                "must be ASCII `target=level` directives, without span or field filters \
                 (`[`, `{`), e.g. \"info,dubbo_proxy=debug\"",
            );
        } else if self.level.parse::<tracing_subscriber::EnvFilter>().is_err() {
            p.bad("log.level", "is not a valid tracing filter");
        }
    }
}

/// Whether a `tracing` filter (`log.level`, `RUST_LOG`) is safe to hand to tracing-subscriber
/// 0.3: ASCII, and no span or field filters. Both found by the `config_load` fuzz target: a
/// multi-byte character can make its parser panic (it slices inside the character), and a
/// field filter's value is a regex whose DFA can take seconds to build. `target=level`
/// directives are all a proxy's logs need.
pub fn is_plain_log_filter(spec: &str) -> bool {
    spec.is_ascii() && !spec.contains(['[', '{'])
}

impl Shutdown {
    pub(super) fn validate(&self, p: &mut Problems) {
        if self.drain_timeout_ms == 0 {
            p.bad("shutdown.drain_timeout_ms", "must be > 0");
        }
    }
}
