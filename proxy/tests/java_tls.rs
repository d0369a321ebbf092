//! Java Dubbo consumers over mutual TLS through the proxy (both engines) to a Java provider
//! that requires client certificates, on 127.0.0.1 with certificates made at run time: the
//! consumer's TLS and the provider's are Dubbo's own `dubbo.ssl.*` settings (system
//! properties), the proxy's listener requires client certificates and names the caller in
//! `identity_attachment`, and its cluster presents the proxy's client certificate.
//!
//! A Dubbo 3.3 consumer needs one Java-side setting: Netty 4.2 (Dubbo 3.3.6 ships 4.2.2)
//! checks the server's host name by default, and Dubbo's `SslClientTlsHandler` makes its
//! `SSLEngine` without the peer's host, so without
//! `-Dio.netty.handler.ssl.defaultEndpointVerificationAlgorithm=NONE` every handshake fails on
//! the consumer's own side ("Hostname or IP address is undefined"), against any server; this
//! test asserts that too. The certificate chain is still checked against the consumer's trust
//! collection. A Dubbo 3.2 consumer (Netty 4.1.113) needs nothing.
//!
//! The identity the proxy forwards is asserted where it lands: the Java provider reads the
//! `x-caller-identity` attachment of a call (`DemoService.attachment`, checked by the consumer's
//! `--expect-attachment`), and the access log names each call's caller.

mod common;

use common::*;
use dubbo_test_support::java::{
    consumer_tls, consumer_trust, provider_tls, run_consumer_jvm, ConsumerRun, Provider,
    NETTY_NO_HOSTNAME_CHECK,
};
use dubbo_test_support::pki::{Identity, Pki, CLIENT_SPIFFE_ID};
use dubbo_test_support::LogDir;

const LOGS: LogDir = LogDir("dubbo-proxy-java-tls");

for_each_engine!(
    java_consumers_cross_mutual_tls_on_both_sides_of_the_proxy,
    a_java_triple_consumer_crosses_mutual_tls_through_the_proxy,
);

/// The proxy's listener: the server certificate, client certificates of the test CA
/// required, the caller's identity in `x-caller-identity`, the access log on; `cluster`: the
/// cluster's endpoints and TLS.
fn tls_proxy(engine: &str, pki: &Pki, cluster: &str) -> Proxy {
    let conf = config(
        1,
        &format!(
            "[listeners.tls]\ncert = {:?}\nkey = {:?}\nclient_ca = {:?}\n\
             identity_attachment = \"x-caller-identity\"\n\
             [log]\naccess_log = true\n\
             [[routes]]\ninterface = \"io.github.hessianrs.*\"\ncluster = \"demo\"\n\
             timeout_ms = 10000\n[clusters.demo]\n{cluster}",
            pki.server.cert, pki.server.key, pki.ca
        ),
    );
    Proxy::start_logging(
        engine,
        &conf,
        Some("warn,dubbo_proxy::access=info,dubbo_proxy::core::metrics_tls=debug"),
    )
}

/// The Java consumer of `flavour` against `target` (the proxy's `HOST:PORT`, or
/// `tri://HOST:PORT`), presenting `identity` (none: Dubbo's TLS settings name the CA only),
/// with the JVM options `extra`.
async fn consumer(
    flavour: &'static str,
    pki: &Pki,
    identity: Option<&Identity>,
    extra: &[&str],
    target: String,
    args: &[&str],
) -> ConsumerRun {
    let mut jvm = match identity {
        Some(identity) => consumer_tls(&pki.ca, identity),
        None => consumer_trust(&pki.ca),
    };
    jvm.extend(extra.iter().map(|&s| s.to_owned()));
    let addr = target;
    let args: Vec<String> = args.iter().map(|&s| s.to_owned()).collect();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run_consumer_jvm(flavour, &jvm, &addr, &args, LOGS)
    })
    .await
    .unwrap()
    .expect("interop/dubbo-java")
}

/// Short runs for consumers that get no answer.
const REFUSED_RUN: &[&str] = &["--only", "demo", "--timeout", "3000"];

/// A cluster of `provider` spoken to over TLS, presenting the proxy's client certificate.
fn tls_cluster(pki: &Pki, provider: &Provider) -> String {
    format!(
        "endpoints = [{{ address = \"{}\" }}]\n[clusters.demo.tls]\nca = {:?}\ncert = {:?}\nkey = {:?}\n",
        provider.addr(),
        pki.ca,
        pki.client.cert,
        pki.client.key
    )
}

