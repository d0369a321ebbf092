//! The server side: its certificate, and the client certificates it asks for.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rustls::server::WebPkiClientVerifier;
use rustls::ServerConfig;

use super::{pem, provider, TlsError, VERSIONS};

/// Default of [`ServerTlsBuilder::handshake_timeout`].
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Default of [`ServerTlsBuilder::max_handshakes_per_ip`].
pub const DEFAULT_MAX_HANDSHAKES_PER_IP: usize = 64;

/// Whether a TLS server asks its callers for a certificate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ClientAuth {
    /// No client certificate asked for (plain TLS).
    #[default]
    None,
    /// A client certificate signed by the client CA is asked for; a caller without one is
    /// served without an identity, one with a certificate the CA did not sign is refused.
    Optional,
    /// Mutual TLS: a caller without a certificate signed by the client CA is refused.
    Required,
}

/// What a TLS server presents and verifies; built by [`ServerTls::builder`], given to
/// [`ServerBuilder::tls`](crate::server::ServerBuilder::tls). Cheap to clone.
#[derive(Debug, Clone)]
pub struct ServerTls {
    config: Arc<ServerConfig>,
    handshake_timeout: Duration,
    max_handshakes_per_ip: usize,
}

impl ServerTls {
    /// A builder for a server whose certificate chain (leaf first) and private key are the
    /// PEM files `cert_chain` and `key`, the keys Java Dubbo calls `serverKeyCertChainPath`
    /// and `serverPrivateKeyPath`.
    pub fn builder(cert_chain: impl Into<PathBuf>, key: impl Into<PathBuf>) -> ServerTlsBuilder {
        ServerTlsBuilder {
            cert_chain: cert_chain.into(),
            key: key.into(),
            client_ca: None,
            client_auth: ClientAuth::None,
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
            max_handshakes_per_ip: DEFAULT_MAX_HANDSHAKES_PER_IP,
        }
    }

    /// A server from a rustls configuration built elsewhere (certificates from memory, a
    /// certificate resolver, other ALPN values); the server serves HTTP/2 on the connections
    /// that negotiate ALPN `h2`.
    pub fn from_config(config: Arc<ServerConfig>, handshake_timeout: Duration) -> ServerTls {
        ServerTls {
            config,
            handshake_timeout,
            max_handshakes_per_ip: DEFAULT_MAX_HANDSHAKES_PER_IP,
        }
    }

    /// The rustls configuration.
    pub fn config(&self) -> &Arc<ServerConfig> {
        &self.config
    }

    /// How long a caller has from connecting to finishing its handshake.
    pub fn handshake_timeout(&self) -> Duration {
        self.handshake_timeout
    }

    /// Handshakes under way at once from one IP address, at most.
    pub fn max_handshakes_per_ip(&self) -> usize {
        self.max_handshakes_per_ip
    }
}

/// Builds a [`ServerTls`].
#[derive(Debug, Clone)]
pub struct ServerTlsBuilder {
    cert_chain: PathBuf,
    key: PathBuf,
    client_ca: Option<PathBuf>,
    client_auth: ClientAuth,
    handshake_timeout: Duration,
    max_handshakes_per_ip: usize,
}

impl ServerTlsBuilder {
    /// Verifies client certificates against the CA certificates of this PEM file (Java
    /// Dubbo's `serverTrustCertCollectionPath`), asking for them as `auth` says.
    pub fn client_ca(mut self, ca: impl Into<PathBuf>, auth: ClientAuth) -> Self {
        self.client_ca = Some(ca.into());
        self.client_auth = auth;
        self
    }

    /// How long a caller has from connecting to finishing its handshake (default 10 s; zero
    /// is taken as one millisecond): a caller that starts one and stops is cut then.
    pub fn handshake_timeout(mut self, timeout: Duration) -> Self {
        self.handshake_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// Handshakes under way at once from one IP address (default 64; zero is taken as one):
    /// a connection past it is closed at once, before any cryptography, so that a flood of
    /// handshakes from one address takes neither CPU nor more than that many connection
    /// slots, and callers from other addresses go on.
    pub fn max_handshakes_per_ip(mut self, max: usize) -> Self {
        self.max_handshakes_per_ip = max.max(1);
        self
    }

    /// Reads the files and builds the configuration: TLS 1.2 and 1.3, ALPN `h2` and
    /// `http/1.1` offered (as Java Dubbo's servers offer them; a Dubbo-protocol caller offers
    /// none).
    pub fn build(self) -> Result<ServerTls, TlsError> {
        let chain = pem::certificates(&self.cert_chain)?;
        let key = pem::private_key(&self.key)?;
        let builder = ServerConfig::builder_with_provider(provider())
            .with_protocol_versions(VERSIONS)
            .map_err(config_error)?;
        let builder = match (&self.client_ca, self.client_auth) {
            (Some(ca), auth @ (ClientAuth::Optional | ClientAuth::Required)) => {
                builder.with_client_cert_verifier(client_verifier(ca, auth)?)
            }
            _ => builder.with_no_client_auth(),
        };
        let mut config = builder.with_single_cert(chain, key).map_err(config_error)?;
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(ServerTls {
            config: Arc::new(config),
            handshake_timeout: self.handshake_timeout,
            max_handshakes_per_ip: self.max_handshakes_per_ip,
        })
    }
}

fn client_verifier(
    ca: &Path,
    auth: ClientAuth,
) -> Result<Arc<dyn rustls::server::danger::ClientCertVerifier>, TlsError> {
    let roots = Arc::new(pem::roots(ca)?);
    let builder = WebPkiClientVerifier::builder_with_provider(roots, provider());
    let builder = if auth == ClientAuth::Optional {
        builder.allow_unauthenticated()
    } else {
        builder
    };
    builder.build().map_err(config_error)
}

fn config_error(e: impl std::fmt::Display) -> TlsError {
    TlsError::Config(e.to_string())
}
