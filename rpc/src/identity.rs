//! Who a caller proved to be: the identity of a mutual-TLS client certificate.

use std::fmt;
use std::sync::Arc;

/// Where in its certificate a caller's identity was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IdentityKind {
    /// A URI subject alternative name (a SPIFFE ID such as `spiffe://example.org/ns/a/sa/b`).
    UriSan,
    /// The subject's common name (CN), for certificates without a URI SAN.
    CommonName,
}

/// The identity of a caller that presented a verified client certificate: its first URI
/// SAN, else its subject CN. Cheap to clone.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PeerIdentity {
    kind: IdentityKind,
    value: Arc<str>,
}

impl PeerIdentity {
    /// An identity of `kind` with `value`.
    pub fn new(kind: IdentityKind, value: impl Into<Arc<str>>) -> PeerIdentity {
        PeerIdentity {
            kind,
            value: value.into(),
        }
    }

    /// Where it was read.
    pub fn kind(&self) -> IdentityKind {
        self.kind
    }

    /// The identity itself (the URI, or the CN).
    pub fn as_str(&self) -> &str {
        &self.value
    }
}

impl fmt::Display for PeerIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.value)
    }
}
