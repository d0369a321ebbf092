//! The errors of the registry API.

use std::time::Duration;

/// Why a registry operation failed.
///
/// Each variant keeps its cause as its [`source`](std::error::Error::source), typed: a
/// [`ZookeeperError`], a [`serde_json::Error`] (with its line and column), a
/// [`registry_urlweight::ParseError`], or whatever a [`MetadataSource`] failed with.
/// `#[non_exhaustive]`: a match needs a `_` arm, and new variants may come in a minor release.
///
/// [`MetadataSource`]: crate::instance::MetadataSource
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
    #[error("bad service URL {url:?}: {source}")]
    Url {
        /// The URL.
        url: String,
        /// What is wrong with it.
        source: registry_urlweight::ParseError,
    },
    /// A provider URL for a server listening on the unspecified address (`0.0.0.0`, `::`)
    /// without an address to advertise: no consumer could connect to it.
    #[error(
        "cannot advertise {url:?}: it is the unspecified address; say which address to advertise"
    )]
    UnspecifiedAddress {
        /// The URL (or address) that would have been advertised.
        url: String,
    },
    /// Nothing from the registry within the time allowed: no session (ZooKeeper), or no first
    /// provider list.
    #[error(
        "registry {address} unreachable: nothing within {waited:?}{}",
        last_error(.source)
    )]
    Unreachable {
        /// The registry address.
        address: String,
        /// How long the caller waited.
        waited: Duration,
        /// The last error connecting, when there was one (the registry's server refused,
        /// or did not answer a connect in time).
        source: Option<ZookeeperError>,
    },
    /// The registry server refused or failed an operation.
    #[error("registry operation on {path} failed: {source}")]
    Operation {
        /// The node path (ZooKeeper) the operation was about.
        path: String,
        /// The server's (or its client's) error.
        source: ZookeeperError,
    },
    /// A [`MetadataSource`](crate::instance::MetadataSource) could not fetch an application
    /// instance's metadata.
    #[error("metadata of {instance} unavailable: {source}")]
    Metadata {
        /// The instance (`app@host:port`) or what was asked of it.
        instance: String,
        /// Why: the source's own error (a call error, a missing port...).
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An application instance, its metadata or a service definition, as the registry holds
    /// it, is unreadable.
    #[error("bad {what}: {source}")]
    Instance {
        /// What was read: `service instance`, `metadata`, `service definition`.
        what: &'static str,
        /// The JSON error ([`line`](serde_json::Error::line) and
        /// [`column`](serde_json::Error::column) tell where).
        source: serde_json::Error,
    },
    /// The registry was closed.
    #[error("registry closed")]
    Closed,
}

/// A ZooKeeper error, by its code: the server's (`KeeperException.Code`: [`NoNode`],
/// [`NodeExists`]...) or the client's ([`ConnectionLoss`], [`Timeout`]...), as
/// [`RegistryError::Operation`] and [`RegistryError::Unreachable`] carry it.
///
/// `#[non_exhaustive]`: a match needs a `_` arm.
///
/// [`NoNode`]: ZookeeperError::NoNode
/// [`NodeExists`]: ZookeeperError::NodeExists
/// [`ConnectionLoss`]: ZookeeperError::ConnectionLoss
/// [`Timeout`]: ZookeeperError::Timeout
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum ZookeeperError {
    /// The node does not exist (`NONODE`).
    #[error("no node")]
    NoNode,
    /// The node already exists (`NODEEXISTS`).
    #[error("node exists")]
    NodeExists,
    /// The node's version is not the one expected (`BADVERSION`).
    #[error("bad version")]
    BadVersion,
    /// The node has children (`NOTEMPTY`).
    #[error("node not empty")]
    NotEmpty,
    /// An ephemeral node cannot have children (`NOCHILDRENFOREPHEMERALS`).
    #[error("no children for ephemerals")]
    NoChildrenForEphemerals,
    /// Not authorized (`NOAUTH`).
    #[error("not authorized")]
    NoAuth,
    /// Invalid ACL (`INVALIDACL`).
    #[error("invalid ACL")]
    InvalidAcl,
    /// Authentication failed (`AUTHFAILED`).
    #[error("authentication failed")]
    AuthFailed,
    /// The session expired (`SESSIONEXPIRED`).
    #[error("session expired")]
    SessionExpired,
    /// The session moved to another server (`SESSIONMOVED`).
    #[error("session moved")]
    SessionMoved,
    /// A write sent to a read-only server (`NOTREADONLY`).
    #[error("server is read-only")]
    NotReadOnly,
    /// A quota exceeded (`QUOTAEXCEEDED`).
    #[error("quota exceeded")]
    QuotaExceeded,
    /// The server throttled the request (`THROTTLEDOP`).
    #[error("throttled")]
    Throttled,
    /// An operation the server does not implement (`UNIMPLEMENTED`).
    #[error("unimplemented")]
    Unimplemented,
    /// The connection to the server was lost (`CONNECTIONLOSS`).
    #[error("connection lost")]
    ConnectionLoss,
    /// No answer in time (connecting, or an operation).
    #[error("timed out")]
    Timeout,
    /// None of the servers could be reached.
    #[error("no server reachable")]
    NoHosts,
    /// The client was closed.
    #[error("client closed")]
    ClientClosed,
    /// A server error code this crate has no name for.
    #[error("error code {0}")]
    Code(i32),
    /// Another client-side failure, as the client described it.
    #[error("{0}")]
    Other(String),
}

/// `"; last error: ..."` when there is one.
fn last_error(e: &Option<ZookeeperError>) -> String {
    e.as_ref()
        .map_or_else(String::new, |e| format!("; last error: {e}"))
}
