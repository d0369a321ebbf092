//! `dubbo-proxy`: a Dubbo 2 (`dubbo://`) and Triple proxy that routes calls by service,
//! method, version, group and attachments without decoding their arguments, and forwards each
//! Dubbo frame as the bytes that arrived with only its request id rewritten (Triple streams
//! pass through undecoded; calls between the two protocols are bridged).
//!
//! It is a binary (`dubbo-proxy --help`) and a library for a program that runs the proxy in
//! its own process:
//!
//! ```no_run
//! # async fn example() -> std::io::Result<()> {
//! use dubbo_proxy::config::Config;
//! use dubbo_proxy::Server;
//!
//! let config = Config::from_toml(
//!     "[[listeners]]\naddress = \"127.0.0.1:0\"\n\
//!      [[routes]]\ncluster = \"demo\"\n\
//!      [clusters.demo]\nendpoints = [{ address = \"127.0.0.1:20880\" }]\n",
//! )
//! .expect("a valid configuration");
//! let proxy = Server::start(config).await?;
//! println!("listening on {:?}", proxy.listen_addrs());
//! // ... later, a new configuration: in force once the clusters it adds are discovered.
//! // proxy.reload(new_config).await;
//! proxy.shutdown().await; // out of the registry, drained, workers joined
//! # Ok(())
//! # }
//! ```
//!
//! # The public surface
//!
//! * [`Server`]: starts, reloads and drains one proxy.
//! * [`config`]: the configuration ([`config::Config`], read from TOML or built field by
//!   field), its validation and its errors ([`config::ConfigError`]).
//! * [`cli`]: the binary's command line ([`cli::Args`]), for a program that takes the same
//!   arguments.
//! * [`raise_fd_limit`] and [`pin_malloc_thresholds`]: what the binary does to its process
//!   before it starts a server (a library does not change its host process's limits or
//!   allocator on its own).
//!
//! Those follow semantic versioning. Everything else (the sans-I/O core, the engines, the
//! Triple pipeline, discovery, the admin endpoint) is private to the crate; the workspace's
//! fuzz targets and benches reach into it through the `internals` feature, which is **not**
//! covered by semantic versioning and may change in any release.
//!
//! # Inside
//!
//! * `core`: the sans-I/O state machines (routing, balancing, health, the request-id
//!   multiplexer, timeouts), driven by an engine with the current time.
//! * `engine`: the I/O engines that drive the core: tokio, and epoll (mio); `buffer`: the
//!   epoll engine's pooled read blocks.
//! * `triple`: the Triple pipeline (HTTP/2 and Triple's HTTP/1.1 form, on `h2` and hyper)
//!   and the Dubbo ⇄ Triple bridge.
//! * `discovery`: clusters whose endpoints are the providers registered in ZooKeeper, and
//!   the proxy as a registry member (`[registry]`).
//! * `admin`: the loopback HTTP endpoint (the `/` status page, `/metrics`, `/healthz`,
//!   `/config`, downgrade, `/metadata`).
//! * `memory`: freed memory given back to the system after a burst (`malloc_trim`).
//! * `fd_limit`: `RLIMIT_NOFILE` and the caller connections it leaves.

// `unsafe` is denied (the workspace's lints) everywhere but in `buffer::read` (reads into
// uninitialised capacity) and `memory` (glibc's `malloc_trim`).

mod admin;
mod buffer;
pub mod cli;
pub mod config;
mod core;
mod discovery;
mod engine;
mod fd_limit;
mod memory;
mod server;
mod threads;
mod tls_watch;
mod triple;

pub use fd_limit::raise_soft_limit as raise_fd_limit;
pub use memory::pin_thresholds as pin_malloc_thresholds;
pub use server::Server;

/// The crate's insides, for the workspace's fuzz targets and benches (and the proxy's own
/// tests): **not covered by semantic versioning**; any release may change or remove them.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals {
    pub use crate::admin::request::{parse_head, MAX_BODY, MAX_HEAD};
    pub use crate::buffer::read::{read_into, read_zeroed};
    pub use crate::core::metrics::Registry;
    pub use crate::core::{BridgeAnswer, Conn, Effect, Key, Shared, Worker};
    pub use crate::engine::{bind, start, Bound, EngineHandle};
    pub use crate::triple::from_dubbo::{dubbo_answer, triple_request, TripleAnswer};
    pub use crate::triple::to_dubbo::{dubbo_request, triple_answer, Answer};
}
