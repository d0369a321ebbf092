//! Route access rules and rate limits end to end, on 127.0.0.1: the `dubbo-proxy` binary
//! between Rust callers and providers. A refused call gets the proxy's own answer (Dubbo:
//! SERVICE_ERROR for a denied call, SERVER_THREADPOOL_EXHAUSTED_ERROR for a rate-limited one,
//! with the call's request id; Triple: PERMISSION_DENIED / RESOURCE_EXHAUSTED with a
//! grpc-message), is counted, and never reaches a provider, while the other calls on the
//! same connection are served. Every test runs against both engines, mutual TLS identities
//! included.

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use dubbo_codec::Status;
use dubbo_rpc::client::{CallError, Client as RpcClient, ClientConfig};
use dubbo_rpc::server::{Server, Service};
use dubbo_rpc::tls::ClientTls;
use dubbo_rpc::triple_client::{Client as TripleClient, TripleCall, TripleError};
use dubbo_test_support::pki::{Identity, Pki, CLIENT_SPIFFE_ID};
use dubbo_triple::Code;

for_each_engine!(
    dubbo_calls_denied_by_method_and_source_range,
    dubbo_rate_limit_answers_threadpool_exhausted_then_refills,
    a_reload_changes_rules_and_keeps_unchanged_limits,
    triple_calls_denied_and_rate_limited,
    mtls_identities_are_allowed_denied_and_limited_each_on_its_own,
    the_secure_gateway_example_works_as_written,
);

const DENIED: &str = "dubbo-proxy: the route's access rules do not allow this call";
const LIMITED: &str = "dubbo-proxy: the route's rate limit is spent; try again later";

fn cluster(a: &Upstream) -> String {
    format!(
        "[clusters.a]\nendpoints = [{{ address = \"{}\" }}]\n",
        a.addr
    )
}

/// Routes `rest` to provider "a" (every route's cluster is "a").
async fn proxy_of(engine: &str, routes: &str) -> (Upstream, Proxy) {
    let a = Upstream::start("a").await;
    let conf = config(1, &format!("{routes}{}", cluster(&a)));
    (a, Proxy::start(engine, &conf))
}

async fn dubbo_calls_denied_by_method_and_source_range(engine: &str) {
    let routes = format!(
        "[[routes]]\nname = \"far\"\ninterface = \"com.example.Far\"\ncluster = \"a\"\n\
         [routes.access]\nallow_sources = [\"10.0.0.0/8\", \"::1/128\"]\n\
         [[routes]]\nname = \"near\"\ninterface = \"com.example.Near\"\ncluster = \"a\"\n\
         [routes.access]\nallow_sources = [\"127.0.0.0/8\"]\n\
         [[routes]]\nname = \"demo\"\ninterface = \"{SVC}\"\ncluster = \"a\"\n\
         [routes.access]\ndeny_methods = [\"refund\"]\n"
    );
    let (a, p) = proxy_of(engine, &routes).await;
    let mut c = Client::connect(p.addr()).await;
    // Refused and served calls interleaved on one connection, all sent before any answer
    // is read: each answer carries its own call's id.
    c.send_call(1, &call("sayHello")).await;
    c.send_call(2, &call("refund")).await;
    c.send_call(3, &call_on("com.example.Far", "m")).await;
    c.send_call(4, &call_on("com.example.Near", "m")).await;
    c.send_call(5, &call("refund")).await;
    c.send_call(6, &call("pay")).await;
    let denied = (Status::ServiceError, DENIED.to_owned());
    for (id, want) in [
        (2, denied.clone()),
        (3, denied.clone()),
        (5, denied.clone()),
        (1, (Status::Ok, "a:sayHello".to_owned())),
        (4, (Status::Ok, "a:m".to_owned())),
        (6, (Status::Ok, "a:pay".to_owned())),
    ] {
        let f = c.response(id).await;
        assert_eq!(f.request_id(), id);
        assert_eq!(outcome(&f), want, "call {id}");
    }
    assert_eq!(a.calls(), 3, "no refused call reached the provider");
    let denied_of =
        |r: &str| p.metric(&format!("dubbo_proxy_access_denied_total{{route=\"{r}\"}}"));
    assert_eq!(
        (denied_of("demo"), denied_of("far"), denied_of("near")),
        (2.0, 1.0, 0.0)
    );
    let proxy_made = "dubbo_proxy_route_responses_total{route=\"demo\",status=\"SERVICE_ERROR\",origin=\"proxy\"}";
    assert_eq!(p.metric(proxy_made), 2.0);
}

