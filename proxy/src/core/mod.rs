//! The sans-I/O core: everything the proxy decides, with no sockets and no clock.
//!
//! One concept per module: [`sniff`] tells a connection's protocol from its first bytes,
//! [`peek`] reads routing fields from a body, [`route`] matches
//! them and [`access`] and [`rate_limit`] admit them, `dubbo_registry::balance` (shared with the Rust cluster client) and [`health`] choose an endpoint, [`inflight`] maps rewritten request
//! ids back to callers with their timeouts, [`reason`] says why the proxy answers a call
//! itself, [`identity`] forwards a TLS caller's identity, [`metrics`] counts (with
//! [`metrics_access`], [`metrics_tls`] and [`metrics_triple`]), [`outbox`] holds what waits
//! to be written on a connection and [`flow`] says when that is too much, [`fd_budget`] how
//! many callers the file descriptors allow, [`key`] names connections in the worker's tables,
//! [`shared`] holds what all workers share, and [`worker`] ties them into the state machine
//! an engine drives.

pub mod access;
pub mod fd_budget;
pub mod flow;
pub mod handshakes;
pub mod health;
pub mod identity;
pub mod inflight;
pub mod key;
pub(crate) mod label;
pub mod metrics;
pub mod metrics_access;
pub mod metrics_tls;
pub mod metrics_triple;
pub mod outbox;
pub mod peek;
pub mod rate_limit;
pub mod reason;
pub mod route;
pub mod shared;
pub mod sniff;
pub mod worker;

pub use key::{Conn, Key};
pub use shared::{Shared, Snapshot};
pub use worker::{BridgeAnswer, BridgeCall, BridgeTicket, Effect, Reason, Worker};
