//! Triple through the proxy, on 127.0.0.1: the Rust Triple client (dubbo-rpc) -> the
//! `dubbo-proxy` binary -> Rust Triple servers (dubbo-rpc), on the same listener as Dubbo 2
//! callers. Every test runs against both engines (`for_each_engine!`).

mod common;

use std::time::Duration;

use bytes::Bytes;
use common::*;
use dubbo_rpc::server::{Reply, Server, Service};
use dubbo_rpc::triple_client::{Client, TripleCall, TripleError};
use dubbo_triple::Code;

for_each_engine!(
    unary_and_server_streaming_calls_pass_through,
    routes_by_version_group_and_attachment,
    errors_are_answered_with_grpc_status,
    garbage_is_closed_and_counted_while_others_are_served,
    a_4_gib_length_prefix_is_forwarded_not_buffered,
    a_caller_reset_cancels_the_provider_stream,
    a_caller_that_does_not_read_holds_back_only_its_own_stream,
    silent_and_idle_http2_callers_are_closed,
    an_endpoint_that_fails_triple_calls_is_ejected,
    sigterm_sends_goaway_and_lets_calls_finish,
    a_provider_reset_reaches_the_caller,
    triple_connections_count_in_max_connections,
    oversize_headers_are_refused_and_others_served,
    max_inflight_bounds_a_connections_streams,
    http1_calls_are_forwarded,
    idle_http1_callers_are_closed,
    a_reload_drops_the_connections_to_providers_taken_out,
);

const GREETER: &str = "test.Greeter";
const STRING: &str = "java.lang.String";

/// A provider of [`GREETER`] (version `version`, group `group`) whose `sayHello` answers
/// `Hello, <name> from <tag>`, whose `count` streams `<name>-0` .. `<name>-<n-1>` (`n` from
/// the request `"<name>:<n>"`), and whose `hang` never answers.
async fn provider(tag: &'static str, version: &str, group: &str) -> Server {
    let mut svc = Service::new(GREETER)
        .method("sayHello", move |call| async move {
            let (name,): (String,) = call.args()?;
            call.typed_reply(&format!("Hello, {name} from {tag}"))
        })
        .method("sleep", |call| async move {
            let (ms,): (i32,) = call.args()?;
            tokio::time::sleep(Duration::from_millis(ms as u64)).await;
            call.typed_reply(&format!("slept {ms}"))
        })
        .method("hang", |_call| async move {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Reply::null()
        })
        .streaming("count", STRING, |mut call, out| async move {
            let request: String = call.next().await?.unwrap_or_default();
            let (name, n) = request.split_once(':').unwrap_or((&request, "3"));
            for i in 0..n.parse::<usize>().unwrap_or(0) {
                out.send(&format!("{name}-{i}")).await?;
            }
            Ok(())
        });
    if !version.is_empty() {
        svc = svc.version(version);
    }
    if !group.is_empty() {
        svc = svc.group(group);
    }
    Server::builder()
        .service(svc)
        .bind("127.0.0.1:0")
        .await
        .unwrap()
}

fn hello(name: &str) -> TripleCall {
    TripleCall::new(GREETER, "sayHello")
        .timeout(Duration::from_secs(10))
        .arg(STRING, name)
        .unwrap()
}

fn cluster_of(name: &str, server: &Server) -> String {
    format!(
        "[clusters.{name}]\nendpoints = [{{ address = \"{}\" }}]\n",
        server.local_addr()
    )
}

/// Provider "a", a one-worker proxy routing every call to it (`listener`, `route`: TOML
/// added to the listener and to the route), and a Triple client of the proxy.
async fn through_proxy(engine: &str, listener: &str, route: &str) -> (Server, Proxy, Client) {
    through(engine, listener, route, Proxy::start).await
}

/// [`through_proxy`] with the binary as a child process, for the tests of its signals.
async fn through_process(engine: &str) -> (Server, Proxy, Client) {
    through(engine, "", "", Proxy::start_process).await
}

