//! TLS against Java Dubbo 3.3.6 on 127.0.0.1, Java's TLS configured as a Java application
//! configures it (the `dubbo.ssl.*` keys of its `SslConfig`, here as system properties), the
//! certificates made at run time: our Dubbo and Triple clients against Java providers that
//! require client certificates.
//!
//! Java consumers over TLS (3.3.6 needs Netty's `NETTY_NO_HOSTNAME_CHECK` property) are in
//! the proxy's `tests/java_tls.rs`.

mod common;

use common::triple::demo;
use common::*;
use dubbo_rpc::client::{Client, ClientConfig};
use dubbo_rpc::tls::ClientTls;
use dubbo_rpc::triple_client::{Client as TripleClient, ClientConfig as TripleConfig};
use dubbo_test_support::java::provider_tls;
use dubbo_test_support::pki::Pki;
use dubbo_test_support::LogDir;

const LOGS: LogDir = LogDir("dubbo-rpc-java-tls");

fn start_provider(pki: &Pki, args: &[&str], name: &str) -> Option<Provider> {
    let mut b = Provider::builder("dubbo33").args(args).log(LOGS, name);
    for a in provider_tls(pki) {
        b = b.jvm_arg(&a);
    }
    b.start()
}

/// A cold JVM takes seconds over its first handshakes.
fn patient() -> ClientConfig {
    ClientConfig::default()
        .connect_timeout(std::time::Duration::from_secs(30))
        .timeout(std::time::Duration::from_secs(30))
}

fn client_tls(pki: &Pki, with_cert: bool) -> ClientTls {
    let b = ClientTls::builder(&pki.ca);
    let b = if with_cert {
        b.identity(&pki.client.cert, &pki.client.key)
    } else {
        b
    };
    b.build().unwrap()
}

fn say_hello() -> dubbo_codec::Request {
    req("sayHello")
        .arg("java.lang.String", "world")
        .build()
        .unwrap()
}

#[tokio::test]
async fn our_dubbo_client_against_a_java_3_3_mtls_provider() {
    let pki = Pki::new();
    let Some(p) = start_provider(&pki, &[], "dubbo") else {
        return;
    };
    let client = Client::connect_tls(p.addr(), patient(), client_tls(&pki, true))
        .await
        .unwrap();
    let greeting: String = client.call(&say_hello()).await.unwrap();
    assert_eq!(greeting, "Hello, world");
    // Without a client certificate Java's handshake fails: no answer.
    let anonymous = async {
        let c =
            Client::connect_tls(p.addr(), ClientConfig::default(), client_tls(&pki, false)).await?;
        c.call::<String>(&say_hello()).await
    };
    assert!(anonymous.await.is_err());
}

#[tokio::test]
async fn our_triple_client_against_a_java_3_3_mtls_triple_provider() {
    let pki = Pki::new();
    let args = ["--protocol", "tri", "--serialization", "hessian2"];
    let Some(p) = start_provider(&pki, &args, "tri") else {
        return;
    };
    let client = TripleClient::connect_tls(
        &p.addr(),
        TripleConfig::default().connect_timeout(std::time::Duration::from_secs(30)),
        client_tls(&pki, true),
    )
    .await
    .unwrap();
    let call = demo("sayHello").arg("java.lang.String", "world").unwrap();
    let greeting: String = client.call(&call).await.unwrap();
    assert_eq!(greeting, "Hello, world");
}
