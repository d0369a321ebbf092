//! Triple through the proxy with real Java Dubbo 3.3 (`interop/dubbo-java`) on 127.0.0.1: the
//! stock Java Triple consumer's whole check list (interface style, the IDL EchoService in all
//! four call shapes, interface-style streams, exceptions, deadlines) through the proxy to a
//! Java Triple provider, and a Java 3.3 Triple consumer beside a Java 2.7 Dubbo consumer on
//! one proxy port at once, and a Java 3.3 Triple consumer bridged to a Java 2.7 provider
//! (`protocol = "dubbo"`), which speaks no Triple at all, and a Java 2.7 Dubbo consumer bridged
//! to a Java 3.3 provider that exports Triple alone (`protocol = "tri"`); across the bridge
//! both ways, the provider's response attachments reach the consumer. Skipped with a note when
//! the interop project is absent; the jars are built on demand.

mod common;

use common::*;
use dubbo_test_support::java::{run_consumer, ConsumerRun, Provider, DEMO_SERVICE, DEMO_VERSION};
use dubbo_test_support::LogDir;

for_each_engine!(
    java_triple_consumer_through_proxy_passes_every_check,
    java_32_triple_consumer_through_proxy_passes_every_check,
    java_triple_and_dubbo_consumers_share_one_proxy_port,
    java_triple_consumer_reaches_a_dubbo27_provider_across_the_bridge,
    java_dubbo27_consumer_reaches_a_triple_only_provider_across_the_bridge,
    curl_reaches_a_java_triple_provider_over_http1,
    curl_reaches_dubbo_only_java_providers_across_the_json_bridge,
);

const LOGS: LogDir = LogDir("dubbo-proxy-java-triple");

/// Every call of the demo's services (`io.github.hessianrs.demo.*`) to `provider`.
fn proxy_conf(provider: &str) -> String {
    config(
        1,
        &format!(
            "[[routes]]\ninterface = \"io.github.hessianrs.*\"\ncluster = \"demo\"\ntimeout_ms = 10000\n\
             [clusters.demo]\nendpoints = [{{ address = \"{provider}\" }}]\n"
        ),
    )
}

/// Runs the Java consumer of `flavour` against `target` with `args`, off the test's runtime.
async fn consumer(
    flavour: &'static str,
    target: String,
    args: &'static [&'static str],
) -> ConsumerRun {
    tokio::task::spawn_blocking(move || run_consumer(flavour, &target, args, LOGS))
        .await
        .unwrap()
        .expect("the interop project is there")
}

/// The 3.3 Triple consumer's whole list passed, over Triple: the DemoService's 21 checks
/// and the 12 of the EchoService's and StreamService's streams.
fn assert_triple_run(run: &ConsumerRun, what: &str) {
    run.assert_triple_passed(what);
    assert!(
        run.oks() >= 33,
        "{what}: {} checks: {:#?}",
        run.oks(),
        run.lines
    );
}

/// The provider's response attachment `reply` came back to the consumer (its check ran).
fn assert_reply_attachment(run: &ConsumerRun) {
    assert!(
        run.lines.iter().any(|l| l == "ok reply_attachment_reply"),
        "{:#?}",
        run.lines
    );
}

async fn java_triple_consumer_through_proxy_passes_every_check(engine: &str) {
    let Some(p) = Provider::builder("dubbo33")
        .args(&["--protocol", "tri"])
        .log(LOGS, "dubbo33-tri")
        .start()
    else {
        return;
    };
    // Direct first: the same checks must pass without the proxy.
    let direct = consumer("dubbo33", format!("tri://{}", p.addr()), &[]).await;
    assert_triple_run(
        &direct,
        "3.3 Triple consumer -> 3.3 Triple provider (direct)",
    );

    let proxy = Proxy::start(engine, &proxy_conf(&p.addr()));
    let run = consumer("dubbo33", format!("tri://{}", proxy.addr()), &[]).await;
    assert_triple_run(&run, "3.3 Triple consumer -> proxy -> 3.3 Triple provider");
    assert_eq!(run.oks(), direct.oks(), "as many checks as direct");
    assert_eq!(proxy.metric("dubbo_proxy_triple_connections_total"), 1.0);
    assert!(proxy.metric("dubbo_proxy_triple_calls_total") >= 30.0);
}

