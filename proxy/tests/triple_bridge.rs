//! Calls bridged across protocols, on 127.0.0.1: the Rust Triple client (dubbo-rpc) -> the
//! `dubbo-proxy` binary -> a Dubbo-only cluster (`protocol = "dubbo"`), whose Rust provider
//! sees each call arrive as a Dubbo frame; and the Rust Dubbo client -> the proxy -> a
//! Triple-only cluster (`protocol = "tri"`), whose provider sees Triple. Both
//! serializations, both engines.

mod common;

use std::time::Duration;

use common::*;
use dubbo_codec::{BodyFormat, Request, RequestBuilder, Status as DubboStatus};
use dubbo_rpc::client::{CallError, Client as DubboClient};
use dubbo_rpc::server::{HandlerError, Protocol, Reply, Server, Service};
use dubbo_rpc::triple_client::{Client, TripleCall, TripleError};
use dubbo_triple::Code;
use hessian2::encode::PeerVersion;
use serde::{Deserialize, Serialize};

for_each_engine!(
    triple_calls_cross_to_a_dubbo_provider,
    what_cannot_cross_is_answered_with_a_status,
    dubbo_calls_cross_to_a_triple_provider,
    dubbo_calls_that_fail_across_the_bridge_are_answered,
    curl_calls_cross_to_a_dubbo_provider,
);

const GREETER: &str = "test.Greeter";
const STRING: &str = "java.lang.String";
const USER: &str = "test.User";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "test.User")]
struct User {
    name: String,
    id: i64,
}

/// The protocol a call reached the provider in, as its handlers name it.
fn over(p: Protocol) -> &'static str {
    match p {
        Protocol::Dubbo => "dubbo",
        _ => "triple",
    }
}

/// A provider of [`GREETER`] (version 1.0.0, group blue) whose answers say which protocol
/// each call arrived in.
async fn provider() -> Server {
    let svc = Service::new(GREETER)
        .version("1.0.0")
        .group("blue")
        .method("sayHello", |call| async move {
            let (name,): (String,) = call.args()?;
            let trace = call
                .attachments
                .get_str("trace-id")
                .unwrap_or("-")
                .to_owned();
            call.typed_reply(&format!(
                "Hello, {name} over {} ({trace})",
                over(call.protocol)
            ))
        })
        .method("add", |call| async move {
            let (a, b): (i32, i32) = call.args()?;
            call.typed_reply(&a.wrapping_add(b))
        })
        // Two objects: in Hessian2 the second one's class index counts from its own stream
        // in the Triple wrapper, so the bridge moves them through values.
        .method("older", |call| async move {
            let (a, b): (User, User) = call.args()?;
            call.typed_reply(if a.id >= b.id { &a } else { &b })
        })
        .method("nothing", |_call| async move { Reply::null() })
        .method("fail", |call| async move {
            let (why,): (String,) = call.args()?;
            Err(HandlerError::exception(
                "java.lang.IllegalStateException",
                why,
            ))
        })
        .method("sleep", |call| async move {
            let (ms,): (i32,) = call.args()?;
            tokio::time::sleep(Duration::from_millis(ms as u64)).await;
            call.typed_reply(&format!("slept {ms}"))
        })
        .streaming("count", STRING, |_call, _out| async move { Ok(()) });
    Server::builder()
        .service(svc)
        .bind("127.0.0.1:0")
        .await
        .unwrap()
}

/// A one-worker proxy whose every call goes to `provider`, in a cluster whose providers
/// speak `protocol`, with the route's `timeout_ms`.
fn conf_of(provider: &str, protocol: &str, timeout_ms: u64) -> String {
    config(
        1,
        &format!(
            "[[routes]]\ncluster = \"a\"\ntimeout_ms = {timeout_ms}\n\
             [clusters.a]\nprotocol = \"{protocol}\"\nendpoints = [{{ address = \"{provider}\" }}]\n"
        ),
    )
}

/// A one-worker proxy whose every call goes to `provider`, a Dubbo-only cluster.
fn bridge_conf(provider: &str) -> String {
    conf_of(provider, "dubbo", 5000)
}

