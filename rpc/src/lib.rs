//! The Dubbo RPC runtime on tokio: clients, a server and a cluster client for the Dubbo 2
//! protocol (`dubbo://`) and Triple (`tri://`, Dubbo 3's gRPC over HTTP/2), which real Java
//! Dubbo 2.7, 3.2 and 3.3, gRPC tools and curl talk to.
//!
//! The wire formats live in crates without I/O: [`dubbo_codec`] (Dubbo 2 frames and the
//! Hessian2 / fastjson2 bodies both protocols share) and `dubbo-triple` (Triple's messages,
//! status, metadata and wrappers). This crate puts them on sockets.
//!
//! # Where things are
//!
//! | you want | module |
//! |---|---|
//! | call a Dubbo 2 provider (one multiplexed connection, timeouts, heartbeats, reconnect; typed, dynamic and `$invoke` calls) | [`client`] |
//! | call a Triple provider, interface style or IDL (gRPC) | `triple_client` (feature `triple`) |
//! | serve Java consumers: services, methods, limits, graceful shutdown; Triple and HTTP/1.1 JSON on the same port with feature `triple` | [`server`] |
//! | call every provider a registry lists, load-balanced with failover | `cluster` (feature `registry`) |
//! | register a server's services (interface or application level) | `registration` (feature `registry`) |
//! | ask a Dubbo 3 application instance's MetadataService | `instance_metadata` (feature `registry`) |
//! | put tower middleware around clients or handlers | `tower` (feature `tower`) |
//!
//! # Example
//!
//! A provider and a consumer in one process, over the Dubbo 2 protocol on 127.0.0.1:
//!
//! ```
//! use std::time::Duration;
//!
//! use dubbo_codec::Request;
//! use dubbo_rpc::client::Client;
//! use dubbo_rpc::server::{Reply, Server, Service};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let greeter = Service::new("com.example.Greeter").method("sayHello", |call| async move {
//!     let (name,): (String,) = call.args()?;
//!     Reply::typed(&format!("Hello, {name}"))
//! });
//! let server = Server::builder().service(greeter).bind("127.0.0.1:0").await?;
//!
//! let client = Client::connect(server.local_addr().to_string()).await?;
//! let call = Request::builder("com.example.Greeter", "sayHello")
//!     .arg("java.lang.String", "world")
//!     .build()?;
//! let answer: String = client.call(&call).await?;
//! assert_eq!(answer, "Hello, world");
//!
//! server.shutdown(Duration::from_secs(1)).await;
//! # Ok(())
//! # }
//! ```
//!
//! # Features
//!
//! * `triple`: Dubbo 3's Triple protocol (gRPC over HTTP/2, with h2; HTTP/1.1 with JSON
//!   bodies, with hyper): the server serves it on the same port as the Dubbo protocol, IDL
//!   methods (`server::Service::grpc`) beside interface-style ones, and `triple_client` calls
//!   Triple providers.
//! * `registry`: `server::Server::register` (a server's services registered in any
//!   `dubbo_registry::Registry`, unregistered on shutdown) and the `cluster` module (a
//!   load-balanced client of every provider a registry lists, with Dubbo's cluster modes,
//!   Dubbo 3 application instances included: `instance_metadata` asks their MetadataService).
//! * `tls`: TLS and mutual TLS with rustls (module `tls`): the server on its one port, the
//!   Dubbo and Triple clients, the caller's certificate identity in each call.
//! * `tower`: the clients and the server's handlers as `tower::Service`s, for tower
//!   middleware.
//!
//! The server reports what its limits turn away as `tracing` events.
//!
//! # Semver
//!
//! The public API is what these docs show: the modules above, their public items and the
//! fields documented public, and the types of `dubbo-codec`, `dubbo-triple` and
//! `dubbo-registry` they take and return. Until 1.0 a breaking change bumps the minor version
//! (0.1 to 0.2), anything else the patch version.
//!
//! `#[non_exhaustive]` marks what may grow without a breaking release: a `match` on such an
//! enum needs a `_` arm, and such a struct (a configuration) cannot be written as a struct
//! literal, nor destructured without `..`, outside the crate: start from its `default()` (or
//! `new`) and use its chainable setters, or assign its public fields. Changes are listed in
//! `CHANGELOG.md`.
#![forbid(unsafe_code)]

/// Chainable setters of a configuration's fields: each `name: Type;` (with its doc comment)
/// becomes `pub fn name(mut self, name: Type) -> Self`, setting the field `name`.
macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident: $ty:ty;)*) => {$(
        $(#[$doc])*
        pub fn $name(mut self, $name: $ty) -> Self {
            self.$name = $name;
            self
        }
    )*};
}

pub mod client;
#[cfg(feature = "registry")]
pub mod cluster;
mod conn;
#[cfg(feature = "triple")]
mod h2_send;
pub mod identity;
#[cfg(feature = "registry")]
pub mod instance_metadata;
#[cfg(feature = "registry")]
pub mod registration;
pub mod server;
#[cfg(feature = "tls")]
pub mod tls;
#[cfg(feature = "tower")]
pub mod tower;
#[cfg(feature = "triple")]
pub mod triple_client;
