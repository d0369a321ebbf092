//! TLS and mutual TLS (feature `tls`), with rustls and its `ring` provider: no OpenSSL.
//!
//! * A server given a [`ServerTls`] ([`ServerBuilder::tls`](crate::server::ServerBuilder::tls))
//!   serves TLS only, on its one port: the Dubbo protocol, Triple over HTTP/2 (ALPN `h2`) and
//!   Triple's HTTP/1.1 form, told apart after the handshake as on a plain port. A caller
//!   whose first byte is not a TLS handshake record, or whose handshake fails or does not
//!   finish within [`ServerTlsBuilder::handshake_timeout`], or that comes while its address
//!   has [`ServerTlsBuilder::max_handshakes_per_ip`] under way, is closed, counted in
//!   [`ServerStats`](crate::server::ServerStats) and logged (`tracing`, with its address);
//!   the other callers go on. A plain server closes a caller that opens with a TLS
//!   handshake the same way.
//! * With a client CA ([`ServerTlsBuilder::client_ca`]) the server verifies client
//!   certificates, and each call of a caller that presented one carries its identity
//!   ([`PeerIdentity`](crate::identity::PeerIdentity): the first URI SAN, such as a SPIFFE
//!   ID, else the subject CN) in `Call::peer_identity` and its streaming and IDL twins.
//! * [`ClientTls`] is the client side, for [`Client::connect_tls`](crate::client::Client::connect_tls)
//!   and (feature `triple`) the Triple client's `connect_tls`, which offers ALPN `h2`.
//!
//! Only TLS 1.2 and 1.3 are spoken. Certificates and keys are PEM files, under the names of
//! Java Dubbo's `SslConfig` keys.
//!
//! ```no_run
//! use dubbo_rpc::server::Server;
//! use dubbo_rpc::tls::{ClientAuth, ServerTls};
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let tls = ServerTls::builder("server.pem", "server.key")
//!     .client_ca("ca.pem", ClientAuth::Required)
//!     .build()?;
//! let server = Server::builder().tls(tls).bind("127.0.0.1:20880").await?;
//! # Ok(()) }
//! ```

mod client;
mod error;
mod peer;
mod pem;
mod server;

use std::sync::Arc;

pub use self::client::{ClientTls, ClientTlsBuilder};
pub use self::error::TlsError;
pub use self::peer::peer_identity;
pub use self::server::{
    ClientAuth, ServerTls, ServerTlsBuilder, DEFAULT_HANDSHAKE_TIMEOUT,
    DEFAULT_MAX_HANDSHAKES_PER_IP,
};

/// TLS 1.3 and 1.2, nothing older.
const VERSIONS: &[&rustls::SupportedProtocolVersion] =
    &[&rustls::version::TLS13, &rustls::version::TLS12];

/// The `ring` provider, named rather than the process default, so that another crate
/// enabling a second provider cannot make building a configuration panic.
fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}