fn call(method: &str, format: BodyFormat) -> TripleCall {
    TripleCall::new(GREETER, method)
        .version("1.0.0")
        .group("blue")
        .format(format)
        .timeout(Duration::from_secs(5))
}

const FORMATS: [BodyFormat; 2] = [BodyFormat::Hessian2(PeerVersion::V3), BodyFormat::FASTJSON2];

async fn triple_calls_cross_to_a_dubbo_provider(engine: &str) {
    let a = provider().await;
    let p = Proxy::start(engine, &bridge_conf(&a.local_addr().to_string()));
    let c = Client::connect(&p.addr().to_string()).await.unwrap();
    // Directly, the same provider sees Triple: the proxy is what changes the protocol.
    let direct = Client::connect(&a.local_addr().to_string()).await.unwrap();
    let hello = |f| call("sayHello", f).arg(STRING, "wörld").unwrap();
    let got: String = direct.call(&hello(FORMATS[0])).await.unwrap();
    assert_eq!(got, "Hello, wörld over triple (-)");

    for f in FORMATS {
        let got: String = c
            .call(&hello(f).attachment("trace-id", "t-7"))
            .await
            .unwrap();
        assert_eq!(got, "Hello, wörld over dubbo (t-7)", "{f:?}");

        let sum = call("add", f)
            .arg("int", &2)
            .unwrap()
            .arg("int", &40)
            .unwrap();
        assert_eq!(c.call::<i32>(&sum).await.unwrap(), 42, "{f:?}");

        let (x, y) = (
            User {
                name: "x".into(),
                id: 1,
            },
            User {
                name: "y".into(),
                id: 9,
            },
        );
        let older = call("older", f)
            .arg(USER, &x)
            .unwrap()
            .arg(USER, &y)
            .unwrap();
        assert_eq!(c.call::<User>(&older).await.unwrap(), y, "{f:?}");

        let none: Option<String> = c.call(&call("nothing", f)).await.unwrap();
        assert_eq!(none, None, "{f:?}");

        // A business exception reaches the caller as the exception, class and message.
        let fail = call("fail", f).arg(STRING, "boom").unwrap();
        match c.call::<String>(&fail).await {
            Err(TripleError::Exception(e)) => {
                assert_eq!(e.class, "java.lang.IllegalStateException", "{f:?}");
                assert_eq!(e.message.as_deref(), Some("boom"), "{f:?}");
            }
            other => panic!("{f:?}: {other:?}"),
        }
    }

    // Many calls at once, each answered to its own caller.
    let calls = (0..64).map(|i| {
        let c = c.clone();
        async move {
            let f = FORMATS[i % 2];
            let got: String = c
                .call(&call("sayHello", f).arg(STRING, &format!("n{i}")).unwrap())
                .await
                .unwrap();
            assert_eq!(got, format!("Hello, n{i} over dubbo (-)"));
        }
    });
    futures_join_all(calls).await;
    assert!(p.metric("dubbo_proxy_triple_calls_total") >= 74.0);
}

async fn what_cannot_cross_is_answered_with_a_status(engine: &str) {
    let a = provider().await;
    let p = Proxy::start(engine, &bridge_conf(&a.local_addr().to_string()));
    let c = Client::connect(&p.addr().to_string()).await.unwrap();
    let f = FORMATS[0];

    // The caller's deadline, shorter than the route's: DEADLINE_EXCEEDED, and the
    // connection serves the next call.
    let slow = call("sleep", f)
        .arg("int", &3000)
        .unwrap()
        .timeout(Duration::from_millis(300));
    let err = c.call::<String>(&slow).await.unwrap_err();
    assert_eq!(err.code(), Code::DeadlineExceeded, "{err:?}");

    // A method the provider does not have: its own Dubbo error, as a gRPC status.
    let missing = call("nope", f).arg(STRING, "x").unwrap();
    let err = c.call::<String>(&missing).await.unwrap_err();
    assert_eq!(err.code(), Code::Unimplemented, "{err:?}");

    // A stream has no Dubbo form.
    let mut s = c
        .stream(&call("count", f), STRING)
        .await
        .expect("the stream opens");
    s.send("x:3").await.unwrap();
    s.finish().unwrap();
    let err = s.next::<String>().await.unwrap_err();
    assert!(
        matches!(err.code(), Code::Unimplemented | Code::Internal),
        "{err:?}"
    );

    // Still serving.
    let got: String = c
        .call(&call("sayHello", f).arg(STRING, "again").unwrap())
        .await
        .unwrap();
    assert_eq!(got, "Hello, again over dubbo (-)");

    // The provider gone: UNAVAILABLE.
    drop(a);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let err = c
        .call::<String>(&call("sayHello", f).arg(STRING, "x").unwrap())
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unavailable, "{err:?}");
}

