//! Triple on the server's port, called by the Rust Triple client and by a raw HTTP/2 client
//! for what no well-behaved client sends.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use common::triple::{demo, triple_demo_calls};
use common::{demo_server, INTERFACE, VERSION};
use dubbo_codec::format::BodyFormat;
use dubbo_rpc::server::{Protocol, Reply, Server, Service};
use dubbo_rpc::triple_client::{Client, TripleCall, TripleError};
use dubbo_triple::message::encode_message;
use dubbo_triple::Code;

#[tokio::test]
async fn the_demo_service_answers_triple_and_dubbo_on_one_port() {
    let server = demo_server().await;
    let addr = server.local_addr().to_string();
    let client = Client::connect(&addr).await.unwrap();
    for format in [BodyFormat::default(), BodyFormat::FASTJSON2] {
        triple_demo_calls(&client, format, &format!("our server, {format:?}")).await;
    }
    // The Dubbo protocol on the same port.
    let dubbo = dubbo_rpc::client::Client::connect(addr.clone())
        .await
        .unwrap();
    let req = common::req("sayHello")
        .arg("java.lang.String", "dubbo")
        .build()
        .unwrap();
    let hello: String = dubbo.call(&req).await.unwrap();
    assert_eq!(hello, "Hello, dubbo");
    server.shutdown(Duration::from_secs(2)).await;
}

#[tokio::test]
async fn unknown_services_and_methods_are_unimplemented() {
    let server = demo_server().await;
    let client = Client::connect(&server.local_addr().to_string())
        .await
        .unwrap();
    for call in [
        TripleCall::new("no.Such", "sayHello"),
        demo("noSuchMethod"),
        TripleCall::new(INTERFACE, "sayHello").version("9.9.9"),
        demo("sayHello").group("other"),
    ] {
        match client.call_value(&call).await {
            Err(TripleError::Status(s)) => {
                assert_eq!(s.code, Code::Unimplemented, "{s}");
                assert!(s.message.contains("Not found"), "{s}");
            }
            other => panic!("{other:?}"),
        }
    }
}

/// A service whose `hang` handler waits until it is dropped, and says so.
fn hanging(dropped: Arc<AtomicBool>, started: Arc<AtomicUsize>) -> Service {
    struct OnDrop(Arc<AtomicBool>);
    impl Drop for OnDrop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    Service::new("test.Hang").method("hang", move |call| {
        assert_eq!(call.protocol, Protocol::Triple);
        let guard = OnDrop(dropped.clone());
        started.fetch_add(1, Ordering::SeqCst);
        async move {
            tokio::time::sleep(Duration::from_secs(60)).await;
            drop(guard);
            Reply::null()
        }
    })
}

/// A server of `svc` alone, and a Triple client of it.
async fn serve(svc: Service) -> (Server, Client) {
    let server = Server::builder()
        .service(svc)
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let client = Client::connect(&server.local_addr().to_string())
        .await
        .unwrap();
    (server, client)
}

#[tokio::test]
async fn a_deadline_ends_the_call_on_both_sides() {
    let dropped = Arc::new(AtomicBool::new(false));
    let started = Arc::new(AtomicUsize::new(0));
    let (server, client) = serve(hanging(dropped.clone(), started.clone())).await;
    let call = TripleCall::new("test.Hang", "hang").timeout(Duration::from_millis(200));
    let t0 = std::time::Instant::now();
    let err = client.call_value(&call).await.unwrap_err();
    assert_eq!(err.code(), Code::DeadlineExceeded, "{err:?}");
    assert!(t0.elapsed() < Duration::from_secs(2));
    assert!(common::eventually(|| dropped.load(Ordering::SeqCst)).await);
    assert!(common::eventually(|| server.inflight() == 0).await);
}

/// A raw HTTP/2 connection to `server`.
async fn raw(server: &Server) -> h2::client::SendRequest<Bytes> {
    let tcp = tokio::net::TcpStream::connect(server.local_addr())
        .await
        .unwrap();
    let (send, conn) = h2::client::handshake(tcp).await.unwrap();
    tokio::spawn(async move {
        let _ = conn.await;
    });
    send
}

