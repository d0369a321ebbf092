//! `dubbo-proxy`: a Dubbo 2 (`dubbo://`) proxy that routes calls by service, method, version,
//! group and attachments without decoding their arguments, and forwards each frame as the
//! bytes that arrived with only its request id rewritten.
//!
//! * [`config`]: the TOML file and its validation.
//! * [`core`]: the sans-I/O state machines (routing, balancing, health, the request-id
//!   multiplexer, timeouts), driven by an engine with the current time.
//! * [`engine`]: the I/O engines that drive the core: tokio, and epoll (mio).
//! * [`buffer`]: the epoll engine's pooled read blocks.
//! * [`discovery`]: clusters whose endpoints are the providers registered in ZooKeeper.
//! * [`admin`]: the loopback HTTP endpoint (`/metrics`, `/healthz`, `/config`, downgrade,
//!   `/metadata`).
//! * [`memory`]: freed memory given back to the system after a burst (`malloc_trim`).
//! * [`server`]: the proxy as a library: [`server::Server`] starts, reloads and drains one.
//! * [`fd_limit`]: `RLIMIT_NOFILE` raised at start, and the caller connections it leaves.

// `unsafe` is denied (the workspace's lints) everywhere but in `buffer::read` (reads into
// uninitialised capacity) and `memory` (glibc's `malloc_trim`).

pub mod admin;
pub mod buffer;
pub mod cli;
pub mod config;
pub mod core;
pub mod discovery;
pub mod engine;
pub mod fd_limit;
pub mod memory;
pub mod server;
pub mod triple;