/// A Dubbo call of [`GREETER`]'s `method` in `format`.
fn dubbo_call(method: &str, format: BodyFormat) -> RequestBuilder {
    Request::builder(GREETER, method)
        .version("1.0.0")
        .group("blue")
        .format(format)
        .timeout(Duration::from_secs(5))
}

async fn dubbo_calls_cross_to_a_triple_provider(engine: &str) {
    let a = provider().await;
    let p = Proxy::start(engine, &conf_of(&a.local_addr().to_string(), "tri", 5000));
    let c = DubboClient::connect(p.addr().to_string()).await.unwrap();
    for f in FORMATS {
        let hello = dubbo_call("sayHello", f)
            .arg(STRING, "wörld")
            .attach("trace-id", "t-7")
            .build()
            .unwrap();
        let got: String = c.call(&hello).await.unwrap();
        assert_eq!(got, "Hello, wörld over triple (t-7)", "{f:?}");

        let sum = dubbo_call("add", f)
            .arg("int", &2)
            .arg("int", &40)
            .build()
            .unwrap();
        assert_eq!(c.call::<i32>(&sum).await.unwrap(), 42, "{f:?}");

        // Two objects in one Dubbo body share its class definition: each leaves as a
        // stream of its own.
        let (x, y) = (
            User {
                name: "x".into(),
                id: 1,
            },
            User {
                name: "y".into(),
                id: 9,
            },
        );
        let older = dubbo_call("older", f)
            .arg(USER, &x)
            .arg(USER, &y)
            .build()
            .unwrap();
        assert_eq!(c.call::<User>(&older).await.unwrap(), y, "{f:?}");

        let none: Option<String> = c
            .call(&dubbo_call("nothing", f).build().unwrap())
            .await
            .unwrap();
        assert_eq!(none, None, "{f:?}");

        let fail = dubbo_call("fail", f).arg(STRING, "boom").build().unwrap();
        match c.call::<String>(&fail).await {
            Err(CallError::Exception(e)) => {
                assert_eq!(e.class, "java.lang.IllegalStateException", "{f:?}");
                assert_eq!(e.message.as_deref(), Some("boom"), "{f:?}");
            }
            other => panic!("{f:?}: {other:?}"),
        }
    }

    // Many at once on one connection, each answered to its own request id.
    let calls = (0..64).map(|i| {
        let c = c.clone();
        async move {
            let req = dubbo_call("sayHello", FORMATS[i % 2])
                .arg(STRING, &format!("n{i}"))
                .build()
                .unwrap();
            let got: String = c.call(&req).await.unwrap();
            assert_eq!(got, format!("Hello, n{i} over triple (-)"));
        }
    });
    futures_join_all(calls).await;
    // Counted as the route's calls, answered by the provider.
    assert_eq!(
        p.metric("dubbo_proxy_route_requests_total{route=\"routes[0]\"}"),
        74.0
    );
    assert_eq!(
        p.metric(
            "dubbo_proxy_route_responses_total{route=\"routes[0]\",status=\"OK\",origin=\"upstream\"}"
        ),
        74.0
    );
}