async fn through(
    engine: &str,
    listener: &str,
    route: &str,
    start: fn(&str, &str) -> Proxy,
) -> (Server, Proxy, Client) {
    let a = provider("a", "", "").await;
    let conf = config(
        1,
        &format!(
            "{listener}[[routes]]\ncluster = \"a\"\n{route}{}",
            cluster_of("a", &a)
        ),
    );
    let p = start(engine, &conf);
    let c = client(&p).await;
    (a, p, c)
}

async fn client(p: &Proxy) -> Client {
    Client::connect(&p.addr().to_string()).await.unwrap()
}

/// Reads a server stream of `count` to its end.
async fn count(client: &Client, call: TripleCall, request: &str) -> Vec<String> {
    let mut s = client.stream(&call, STRING).await.unwrap();
    s.send(request).await.unwrap();
    s.finish().unwrap();
    let mut got = Vec::new();
    while let Some(v) = s.next::<String>().await.unwrap() {
        got.push(v);
    }
    got
}

async fn unary_and_server_streaming_calls_pass_through(engine: &str) {
    let (_a, p, c) = through_proxy(engine, "", "").await;
    let got: String = c.call(&hello("wörld")).await.unwrap();
    assert_eq!(got, "Hello, wörld from a");

    // Server streaming: 3 answers, then 2,000 (more than one flow-control window of them).
    let call = TripleCall::new(GREETER, "count").timeout(Duration::from_secs(10));
    assert_eq!(count(&c, call.clone(), "x:3").await, ["x-0", "x-1", "x-2"]);
    let many = count(&c, call, "m:2000").await;
    assert_eq!(many.len(), 2000);
    assert_eq!(many[1999], "m-1999");

    // Many calls at once on the one caller connection, each answered to its own stream.
    let calls = (0..64).map(|i| {
        let c = c.clone();
        async move {
            let got: String = c.call(&hello(&format!("n{i}"))).await.unwrap();
            assert_eq!(got, format!("Hello, n{i} from a"));
        }
    });
    futures_join_all(calls).await;

    // A Dubbo 2 caller on the same port, to the same provider (which serves both).
    let dubbo = dubbo_rpc::client::Client::connect(p.addr().to_string())
        .await
        .unwrap();
    let req = dubbo_codec::Request::builder(GREETER, "sayHello")
        .arg(STRING, "dubbo")
        .build()
        .unwrap();
    let got: String = dubbo.call(&req).await.unwrap();
    assert_eq!(got, "Hello, dubbo from a");

    assert_eq!(p.metric("dubbo_proxy_triple_connections_total"), 1.0);
    assert!(p.metric("dubbo_proxy_triple_calls_total") >= 67.0);
    assert!(p.metric("dubbo_proxy_route_requests_total{route=\"routes[0]\"}") >= 67.0);
}

async fn routes_by_version_group_and_attachment(engine: &str) {
    let a = provider("a", "1.0.0", "").await;
    let b = provider("b", "2.0.0", "").await;
    let g = provider("g", "1.0.0", "blue").await;
    let canary = provider("canary", "1.0.0", "").await;
    let conf = config(
        1,
        &format!(
            "[[routes]]\nattachments = {{ env = \"canary\" }}\ncluster = \"canary\"\n\
             [[routes]]\ninterface = \"{GREETER}\"\nversion = \"2.0.0\"\ncluster = \"b\"\n\
             [[routes]]\ngroup = \"blue\"\ncluster = \"g\"\n\
             [[routes]]\ninterface = \"test.*\"\ncluster = \"a\"\n{}{}{}{}",
            cluster_of("a", &a),
            cluster_of("b", &b),
            cluster_of("g", &g),
            cluster_of("canary", &canary),
        ),
    );
    let p = Proxy::start(engine, &conf);
    let c = client(&p).await;
    let v1: String = c.call(&hello("x").version("1.0.0")).await.unwrap();
    assert_eq!(v1, "Hello, x from a");
    let v2: String = c.call(&hello("x").version("2.0.0")).await.unwrap();
    assert_eq!(v2, "Hello, x from b");
    let blue: String = c
        .call(&hello("x").version("1.0.0").group("blue"))
        .await
        .unwrap();
    assert_eq!(blue, "Hello, x from g");
    let call = hello("x").version("1.0.0").attachment("env", "canary");
    let can: String = c.call(&call).await.unwrap();
    assert_eq!(can, "Hello, x from canary");
    // Streams are routed the same way.
    let call = TripleCall::new(GREETER, "count")
        .version("2.0.0")
        .timeout(Duration::from_secs(10));
    assert_eq!(count(&c, call, "v2:2").await, ["v2-0", "v2-1"]);
}

