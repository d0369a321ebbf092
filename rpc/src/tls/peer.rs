//! The identity in a verified client certificate.

use rustls::pki_types::CertificateDer;
use x509_parser::extensions::GeneralName;

use crate::identity::{IdentityKind, PeerIdentity};

/// The identity of the leaf certificate of a chain rustls verified (a connection's
/// `peer_certificates()`): its first URI SAN (a SPIFFE ID), else its subject CN; `None` for
/// no chain, or a certificate with neither (or that does not parse, which rustls would have
/// refused already).
pub fn peer_identity(chain: Option<&[CertificateDer<'_>]>) -> Option<PeerIdentity> {
    let leaf = chain?.first()?;
    let (_, cert) = x509_parser::parse_x509_certificate(leaf.as_ref()).ok()?;
    if let Ok(Some(san)) = cert.subject_alternative_name() {
        let uri = san.value.general_names.iter().find_map(|n| match n {
            GeneralName::URI(uri) => Some(*uri),
            _ => None,
        });
        if let Some(uri) = uri {
            return Some(PeerIdentity::new(IdentityKind::UriSan, uri));
        }
    }
    let cn = cert.subject().iter_common_name().next()?.as_str().ok()?;
    Some(PeerIdentity::new(IdentityKind::CommonName, cn))
}