async fn dubbo_rate_limit_answers_threadpool_exhausted_then_refills(engine: &str) {
    let routes = "[[routes]]\nname = \"limited\"\ncluster = \"a\"\n\
                  [routes.rate_limit]\ncalls_per_second = 1.0\nburst = 2\n";
    let (a, p) = proxy_of(engine, routes).await;
    let mut c = Client::connect(p.addr()).await;
    let served = (Status::Ok, "a:sayHello".to_owned());
    assert_eq!(c.call(1, &call("sayHello")).await, served);
    assert_eq!(c.call(2, &call("sayHello")).await, served);
    let limited = (Status::ServerThreadpoolExhaustedError, LIMITED.to_owned());
    assert_eq!(c.call(3, &call("sayHello")).await, limited);
    // A token a second.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(c.call(4, &call("sayHello")).await, served);
    assert_eq!(a.calls(), 3, "the limited call did not reach the provider");
    assert!(p.metric("dubbo_proxy_rate_limited_total{route=\"limited\"}") >= 1.0);
}

/// A reload that changes a route's access rule applies it; one that keeps its rate limit
/// keeps the spent bucket, one that changes the limit starts with a full one.
async fn a_reload_changes_rules_and_keeps_unchanged_limits(engine: &str) {
    let a = Upstream::start("a").await;
    let conf = |deny: &str, rate: &str| {
        config(
            1,
            &format!(
                "[[routes]]\nname = \"r\"\ncluster = \"a\"\n\
                 [routes.access]\ndeny_methods = [\"{deny}\"]\n\
                 [routes.rate_limit]\ncalls_per_second = {rate}\nburst = 1\n{}",
                cluster(&a)
            ),
        )
    };
    let p = Proxy::start_process(engine, &conf("refund", "0.001"));
    let mut c = Client::connect(p.addr()).await;
    assert_eq!(c.call(1, &call("refund")).await.0, Status::ServiceError);
    assert_eq!(c.call(2, &call("pay")).await.0, Status::Ok);
    let limited = Status::ServerThreadpoolExhaustedError;
    assert_eq!(c.call(3, &call("pay")).await.0, limited);

    // `refund` allowed now, `pay` denied; the bucket (same limit) still spent.
    reload(&p, conf("pay", "0.001"), 1.0).await;
    assert_eq!(c.call(4, &call("pay")).await.0, Status::ServiceError);
    assert_eq!(c.call(5, &call("refund")).await.0, limited);
    // Another limit: a full bucket.
    reload(&p, conf("pay", "0.002"), 2.0).await;
    assert_eq!(
        c.call(6, &call("refund")).await,
        (Status::Ok, "a:refund".into())
    );
    assert_eq!(a.calls(), 2);
}

/// Writes `text` as `p`'s configuration and waits for its `n`th reload (SIGHUP).
async fn reload(p: &Proxy, text: String, n: f64) {
    std::fs::write(&p.config_path, text).unwrap();
    p.signal(libc::SIGHUP);
    assert!(eventually(|| p.metric("dubbo_proxy_config_reloads_total") >= n).await);
}

/// A Triple provider of `test.Greeter` that counts the calls it gets.
async fn counting_provider() -> (Server, Arc<AtomicU64>) {
    let calls = Arc::new(AtomicU64::new(0));
    let seen = calls.clone();
    let svc = Service::new("test.Greeter").method("sayHello", move |call| {
        seen.fetch_add(1, Ordering::SeqCst);
        async move {
            let (name,): (String,) = call.args()?;
            call.typed_reply(&format!("Hello, {name}"))
        }
    });
    let server = Server::builder()
        .service(svc)
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    (server, calls)
}

fn hello(service: &str) -> TripleCall {
    TripleCall::new(service, "sayHello")
        .timeout(Duration::from_secs(10))
        .arg("java.lang.String", "x")
        .unwrap()
}

fn status_of<T: std::fmt::Debug>(r: Result<T, TripleError>) -> dubbo_triple::Status {
    match r {
        Err(TripleError::Status(s)) => s,
        other => panic!("expected a grpc-status, got {other:?}"),
    }
}

