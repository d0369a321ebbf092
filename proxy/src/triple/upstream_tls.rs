//! TLS to a cluster's providers for the Triple pipeline (`[clusters.NAME.tls]`): the same
//! settings the Dubbo engines' provider connections use, offered with the ALPN protocol each
//! of the pipeline's connections speaks. A Triple provider (Java's Netty, gRPC servers) picks
//! HTTP/2 only when the client offers `h2`, so a connection for Triple's HTTP/2 offers `h2`,
//! one for its HTTP/1.1 form `http/1.1`, and a bridged call's Dubbo connection nothing.

use std::net::SocketAddr;
use std::sync::Arc;

use dubbo_rpc::tls::ClientTls;
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

use crate::config::ClusterTls;

/// One TLS cluster's client side, read from its files once per configuration generation.
pub struct UpstreamTls {
    /// As configured: what dubbo-rpc's client of bridged Dubbo calls takes.
    dubbo: ClientTls,
    /// Offering ALPN `h2`.
    h2: TlsConnector,
    /// Offering ALPN `http/1.1`.
    http1: TlsConnector,
}

/// Which of the pipeline's connections a handshake is for.
#[derive(Debug, Clone, Copy)]
pub enum Alpn {
    /// Triple over HTTP/2.
    H2,
    /// Triple's HTTP/1.1 form.
    Http1,
}

impl UpstreamTls {
    /// Reads `config`'s files; `Err` says why they are unusable (no connection is then made:
    /// plain text to a provider configured for TLS would be worse).
    pub fn read(config: &ClusterTls) -> Result<UpstreamTls, String> {
        let dubbo = config.build().map_err(|e| e.to_string())?;
        let offering = |protocol: &[u8]| {
            let mut c = rustls::ClientConfig::clone(dubbo.config());
            c.alpn_protocols = vec![protocol.to_vec()];
            TlsConnector::from(Arc::new(c))
        };
        Ok(UpstreamTls {
            h2: offering(b"h2"),
            http1: offering(b"http/1.1"),
            dubbo,
        })
    }

    /// The settings for a bridged call's Dubbo connection.
    pub fn dubbo(&self) -> &ClientTls {
        &self.dubbo
    }

    /// The handshake with the provider at `addr` over `tcp`, offering `alpn`; the provider's
    /// certificate is verified for the configured `server_name`, else for `addr`'s IP.
    pub async fn handshake(
        &self,
        addr: SocketAddr,
        tcp: TcpStream,
        alpn: Alpn,
    ) -> std::io::Result<TlsStream<TcpStream>> {
        let name = self
            .dubbo
            .server_name_for(&addr.to_string())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        let connector = match alpn {
            Alpn::H2 => &self.h2,
            Alpn::Http1 => &self.http1,
        };
        connector.connect(name, tcp).await
    }
}