fn status_of<T: std::fmt::Debug>(r: Result<T, TripleError>) -> dubbo_triple::Status {
    match r {
        Err(TripleError::Status(s)) => s,
        other => panic!("expected a grpc-status, got {other:?}"),
    }
}

async fn errors_are_answered_with_grpc_status(engine: &str) {
    let a = provider("a", "", "").await;
    // A port nothing listens on.
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead_addr = dead.local_addr().unwrap();
    drop(dead);
    let conf = config(
        1,
        &format!(
            "[[routes]]\ninterface = \"test.Dead\"\ncluster = \"dead\"\n\
             [[routes]]\ninterface = \"{GREETER}\"\ncluster = \"a\"\ntimeout_ms = 1500\n\
             {}[clusters.dead]\nendpoints = [{{ address = \"{dead_addr}\" }}]\n",
            cluster_of("a", &a)
        ),
    );
    let p = Proxy::start(engine, &conf);
    let c = client(&p).await;

    let s = status_of(c.call_value(&TripleCall::new("no.Such", "m")).await);
    assert_eq!(s.code, Code::Unimplemented, "{s}");
    assert!(s.message.contains("no route for no.Such/m"), "{s}");

    let s = status_of(c.call_value(&TripleCall::new("test.Dead", "m")).await);
    assert_eq!(s.code, Code::Unavailable, "{s}");
    assert!(s.message.contains(&dead_addr.to_string()), "{s}");

    // The route's 1.5 s, sooner than the caller's 10 s.
    let t0 = std::time::Instant::now();
    let hang = TripleCall::new(GREETER, "hang").timeout(Duration::from_secs(10));
    let s = status_of(c.call_value(&hang).await);
    assert_eq!(s.code, Code::DeadlineExceeded, "{s}");
    assert!(
        (1400..5000).contains(&t0.elapsed().as_millis()),
        "{:?}",
        t0.elapsed()
    );
    assert!(
        eventually(|| a.inflight() == 0).await,
        "the provider's call was cancelled"
    );

    // The caller's own grpc-timeout, sooner than the route's, honoured by the proxy: a raw
    // caller that keeps no deadline of its own, whose request never ends (the provider waits
    // for its message).
    let mut send = raw(&p).await.ready().await.unwrap();
    let mut request = post(&format!("/{GREETER}/sayHello"));
    request
        .headers_mut()
        .insert("grpc-timeout", http::HeaderValue::from_static("100m"));
    let t0 = std::time::Instant::now();
    let (response, _body) = send.send_request(request, false).unwrap();
    let code = tokio::time::timeout(Duration::from_secs(5), grpc_status(response))
        .await
        .expect("answered");
    assert_eq!(code, Code::DeadlineExceeded);
    assert!(
        t0.elapsed() < Duration::from_millis(1200),
        "{:?}",
        t0.elapsed()
    );

    // The connection served all of that, and still serves.
    let got: String = c.call(&hello("after")).await.unwrap();
    assert_eq!(got, "Hello, after from a");
    assert_eq!(
        p.metric("dubbo_proxy_triple_answered_total{code=\"UNIMPLEMENTED\"}"),
        1.0
    );
    assert_eq!(
        p.metric("dubbo_proxy_triple_answered_total{code=\"UNAVAILABLE\"}"),
        1.0
    );
    // Both deadlines were the proxy's answers.
    assert_eq!(
        p.metric("dubbo_proxy_triple_answered_total{code=\"DEADLINE_EXCEEDED\"}"),
        2.0
    );
}

