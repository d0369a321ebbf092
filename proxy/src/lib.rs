//! `dubbo-proxy`: a Dubbo 2 (`dubbo://`) and Triple proxy that routes calls by service,
//! method, version, group and attachments without decoding their arguments, and forwards each
//! Dubbo frame as the bytes that arrived with only its request id rewritten (Triple streams
//! pass through undecoded; calls between the two protocols are bridged).
//!
//! * [`cli`]: the command line (`--config`, `--listen`, `--upstream`, `--admin`, `--engine`,
//!   `--workers`, `--check`).
//! * [`config`]: the TOML file and its validation.
//! * [`core`]: the sans-I/O state machines (routing, balancing, health, the request-id
//!   multiplexer, timeouts), driven by an engine with the current time.
//! * [`engine`]: the I/O engines that drive the core: tokio, and epoll (mio).
//! * [`buffer`]: the epoll engine's pooled read blocks.
//! * [`triple`]: the Triple pipeline (HTTP/2 and Triple's HTTP/1.1 form, on `h2` and hyper)
//!   and the Dubbo ⇄ Triple bridge.
//! * [`discovery`]: clusters whose endpoints are the providers registered in ZooKeeper, and
//!   the proxy as a registry member (`[registry]`).
//! * [`admin`]: the loopback HTTP endpoint (the `/` status page, `/metrics`, `/healthz`,
//!   `/config`, downgrade, `/metadata`).
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
