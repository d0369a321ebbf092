//! `[listeners.tls]` and `[clusters.NAME.tls]`: TLS (and mutual TLS) towards callers and
//! towards providers, with rustls.

use std::sync::Arc;

use dubbo_rpc::tls::{ClientAuth, ClientTls, ServerTls, TlsError};
use serde::{Deserialize, Serialize};

use super::Problems;

/// `[listeners.tls]`: the listener serves TLS only (TLS 1.2 and 1.3): a caller that does not
/// open with a TLS handshake, or whose handshake fails or takes longer than
/// `handshake_timeout_ms`, is closed, counted and logged.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ListenerTls {
    /// `listeners[i].tls.cert`: the PEM certificate chain, leaf first (Java Dubbo's
    /// `serverKeyCertChainPath`).
    pub cert: String,
    /// `listeners[i].tls.key`: the PEM private key (`serverPrivateKeyPath`).
    pub key: String,
    /// `listeners[i].tls.client_ca`: PEM CA certificates that client certificates must
    /// chain to (`serverTrustCertCollectionPath`); without it no client certificate is
    /// asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_ca: Option<String>,
    /// `listeners[i].tls.require_client_cert`: with `client_ca`, a caller without a client
    /// certificate is refused (true, the default: mutual TLS, as Java Dubbo does when given a
    /// trust collection); false serves it without an identity.
    #[serde(default = "default_require")]
    pub require_client_cert: bool,
    /// `listeners[i].tls.handshake_timeout_ms`: from accepting a connection to the end of its
    /// handshake, at most this long (> 0).
    #[serde(default = "default_handshake_timeout")]
    pub handshake_timeout_ms: u64,
    /// `listeners[i].tls.identity_attachment`: forward each caller's identity (its client
    /// certificate's URI SAN, else CN; `null` without one) to providers as this attachment,
    /// overriding what the caller sent under the name (Triple calls: as that header).
    /// Dubbo-protocol calls in Hessian2 only: on such a listener a call in another
    /// serialization is answered BAD_REQUEST.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity_attachment: Option<String>,
    /// `listeners[i].tls.max_handshakes_per_ip`: at most this many handshakes under way from
    /// one caller address at once, over all workers (> 0); a caller past it is closed at
    /// accept, counted and logged. Finished handshakes free their place.
    #[serde(default = "default_max_handshakes_per_ip")]
    pub max_handshakes_per_ip: usize,
}

fn default_max_handshakes_per_ip() -> usize {
    dubbo_rpc::tls::DEFAULT_MAX_HANDSHAKES_PER_IP
}

fn default_require() -> bool {
    true
}

fn default_handshake_timeout() -> u64 {
    10_000
}

impl ListenerTls {
    /// Reads the files into a rustls configuration (ALPN `h2` and `http/1.1` offered, as Java
    /// Dubbo's servers do: a Triple caller's HTTP/2 goes to the Triple pipeline).
    pub fn build(&self) -> Result<Arc<rustls::ServerConfig>, TlsError> {
        let mut b = ServerTls::builder(&self.cert, &self.key);
        if let Some(ca) = &self.client_ca {
            let auth = if self.require_client_cert {
                ClientAuth::Required
            } else {
                ClientAuth::Optional
            };
            b = b.client_ca(ca, auth);
        }
        Ok(b.build()?.config().clone())
    }

    pub(super) fn validate(&self, key: &dyn Fn(&str) -> String, p: &mut Problems) {
        if let Some(name) = &self.identity_attachment {
            // Triple carries attachments as headers.
            if http::HeaderName::try_from(name.to_ascii_lowercase()).is_err() {
                p.bad(
                    key("tls.identity_attachment"),
                    "must be a valid header name",
                );
            }
        }
        if self.handshake_timeout_ms == 0 {
            p.bad(key("tls.handshake_timeout_ms"), "must be > 0");
        }
        if self.max_handshakes_per_ip == 0 {
            p.bad(key("tls.max_handshakes_per_ip"), "must be > 0");
        }
        if let Err(e) = self.build() {
            p.bad(key("tls"), e.to_string());
        }
    }
}

/// `[clusters.NAME.tls]`: the proxy speaks TLS (1.2 / 1.3) to the cluster's providers,
/// verifying their certificates, and presents a client certificate when given one.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterTls {
    /// `clusters.NAME.tls.ca`: PEM CA certificates the providers' certificates must chain to
    /// (Java Dubbo's `clientTrustCertCollectionPath`).
    pub ca: String,
    /// `clusters.NAME.tls.cert`: the proxy's PEM client certificate chain, for providers that
    /// require one (`clientKeyCertChainPath`); with `key`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cert: Option<String>,
    /// `clusters.NAME.tls.key`: its PEM private key (`clientPrivateKeyPath`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// `clusters.NAME.tls.server_name`: the name the providers' certificates must be valid
    /// for, and the SNI sent (default: each endpoint's IP address).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_name: Option<String>,
}

impl ClusterTls {
    /// Reads the files into a client configuration.
    pub fn build(&self) -> Result<ClientTls, TlsError> {
        let mut b = ClientTls::builder(&self.ca);
        if let (Some(cert), Some(key)) = (&self.cert, &self.key) {
            b = b.identity(cert, key);
        }
        if let Some(name) = &self.server_name {
            b = b.server_name(name);
        }
        b.build()
    }

    pub(super) fn validate(&self, key: &dyn Fn(&str) -> String, p: &mut Problems) {
        if self.cert.is_some() != self.key.is_some() {
            p.bad(key("tls"), "cert and key go together");
        }
        if let Err(e) = self.build() {
            p.bad(key("tls"), e.to_string());
        }
    }
}