async fn garbage_is_closed_and_counted_while_others_are_served(engine: &str) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (_a, p, c) = through_proxy(engine, "", "").await;
    let got: String = c.call(&hello("before")).await.unwrap();
    assert_eq!(got, "Hello, before from a");

    for garbage in [
        &b"PRI * HTTP/1.0\r\n\r\n"[..],
        b"\x16\x03\x01\x00\xa5\x01",
        b"hello",
    ] {
        let mut s = tokio::net::TcpStream::connect(p.addr()).await.unwrap();
        s.write_all(garbage).await.unwrap();
        let mut rest = Vec::new();
        let n = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut rest))
            .await
            .expect("closed")
            .unwrap_or(0);
        assert_eq!(n, 0, "{garbage:?}: nothing answered");
        let got: String = c.call(&hello("during")).await.unwrap();
        assert_eq!(got, "Hello, during from a");
    }
    assert!(eventually(|| p.metric("dubbo_proxy_protocol_errors_total") == 3.0).await);
}

/// A raw HTTP/2 connection to the proxy.
async fn raw(p: &Proxy) -> h2::client::SendRequest<Bytes> {
    let tcp = tokio::net::TcpStream::connect(p.addr()).await.unwrap();
    let (send, conn) = h2::client::handshake(tcp).await.unwrap();
    tokio::spawn(async move {
        let _ = conn.await;
    });
    send
}

fn post(path: &str) -> http::Request<()> {
    http::Request::builder()
        .method("POST")
        .uri(format!("http://127.0.0.1{path}"))
        .header("content-type", "application/grpc+proto")
        .header("te", "trailers")
        .body(())
        .unwrap()
}

/// The grpc-status of a response: its trailers', or its headers' for trailers-only.
async fn grpc_status(response: h2::client::ResponseFuture) -> Code {
    let response = response.await.unwrap();
    if let Some(s) = dubbo_triple::Status::from_headers(response.headers()) {
        return s.code;
    }
    let mut body = response.into_body();
    while let Some(d) = body.data().await {
        let d = d.unwrap();
        let _ = body.flow_control().release_capacity(d.len());
    }
    let trailers = body.trailers().await.unwrap().expect("trailers");
    dubbo_triple::Status::from_headers(&trailers).unwrap().code
}

async fn a_4_gib_length_prefix_is_forwarded_not_buffered(engine: &str) {
    let (_a, p, c) = through_proxy(engine, "", "").await;
    let mut send = raw(&p).await.ready().await.unwrap();
    let (response, mut body) = send
        .send_request(post(&format!("/{GREETER}/sayHello")), false)
        .unwrap();
    // Uncompressed, 0xffff_ffff bytes claimed, 64 KiB sent: the provider's limit answers.
    let mut claim = vec![0u8, 0xff, 0xff, 0xff, 0xff];
    claim.extend(std::iter::repeat_n(b'x', 64 * 1024));
    body.reserve_capacity(claim.len());
    body.send_data(Bytes::from(claim), false).unwrap();
    let code = tokio::time::timeout(Duration::from_secs(5), grpc_status(response))
        .await
        .expect("answered");
    assert_eq!(code, Code::ResourceExhausted);
    // And the proxy goes on serving.
    let got: String = c.call(&hello("after")).await.unwrap();
    assert_eq!(got, "Hello, after from a");
}

async fn a_caller_reset_cancels_the_provider_stream(engine: &str) {
    let (a, _p, c) = through_proxy(engine, "", "timeout_ms = 60000\n").await;
    let hang = TripleCall::new(GREETER, "hang").timeout(Duration::from_secs(30));
    let call = tokio::spawn({
        let c = c.clone();
        async move { c.call_value(&hang).await }
    });
    assert!(
        eventually(|| a.inflight() == 1).await,
        "the call reached the provider"
    );
    // Dropping the call resets its stream (RST_STREAM CANCEL): the proxy resets the
    // provider's.
    call.abort();
    assert!(
        eventually(|| a.inflight() == 0).await,
        "the provider's stream was reset"
    );
    let got: String = c.call(&hello("after")).await.unwrap();
    assert_eq!(got, "Hello, after from a");
}