/// The same with Dubbo 3.2.19 at both ends (its `grpc-timeout` in milliseconds, where 3.3
/// sends microseconds; its interface-style streams and IDL EchoService).
async fn java_32_triple_consumer_through_proxy_passes_every_check(engine: &str) {
    let Some(p) = Provider::builder("dubbo3")
        .args(&["--protocol", "tri"])
        .log(LOGS, "dubbo32-tri")
        .start()
    else {
        return;
    };
    let direct = consumer("dubbo3", format!("tri://{}", p.addr()), &[]).await;
    assert_triple_run(
        &direct,
        "3.2 Triple consumer -> 3.2 Triple provider (direct)",
    );
    let proxy = Proxy::start(engine, &proxy_conf(&p.addr()));
    let run = consumer("dubbo3", format!("tri://{}", proxy.addr()), &[]).await;
    assert_triple_run(&run, "3.2 Triple consumer -> proxy -> 3.2 Triple provider");
    assert_eq!(run.oks(), direct.oks(), "as many checks as direct");
}

async fn java_triple_and_dubbo_consumers_share_one_proxy_port(engine: &str) {
    // One Java port serving both protocols, as a migrating provider does.
    let Some(p) = Provider::builder("dubbo33")
        .args(&["--protocol", "dubbo", "--ext-protocol", "tri"])
        .log(LOGS, "dubbo33-ext-tri")
        .start()
    else {
        return;
    };
    let proxy = Proxy::start(engine, &proxy_conf(&p.addr()));
    let tri = consumer("dubbo33", format!("tri://{}", proxy.addr()), &[]);
    let dubbo = consumer("dubbo27", proxy.addr().to_string(), &[]);
    let (tri, dubbo) = tokio::join!(tri, dubbo);
    assert_triple_run(
        &tri,
        "3.3 Triple consumer -> proxy -> 3.3 provider (ext-protocol tri)",
    );
    dubbo.assert_all_passed("2.7 Dubbo consumer -> proxy -> 3.3 provider (ext-protocol tri)");
    assert!(
        dubbo.lines.iter().any(|l| l == "# protocol dubbo"),
        "{:#?}",
        dubbo.lines
    );
    assert_eq!(proxy.metric("dubbo_proxy_triple_connections_total"), 1.0);
}

async fn java_triple_consumer_reaches_a_dubbo27_provider_across_the_bridge(engine: &str) {
    // Dubbo 2.7 has no Triple: only the bridge can carry a Triple caller to it.
    let Some(p) = Provider::builder("dubbo27").log(LOGS, "dubbo27").start() else {
        return;
    };
    let conf = config(
        1,
        &format!(
            "[[routes]]\ninterface = \"io.github.hessianrs.*\"\ncluster = \"demo\"\ntimeout_ms = 10000\n\
             [clusters.demo]\nprotocol = \"dubbo\"\nendpoints = [{{ address = \"{}\" }}]\n",
            p.addr()
        ),
    );
    let proxy = Proxy::start(engine, &conf);
    // The DemoService's checks (interface style: the EchoService is an IDL service, which a
    // Dubbo 2.7 provider does not have), over Triple, with Dubbo's default serialization.
    let run = consumer(
        "dubbo33",
        format!("tri://{}", proxy.addr()),
        &[
            "--only",
            "demo",
            "--expect-reply-attachment",
            "reply=from-2.7",
        ],
    )
    .await;
    run.assert_all_passed("3.3 Triple consumer -> proxy (bridge) -> 2.7 Dubbo provider");
    assert_reply_attachment(&run);
    assert!(
        run.lines.iter().any(|l| l == "# protocol tri"),
        "not over Triple: {:#?}",
        run.lines
    );
    assert!(
        run.lines.iter().any(|l| l == "ok throwError"),
        "{:#?}",
        run.lines
    );
    assert!(proxy.metric("dubbo_proxy_triple_calls_total") >= 20.0);
}

