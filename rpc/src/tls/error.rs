//! Why a TLS configuration could not be built.

use std::path::PathBuf;

/// Why a [`ServerTls`](super::ServerTls) or [`ClientTls`](super::ClientTls) could not be
/// built. Each names the file it is about.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    /// A file could not be read.
    #[error("reading {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A PEM file could not be parsed.
    #[error("parsing the PEM file {path}: {message}")]
    Pem {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        message: String,
    },
    /// A certificate file holds no `CERTIFICATE` block.
    #[error("no certificate in {0}")]
    NoCertificate(PathBuf),
    /// A key file holds no private key (PKCS#8, PKCS#1 or SEC1).
    #[error("no private key in {0}")]
    NoPrivateKey(PathBuf),
    /// rustls refused the configuration (a key that does not match its certificate, a CA
    /// certificate it cannot use, ...).
    #[error("TLS configuration: {0}")]
    Config(String),
    /// The name to verify the server's certificate against is not a DNS name or an IP
    /// address.
    #[error("invalid TLS server name {0:?}")]
    ServerName(String),
}