async fn a_caller_that_does_not_read_holds_back_only_its_own_stream(engine: &str) {
    let (_a, _p, c) = through_proxy(engine, "", "timeout_ms = 60000\n").await;
    // About 1.3 MB of answers, several windows' worth (256 KiB per stream at each hop),
    // which the caller does not read for now.
    const N: usize = 100_000;
    let call = TripleCall::new(GREETER, "count").timeout(Duration::from_secs(60));
    let mut slow = c.stream(&call, STRING).await.unwrap();
    slow.send(&format!("s:{N}")).await.unwrap();
    slow.finish().unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    // The same connection and the same provider connection serve other calls meanwhile.
    for i in 0..20 {
        let got: String = c.call(&hello(&format!("q{i}"))).await.unwrap();
        assert_eq!(got, format!("Hello, q{i} from a"));
    }
    let call = TripleCall::new(GREETER, "count").timeout(Duration::from_secs(10));
    assert_eq!(count(&c, call, "y:2").await, ["y-0", "y-1"]);
    // Then the stream is read to its end, every message in order.
    let mut n = 0;
    while let Some(v) = slow.next::<String>().await.unwrap() {
        assert_eq!(v, format!("s-{n}"));
        n += 1;
    }
    assert_eq!(n, N);
}

async fn silent_and_idle_http2_callers_are_closed(engine: &str) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let limits = "frame_timeout_ms = 300\nidle_timeout_ms = 600\n";
    let (_a, p, c) = through_proxy(engine, limits, "").await;
    // The preface and then nothing (no SETTINGS): closed after frame_timeout_ms.
    let mut s = tokio::net::TcpStream::connect(p.addr()).await.unwrap();
    s.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        .await
        .unwrap();
    let t0 = std::time::Instant::now();
    let mut sink = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut sink)).await;
    assert!(closed.is_ok(), "still open after 5 s");
    assert!(
        t0.elapsed() >= Duration::from_millis(250),
        "{:?}",
        t0.elapsed()
    );

    // A caller that made one call and then went quiet: GOAWAY after idle_timeout_ms.
    let tcp = tokio::net::TcpStream::connect(p.addr()).await.unwrap();
    let (send, conn) = h2::client::handshake(tcp).await.unwrap();
    let conn = tokio::spawn(conn);
    drop(send);
    let got: String = c.call(&hello("busy")).await.unwrap();
    assert_eq!(got, "Hello, busy from a");
    let ended = tokio::time::timeout(Duration::from_secs(5), conn).await;
    assert!(ended.is_ok(), "the idle connection is still open after 5 s");
    // A caller with a call running is not idle: the call outlasts idle_timeout_ms and
    // ends by its own deadline.
    let hang = TripleCall::new(GREETER, "hang").timeout(Duration::from_millis(1500));
    let t0 = std::time::Instant::now();
    let e = c.call_value(&hang).await.unwrap_err();
    assert_eq!(e.code(), Code::DeadlineExceeded, "{e:?}");
    assert!(t0.elapsed() >= Duration::from_millis(1400));
}

async fn an_endpoint_that_fails_triple_calls_is_ejected(engine: &str) {
    let a = provider("a", "", "").await;
    // Takes connections (the kernel's backlog) and never answers: TCP and the HTTP/2 client
    // preface go through, every call times out.
    let hole = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let hole_addr = hole.local_addr().unwrap();
    let conf = config(
        1,
        &format!(
            "[[routes]]\ncluster = \"x\"\ntimeout_ms = 300\n\
             [clusters.x]\nendpoints = [{{ address = \"{}\" }}, {{ address = \"{hole_addr}\" }}]\n\
             outlier = {{ consecutive_failures = 2, base_ejection_ms = 60000 }}\n",
            a.local_addr()
        ),
    );
    let p = Proxy::start(engine, &conf);
    let c = client(&p).await;
    let (mut ok, mut late) = (0, 0);
    for i in 0..10 {
        match c.call::<String>(&hello(&format!("{i}"))).await {
            Ok(v) => {
                assert_eq!(v, format!("Hello, {i} from a"));
                ok += 1;
            }
            Err(e) => {
                assert_eq!(e.code(), Code::DeadlineExceeded, "{e:?}");
                late += 1;
            }
        }
    }
    // Round robin over both until the hole's second failure in a row ejects it.
    assert_eq!((ok, late), (8, 2));
    let series =
        format!("dubbo_proxy_endpoint_ejections_total{{cluster=\"x\",endpoint=\"{hole_addr}\"}}");
    assert_eq!(p.metric(&series), 1.0);
    drop(hole);
}