async fn triple_calls_denied_and_rate_limited(engine: &str) {
    let (server, calls) = counting_provider().await;
    // `test.Far` is served by the same provider under another path: never reached.
    let conf = config(
        1,
        &format!(
            "[[routes]]\nname = \"far\"\ninterface = \"test.Far\"\ncluster = \"a\"\n\
             [routes.access]\nallow_sources = [\"10.0.0.0/8\"]\n\
             [[routes]]\nname = \"greet\"\ninterface = \"test.Greeter\"\ncluster = \"a\"\n\
             [routes.access]\ndeny_methods = [\"secret\"]\n\
             [routes.rate_limit]\ncalls_per_second = 0.001\nburst = 2\n\
             [clusters.a]\nendpoints = [{{ address = \"{}\" }}]\n",
            server.local_addr()
        ),
    );
    let p = Proxy::start(engine, &conf);
    let c = TripleClient::connect(&p.addr().to_string()).await.unwrap();

    let s = status_of(c.call_value(&hello("test.Far")).await);
    assert_eq!(s.code, Code::PermissionDenied, "{s}");
    assert_eq!(s.message, DENIED);
    let s = status_of(
        c.call_value(&TripleCall::new("test.Greeter", "secret"))
            .await,
    );
    assert_eq!(s.code, Code::PermissionDenied, "{s}");
    // The burst, then the limit.
    for _ in 0..2 {
        let got: String = c.call(&hello("test.Greeter")).await.unwrap();
        assert_eq!(got, "Hello, x");
    }
    let s = status_of(c.call_value(&hello("test.Greeter")).await);
    assert_eq!(s.code, Code::ResourceExhausted, "{s}");
    assert_eq!(s.message, LIMITED);
    // HTTP/1.1 Triple callers meet the same rules.
    let post = "POST /test.Far/sayHello HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
                content-length: 5\r\nconnection: close\r\n\r\n[\"x\"]";
    let answer = http_raw(p.addr(), post);
    assert!(answer.starts_with("HTTP/1.1 403 "), "{answer}");
    assert_eq!(
        calls.load(Ordering::SeqCst),
        2,
        "refused calls reached the provider"
    );
    assert_eq!(
        p.metric("dubbo_proxy_access_denied_total{route=\"far\"}"),
        2.0
    );
    assert_eq!(
        p.metric("dubbo_proxy_access_denied_total{route=\"greet\"}"),
        1.0
    );
    assert_eq!(
        p.metric("dubbo_proxy_rate_limited_total{route=\"greet\"}"),
        1.0
    );
}

/// A proxy on `engine` whose listener requires client certificates of the test CA, with
/// `routes` to provider "a".
async fn mtls_proxy(engine: &str, pki: &Pki, routes: &str) -> (Upstream, Proxy) {
    let a = Upstream::start("a").await;
    let conf = config(
        1,
        &format!(
            "[listeners.tls]\ncert = {:?}\nkey = {:?}\nclient_ca = {:?}\n{routes}{}",
            pki.server.cert,
            pki.server.key,
            pki.ca,
            cluster(&a)
        ),
    );
    (a, Proxy::start(engine, &conf))
}

async fn call_as(p: &Proxy, pki: &Pki, who: &Identity, method: &str) -> Result<String, CallError> {
    let tls = ClientTls::builder(&pki.ca)
        .identity(&who.cert, &who.key)
        .build()
        .unwrap();
    let client = RpcClient::connect_tls(p.addr().to_string(), ClientConfig::default(), tls)
        .await
        .unwrap();
    client.call(&call(method)).await
}

fn status(r: Result<String, CallError>) -> (Status, String) {
    match r {
        Ok(s) => (Status::Ok, s),
        Err(CallError::Status { status, message }) => (status, message.unwrap_or_default()),
        Err(e) => panic!("{e}"),
    }
}

async fn mtls_identities_are_allowed_denied_and_limited_each_on_its_own(engine: &str) {
    let pki = Pki::new();
    let spiffe_ns = CLIENT_SPIFFE_ID.rsplit_once('/').unwrap().0;
    let routes = format!(
        "[[routes]]\nname = \"ns\"\ncluster = \"a\"\n\
         [routes.access]\nallow_identities = [\"{spiffe_ns}/*\", \"cn-only-client\"]\n\
         deny_identities = [\"cn-only-client\"]\n\
         [routes.rate_limit]\ncalls_per_second = 0.001\nburst = 1\nper_identity = true\n"
    );
    let (a, p) = mtls_proxy(engine, &pki, &routes).await;
    let served = (Status::Ok, "a:sayHello".to_owned());
    assert_eq!(
        status(call_as(&p, &pki, &pki.client, "sayHello").await),
        served
    );
    // Its one token spent: its own bucket is empty.
    let limited = status(call_as(&p, &pki, &pki.client, "sayHello").await);
    assert_eq!(
        limited,
        (Status::ServerThreadpoolExhaustedError, LIMITED.to_owned())
    );
    // Deny wins over allow; a denied call takes no token.
    let denied = status(call_as(&p, &pki, &pki.cn_client, "sayHello").await);
    assert_eq!(denied, (Status::ServiceError, DENIED.to_owned()));
    assert_eq!(a.calls(), 1);

    // Without the deny, the CN identity has a bucket of its own (full).
    let allowed = routes.replace("deny_identities = [\"cn-only-client\"]\n", "");
    let (a, p) = mtls_proxy(engine, &pki, &allowed).await;
    assert_eq!(
        status(call_as(&p, &pki, &pki.client, "sayHello").await),
        served
    );
    assert_eq!(
        status(call_as(&p, &pki, &pki.cn_client, "sayHello").await),
        served
    );
    assert_eq!(a.calls(), 2);
    let not_ns = allowed.replace(&format!("\"{spiffe_ns}/*\", "), "");
    let (a, p) = mtls_proxy(engine, &pki, &not_ns).await;
    let denied = status(call_as(&p, &pki, &pki.client, "sayHello").await);
    assert_eq!(denied.0, Status::ServiceError);
    assert_eq!(a.calls(), 0);
}

/// README's secure gateway (`examples/secure-gateway.toml`) as written, but for its
/// addresses (port 0, the test providers) and its PEM files (the test CA's): the shop's
/// identity calls `com.example.Pay`, `refund` is denied, and its burst of 20 is its limit.
async fn the_secure_gateway_example_works_as_written(engine: &str) {
    let pki = Pki::new();
    let pay = Upstream::start("pay").await;
    let apps = Upstream::start("apps").await;
    let example = include_str!("../examples/secure-gateway.toml");
    let conf = example
        .replace("/etc/dubbo-proxy/tls", pki.dir().to_str().unwrap())
        .replace("0.0.0.0:20880", "127.0.0.1:0")
        .replace("127.0.0.1:20882", "127.0.0.1:0")
        .replace("127.0.0.1:20990", &pay.addr.to_string())
        .replace("127.0.0.1:20991", &apps.addr.to_string());
    let p = Proxy::start_logging(engine, &conf, Some("warn"));
    let tls = ClientTls::builder(&pki.ca)
        .identity(&pki.client.cert, &pki.client.key)
        .build()
        .unwrap();
    let client = RpcClient::connect_tls(p.addr().to_string(), ClientConfig::default(), tls)
        .await
        .unwrap();
    let pay_call = |m: &str| {
        dubbo_codec::Request::builder("com.example.Pay", m)
            .build()
            .unwrap()
    };
    let refund = status(client.call::<String>(&pay_call("refund")).await);
    assert_eq!(refund, (Status::ServiceError, DENIED.to_owned()));
    // The burst, then the limit (100/s refills one in 10 ms: the calls race it, so count).
    let mut served = 0;
    let mut limited = 0;
    for _ in 0..60 {
        match status(client.call::<String>(&pay_call("charge")).await).0 {
            Status::Ok => served += 1,
            Status::ServerThreadpoolExhaustedError => limited += 1,
            other => panic!("{other:?}"),
        }
    }
    assert!(
        served >= 20 && limited > 0,
        "served {served}, limited {limited}"
    );
    assert_eq!(pay.calls(), served);
    let other = status(client.call::<String>(&call("sayHello")).await);
    assert_eq!(other, (Status::Ok, "apps:sayHello".to_owned()));
    // Someone else's certificate (a CN, not the shop's SPIFFE ID): denied on Pay only.
    let tls = ClientTls::builder(&pki.ca)
        .identity(&pki.cn_client.cert, &pki.cn_client.key)
        .build()
        .unwrap();
    let stranger = RpcClient::connect_tls(p.addr().to_string(), ClientConfig::default(), tls)
        .await
        .unwrap();
    let denied = status(stranger.call::<String>(&pay_call("charge")).await);
    assert_eq!(denied.0, Status::ServiceError);
    assert_eq!(pay.calls(), served);
}
