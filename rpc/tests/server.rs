//! Our client against our server, and bad input to our server, over 127.0.0.1.

mod common;

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use common::*;
use dubbo_codec::header::Header;
use dubbo_codec::response::Response;
use dubbo_codec::{Event, Frame, FrameKind, Request, Serialization, Status};
use dubbo_rpc::client::{CallError, Client, ClientConfig};
use dubbo_rpc::server::{HandlerError, Reply, Server, Service};
use hessian2::value::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn start(max_payload: u32) -> Server {
    let grouped = Service::new(INTERFACE)
        .version(VERSION)
        .group("blue")
        .method("sayHello", |_call| async { Reply::typed("blue hello") });
    Server::builder()
        .service(demo_service())
        .service(grouped)
        .max_payload(max_payload)
        .bind("127.0.0.1:0")
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_against_our_server() {
    let server = start(1 << 20).await;
    let client = Client::connect(server.local_addr().to_string())
        .await
        .unwrap();

    let s: String = client
        .call(
            &req("sayHello")
                .arg("java.lang.String", "rust")
                .build()
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(s, "Hello, rust");
    let s: String = client
        .call(
            &req("sayHello")
                .group("blue")
                .arg("java.lang.String", "x")
                .build()
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(s, "blue hello");
    let u: User = client
        .call(&req("getUser").arg("long", &3i64).build().unwrap())
        .await
        .unwrap();
    assert_eq!(u, user_for(3));
    let echoed: User = client
        .call(&req("echoUser").arg(USER_CLASS, &u).build().unwrap())
        .await
        .unwrap();
    assert_eq!(echoed, u);

    // Exceptions arrive as Java exceptions.
    let err = client
        .call::<()>(
            &req("throwError")
                .arg("java.lang.String", "bad")
                .build()
                .unwrap(),
        )
        .await
        .unwrap_err();
    let ex = err.java_exception().unwrap();
    assert_eq!(
        (ex.class.as_str(), ex.message.as_deref()),
        ("java.lang.IllegalStateException", Some("bad"))
    );

    // Unknown service, version, group or method: SERVICE_NOT_FOUND.
    for r in [
        Request::builder("no.Such", "m").build().unwrap(),
        req("sayHello").version("2.0.0").build().unwrap(),
        req("sayHello").group("green").build().unwrap(),
        req("noSuchMethod").build().unwrap(),
    ] {
        match client.call_value(&r).await {
            Err(CallError::Status { status, message }) => {
                assert_eq!(status, Status::ServiceNotFound);
                assert!(message.unwrap().contains("Not found"));
            }
            other => panic!("{other:?}"),
        }
    }
    // Arguments that do not fit the handler's types: BAD_REQUEST.
    match client
        .call_value(
            &req("add")
                .arg("java.lang.String", "x")
                .arg("int", &1)
                .build()
                .unwrap(),
        )
        .await
    {
        Err(CallError::Status { status, .. }) => assert_eq!(status, Status::BadRequest),
        other => panic!("{other:?}"),
    }

    // $echo and $invoke.
    let v = client
        .call_value(
            &req("$echo")
                .value_arg("java.lang.Object", Value::from("ping"))
                .build()
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(v, Value::from("ping"));
    let v = client
        .generic_call(
            INTERFACE,
            VERSION,
            None,
            "add",
            &["int", "int"],
            vec![Value::Int(4), Value::Int(5)],
        )
        .await
        .unwrap();
    assert_eq!(v, Value::Int(9));

    // One-way.
    let last = fire_and_forget(&client, "once", Duration::from_millis(10)).await;
    assert_eq!(last.as_deref(), Some("once"));

    // A timed-out call's late answer is dropped; the calls after it get their own answers.
    let err = client
        .call::<String>(
            &req("slow")
                .timeout(Duration::from_millis(50))
                .arg("int", &300)
                .build()
                .unwrap(),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, CallError::Timeout { .. }), "{err}");
    for i in 0..20 {
        let s: String = client
            .call(&req("slow").arg("int", &(i * 20)).build().unwrap())
            .await
            .unwrap();
        assert_eq!(s, format!("slept {}", i * 20));
    }

    // 1,000 concurrent calls, all in flight at once, each matched to its own answer.
    let tasks: Vec<_> = (0..1000i32)
        .map(|i| {
            let c = client.clone();
            tokio::spawn(async move {
                let r: i32 = c
                    .call(&req("add").arg("int", &i).arg("int", &1).build().unwrap())
                    .await
                    .unwrap();
                assert_eq!(r, i + 1);
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(client.connection_count(), 1);
    client.heartbeat().await.unwrap();

    // Reconnect after the connection is closed.
    client.close().await;
    let s: String = client
        .call(
            &req("sayHello")
                .arg("java.lang.String", "again")
                .build()
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(s, "Hello, again");
    assert_eq!(client.connection_count(), 2);
    server.shutdown(Duration::from_secs(1)).await;
}

async fn raw(server: &Server) -> TcpStream {
    TcpStream::connect(server.local_addr()).await.unwrap()
}

fn status_of(f: &Frame) -> (Status, String) {
    match Response::from_frame(f).unwrap() {
        Response::Error { status, message } => (status, message.unwrap_or_default()),
        other => panic!("expected an error response, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_to_our_server() {
    let server = start(1024).await;
    // A well-behaved connection stays open through all of it.
    let bystander = Client::connect(server.local_addr().to_string())
        .await
        .unwrap();

    // Garbage (telnet text): the connection is closed, nothing is answered.
    let mut s = raw(&server).await;
    s.write_all(b"ls -l\r\n").await.unwrap();
    assert!(read_frame(&mut s, &mut BytesMut::new()).await.is_none());
    assert_serves(&server).await;

    // Bad magic after a good frame: the good one is answered, then the connection closes.
    let mut s = raw(&server).await;
    let mut bytes = wire(&Frame::heartbeat_request(5));
    bytes.extend_from_slice(b"\xda\x00 not a frame at all");
    s.write_all(&bytes).await.unwrap();
    let mut buf = BytesMut::new();
    let f = read_frame(&mut s, &mut buf).await.unwrap();
    assert_eq!(
        (f.kind(), f.request_id()),
        (FrameKind::EventResponse(Event::Heartbeat), 5)
    );
    assert!(read_frame(&mut s, &mut buf).await.is_none());

    // Oversize length: BAD_REQUEST with the request id, the body is skipped, the connection
    // goes on.
    let mut s = raw(&server).await;
    let big = Frame::request(
        41,
        Serialization::Hessian2,
        true,
        Bytes::from(vec![b'x'; 5000]),
    );
    s.write_all(&wire(&big)).await.unwrap();
    s.write_all(&wire(&Frame::heartbeat_request(42)))
        .await
        .unwrap();
    let mut buf = BytesMut::new();
    let f = read_frame(&mut s, &mut buf).await.unwrap();
    assert_eq!(f.request_id(), 41);
    let (status, msg) = status_of(&f);
    assert_eq!(status, Status::BadRequest);
    assert!(msg.contains("payload limit"), "{msg}");
    let f = read_frame(&mut s, &mut buf).await.unwrap();
    assert_eq!(
        (f.kind(), f.request_id()),
        (FrameKind::EventResponse(Event::Heartbeat), 42)
    );
    // A huge announced length, too, is answered from the header alone.
    let header = Header::request(43, Serialization::Hessian2, true).with_body_len(u32::MAX);
    s.write_all(&header.to_bytes()).await.unwrap();
    let f = read_frame(&mut s, &mut buf).await.unwrap();
    assert_eq!((f.request_id(), status_of(&f).0), (43, Status::BadRequest));
    drop(s);

    // A body that is not a request (truncated Hessian, wrong values): BAD_REQUEST with the id.
    let mut s = raw(&server).await;
    let good = req("add")
        .arg("int", &1)
        .arg("int", &2)
        .build()
        .unwrap()
        .to_bytes();
    let cases: [(u64, Bytes); 4] = [
        (50, good.slice(..good.len() / 2)),
        (51, Bytes::from_static(b"\x91\x92\x93")),
        (52, Bytes::new()),
        (53, Bytes::from_static(b"\x052.0.2\x01p\x01v\x01m\x03XYZ")),
    ];
    let mut buf = BytesMut::new();
    for (id, body) in cases {
        s.write_all(&wire(&Frame::request(
            id,
            Serialization::Hessian2,
            true,
            body,
        )))
        .await
        .unwrap();
        let f = read_frame(&mut s, &mut buf).await.unwrap();
        assert_eq!(f.request_id(), id);
        let (status, msg) = status_of(&f);
        assert_eq!(status, Status::BadRequest, "{msg}");
        assert!(msg.starts_with("Fail to decode request"), "{msg}");
    }
    // Unknown serialization id: BAD_REQUEST naming it.
    let f = Frame::request(60, Serialization::from_id(19), true, good.clone());
    s.write_all(&wire(&f)).await.unwrap();
    let f = read_frame(&mut s, &mut buf).await.unwrap();
    let (status, msg) = status_of(&f);
    assert_eq!((f.request_id(), status), (60, Status::BadRequest));
    assert!(msg.contains("serialization id 19"), "{msg}");
    // A bad one-way request is never answered: the next answer is the heartbeat's.
    s.write_all(&wire(&Frame::request(
        61,
        Serialization::Hessian2,
        false,
        Bytes::from_static(b"\x91"),
    )))
    .await
    .unwrap();
    s.write_all(&wire(&Frame::heartbeat_request(62)))
        .await
        .unwrap();
    let f = read_frame(&mut s, &mut buf).await.unwrap();
    assert_eq!(f.request_id(), 62);
    // The same connection still serves real calls.
    s.write_all(&wire(&Frame::request(
        63,
        Serialization::Hessian2,
        true,
        good.clone(),
    )))
    .await
    .unwrap();
    let f = read_frame(&mut s, &mut buf).await.unwrap();
    assert_eq!(f.request_id(), 63);
    assert_eq!(f.header().status(), Status::Ok);
    drop(s);

    // Truncated frame at end of stream: the server closes, and keeps serving others.
    let mut s = raw(&server).await;
    let frame = wire(&Frame::request(
        70,
        Serialization::Hessian2,
        true,
        good.clone(),
    ));
    s.write_all(&frame[..frame.len() - 3]).await.unwrap();
    s.shutdown().await.unwrap();
    assert!(read_frame(&mut s, &mut BytesMut::new()).await.is_none());

    assert_serves(&server).await;
    let r: i32 = bystander
        .call(&req("add").arg("int", &2).arg("int", &2).build().unwrap())
        .await
        .unwrap();
    assert_eq!(r, 4);
    assert_eq!(bystander.connection_count(), 1);
    server.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_sends_read_only_and_drains() {
    let server = Server::builder()
        .service(Service::new("S").method("slow", |_| async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            Reply::typed("done")
        }))
        .service(Service::new("T").method("boom", |_| async {
            Err::<Reply, _>(HandlerError::runtime("x"))
        }))
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let mut s = raw(&server).await;
    let call = Request::builder("S", "slow")
        .build()
        .unwrap()
        .to_frame(7, true);
    s.write_all(&wire(&call)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(server.inflight(), 1);
    let shutdown = tokio::spawn(server.shutdown(Duration::from_secs(5)));
    let mut buf = BytesMut::new();
    let first = read_frame(&mut s, &mut buf).await.unwrap();
    assert_eq!(first.kind(), FrameKind::EventRequest(Event::ReadOnly));
    assert!(!first.header().is_two_way());
    let answer = read_frame(&mut s, &mut buf).await.unwrap();
    assert_eq!(answer.request_id(), 7);
    assert_eq!(answer.header().status(), Status::Ok);
    // Then the connection is closed.
    assert!(read_frame(&mut s, &mut buf).await.is_none());
    shutdown.await.unwrap();
}

#[tokio::test]
async fn client_marks_read_only_connections_and_reconnects() {
    let first = start(1 << 20).await;
    let addr = first.local_addr();
    let client = client_with_timeout(addr.to_string(), Duration::from_secs(2)).await;
    let _: i32 = client
        .call(&req("add").arg("int", &1).arg("int", &1).build().unwrap())
        .await
        .unwrap();
    first.shutdown(Duration::from_millis(200)).await;
    // The old server is gone: the call fails cleanly (connection refused), no hang.
    let err = client
        .call::<i32>(&req("add").arg("int", &1).arg("int", &1).build().unwrap())
        .await
        .unwrap_err();
    assert!(
        matches!(err, CallError::Connect { .. } | CallError::Closed(_)),
        "{err}"
    );
}

#[tokio::test]
async fn client_heartbeats_and_gives_up_on_a_silent_peer() {
    // A peer that answers heartbeats keeps the connection over several periods. (The period
    // leaves room for a loaded machine: with 50 ms, three missed periods were once a 150 ms
    // stall of the test process under a parallel build, and the connection was given up.)
    let server = start(1 << 20).await;
    let client = Client::connect_with(
        server.local_addr().to_string(),
        ClientConfig::default().heartbeat(Duration::from_millis(250)),
    )
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let _: i32 = client
        .call(&req("add").arg("int", &1).arg("int", &1).build().unwrap())
        .await
        .unwrap();
    assert_eq!(client.connection_count(), 1, "heartbeats kept it alive");

    // A peer that accepts and never answers: after three heartbeat periods the connection is
    // closed and the waiting call fails, long before its own timeout.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = silent.local_addr().unwrap();
    let hold = tokio::spawn(async move {
        let (mut s, _) = silent.accept().await.unwrap();
        let mut sink = Vec::new();
        let _ = s.read_to_end(&mut sink).await;
    });
    let client = Client::connect_with(
        addr.to_string(),
        ClientConfig::default()
            .heartbeat(Duration::from_millis(50))
            .timeout(Duration::from_secs(30)),
    )
    .await
    .unwrap();
    let start = std::time::Instant::now();
    let err = client
        .call::<i32>(&req("add").arg("int", &1).arg("int", &1).build().unwrap())
        .await
        .unwrap_err();
    assert!(matches!(err, CallError::Closed(_)), "{err}");
    assert!(start.elapsed() < Duration::from_secs(5));
    hold.abort();
    server.shutdown(Duration::from_secs(1)).await;
}
