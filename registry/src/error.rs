//! The errors of the registry API.

/// Why a registry operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// The registry address is not one this crate can use (`zookeeper://HOST:PORT`).
    #[error("bad registry address {address:?}: {reason}")]
    Address {
        /// The address as given.
        address: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A URL to register is not a Dubbo URL (`protocol://host:port/path?...`).
    #[error("bad service URL {url:?}: {reason}")]
    Url {
        /// The URL.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No session with the registry within the time allowed.
    #[error("registry {address} unreachable: {reason}")]
    Unreachable {
        /// The registry address.
        address: String,
        /// The last connect error, or a timeout.
        reason: String,
    },
    /// The registry server refused or failed an operation.
    #[error("registry operation on {path} failed: {reason}")]
    Operation {
        /// The node path (ZooKeeper) or key the operation was about.
        path: String,
        /// The server's error.
        reason: String,
    },
    /// An application instance (or its metadata) as the registry holds it is unreadable.
    #[error("bad service instance: {reason}")]
    Instance {
        /// What is wrong with it (with the line and column of the JSON).
        reason: String,
    },
    /// The registry was closed.
    #[error("registry closed")]
    Closed,
}