async fn dubbo_calls_that_fail_across_the_bridge_are_answered(engine: &str) {
    let a = provider().await;
    let p = Proxy::start(engine, &conf_of(&a.local_addr().to_string(), "tri", 400));
    let c = DubboClient::connect(p.addr().to_string()).await.unwrap();
    let f = FORMATS[0];
    let status = |r: Result<String, CallError>| match r {
        Err(CallError::Status { status, message }) => (status, message.unwrap_or_default()),
        other => panic!("{other:?}"),
    };

    // The route's timeout: the proxy answers, as for a Dubbo provider that is late.
    let slow = dubbo_call("sleep", f).arg("int", &3000).build().unwrap();
    let (st, why) = status(c.call::<String>(&slow).await);
    assert_eq!(st, DubboStatus::ServerTimeout, "{why}");

    // A method the provider lacks: its UNIMPLEMENTED, as SERVICE_NOT_FOUND.
    let missing = dubbo_call("nope", f).arg(STRING, "x").build().unwrap();
    let (st, why) = status(c.call::<String>(&missing).await);
    assert_eq!(st, DubboStatus::ServiceNotFound, "{why}");

    // Still serving.
    let hello = dubbo_call("sayHello", f)
        .arg(STRING, "again")
        .build()
        .unwrap();
    let got: String = c.call(&hello).await.unwrap();
    assert_eq!(got, "Hello, again over triple (-)");

    // The provider gone: the proxy cannot connect.
    drop(a);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (st, why) = status(c.call::<String>(&hello).await);
    assert!(
        matches!(st, DubboStatus::ServiceError | DubboStatus::ChannelInactive),
        "{st:?}: {why}"
    );
}

/// `curl --http1.1` to `addr`'s `method` of the [`GREETER`] (version 1.0.0, group blue, a
/// `trace-id` header) with `body`: the HTTP status and the body.
async fn curl(addr: std::net::SocketAddr, method: &str, body: &str) -> (u16, String) {
    let headers = [
        "tri-service-version: 1.0.0",
        "tri-service-group: blue",
        "trace-id: t-7",
    ];
    curl_post(format!("http://{addr}/{GREETER}/{method}"), &headers, body).await
}

/// Triple's HTTP/1.1 form (the real curl) to the Dubbo-only cluster: each call reaches the
/// provider as a Dubbo generic call, with the version, group and the caller's headers as
/// attachments; it counts in the route's metrics and writes its access log line.
async fn curl_calls_cross_to_a_dubbo_provider(engine: &str) {
    let a = provider().await;
    let conf = bridge_conf(&a.local_addr().to_string()) + "[log]\naccess_log = true\n";
    let p = Proxy::start_logging(engine, &conf, Some("warn,dubbo_proxy::access=info"));
    let json = |body: &str| -> serde_json::Value {
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
    };
    let (code, body) = curl(p.addr(), "sayHello", r#"["curl"]"#).await;
    assert_eq!(
        (code, json(&body)),
        (200, "Hello, curl over dubbo (t-7)".into())
    );
    let (code, body) = curl(p.addr(), "add", "[2, 3]").await;
    assert_eq!((code, json(&body)), (200, 5.into()));
    let (code, body) = curl(p.addr(), "nothing", "").await;
    assert_eq!((code, json(&body)), (200, serde_json::Value::Null));
    let (code, body) = curl(p.addr(), "fail", r#"["why"]"#).await;
    assert_eq!(code, 500, "{body}");
    assert_eq!(
        json(&body)["message"],
        "java.lang.IllegalStateException: why",
        "{body}"
    );
    let (code, body) = curl(p.addr(), "sayHello", "[").await;
    assert_eq!(code, 400, "{body}");

    let route = "{route=\"routes[0]\"}";
    assert_eq!(
        p.metric(&format!("dubbo_proxy_route_requests_total{route}")),
        5.0
    );
    // One access log line per call, the refused one too.
    eventually(|| p.log().matches("protocol=\"tri\"").count() >= 5).await;
    assert_eq!(
        p.log().matches("protocol=\"tri\"").count(),
        5,
        "{}",
        p.log()
    );
}
