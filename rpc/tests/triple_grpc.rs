//! IDL (protobuf) methods over Triple, every call shape, called by the Rust client; and
//! interface-style streams (each value wrapped), Rust to Rust.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::echo::{
    echo_call_shapes, echo_failures, echo_path, echo_service, echo_unimplemented,
    stream_call_shapes, stream_service, sv, StringValue, GRPC_GO,
};
use dubbo_codec::BodyFormat;
use dubbo_rpc::server::Server;
use dubbo_rpc::triple_client::Client;

async fn echo_server() -> (Server, Client) {
    let server = Server::builder()
        .service(echo_service())
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let client = connect(&server).await;
    (server, client)
}

async fn connect(server: &Server) -> Client {
    Client::connect(&server.local_addr().to_string())
        .await
        .unwrap()
}

#[tokio::test]
async fn every_call_shape_and_failure() {
    let (server, client) = echo_server().await;
    echo_call_shapes(&client, &GRPC_GO).await;
    echo_failures(&client, &GRPC_GO).await;
    echo_unimplemented(&client, &GRPC_GO).await;
    // Metadata both ways.
    let mut md = http::HeaderMap::new();
    md.insert("x-trace", "abc".parse().unwrap());
    let mut call = client.grpc(&echo_path("Unary"), md, None).await.unwrap();
    call.send_msg(&sv("m")).await.unwrap();
    call.finish().unwrap();
    assert_eq!(call.headers().await.unwrap()["x-trace"], "abc");
    assert!(common::eventually(|| server.inflight() == 0).await);
}

/// Interface-style streams, our client against our server, in both serializations: the
/// values go wrapped, and the server answers in the serialization it was called in.
#[tokio::test]
async fn interface_style_streams() {
    let server = Server::builder()
        .service(stream_service())
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let client = connect(&server).await;
    for format in [BodyFormat::default(), BodyFormat::FASTJSON2] {
        stream_call_shapes(&client, format).await;
    }
    assert!(common::eventually(|| server.inflight() == 0).await);
}

#[tokio::test]
async fn a_reader_that_stops_holds_back_only_its_own_stream() {
    let sent = Arc::new(AtomicUsize::new(0));
    let counted = sent.clone();
    let server = Server::builder()
        .service(echo_service().grpc("Flood", move |_call, out| {
            let sent = counted.clone();
            async move {
                // 1 KiB messages, as fast as the caller's window lets them go.
                let big = bytes::Bytes::from(vec![7u8; 1024]);
                loop {
                    out.send(big.clone()).await?;
                    sent.fetch_add(1, Ordering::SeqCst);
                }
            }
        }))
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let client = connect(&server).await;
    let mut flood = client
        .grpc(&echo_path("Flood"), Default::default(), None)
        .await
        .unwrap();
    flood.finish().unwrap();
    // Read one message, then stop reading.
    assert!(flood.message().await.unwrap().is_some());
    tokio::time::sleep(Duration::from_millis(500)).await;
    let stalled = sent.load(Ordering::SeqCst);
    // The client's stream window is 256 KiB: about 256 messages in flight, a few buffered.
    assert!(
        stalled < 300,
        "{stalled} messages sent to a caller that stopped reading"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        sent.load(Ordering::SeqCst),
        stalled,
        "the writer kept going"
    );
    // The same connection serves others meanwhile.
    let r: StringValue = client
        .grpc_unary(
            &echo_path("Unary"),
            &sv("other"),
            Some(Duration::from_secs(5)),
        )
        .await
        .unwrap();
    assert_eq!(r.value, "echo: other");
    // Reading again lets it go on (more messages than were sent when it stalled);
    // dropping the call cancels it on the server.
    for _ in 0..stalled + 100 {
        assert!(flood.message().await.unwrap().is_some());
    }
    drop(flood);
    assert!(common::eventually(|| server.inflight() == 0).await);
}
