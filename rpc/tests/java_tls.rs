//! TLS against Java Dubbo 3.3.6 on 127.0.0.1, Java's TLS configured as a Java application
//! configures it (the `dubbo.ssl.*` keys of its `SslConfig`, here as system properties), the
//! certificates made at run time: our Dubbo and Triple clients against Java providers that
//! require client certificates, and Java consumers (Dubbo protocol and Triple) against our
//! server that requires them.
//!
//! A 3.3.6 consumer needs Netty's `NETTY_NO_HOSTNAME_CHECK` property (the proxy's
//! `tests/java_tls.rs` says why). Java consumers through the proxy are tested there.

mod common;

use common::echo::{echo_service_named, stream_service, JAVA};
use common::triple::demo;
use common::*;
use dubbo_rpc::client::{Client, ClientConfig};
use dubbo_rpc::server::Server;
use dubbo_rpc::tls::{ClientAuth, ClientTls, ServerTls};
use dubbo_rpc::triple_client::{Client as TripleClient, ClientConfig as TripleConfig};
use dubbo_test_support::java::{
    consumer_tls, provider_tls, run_consumer_jvm, ConsumerRun, NETTY_NO_HOSTNAME_CHECK,
};
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

/// The Java consumer of `flavour` with Dubbo's TLS settings, presenting the test client's
/// certificate, against `target`.
async fn java_tls_consumer(
    pki: &Pki,
    flavour: &'static str,
    target: String,
) -> Option<ConsumerRun> {
    let mut jvm = consumer_tls(&pki.ca, &pki.client);
    jvm.push(NETTY_NO_HOSTNAME_CHECK.to_owned());
    tokio::task::spawn_blocking(move || run_consumer_jvm(flavour, &jvm, &target, &[], LOGS))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_3_3_consumers_over_mtls_against_our_server_on_both_protocols() {
    let pki = Pki::new();
    let tls = ServerTls::builder(&pki.server.cert, &pki.server.key)
        .client_ca(&pki.ca, ClientAuth::Required)
        .build()
        .unwrap();
    // The services Java's Triple checks call, on the one port of both protocols.
    let server = Server::builder()
        .service(demo_service())
        .service(echo_service_named(&JAVA))
        .service(stream_service())
        .tls(tls)
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let addr = server.local_addr();
    let Some(run) = java_tls_consumer(&pki, "dubbo33", addr.to_string()).await else {
        return;
    };
    run.assert_all_passed("3.3.6 Dubbo-protocol consumer over mTLS against our server");
    let run = java_tls_consumer(&pki, "dubbo33", format!("tri://{addr}"))
        .await
        .unwrap();
    run.assert_triple_passed("3.3.6 Triple consumer over mTLS against our server");
    server.shutdown(std::time::Duration::from_secs(2)).await;
}