fn post(path: &str, content_type: &str) -> http::Request<()> {
    http::Request::builder()
        .method("POST")
        .uri(format!("http://127.0.0.1{path}"))
        .header("content-type", content_type)
        .header("te", "trailers")
        .body(())
        .unwrap()
}

/// Sends `body` to `path` and returns the HTTP status and the call's grpc-status.
async fn exchange(
    send: &mut h2::client::SendRequest<Bytes>,
    request: http::Request<()>,
    body: Bytes,
) -> (u16, Option<dubbo_triple::Status>) {
    let mut send = send.clone().ready().await.unwrap();
    let (response, mut stream) = send.send_request(request, false).unwrap();
    let _ = stream.send_data(body, true);
    let response = response.await.unwrap();
    let status = response.status().as_u16();
    if let Some(s) = dubbo_triple::Status::from_headers(response.headers()) {
        return (status, Some(s));
    }
    let mut recv = response.into_body();
    while let Some(d) = recv.data().await {
        let _ = d;
    }
    let trailers = recv.trailers().await.unwrap().unwrap_or_default();
    (status, dubbo_triple::Status::from_headers(&trailers))
}

#[tokio::test]
async fn hostile_requests_get_a_status_and_cost_nothing() {
    let server = demo_server().await;
    let mut send = raw(&server).await;
    let path = format!("/{INTERFACE}/sayHello");
    let version = |mut r: http::Request<()>| {
        r.headers_mut()
            .insert("tri-service-version", VERSION.parse().unwrap());
        r
    };
    // A prefix that claims 4 GiB: refused from the prefix.
    let (http, status) = exchange(
        &mut send,
        version(post(&path, "application/grpc+proto")),
        Bytes::from_static(&[0, 0xff, 0xff, 0xff, 0xff, 1, 2, 3]),
    )
    .await;
    assert_eq!(http, 200);
    let status = status.unwrap();
    assert_eq!(status.code, Code::ResourceExhausted, "{status}");
    assert!(status.message.contains("4294967295"), "{status}");
    // A wrapper that is not protobuf.
    let mut body = BytesMut::new();
    encode_message(&[0x12, 100, 0], &mut body);
    let (_, status) = exchange(
        &mut send,
        version(post(&path, "application/grpc+proto")),
        body.freeze(),
    )
    .await;
    let status = status.unwrap();
    assert_eq!(status.code, Code::Internal, "{status}");
    assert!(status.message.contains("request wrapper"), "{status}");
    // A message cut short by the end of the stream.
    let (_, status) = exchange(
        &mut send,
        version(post(&path, "application/grpc+proto")),
        Bytes::from_static(&[0, 0, 0, 0, 9, 1]),
    )
    .await;
    assert_eq!(status.unwrap().code, Code::Internal);
    // Not gRPC at all: HTTP 415.
    let (http, _) = exchange(&mut send, version(post(&path, "text/plain")), Bytes::new()).await;
    assert_eq!(http, 415);
    // The connection still serves a real call.
    let client = Client::connect(&server.local_addr().to_string())
        .await
        .unwrap();
    let call = demo("sayHello").arg("java.lang.String", "still").unwrap();
    assert_eq!(client.call::<String>(&call).await.unwrap(), "Hello, still");
}