async fn sigterm_sends_goaway_and_lets_calls_finish(engine: &str) {
    let (_a, mut p, c) = through_process(engine).await;
    // An idle Triple connection, and a call under way on another.
    let tcp = tokio::net::TcpStream::connect(p.addr()).await.unwrap();
    let (idle, conn) = h2::client::handshake(tcp).await.unwrap();
    let idle_conn = tokio::spawn(conn);
    let call = TripleCall::new(GREETER, "sleep")
        .timeout(Duration::from_secs(10))
        .arg("int", &800)
        .unwrap();
    let running = tokio::spawn({
        let c = c.clone();
        async move { c.call::<String>(&call).await }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    p.signal(libc::SIGTERM);
    // The idle connection is told GOAWAY and closes; the call under way is answered.
    let ended = tokio::time::timeout(Duration::from_secs(5), idle_conn).await;
    assert!(ended.is_ok(), "GOAWAY and close within 5 s");
    drop(idle);
    assert_eq!(running.await.unwrap().unwrap(), "slept 800");
    let code = tokio::task::spawn_blocking(move || p.wait_exit(Duration::from_secs(10)))
        .await
        .unwrap();
    assert_eq!(code, Some(0), "exits once drained");
}

/// A raw HTTP/2 provider that resets every stream it is sent with `reason`, once it has seen
/// the request's HEADERS.
async fn resetting_provider(reason: h2::Reason) -> std::net::SocketAddr {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = l.accept().await {
            tokio::spawn(async move {
                let Ok(mut conn) = h2::server::handshake(tcp).await else {
                    return;
                };
                while let Some(Ok((_request, mut respond))) = conn.accept().await {
                    respond.send_reset(reason);
                }
            });
        }
    });
    addr
}

async fn a_provider_reset_reaches_the_caller(engine: &str) {
    let provider = resetting_provider(h2::Reason::ENHANCE_YOUR_CALM).await;
    let conf = config(
        1,
        &format!(
            "[[routes]]\ncluster = \"r\"\n[clusters.r]\nendpoints = [{{ address = \"{provider}\" }}]\n"
        ),
    );
    let p = Proxy::start(engine, &conf);
    let mut send = raw(&p).await.ready().await.unwrap();
    let (response, _body) = send
        .send_request(post(&format!("/{GREETER}/sayHello")), false)
        .unwrap();
    let e = tokio::time::timeout(Duration::from_secs(5), response)
        .await
        .expect("answered")
        .unwrap_err();
    assert_eq!(e.reason(), Some(h2::Reason::ENHANCE_YOUR_CALM), "{e:?}");
}

async fn triple_connections_count_in_max_connections(engine: &str) {
    use tokio::io::AsyncReadExt;
    let (_a, p, c) = through_proxy(engine, "max_connections = 1\n", "").await;
    let got: String = c.call(&hello("one")).await.unwrap();
    assert_eq!(got, "Hello, one from a");
    assert_eq!(p.metric("dubbo_proxy_downstream_connections"), 1.0);
    // A second caller, of either protocol, is over the limit: closed at once.
    let mut second = tokio::net::TcpStream::connect(p.addr()).await.unwrap();
    let mut sink = Vec::new();
    let n = tokio::time::timeout(Duration::from_secs(5), second.read_to_end(&mut sink))
        .await
        .expect("closed at once")
        .unwrap_or(0);
    assert_eq!(n, 0);
    // Once the Triple caller is gone, its place is free again.
    drop(c);
    assert!(eventually(|| p.metric("dubbo_proxy_downstream_connections") == 0.0).await);
    let again = client(&p).await;
    let got: String = again.call(&hello("two")).await.unwrap();
    assert_eq!(got, "Hello, two from a");
}

async fn oversize_headers_are_refused_and_others_served(engine: &str) {
    let (_a, p, c) = through_proxy(engine, "", "").await;
    let mut send = raw(&p).await.ready().await.unwrap();
    let mut request = post(&format!("/{GREETER}/sayHello"));
    let big = "x".repeat(32 * 1024);
    request
        .headers_mut()
        .insert("x-big", http::HeaderValue::from_str(&big).unwrap());
    let answered = match send.send_request(request, true) {
        Ok((response, _)) => tokio::time::timeout(Duration::from_secs(5), response)
            .await
            .expect("answered"),
        Err(e) => Err(e),
    };
    // The proxy's h2 answers 431 itself: the call never reaches routing.
    assert_eq!(answered.unwrap().status(), 431);
    let got: String = c.call(&hello("after")).await.unwrap();
    assert_eq!(got, "Hello, after from a");
    assert_eq!(p.metric("dubbo_proxy_triple_calls_total"), 1.0);
}

