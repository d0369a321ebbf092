//! Mutual TLS on one port for both protocols: a server that requires client certificates
//! signed by a CA, a Dubbo client and a Triple client presenting one, and the handler seeing
//! each caller's identity (its SPIFFE ID). The certificates are made on the spot (the test
//! PKI of `dubbo-test-support`, with rcgen); with yours, give their PEM files' paths.
//!
//! ```sh
//! cargo run -p dubbo-rpc --features tls,triple --example tls
//! ```

use std::time::Duration;

use dubbo_codec::Request;
use dubbo_rpc::client::{Client, ClientConfig};
use dubbo_rpc::server::{Reply, Server, Service};
use dubbo_rpc::tls::{ClientAuth, ClientTls, ServerTls};
use dubbo_rpc::triple_client::{self, TripleCall};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let pki = dubbo_test_support::pki::Pki::new();

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
    Ok(())
}
