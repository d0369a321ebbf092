//! `[[listeners]]`: the addresses callers connect to, and what each connection may do.

use std::collections::BTreeSet;
use std::net::SocketAddr;

use serde::{Deserialize, Serialize};

use super::{ListenerTls, Problems, DEFAULT_MAX_PAYLOAD};

/// `[[listeners]]`: an address downstream callers connect to.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Listener {
    /// `listeners[i].name`: referred to by `routes[j].listeners`.
    #[serde(default = "default_listener_name")]
    pub name: String,
    /// `listeners[i].address`: `IP:PORT` (port 0: any free port, printed on start).
    pub address: String,
    /// `listeners[i].max_payload`: largest request body accepted, in bytes; a bigger one is
    /// answered with BAD_REQUEST and skipped.
    #[serde(default = "super::default_max_payload")]
    pub max_payload: u32,
    /// `listeners[i].idle_timeout_ms`: a caller connection with no frame for this long is
    /// closed (Java's server closes idle channels after 3 heartbeats, 180 s); 0 = never.
    #[serde(default = "default_idle_timeout")]
    pub idle_timeout_ms: u64,
    /// `listeners[i].frame_timeout_ms`: a frame that has started arriving (a header or body
    /// in part, or an oversize body being skipped) must finish within this long, or its
    /// connection is closed: a caller cannot hold a connection slot by trickling bytes. 0 =
    /// never.
    #[serde(default = "default_frame_timeout")]
    pub frame_timeout_ms: u64,
    /// `listeners[i].first_frame_timeout_ms`: a caller connection that has sent no frame at
    /// all for this long is closed. Above Dubbo's 60 s heartbeat interval, so a consumer that
    /// connects and waits (it sends its first heartbeat after 60 s) is never cut off; under
    /// the idle timeout. 0 = never.
    #[serde(default = "default_first_frame_timeout")]
    pub first_frame_timeout_ms: u64,
    /// `listeners[i].max_connections`: open caller connections on this listener (all
    /// workers together); one more is accepted and closed at once (and counted).
    #[serde(default = "default_max_connections")]
    pub max_connections: usize,
    /// `listeners[i].max_inflight`: calls in flight on one caller connection at which its
    /// requests stop being read (TCP pushes back on the caller); reading resumes when a
    /// quarter of them have been answered.
    #[serde(default = "default_max_inflight")]
    pub max_inflight: u32,
    /// `[listeners.tls]`: serve TLS (and mutual TLS) only; either engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<ListenerTls>,
}

impl Listener {
    /// A listener on `address` with every other setting at its default.
    pub fn new(address: impl Into<String>) -> Listener {
        Listener {
            name: default_listener_name(),
            address: address.into(),
            max_payload: DEFAULT_MAX_PAYLOAD,
            idle_timeout_ms: default_idle_timeout(),
            frame_timeout_ms: default_frame_timeout(),
            first_frame_timeout_ms: default_first_frame_timeout(),
            max_connections: default_max_connections(),
            max_inflight: default_max_inflight(),
            tls: None,
        }
    }
}

fn default_listener_name() -> String {
    "main".into()
}
fn default_idle_timeout() -> u64 {
    180_000
}
fn default_frame_timeout() -> u64 {
    10_000
}
fn default_first_frame_timeout() -> u64 {
    90_000
}
fn default_max_connections() -> usize {
    10_000
}
fn default_max_inflight() -> u32 {
    4_096
}

/// Checks every listener; returns their names (routes refer to them).
pub(super) fn validate<'a>(listeners: &'a [Listener], p: &mut Problems) -> BTreeSet<&'a str> {
    if listeners.is_empty() {
        p.bad("listeners", "at least one listener is needed");
    }
    let mut names = BTreeSet::new();
    for (i, l) in listeners.iter().enumerate() {
        let key = |k: &str| format!("listeners[{i}].{k}");
        if l.address.parse::<SocketAddr>().is_err() {
            p.bad(key("address"), "must be IP:PORT");
        }
        if !names.insert(l.name.as_str()) {
            p.bad(key("name"), "is used by another listener");
        }
        if l.max_payload == 0 {
            p.bad(key("max_payload"), "must be > 0");
        }
        if l.max_connections == 0 {
            p.bad(key("max_connections"), "must be > 0");
        }
        if l.max_inflight == 0 {
            p.bad(key("max_inflight"), "must be > 0");
        }
        if let Some(tls) = &l.tls {
            tls.validate(&key, p);
        }
    }
    names
}
