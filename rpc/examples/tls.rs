//! Mutual TLS on one port for both protocols: a server that requires client certificates
//! signed by a CA, a Dubbo client and a Triple client presenting one, and the handler seeing
//! each caller's identity (its SPIFFE ID). The certificates are made on the spot with rcgen
//! into a temporary directory; with yours, give their PEM files' paths.
//!
//! ```sh
//! cargo run -p dubbo-rpc --features tls,triple --example tls
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use dubbo_codec::Request;
use dubbo_rpc::client::{Client, ClientConfig};
use dubbo_rpc::server::{Reply, Server, Service};
use dubbo_rpc::tls::{ClientAuth, ClientTls, ServerTls};
use dubbo_rpc::triple_client::{self, TripleCall};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("dubbo-tls-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let pki = Pki::new(&dir)?;

    let greeter = Service::new("com.example.Greeter").method("whoAmI", |call| async move {
        let who = call
            .peer_identity
            .as_ref()
            .map_or("anonymous", |i| i.as_str());
        Reply::typed(&format!("Hello, {who}"))
    });
    let tls = ServerTls::builder(&pki.server.cert, &pki.server.key)
        .client_ca(&pki.ca, ClientAuth::Required)
        .build()?;
    let server = Server::builder()
        .service(greeter)
        .tls(tls)
        .bind("127.0.0.1:0")
        .await?;
    let addr = server.local_addr().to_string();
    println!("TLS server on {addr}, client certificates required");

    let client_tls = ClientTls::builder(&pki.ca)
        .identity(&pki.client.cert, &pki.client.key)
        .build()?;
    let dubbo =
        Client::connect_tls(addr.clone(), ClientConfig::default(), client_tls.clone()).await?;
    let call = Request::builder("com.example.Greeter", "whoAmI").build()?;
    let answer: String = dubbo.call(&call).await?;
    println!("Dubbo over TLS:  {answer}");

    let triple = triple_client::Client::connect_tls(&addr, Default::default(), client_tls).await?;
    let answer: String = triple
        .call(&TripleCall::new("com.example.Greeter", "whoAmI"))
        .await?;
    println!("Triple over TLS: {answer}");

    // Without a client certificate: refused at the handshake.
    let anonymous = ClientTls::builder(&pki.ca).build()?;
    let refused = Client::connect_tls(addr, ClientConfig::default(), anonymous).await;
    let refused = match refused {
        Ok(client) => client.call::<String>(&call).await.map(|_| ()),
        Err(e) => Err(e),
    };
    println!("without a client certificate: {}", refused.unwrap_err());
    println!(
        "handshake failures counted: {}",
        server.stats().tls_handshake_failed
    );

    server.shutdown(Duration::from_secs(1)).await;
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// A PEM certificate file and its key file.
struct Identity {
    cert: PathBuf,
    key: PathBuf,
}

/// A CA, a server certificate for 127.0.0.1 and a client certificate with a SPIFFE ID.
struct Pki {
    ca: PathBuf,
    server: Identity,
    client: Identity,
}

impl Pki {
    fn new(dir: &Path) -> Result<Pki, Box<dyn std::error::Error>> {
        use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair, SanType};
        let ca_key = KeyPair::generate()?;
        let mut ca = CertificateParams::new(Vec::<String>::new())?;
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca = ca.self_signed(&ca_key)?;
        let write = |name: &str, pem: String| -> std::io::Result<PathBuf> {
            let path = dir.join(name);
            std::fs::write(&path, pem)?;
            Ok(path)
        };
        let leaf = |name: &str,
                    params: CertificateParams|
         -> Result<Identity, Box<dyn std::error::Error>> {
            let key = KeyPair::generate()?;
            let cert = params.signed_by(&key, &ca, &ca_key)?;
            Ok(Identity {
                cert: write(&format!("{name}.pem"), cert.pem())?,
                key: write(&format!("{name}.key"), key.serialize_pem())?,
            })
        };
        let server = leaf(
            "server",
            CertificateParams::new(vec!["127.0.0.1".to_owned()])?,
        )?;
        let mut client = CertificateParams::new(Vec::<String>::new())?;
        let spiffe = "spiffe://example.org/ns/demo/sa/client".try_into()?;
        client.subject_alt_names.push(SanType::URI(spiffe));
        let client = leaf("client", client)?;
        Ok(Pki {
            ca: write("ca.pem", ca.pem())?,
            server,
            client,
        })
    }
}