async fn java_dubbo27_consumer_reaches_a_triple_only_provider_across_the_bridge(engine: &str) {
    // A 3.3 provider exporting tri:// alone: a Dubbo 2.7 consumer cannot call it directly.
    let Some(p) = Provider::builder("dubbo33")
        .args(&["--protocol", "tri"])
        .log(LOGS, "dubbo33-tri-only")
        .start()
    else {
        return;
    };
    let conf = config(
        1,
        &format!(
            "[[routes]]\ninterface = \"io.github.hessianrs.*\"\ncluster = \"demo\"\ntimeout_ms = 10000\n\
             [clusters.demo]\nprotocol = \"tri\"\nendpoints = [{{ address = \"{}\" }}]\n",
            p.addr()
        ),
    );
    let proxy = Proxy::start(engine, &conf);
    let run = consumer("dubbo27", proxy.addr().to_string(), &[]).await;
    run.assert_all_passed("2.7 Dubbo consumer -> proxy (bridge) -> 3.3 Triple-only provider");
    assert!(
        run.lines.iter().any(|l| l == "# protocol dubbo"),
        "not over the Dubbo protocol: {:#?}",
        run.lines
    );
    assert!(
        run.lines.iter().any(|l| l == "ok throwError"),
        "{:#?}",
        run.lines
    );
    // The provider's response attachments, to a Dubbo caller that reads them: a 3.3 consumer
    // over the Dubbo protocol (2.7's consumer loses its server context after each call).
    let run = consumer(
        "dubbo33",
        proxy.addr().to_string(),
        &["--expect-reply-attachment", "reply=from-3.3"],
    )
    .await;
    run.assert_all_passed("3.3 Dubbo consumer -> proxy (bridge) -> 3.3 Triple-only provider");
    assert!(
        run.lines.iter().any(|l| l == "# protocol dubbo"),
        "not over the Dubbo protocol: {:#?}",
        run.lines
    );
    assert_reply_attachment(&run);
    // Nothing reached the provider over a Dubbo connection: the bridge made every call.
    assert_eq!(proxy.metric("dubbo_proxy_triple_connections_total"), 0.0);
    assert!(proxy.metric("dubbo_proxy_route_requests_total{route=\"routes[0]\"}") >= 20.0);
}

/// Triple's HTTP/1.1 form, as `curl -d '["curl"]' http://HOST:PORT/SERVICE/sayHello` sends
/// it, through the proxy to a Java 3.3 Triple provider, and the answer as Java gives it.
async fn curl_reaches_a_java_triple_provider_over_http1(engine: &str) {
    let Some(p) = Provider::builder("dubbo33")
        .args(&["--protocol", "tri"])
        .log(LOGS, "dubbo33-tri-http1")
        .start()
    else {
        return;
    };
    let proxy = Proxy::start(engine, &proxy_conf(&p.addr()));
    let post = |addr: std::net::SocketAddr, method: &str, body: &str| {
        http_raw(
            addr,
            &format!(
                "POST /{DEMO_SERVICE}/{method} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
                 tri-service-version: {DEMO_VERSION}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            ),
        )
    };
    let direct = post(p.addr().parse().unwrap(), "sayHello", "[\"curl\"]");
    assert!(direct.starts_with("HTTP/1.1 200 "), "direct: {direct}");
    let through = post(proxy.addr(), "sayHello", "[\"curl\"]");
    assert!(through.starts_with("HTTP/1.1 200 "), "{through}");
    let body = |r: &str| r.split_once("\r\n\r\n").map(|(_, b)| b.to_owned());
    assert_eq!(body(&through), body(&direct));
    assert!(through.contains("Hello, curl"), "{through}");
    assert_eq!(proxy.metric("dubbo_proxy_triple_connections_total"), 1.0);
}

/// `curl --http1.1` with a JSON body to `addr` for the DemoService's `method` (version
/// 1.0.0): the HTTP status and the body.
async fn curl(addr: std::net::SocketAddr, method: &str, body: &str) -> (u16, String) {
    curl_path(addr, &format!("{DEMO_SERVICE}/{method}"), body).await
}

/// [`curl`] for `http://ADDR/PATH`.
async fn curl_path(addr: std::net::SocketAddr, path: &str, body: &str) -> (u16, String) {
    let version = format!("tri-service-version: {DEMO_VERSION}");
    let headers = ["content-type: application/json", version.as_str()];
    curl_post(format!("http://{addr}/{path}"), &headers, body).await
}