#[tokio::test]
async fn a_reset_stream_drops_its_handler_and_a_reset_flood_costs_others_nothing() {
    let dropped = Arc::new(AtomicBool::new(false));
    let started = Arc::new(AtomicUsize::new(0));
    let server = Server::builder()
        .service(hanging(dropped.clone(), started.clone()))
        .service(common::demo_service())
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let send = raw(&server).await;
    // One call, no deadline, reset by the caller once its handler runs.
    let (_response, mut stream) = send
        .clone()
        .ready()
        .await
        .unwrap()
        .send_request(post("/test.Hang/hang", "application/grpc+proto"), false)
        .unwrap();
    let mut body = BytesMut::new();
    encode_message(
        &[0x0a, 8, b'h', b'e', b's', b's', b'i', b'a', b'n', b'4'],
        &mut body,
    );
    stream.send_data(body.freeze(), true).unwrap();
    assert!(common::eventually(|| started.load(Ordering::SeqCst) == 1).await);
    stream.send_reset(h2::Reason::CANCEL);
    assert!(common::eventually(|| dropped.load(Ordering::SeqCst)).await);
    // A flood of streams opened and reset at once (rapid reset).
    let flood = async {
        for _ in 0..5_000 {
            let Ok(ready) = send.clone().ready().await else {
                return;
            };
            let mut ready = ready;
            match ready.send_request(post("/test.Hang/hang", "application/grpc+proto"), false) {
                Ok((_, mut s)) => s.send_reset(h2::Reason::CANCEL),
                Err(_) => return,
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), flood)
        .await
        .unwrap();
    // Others are served meanwhile and after, and nothing stays in flight.
    let client = Client::connect(&server.local_addr().to_string())
        .await
        .unwrap();
    let call = demo("sayHello").arg("java.lang.String", "after").unwrap();
    assert_eq!(client.call::<String>(&call).await.unwrap(), "Hello, after");
    assert!(common::eventually(|| server.inflight() == 0).await);
}

/// Runs curl (the real one) with `args`: (HTTP status, body).
fn curl(args: &[&str]) -> (u16, String) {
    let out = std::process::Command::new("curl")
        .args(["-s", "-w", "\n%{http_code}", "--max-time", "10"])
        .args(args)
        .output()
        .expect("curl runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (body, code) = text.rsplit_once('\n').expect("curl printed the status");
    (code.trim().parse().unwrap_or(0), body.to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn curl_calls_over_http1_with_json_on_the_same_port() {
    let server = demo_server().await;
    let base = format!("http://{}/{INTERFACE}", server.local_addr());
    let run = |args: Vec<String>| {
        tokio::task::spawn_blocking(move || {
            curl(&args.iter().map(String::as_str).collect::<Vec<_>>())
        })
    };
    let url = |m: &str| format!("{base}/{m}");
    let post = |m: &str, body: &str| vec!["-d".to_owned(), body.to_owned(), url(m)];
    assert_eq!(
        run(post("sayHello", r#"["world"]"#)).await.unwrap(),
        (200, r#""Hello, world""#.to_owned())
    );
    // A bare value for a single argument; a version header as Java's consumers send it.
    let mut with_version = post("sayHello", r#""bare""#);
    with_version.extend(["-H".into(), format!("tri-service-version: {VERSION}")]);
    assert_eq!(
        run(with_version).await.unwrap(),
        (200, r#""Hello, bare""#.to_owned())
    );
    assert_eq!(
        run(post("add", "[2, 3]")).await.unwrap(),
        (200, "5".to_owned())
    );
    let (status, body) = run(post("getUser", "[42]")).await.unwrap();
    assert_eq!(status, 200, "{body}");
    let user: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(user["name"], "user-42", "{body}");
    assert_eq!(user["id"], 42, "{body}");
    // Errors as Java 3.3 answers them.
    assert_eq!(
        run(post("throwError", r#"["boom"]"#)).await.unwrap(),
        (500, r#"{"message":"boom","status":"500"}"#.to_owned())
    );
    assert_eq!(run(post("nope", "[]")).await.unwrap().0, 404);
    assert_eq!(run(post("sayHello", "[not json")).await.unwrap().0, 400);
    // dubbo-call over Triple, in both serializations.
    let target = format!("tri://{}", server.local_addr());
    tokio::task::spawn_blocking(move || {
        for serialization in ["hessian2", "fastjson2"] {
            common::dubbo_call_says_hello(
                &[&target],
                serialization,
                &["--serialization", serialization],
            );
        }
    })
    .await
    .unwrap();
    // Dubbo and HTTP/2 callers on the same port meanwhile.
    let client = Client::connect(&server.local_addr().to_string())
        .await
        .unwrap();
    let call = demo("sayHello").arg("java.lang.String", "h2").unwrap();
    assert_eq!(client.call::<String>(&call).await.unwrap(), "Hello, h2");
    server.shutdown(Duration::from_secs(2)).await;
}

#[tokio::test]
async fn a_request_that_never_finishes_is_ended_by_the_frame_timeout() {
    let server = Server::builder()
        .service(common::demo_service())
        .frame_timeout(Duration::from_millis(300))
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let send = raw(&server).await;
    let mut request = post(&format!("/{INTERFACE}/sayHello"), "application/grpc+proto");
    request
        .headers_mut()
        .insert("tri-service-version", VERSION.parse().unwrap());
    let (response, mut stream) = send
        .ready()
        .await
        .unwrap()
        .send_request(request, false)
        .unwrap();
    // Half a message, and the stream left open.
    stream
        .send_data(Bytes::from_static(&[0, 0, 0, 0, 20, 1, 2]), false)
        .unwrap();
    let t0 = std::time::Instant::now();
    let response = tokio::time::timeout(Duration::from_secs(5), response)
        .await
        .expect("answered")
        .unwrap();
    let status = dubbo_triple::Status::from_headers(response.headers()).unwrap();
    assert_eq!(status.code, Code::DeadlineExceeded, "{status}");
    assert!(t0.elapsed() < Duration::from_secs(2));
    assert!(common::eventually(|| server.inflight() == 0).await);
}

#[tokio::test]
async fn headers_over_the_limit_are_refused_and_the_connection_serves_on() {
    let server = demo_server().await;
    let send = raw(&server).await;
    let mut request = post(&format!("/{INTERFACE}/sayHello"), "application/grpc+proto");
    request
        .headers_mut()
        .insert("x-big", "x".repeat(40 * 1024).parse().unwrap());
    let refused = async {
        let (response, _stream) = send.clone().ready().await?.send_request(request, true)?;
        response.await
    };
    match tokio::time::timeout(Duration::from_secs(5), refused)
        .await
        .unwrap()
    {
        Ok(response) => assert_ne!(response.status(), 200, "{response:?}"),
        Err(e) => assert!(e.is_reset() || e.is_go_away(), "{e:?}"),
    }
    let client = Client::connect(&server.local_addr().to_string())
        .await
        .unwrap();
    let call = demo("sayHello").arg("java.lang.String", "small").unwrap();
    assert_eq!(client.call::<String>(&call).await.unwrap(), "Hello, small");
}

#[tokio::test]
async fn a_ping_and_settings_flood_costs_other_callers_nothing() {
    use tokio::io::AsyncWriteExt;
    let server = demo_server().await;
    let mut flood = tokio::net::TcpStream::connect(server.local_addr())
        .await
        .unwrap();
    // The preface, then SETTINGS and PING frames as fast as the socket takes them, never
    // reading the acknowledgements.
    let mut frames = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    let settings = [0u8, 0, 0, 4, 0, 0, 0, 0, 0];
    let ping = [0u8, 0, 8, 6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8];
    for _ in 0..1000 {
        frames.extend_from_slice(&settings);
        frames.extend_from_slice(&ping);
    }
    let writer = tokio::spawn(async move {
        for _ in 0..200 {
            if flood.write_all(&frames).await.is_err() {
                return;
            }
        }
        // Held open, unread.
        tokio::time::sleep(Duration::from_secs(30)).await;
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let client = Client::connect(&server.local_addr().to_string())
        .await
        .unwrap();
    for i in 0..20 {
        let call = demo("sayHello")
            .arg("java.lang.String", &i.to_string())
            .unwrap();
        assert_eq!(
            client.call::<String>(&call).await.unwrap(),
            format!("Hello, {i}")
        );
    }
    writer.abort();
}

#[tokio::test]
async fn the_client_reconnects_after_a_graceful_shutdown() {
    let server = demo_server().await;
    let addr = server.local_addr();
    let client = Client::connect(&addr.to_string()).await.unwrap();
    let hello = |name: &str| demo("sayHello").arg("java.lang.String", name).unwrap();
    assert_eq!(
        client.call::<String>(&hello("one")).await.unwrap(),
        "Hello, one"
    );
    // GOAWAY, then the connection closes.
    server.shutdown(Duration::from_secs(2)).await;
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    let again = Server::builder()
        .service(common::demo_service())
        .serve(listener);
    assert_eq!(
        client.call::<String>(&hello("two")).await.unwrap(),
        "Hello, two"
    );
    again.shutdown(Duration::from_secs(2)).await;
}

#[tokio::test]
async fn a_provider_that_stops_answering_pings_fails_calls_before_their_deadline() {
    use dubbo_rpc::triple_client::ClientConfig;
    // An HTTP/2 server that completes the handshake, then never reads again: neither the
    // call nor the PINGs are answered.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((tcp, _)) = listener.accept().await {
            if let Ok(conn) = h2::server::handshake(tcp).await {
                held.push(conn);
            }
        }
    });
    let config =
        ClientConfig::default().keepalive(Duration::from_millis(200), Duration::from_millis(300));
    let client = dubbo_rpc::triple_client::Client::connect_with(&addr, config)
        .await
        .unwrap();
    let call = demo("sayHello")
        .timeout(Duration::from_secs(20))
        .arg("java.lang.String", "anyone?")
        .unwrap();
    let t0 = std::time::Instant::now();
    let err = client.call_value(&call).await.unwrap_err();
    assert!(
        !matches!(err, TripleError::Timeout(_)),
        "failed by its deadline, not the keepalive: {err:?}"
    );
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
}

/// `Service::unary` (a method served in its stream's own task) and an interface method whose
/// handlers panic, fail, or outlive their deadline: each call gets its status and the
/// connection serves the next call.
#[tokio::test]
async fn unary_handlers_answer_fail_time_out_and_panic_without_costing_the_connection() {
    use common::echo::{sv, StringValue};
    let svc = Service::new("test.Unary")
        .unary("echo", |req: StringValue, _| async move {
            match req.value.as_str() {
                "fail" => Err(dubbo_triple::Status::new(Code::InvalidArgument, "no")),
                "panic" => panic!("handler bug (expected by this test)"),
                "sleep" => {
                    tokio::time::sleep(Duration::from_secs(60)).await;
                    Ok(sv("late"))
                }
                v => Ok(sv(format!("echo: {v}"))),
            }
        })
        .method("boom", |_| async move {
            if std::hint::black_box(true) {
                panic!("handler bug (expected by this test)");
            }
            Reply::null()
        });
    let (server, client) = serve(svc).await;
    // A deadline short enough for the test, long enough for a panic's backtrace under load.
    let unary = |v: &str| {
        let client = client.clone();
        let v = v.to_owned();
        let deadline = Duration::from_millis(if v == "sleep" { 300 } else { 10_000 });
        async move {
            client
                .grpc_unary::<_, StringValue>("/test.Unary/echo", &sv(v), Some(deadline))
                .await
        }
    };
    assert_eq!(unary("hi").await.unwrap().value, "echo: hi");
    let err = unary("fail").await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    let err = unary("panic").await.unwrap_err();
    assert_eq!(err.code(), Code::Unknown, "{err:?}");
    assert!(err.to_string().contains("panicked"), "{err}");
    let t0 = std::time::Instant::now();
    let err = unary("sleep").await.unwrap_err();
    assert_eq!(err.code(), Code::DeadlineExceeded, "{err:?}");
    assert!(t0.elapsed() < Duration::from_secs(2));
    match client
        .call_value(&TripleCall::new("test.Unary", "boom"))
        .await
    {
        // As over the Dubbo protocol: a Java RuntimeException, so a Java caller rethrows it.
        Err(TripleError::Exception(e)) => {
            assert_eq!(e.class, "java.lang.RuntimeException");
            assert_eq!(e.message.as_deref(), Some("the handler panicked"));
        }
        other => panic!("{other:?}"),
    }
    // The same connection, after all of them.
    assert_eq!(unary("after").await.unwrap().value, "echo: after");
    assert!(common::eventually(|| server.inflight() == 0).await);
}
