//! Error types.

/// Why a string is not a Dubbo URL; see [`DubboUrl::parse`](crate::DubboUrl::parse).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// There is no `://` before the query, or nothing before it.
    #[error("not a URL: no `protocol://` prefix")]
    MissingProtocol,
    /// A `[` opens an IPv6 host that no `]` closes, or something other than `:port` follows the
    /// `]`.
    #[error("malformed bracketed IPv6 host")]
    InvalidIpv6Host,
    /// The text after the host's last `:` is not a port number (0..=65535).
    #[error("invalid port {0:?}")]
    InvalidPort(String),
}

/// Why [`set_param`](crate::set_param) refused a key or value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParamError {
    /// The key is empty or contains `&` or `=`, so no parameter could have it.
    #[error("invalid parameter key {0:?}: it must be non-empty and contain neither '&' nor '='")]
    InvalidKey(String),
    /// The value contains `&`, which would end it early; percent-encode it
    /// ([`encode_component`](crate::encode_component)) first.
    #[error("invalid parameter value {0:?}: it must not contain '&'")]
    InvalidValue(String),
}

/// Why a ZooKeeper path is not a registry node; see
/// [`RegistryNode::parse`](crate::zk::RegistryNode::parse).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NodePathError {
    /// The path does not have the shape `/<root>/<service>/<category>/<node>` with non-empty
    /// parts.
    #[error("not a registry node path (expected /<root>/<service>/<category>/<node>): {0:?}")]
    Shape(String),
}