/// The listener's `max_inflight` is a Triple connection's SETTINGS_MAX_CONCURRENT_STREAMS:
/// with 2, three calls of 500 ms on one connection take two turns.
async fn max_inflight_bounds_a_connections_streams(engine: &str) {
    let (_a, _p, c) = through_proxy(engine, "max_inflight = 2\n", "").await;
    let sleep = |ms: i32| {
        TripleCall::new(GREETER, "sleep")
            .timeout(Duration::from_secs(10))
            .arg("int", &ms)
            .unwrap()
    };
    // One call first: the client has the proxy's SETTINGS before the three start.
    let got: String = c.call(&sleep(1)).await.unwrap();
    assert_eq!(got, "slept 1");
    let t = std::time::Instant::now();
    let calls = (0..3).map(|_| {
        let c = c.clone();
        async move {
            let got: String = c.call(&sleep(500)).await.unwrap();
            assert_eq!(got, "slept 500");
        }
    });
    futures_join_all(calls).await;
    let took = t.elapsed();
    assert!(
        took >= Duration::from_millis(990),
        "three calls, two at a time, in {took:?}"
    );
    assert!(took < Duration::from_secs(5), "{took:?}");
}

/// A `POST` of Triple's HTTP/1.1 form with a JSON body, and `Connection: close` after `more`.
fn json_post(path: &str, body: &str, more: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
         content-length: {}\r\n{more}\r\n{body}",
        body.len()
    )
}

/// Triple's HTTP/1.1 form (what `curl` sends a Java 3.3 port) on the proxy's port: routed by
/// path and headers like the HTTP/2 form, forwarded to the provider's HTTP/1.1 server, the
/// answer passed back; keep-alive requests on one connection; the proxy's own answers as
/// HTTP statuses.
async fn http1_calls_are_forwarded(engine: &str) {
    let route = format!("interface = \"{GREETER}\"\ntimeout_ms = 500\n");
    let (_a, p, _c) = through_proxy(engine, "", &route).await;
    let close = "connection: close\r\n";
    let answer = http_raw(
        p.addr(),
        &json_post(&format!("/{GREETER}/sayHello"), "[\"wörld\"]", close),
    );
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
    assert!(answer.ends_with("\"Hello, wörld from a\""), "{answer}");

    // Two on one connection (the second closes it).
    let two = json_post(&format!("/{GREETER}/sayHello"), "[\"one\"]", "")
        + &json_post(&format!("/{GREETER}/sayHello"), "[\"two\"]", close);
    let answer = http_raw(p.addr(), &two);
    assert_eq!(answer.matches("HTTP/1.1 200 ").count(), 2, "{answer}");
    assert!(answer.contains("\"Hello, one from a\""), "{answer}");
    assert!(answer.ends_with("\"Hello, two from a\""), "{answer}");

    // The proxy's own answers.
    let answer = http_raw(p.addr(), &json_post("/test.Nope/x", "[]", close));
    assert!(answer.starts_with("HTTP/1.1 404 "), "{answer}");
    assert!(answer.contains("no route for test.Nope/x"), "{answer}");
    let answer = http_raw(
        p.addr(),
        &json_post(&format!("/{GREETER}/sleep"), "[2000]", close),
    );
    assert!(answer.starts_with("HTTP/1.1 504 "), "{answer}");
    assert_eq!(
        p.metric("dubbo_proxy_route_requests_total{route=\"routes[0]\"}"),
        4.0
    );
}

/// Reads one HTTP/1.1 response (head and `content-length` body) off `s`; `None` when the
/// connection closed first.
async fn read_response(s: &mut tokio::net::TcpStream) -> Option<String> {
    use tokio::io::AsyncReadExt;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            if buf.len() >= end + 4 + len {
                return Some(String::from_utf8_lossy(&buf).into_owned());
            }
        }
        match s.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// HTTP/1.1 keep-alive callers get the listener's limits: a connection waiting for its next