async fn java_consumers_cross_mutual_tls_on_both_sides_of_the_proxy(engine: &str) {
    let pki = Pki::new();
    let mut provider = Provider::builder("dubbo33").log(LOGS, &format!("dubbo33-tls-{engine}"));
    for a in provider_tls(&pki) {
        provider = provider.jvm_arg(&a);
    }
    let Some(provider) = provider.start() else {
        return;
    };
    let proxy = tls_proxy(engine, &pki, &tls_cluster(&pki, &provider));
    // The Java provider sees the caller's identity as the proxy's attachment.
    let expect = format!("x-caller-identity={CLIENT_SPIFFE_ID}");
    let seen = ["--expect-attachment", expect.as_str()];
    let mut oks = 0;
    for (flavour, extra, what) in [
        (
            "dubbo33",
            &[NETTY_NO_HOSTNAME_CHECK][..],
            "3.3.6 consumer (Netty's host name check off) -> TLS proxy -> TLS 3.3.6",
        ),
        (
            "dubbo3",
            &[],
            "3.2.19 consumer -> TLS proxy -> TLS 3.3.6 provider",
        ),
    ] {
        let run = consumer(
            flavour,
            &pki,
            Some(&pki.client),
            extra,
            proxy.addr().to_string(),
            &seen,
        )
        .await;
        run.assert_all_passed(what);
        let saw = |l: &String| l == "ok attachment_x-caller-identity";
        assert!(run.lines.iter().any(saw), "{what}: {:#?}", run.lines);
        oks += run.oks();
    }
    // Every call the proxy logged came from the client certificate's SPIFFE ID.
    let log = proxy.log();
    let named = log.matches(&format!("\"{CLIENT_SPIFFE_ID}\"")).count();
    assert!(named >= oks, "{named} calls named: {log}");
    assert!(proxy.metric("dubbo_proxy_tls_handshakes_total") >= 2.0);

    // Without Netty's property a 3.3.6 consumer fails its own handshake: no call is made.
    let failed = "dubbo_proxy_tls_handshake_failed_total";
    let before = proxy.metric(failed);
    let run = consumer(
        "dubbo33",
        &pki,
        Some(&pki.client),
        &[],
        proxy.addr().to_string(),
        REFUSED_RUN,
    )
    .await;
    assert!(!run.ok && run.oks() == 0, "{:#?}", run.lines);
    let named_after = proxy.log().matches(CLIENT_SPIFFE_ID).count();
    assert_eq!(named_after, log.matches(CLIENT_SPIFFE_ID).count());
    assert!(eventually(|| proxy.metric(failed) > before).await);
}

/// A consumer whose certificate comes from another CA, and one with none (Dubbo's TLS
/// settings name the CA only): each refused, counted and logged, nothing reaching the
/// provider.
#[tokio::test]
async fn java_consumers_of_another_ca_or_without_a_certificate_are_refused_and_counted() {
    let pki = Pki::new();
    let upstream = Upstream::start("a").await;
    let proxy = tls_proxy(
        "tokio",
        &pki,
        &format!("endpoints = [{{ address = \"{}\" }}]\n", upstream.addr),
    );
    // Java sends no certificate of a CA the server did not name: refused at the handshake as
    // "peer sent no certificates". Without a key and certificate of its own, Dubbo 3.3.6's
    // consumer does not use TLS at all (its trust collection alone is ignored): refused as
    // plain text. A consumer retries, so each may be counted more than once.
    for (identity, what, counter, line) in [
        (
            Some(&pki.foreign_client),
            "another CA",
            "dubbo_proxy_tls_handshake_failed_total",
            "TLS handshake failed peer=127.0.0.1",
        ),
        (
            None,
            "no client certificate",
            "dubbo_proxy_tls_plaintext_refused_total",
            "not TLS on a TLS listener peer=127.0.0.1",
        ),
    ] {
        let (before, logged) = (proxy.metric(counter), proxy.log().matches(line).count());
        let run = consumer(
            "dubbo33",
            &pki,
            identity,
            &[NETTY_NO_HOSTNAME_CHECK],
            proxy.addr().to_string(),
            REFUSED_RUN,
        )
        .await;
        assert!(!run.ok && run.oks() == 0, "{what}: {:#?}", run.lines);
        assert_eq!(upstream.calls(), 0, "{what}");
        assert!(
            eventually(|| proxy.metric(counter) > before).await,
            "{what}"
        );
        let log = proxy.log();
        assert!(log.matches(line).count() > logged, "{what}: {log}");
    }
}

async fn a_java_triple_consumer_crosses_mutual_tls_through_the_proxy(engine: &str) {
    let pki = Pki::new();
    let mut provider = Provider::builder("dubbo33")
        .args(&["--protocol", "tri"])
        .log(LOGS, &format!("dubbo33-tls-tri-{engine}"));
    for a in provider_tls(&pki) {
        provider = provider.jvm_arg(&a);
    }
    let Some(provider) = provider.start() else {
        return;
    };
    let proxy = tls_proxy(engine, &pki, &tls_cluster(&pki, &provider));
    let run = consumer(
        "dubbo33",
        &pki,
        Some(&pki.client),
        &[NETTY_NO_HOSTNAME_CHECK],
        format!("tri://{}", proxy.addr()),
        &[],
    )
    .await;
    run.assert_triple_passed("3.3.6 Triple consumer -> TLS proxy -> TLS 3.3.6 Triple provider");
    let log = proxy.log();
    assert!(log.contains(&format!("\"{CLIENT_SPIFFE_ID}\"")), "{log}");
}
