//! Certificates and keys from PEM files.

use std::path::Path;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::RootCertStore;

use super::TlsError;

fn read(path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|source| TlsError::Read {
        path: path.to_owned(),
        source,
    })
}

fn pem_error(path: &Path, e: impl std::fmt::Display) -> TlsError {
    TlsError::Pem {
        path: path.to_owned(),
        message: e.to_string(),
    }
}

/// Every certificate of a PEM file, in order (a chain: the leaf first). At least one.
pub(super) fn certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let bytes = read(path)?;
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| pem_error(path, e))?;
    if certs.is_empty() {
        return Err(TlsError::NoCertificate(path.to_owned()));
    }
    Ok(certs)
}

/// The first private key of a PEM file.
pub(super) fn private_key(path: &Path) -> Result<PrivateKeyDer<'static>, TlsError> {
    let bytes = read(path)?;
    PrivateKeyDer::from_pem_slice(&bytes).map_err(|e| match e {
        rustls::pki_types::pem::Error::NoItemsFound => TlsError::NoPrivateKey(path.to_owned()),
        e => pem_error(path, e),
    })
}

/// The CA certificates of a PEM file, as trust anchors.
pub(super) fn roots(path: &Path) -> Result<RootCertStore, TlsError> {
    let mut roots = RootCertStore::empty();
    for cert in certificates(path)? {
        roots
            .add(cert)
            .map_err(|e| TlsError::Config(format!("CA certificate in {}: {e}", path.display())))?;
    }
    Ok(roots)
}