/// request is closed after `idle_timeout_ms` (not after `frame_timeout_ms`), one in use is
/// kept, and a request head begun must arrive within `frame_timeout_ms`.
async fn idle_http1_callers_are_closed(engine: &str) {
    use std::time::Instant;
    use tokio::io::AsyncWriteExt;
    let limits = "frame_timeout_ms = 400\nidle_timeout_ms = 1500\n";
    let (_a, p, _c) = through_proxy(engine, limits, "").await;
    let request = |name: &str| {
        json_post(
            &format!("/{GREETER}/sayHello"),
            &format!("[\"{name}\"]"),
            "",
        )
    };
    let mut s = tokio::net::TcpStream::connect(p.addr()).await.unwrap();
    s.write_all(request("one").as_bytes()).await.unwrap();
    let answer = read_response(&mut s).await.expect("an answer");
    assert!(answer.ends_with("\"Hello, one from a\""), "{answer}");
    // Quiet for twice frame_timeout_ms: still open.
    tokio::time::sleep(Duration::from_millis(800)).await;
    s.write_all(request("two").as_bytes()).await.unwrap();
    let answer = read_response(&mut s)
        .await
        .expect("kept past frame_timeout_ms");
    assert!(answer.ends_with("\"Hello, two from a\""), "{answer}");
    // Then idle: closed after about idle_timeout_ms.
    let t0 = Instant::now();
    let closed = tokio::time::timeout(Duration::from_secs(6), read_response(&mut s)).await;
    assert_eq!(
        closed,
        Ok(None),
        "the idle connection is still open after 6 s"
    );
    let idle = t0.elapsed();
    assert!(
        idle >= Duration::from_millis(1300) && idle < Duration::from_secs(4),
        "closed after {idle:?}"
    );

    // A connection in use every 500 ms for twice idle_timeout_ms is kept.
    let mut s = tokio::net::TcpStream::connect(p.addr()).await.unwrap();
    let t0 = Instant::now();
    let mut calls = 0;
    while t0.elapsed() < Duration::from_millis(3000) {
        s.write_all(request("busy").as_bytes()).await.unwrap();
        let answer = read_response(&mut s)
            .await
            .expect("an active connection is kept");
        assert!(answer.ends_with("\"Hello, busy from a\""), "{answer}");
        calls += 1;
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert!(calls >= 5, "{calls}");

    // A head begun and not finished: closed after about frame_timeout_ms.
    let mut s = tokio::net::TcpStream::connect(p.addr()).await.unwrap();
    s.write_all(b"POST /test.Greeter/sayHello HTTP/1.1\r\nhost: x\r\n")
        .await
        .unwrap();
    let t0 = Instant::now();
    let closed = tokio::time::timeout(Duration::from_secs(6), read_response(&mut s)).await;
    let took = t0.elapsed();
    assert_eq!(closed, Ok(None), "a trickled head is still open after 6 s");
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_millis(1300),
        "closed after {took:?}"
    );
}

/// A reload that moves the route to another provider: calls go there, and the pooled
/// connection to the provider taken out is closed (not kept for a provider no cluster has).
async fn a_reload_drops_the_connections_to_providers_taken_out(engine: &str) {
    let (a, p, c) = through_process(engine).await;
    let b = provider("b", "", "").await;
    let got: String = c.call(&hello("x")).await.unwrap();
    assert_eq!(got, "Hello, x from a");
    // The pipeline's HTTP/2 connection, beside the Dubbo workers' own.
    assert!(a.connection_count() >= 1);
    let conf = config(
        1,
        &format!("[[routes]]\ncluster = \"b\"\n{}", cluster_of("b", &b)),
    );
    std::fs::write(&p.config_path, conf).unwrap();
    p.signal(libc::SIGHUP);
    assert!(eventually(|| p.metric("dubbo_proxy_config_reloads_total") >= 1.0).await);
    let got: String = c.call(&hello("y")).await.unwrap();
    assert_eq!(got, "Hello, y from b");
    assert!(
        eventually(|| a.connection_count() == 0).await,
        "the connection to a is still open"
    );
}
