//! The client side: the CAs a provider's certificate must chain to, and the client's own
//! certificate for providers that require one.

use std::path::PathBuf;
use std::sync::Arc;

use rustls::pki_types::ServerName;
use rustls::ClientConfig;
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

use super::{pem, provider, TlsError, VERSIONS};

/// What a TLS client verifies and presents; built by [`ClientTls::builder`], given to
/// [`Client::connect_tls`](crate::client::Client::connect_tls) (and, with the `triple`
/// feature, the Triple client's). Cheap to clone.
#[derive(Debug, Clone)]
pub struct ClientTls {
    config: Arc<ClientConfig>,
    server_name: Option<ServerName<'static>>,
}

impl ClientTls {
    /// A builder for a client that trusts the CA certificates of the PEM file `ca` (Java
    /// Dubbo's `clientTrustCertCollectionPath`).
    pub fn builder(ca: impl Into<PathBuf>) -> ClientTlsBuilder {
        ClientTlsBuilder {
            ca: ca.into(),
            identity: None,
            server_name: None,
        }
    }

    /// A client from a rustls configuration built elsewhere; `server_name` as
    /// [`ClientTlsBuilder::server_name`].
    pub fn from_config(
        config: Arc<ClientConfig>,
        server_name: Option<&str>,
    ) -> Result<ClientTls, TlsError> {
        Ok(ClientTls {
            config,
            server_name: server_name.map(parse_name).transpose()?,
        })
    }

    /// The rustls configuration.
    pub fn config(&self) -> &Arc<ClientConfig> {
        &self.config
    }

    /// The same, offering ALPN `h2` (Triple over TLS).
    #[cfg(feature = "triple")]
    pub(crate) fn for_h2(&self) -> ClientTls {
        let mut config = ClientConfig::clone(&self.config);
        config.alpn_protocols = vec![b"h2".to_vec()];
        ClientTls {
            config: Arc::new(config),
            server_name: self.server_name.clone(),
        }
    }

    /// The name a server at `addr` (`host:port`) is verified for and sent as SNI: the
    /// configured server name, else `addr`'s host.
    pub fn server_name_for(&self, addr: &str) -> Result<ServerName<'static>, TlsError> {
        match &self.server_name {
            Some(name) => Ok(name.clone()),
            None => parse_name(host_of(addr)),
        }
    }

    /// The handshake over `tcp`, connected to `addr` (`host:port`).
    pub(crate) async fn handshake(
        &self,
        addr: &str,
        tcp: TcpStream,
    ) -> std::io::Result<TlsStream<TcpStream>> {
        let name = self
            .server_name_for(addr)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        TlsConnector::from(self.config.clone())
            .connect(name, tcp)
            .await
    }
}

/// Builds a [`ClientTls`].
#[derive(Debug, Clone)]
pub struct ClientTlsBuilder {
    ca: PathBuf,
    identity: Option<(PathBuf, PathBuf)>,
    server_name: Option<String>,
}

impl ClientTlsBuilder {
    /// Presents this certificate chain (leaf first) and private key, PEM files, to providers
    /// that ask for one (Java Dubbo's `clientKeyCertChainPath` and `clientPrivateKeyPath`).
    pub fn identity(mut self, cert_chain: impl Into<PathBuf>, key: impl Into<PathBuf>) -> Self {
        self.identity = Some((cert_chain.into(), key.into()));
        self
    }

    /// The DNS name (or IP address) the provider's certificate must be valid for, and the
    /// SNI sent (default: the host of the address connected to).
    pub fn server_name(mut self, name: impl Into<String>) -> Self {
        self.server_name = Some(name.into());
        self
    }

    /// Reads the files and builds the configuration: TLS 1.2 and 1.3.
    pub fn build(self) -> Result<ClientTls, TlsError> {
        let roots = pem::roots(&self.ca)?;
        let builder = ClientConfig::builder_with_provider(provider())
            .with_protocol_versions(VERSIONS)
            .map_err(|e| TlsError::Config(e.to_string()))?
            .with_root_certificates(roots);
        let config = match &self.identity {
            Some((chain, key)) => builder
                .with_client_auth_cert(pem::certificates(chain)?, pem::private_key(key)?)
                .map_err(|e| TlsError::Config(e.to_string()))?,
            None => builder.with_no_client_auth(),
        };
        ClientTls::from_config(Arc::new(config), self.server_name.as_deref())
    }
}

fn parse_name(name: &str) -> Result<ServerName<'static>, TlsError> {
    ServerName::try_from(name.to_owned()).map_err(|_| TlsError::ServerName(name.to_owned()))
}

/// The host of `host:port` (`[::1]:20880` gives `::1`).
fn host_of(addr: &str) -> &str {
    let host = addr.rsplit_once(':').map_or(addr, |(host, _)| host);
    host.strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host)
}

#[cfg(test)]
mod tests {
    use super::host_of;

    #[test]
    fn host_of_addresses() {
        assert_eq!(host_of("127.0.0.1:20880"), "127.0.0.1");
        assert_eq!(host_of("[::1]:20880"), "::1");
        assert_eq!(host_of("provider.example:50051"), "provider.example");
        assert_eq!(host_of("provider.example"), "provider.example");
    }
}
