//! Dubbo service discovery: providers register, consumers follow them and balance calls.
//!
//! - [`Registry`]: the trait every registry implements: register and unregister a provider or
//!   consumer URL, [`subscribe`](Registry::subscribe) to an interface's providers (a
//!   [`Subscription`] yields the whole list on every change), list services and providers.
//!   [`connect()`] opens one from its address (`zookeeper://HOST:PORT`).
//! - [`zookeeper`] (feature `zookeeper`, on by default): the registry as Java Dubbo 2.7 and 3.x
//!   use it: `/<root>/<interface>/providers/<URL-encoded URL>` ephemeral nodes, re-registered
//!   in a new session after an expiry, watched, with empty protection; and Dubbo 3's
//!   application-level discovery ([`Registry::subscribe_with_instances`]: `/dubbo/mapping`,
//!   `/services/<app>`).
//! - [`instance`]: Dubbo 3 service instances and their `MetadataInfo`, turned into provider
//!   URLs; [`instance::MetadataSource`], the hook that fetches an instance's metadata
//!   (`dubbo-rpc`'s `instance_metadata::MetadataServiceSource` calls its MetadataService).
//! - [`definition`]: the service definitions (methods with their Java parameter and return
//!   types) Java providers publish in a metadata report, [`Registry::service_definition`].
//! - [`ServiceUrl`]: Dubbo URLs, written as Java writes them (parameters sorted by key: a
//!   provider's `application`, `deprecated`, `dubbo`, `dynamic`, `generic`, `interface`,
//!   `methods`, `pid`, `prefer.serialization`, `release`, `serialization`, `side`,
//!   `timestamp`, and `version`, `group`, `weight`... when given) and read through
//!   `registry-urlweight`.
//! - [`select`]: which providers a caller takes (version, group, methods, `enabled`) and their
//!   weights (data-centre factor, Dubbo's warm-up).
//! - [`balance`]: Dubbo's load balancers (random, round-robin, least-active, consistent-hash)
//!   and the proxy's least-request, shared by `dubbo-rpc`'s cluster client and `dubbo-proxy`.
//!
//! ```
//! use dubbo_registry::balance::{Balancer, Policy};
//! use dubbo_registry::select::Selector;
//! use dubbo_registry::ServiceUrl;
//!
//! // Two providers as they would be registered; one in data centre "hz" counting double.
//! let a = ServiceUrl::provider("demo.Greeter", "127.0.0.1:20880".parse()?, "demo")
//!     .version("1.0.0")
//!     .methods(&["sayHello"])
//!     .param("idc", "hz")
//!     .param("warmup", "0")
//!     .build();
//! let b = ServiceUrl::provider("demo.Greeter", "127.0.0.1:20881".parse()?, "demo")
//!     .version("1.0.0")
//!     .methods(&["sayHello"])
//!     .param("warmup", "0")
//!     .build();
//! assert!(a.as_str().starts_with("dubbo://127.0.0.1:20880/demo.Greeter?application=demo&"));
//!
//! let mut selector = Selector::new(Some("1.0.0"), None);
//! selector.idc_weights.insert("hz".into(), 2);
//! let sel = selector.select(&[a, b], 0);
//! let weights: Vec<u32> = sel.endpoints.iter().map(|e| e.weight).collect();
//! assert_eq!(weights, [200, 100]);
//!
//! // Smooth weighted round-robin over them.
//! let mut lb = Balancer::new(Policy::RoundRobin, weights.len(), 0);
//! let picks: Vec<usize> = (0..3).map(|_| lb.pick(&weights, |_| true, |_| 0).unwrap()).collect();
//! assert_eq!(picks, [0, 1, 0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Semver
//!
//! The public API is what these docs show. [`RegistryError`]'s sources are part of it:
//! [`ZookeeperError`], `serde_json::Error` and `registry_urlweight::ParseError`. The errors of
//! the ZooKeeper client this crate uses are not (they are mapped to [`ZookeeperError`]); its
//! `SessionInfo`, which `ZookeeperRegistry::session` returns for diagnostics, is. The data
//! records read from a registry ([`instance::ServiceInstance`], [`instance::MetadataInfo`],
//! [`definition::ServiceDefinition`], [`definition::DefinitionKey`]...) mirror Java's and are
//! built and matched whole. Until 1.0 a breaking change bumps the minor version (0.1 to 0.2),
//! anything else the patch version.
//!
//! `#[non_exhaustive]` marks what may grow without a breaking release: a `match` on such an
//! enum needs a `_` arm, and such a struct (a configuration) cannot be written as a struct
//! literal, nor destructured without `..`, outside the crate: start from its `default()` (or
//! `new`) and use its chainable setters, or assign its public fields. Changes are listed in
//! `CHANGELOG.md`.
#![forbid(unsafe_code)]

pub mod balance;
mod connect;
pub mod definition;
mod error;
mod future;
pub mod instance;
mod registry;
pub mod select;
mod url;
#[cfg(feature = "zookeeper")]
pub mod zookeeper;

pub use connect::connect;
pub use error::{RegistryError, ZookeeperError};
pub use future::RegistryFuture;
pub use registry::{Providers, Registry, Subscription};
pub use url::{ServiceUrl, Side, UrlBuilder, COMPATIBLE_RELEASE, DUBBO_PROTOCOL_VERSION};