/// Triple's HTTP/1.1 form through the proxy to providers that speak only the Dubbo protocol
/// (`protocol = "dubbo"`), a Java 2.7 one and a Java 3.3 one: each JSON call becomes a
/// generic invocation; strings, POJOs (a JSON object in and out), exceptions (500 naming the
/// class and message), an unknown method, a body that is not JSON (400) or too large (413),
/// with nothing sent.
async fn curl_reaches_dubbo_only_java_providers_across_the_json_bridge(engine: &str) {
    let Some(providers) = Provider::start_all(vec![
        Provider::builder("dubbo27").log(LOGS, "dubbo27-json"),
        Provider::builder("dubbo33")
            .args(&["--protocol", "dubbo"])
            .log(LOGS, "dubbo33-dubbo-json"),
    ]) else {
        return;
    };
    for (p, java) in providers.iter().zip(["2.7", "3.3"]) {
        // `slow` with a short timeout, and a service whose only provider is not there.
        let gone = format!("127.0.0.1:{}", dubbo_test_support::net::free_port());
        let conf = config(
            1,
            &format!(
                "[[routes]]\ninterface = \"io.github.hessianrs.*\"\nmethod = \"slow\"\ncluster = \"demo\"\ntimeout_ms = 500\n\
                 [[routes]]\ninterface = \"io.github.hessianrs.demo.Gone\"\ncluster = \"gone\"\n\
                 [[routes]]\ninterface = \"io.github.hessianrs.*\"\ncluster = \"demo\"\ntimeout_ms = 10000\n\
                 [clusters.demo]\nprotocol = \"dubbo\"\nendpoints = [{{ address = \"{}\" }}]\n\
                 [clusters.gone]\nprotocol = \"dubbo\"\nendpoints = [{{ address = \"{}\" }}]\n",
                p.addr(),
                gone
            ),
        );
        let proxy = Proxy::start(engine, &conf);
        let at = proxy.addr();
        let json = |body: &str| -> serde_json::Value {
            serde_json::from_str(body).unwrap_or_else(|e| panic!("{java}: {e}: {body}"))
        };

        // The provider speaks no HTTP: only the bridge reaches it.
        let (direct, _) = curl(p.addr().parse().unwrap(), "sayHello", "[\"world\"]").await;
        assert_ne!(direct, 200, "{java}: the provider answered HTTP itself");

        let (code, body) = curl(at, "sayHello", "[\"world\"]").await;
        assert_eq!((code, json(&body)), (200, "Hello, world".into()), "{java}");
        let (code, body) = curl(at, "add", "[2, 3]").await;
        assert_eq!((code, json(&body)), (200, 5.into()), "{java}");
        let (code, body) = curl(at, "doNothing", "").await;
        assert_eq!(
            (code, json(&body)),
            (200, serde_json::Value::Null),
            "{java}"
        );

        // A POJO in (one bare JSON object: the one argument) and out (a map with its class).
        let user = r#"{"id": 7, "name": "ann", "age": 41, "email": "ann@example.com", "active": true, "created": 1700000000000}"#;
        let (code, body) = curl(at, "echoUser", user).await;
        assert_eq!(code, 200, "{java}: {body}");
        let mut want = json(user);
        want["class"] = "io.github.hessianrs.demo.User".into();
        assert_eq!(json(&body), want, "{java}");
        let (code, body) = curl(at, "getUser", "[9]").await;
        assert_eq!(code, 200, "{java}: {body}");
        let got = json(&body);
        assert_eq!(
            (got["id"].clone(), got["name"].clone()),
            (9.into(), "user-9".into()),
            "{java}: {body}"
        );

        // The method throws: 500 with the exception's class and message.
        let (code, body) = curl(at, "throwError", "[\"boom\"]").await;
        assert_eq!(code, 500, "{java}: {body}");
        let got = json(&body);
        assert_eq!(
            got["exception"], "java.lang.IllegalStateException",
            "{java}: {body}"
        );
        assert_eq!(
            got["message"], "java.lang.IllegalStateException: boom",
            "{java}: {body}"
        );
        assert_eq!(got["status"], "500", "{java}: {body}");

        // No such method: 404 (as Java 3.3's own HTTP/1.1 form answers), with the provider's
        // text.
        let (code, body) = curl(at, "noSuchMethod", "[1]").await;
        assert_eq!(code, 404, "{java}: {body}");
        assert!(
            json(&body)["message"]
                .as_str()
                .is_some_and(|m| m.contains("No such method noSuchMethod")),
            "{java}: {body}"
        );

        // A body that is not JSON: 400, and the provider sees no call (`count` counts them all).
        let (_, before) = curl(at, "count", "").await;
        let (code, body) = curl(at, "sayHello", "[\"world\"").await;
        assert_eq!(code, 400, "{java}: {body}");
        assert!(body.contains("not JSON"), "{java}: {body}");
        // A body over 64 KiB: 413, nothing sent either.
        let big = format!("[\"{}\"]", "x".repeat(70 * 1024));
        let (code, body) = curl(at, "sayHello", &big).await;
        assert_eq!(code, 413, "{java}: {body}");
        let (_, after) = curl(at, "count", "").await;
        assert_eq!(
            json(&after).as_i64(),
            json(&before).as_i64().map(|n| n + 1),
            "{java}"
        );

        // The proxy's own answers stay as for forwarded HTTP/1.1 calls: the route's timeout
        // 504, no provider 503.
        let (code, body) = curl(at, "slow", "[3000]").await;
        assert_eq!(code, 504, "{java}: {body}");
        let (code, body) = curl_path(at, "io.github.hessianrs.demo.Gone/x", "[]").await;
        assert_eq!(code, 503, "{java}: {body}");

        assert!(
            proxy.metric("dubbo_proxy_route_requests_total{route=\"routes[2]\"}") >= 10.0,
            "{java}"
        );
    }
}
