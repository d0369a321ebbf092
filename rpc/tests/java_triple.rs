//! Triple against real Java Dubbo 3.2 and 3.3 (`interop/dubbo-java`): Java consumers call our
//! server over `tri://` (the port that also serves the Dubbo protocol), and our Triple client
//! calls Java Triple providers. Everything runs on 127.0.0.1.

mod common;

use std::time::Duration;

use common::echo::{
    echo_call_shapes, echo_failures, echo_service_named, stream_call_shapes, stream_service, JAVA,
};
use common::triple::{demo, triple_demo_calls};
use common::*;
use dubbo_codec::format::BodyFormat;
use dubbo_rpc::server::Server;
use dubbo_rpc::triple_client::{Client, TripleCall};
use dubbo_triple::Code;

/// The Java consumer of `flavour`, in `serialization`, over Triple against our demo server:
/// every check passes but the one-way call, which Triple does not have.
async fn java_triple_consumer(flavour: &str, serialization: &str) {
    if jar(flavour).is_none() {
        return;
    }
    // The DemoService (interface style), the EchoService (IDL, every call shape) and the
    // StreamService (interface-style streams).
    let server = Server::builder()
        .service(demo_service())
        .service(echo_service_named(&JAVA))
        .service(stream_service())
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let addr = format!("tri://{}", server.local_addr());
    let (f, s) = (flavour.to_owned(), serialization.to_owned());
    let run = tokio::task::spawn_blocking(move || {
        run_consumer(&f, &addr, &["--serialization", &s], LOGS)
    })
    .await
    .unwrap()
    .unwrap();
    let what = format!("{flavour} Triple consumer ({serialization}) against our server");
    run.assert_triple_passed(&what);
    server.shutdown(Duration::from_secs(2)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_3_2_triple_consumer_against_our_server() {
    java_triple_consumer("dubbo3", "hessian2").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_3_3_triple_consumers_against_our_server() {
    java_triple_consumer("dubbo33", "fastjson2").await;
    // Dubbo's own defaults (nothing pinned), as a stock application runs.
    java_triple_consumer("dubbo33", "default").await;
}

/// Our Triple client in `format` against a Java Triple provider of `flavour` pinned to that
/// serialization (a pinned Java Triple provider refuses any other: "Unexpected serialization
/// type"; a stock one takes each its `prefer.serialization` offers, see java_dto.rs).
async fn our_client_against_java_triple(flavour: &str, format: BodyFormat) {
    let serialization = match format {
        BodyFormat::Fastjson2(_) => "fastjson2",
        _ => "hessian2",
    };
    let Some(p) = Provider::builder(flavour)
        .args(&["--protocol", "tri", "--serialization", serialization])
        .log(LOGS, &format!("{flavour}-tri"))
        .start()
    else {
        return;
    };
    let client = Client::connect(&p.addr()).await.unwrap();
    let what = format!("{flavour} Triple provider, {format:?}");
    triple_demo_calls(&client, format, &what).await;
    // Its EchoService: IDL methods (protobuf, no wrapper), every call shape.
    echo_call_shapes(&client, &JAVA).await;
    echo_failures(&client, &JAVA).await;
    // Its StreamService: interface-style streams, each value wrapped in `format`.
    stream_call_shapes(&client, format).await;
    // Our deadline passes first: the call ends here at the deadline.
    let call = demo("slow")
        .format(format)
        .timeout(Duration::from_millis(300))
        .arg("int", &3000)
        .unwrap();
    let t0 = std::time::Instant::now();
    let err = client.call_value(&call).await.unwrap_err();
    assert_eq!(err.code(), Code::DeadlineExceeded, "{what}: {err:?}");
    assert!(t0.elapsed() < Duration::from_secs(2), "{what}");
    let err = client
        .call_value(&TripleCall::new("no.Such", "m"))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unimplemented, "{flavour}: {err:?}");
    // dubbo-call over Triple.
    let target = format!("tri://{}", p.addr());
    let serialization = serialization.to_owned();
    tokio::task::spawn_blocking(move || {
        dubbo_call_says_hello(
            &[&target],
            "dubbo-call",
            &["--serialization", &serialization],
        )
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_triple_client_against_java_3_2_provider() {
    our_client_against_java_triple("dubbo3", BodyFormat::default()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_triple_client_against_java_3_3_providers() {
    our_client_against_java_triple("dubbo33", BodyFormat::default()).await;
    our_client_against_java_triple("dubbo33", BodyFormat::FASTJSON2).await;
}
