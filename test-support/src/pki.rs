//! Certificates for the TLS tests, made at run time with rcgen (no private key is committed):
//! a CA, a server certificate for `localhost` and 127.0.0.1, client certificates (with a
//! SPIFFE ID, with a CN only, from another CA, self-signed, expired), each a PEM certificate
//! file and a PEM key file in a temporary directory removed when the [`Pki`] drops.

use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, Certificate, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose, SanType,
};

/// The URI SAN of [`Pki::client`].
pub const CLIENT_SPIFFE_ID: &str = "spiffe://test.example/ns/demo/sa/client";
/// The subject CN of [`Pki::cn_client`] (it has no URI SAN).
pub const CN_CLIENT: &str = "cn-only-client";

/// A certificate file and its key file.
#[derive(Debug, Clone)]
pub struct Identity {
    /// The PEM certificate.
    pub cert: PathBuf,
    /// The PEM private key (PKCS#8).
    pub key: PathBuf,
}

/// The test CA and its certificates.
#[derive(Debug)]
pub struct Pki {
    dir: tempfile::TempDir,
    /// The CA certificate (PEM): what servers trust for client certificates and clients
    /// trust for servers.
    pub ca: PathBuf,
    /// Another CA's certificate, which signed nothing the servers present.
    pub other_ca: PathBuf,
    /// The server: `localhost` and 127.0.0.1, signed by the CA.
    pub server: Identity,
    /// A client with the URI SAN [`CLIENT_SPIFFE_ID`] (and a CN), signed by the CA.
    pub client: Identity,
    /// A client with the CN [`CN_CLIENT`] only, signed by the CA.
    pub cn_client: Identity,
    /// A client signed by the other CA.
    pub foreign_client: Identity,
    /// A self-signed client.
    pub self_signed_client: Identity,
    /// A client signed by the CA whose validity ended in 2021.
    pub expired_client: Identity,
}

struct Ca {
    cert: Certificate,
    key: KeyPair,
}

impl Pki {
    /// Makes them all (a few milliseconds).
    pub fn new() -> Pki {
        let dir = tempfile::Builder::new()
            .prefix("dubbo-pki")
            .tempdir()
            .expect("a temporary directory");
        let root = dir.path();
        let ca = new_ca("Test CA");
        let other = new_ca("Other CA");
        let write = |name: &str, text: String| {
            let path = root.join(name);
            std::fs::write(&path, text).expect("write a PEM file");
            path
        };
        let leaf = |name: &str, params: CertificateParams, by: Option<&Ca>| {
            let key = KeyPair::generate().expect("a key");
            let cert = match by {
                Some(ca) => params.signed_by(&key, &ca.cert, &ca.key),
                None => params.self_signed(&key),
            }
            .expect("a certificate");
            Identity {
                cert: write(&format!("{name}.pem"), cert.pem()),
                key: write(&format!("{name}.key"), key.serialize_pem()),
            }
        };
        let mut server = CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
        server
            .subject_alt_names
            .push(SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST)));
        server
            .distinguished_name
            .push(DnType::CommonName, "localhost");
        server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let server = leaf("server", server, Some(&ca));
        let client = leaf(
            "client",
            client_params(Some(CLIENT_SPIFFE_ID), "client"),
            Some(&ca),
        );
        let cn_client = leaf("cn-client", client_params(None, CN_CLIENT), Some(&ca));
        let foreign_client = leaf(
            "foreign",
            client_params(Some(CLIENT_SPIFFE_ID), "foreign"),
            Some(&other),
        );
        let self_signed_client = leaf(
            "self-signed",
            client_params(Some(CLIENT_SPIFFE_ID), "self"),
            None,
        );
        let mut expired = client_params(Some(CLIENT_SPIFFE_ID), "expired");
        expired.not_before = rcgen::date_time_ymd(2020, 1, 1);
        expired.not_after = rcgen::date_time_ymd(2021, 1, 1);
        let expired_client = leaf("expired", expired, Some(&ca));
        Pki {
            ca: write("ca.pem", ca.cert.pem()),
            other_ca: write("other-ca.pem", other.cert.pem()),
            dir,
            server,
            client,
            cn_client,
            foreign_client,
            self_signed_client,
            expired_client,
        }
    }

    /// The directory the files are in.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

impl Default for Pki {
    fn default() -> Self {
        Pki::new()
    }
}

fn new_ca(name: &str) -> Ca {
    let key = KeyPair::generate().expect("a key");
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let cert = params.self_signed(&key).expect("a CA certificate");
    Ca { cert, key }
}

fn client_params(uri: Option<&str>, cn: &str) -> CertificateParams {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    if let Some(uri) = uri {
        params
            .subject_alt_names
            .push(SanType::URI(uri.try_into().expect("an IA5 URI")));
    }
    params.distinguished_name.push(DnType::CommonName, cn);
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    params
}
