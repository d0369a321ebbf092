//! The Echo IDL service of interop/grpc-go (`echo.proto`, package `hessianrs.echo.v1`), in
//! Rust: every call shape, an error, a deadline, metadata echoed.

use std::time::Duration;

use dubbo_codec::server::Service;
use dubbo_triple::{Code, Status};

/// `google.protobuf.StringValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StringValue {
    #[prost(string, tag = "1")]
    pub value: String,
}

pub fn sv(s: impl Into<String>) -> StringValue {
    StringValue { value: s.into() }
}

pub const ECHO: &str = "hessianrs.echo.v1.Echo";

pub fn echo_path(method: &str) -> String {
    format!("/{ECHO}/{method}")
}

pub fn echo_service() -> Service {
    Service::new(ECHO)
        .grpc("Unary", |mut call, out| async move {
            echo_trace(&call.headers, &out);
            let v: StringValue = call.single().await?;
            if v.value == "fail" {
                return Err(Status::new(Code::InvalidArgument, "fail requested"));
            }
            if let Some(ms) = v.value.strip_prefix("sleep:") {
                let ms: u64 = ms.parse().unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                return out.send_msg(&sv(format!("slept {ms}"))).await;
            }
            out.send_msg(&sv(format!("echo: {}", v.value))).await
        })
        .grpc("ServerStream", |mut call, out| async move {
            echo_trace(&call.headers, &out);
            let v: StringValue = call.single().await?;
            match v.value.strip_prefix("many:") {
                Some(n) => {
                    for i in 0..n.parse::<usize>().unwrap_or(0) {
                        out.send_msg(&sv(format!("m-{i}"))).await?;
                    }
                }
                None => {
                    for i in 0..3 {
                        out.send_msg(&sv(format!("{}-{i}", v.value))).await?;
                    }
                }
            }
            Ok(())
        })
        .grpc("ClientStream", |mut call, out| async move {
            echo_trace(&call.headers, &out);
            let mut all = Vec::new();
            while let Some(v) = call.decode::<StringValue>().await? {
                all.push(v.value);
            }
            out.send_msg(&sv(all.join(","))).await
        })
        .grpc("Bidi", |mut call, out| async move {
            echo_trace(&call.headers, &out);
            while let Some(v) = call.decode::<StringValue>().await? {
                out.send_msg(&sv(format!("echo: {}", v.value))).await?;
            }
            Ok(())
        })
}

fn echo_trace(headers: &http::HeaderMap, out: &dubbo_codec::server::Responder) {
    if let Some(t) = headers.get("x-trace").and_then(|v| v.to_str().ok()) {
        out.header("x-trace", t);
    }
}

/// Every call shape of the Echo service through `client`: unary, server streaming,
/// client streaming, and bidirectional with each answer read before the next request.
pub async fn echo_call_shapes(client: &dubbo_codec::triple_client::Client) {
    let t = Some(Duration::from_secs(5));
    let r: StringValue = client
        .grpc_unary(&echo_path("Unary"), &sv("hi"), t)
        .await
        .unwrap();
    assert_eq!(r.value, "echo: hi");
    let mut call = client
        .grpc(&echo_path("ServerStream"), Default::default(), t)
        .await
        .unwrap();
    call.send_msg(&sv("s")).await.unwrap();
    call.finish().unwrap();
    let mut got = Vec::new();
    while let Some(m) = call.decode::<StringValue>().await.unwrap() {
        got.push(m.value);
    }
    assert_eq!(got, ["s-0", "s-1", "s-2"]);
    let mut call = client
        .grpc(&echo_path("ClientStream"), Default::default(), t)
        .await
        .unwrap();
    for v in ["a", "b", "c"] {
        call.send_msg(&sv(v)).await.unwrap();
    }
    call.finish().unwrap();
    assert_eq!(
        call.decode::<StringValue>().await.unwrap().unwrap().value,
        "a,b,c"
    );
    assert_eq!(call.message().await.unwrap(), None);
    let mut call = client
        .grpc(&echo_path("Bidi"), Default::default(), t)
        .await
        .unwrap();
    for v in ["x", "y", "z"] {
        call.send_msg(&sv(v)).await.unwrap();
        let m = call.decode::<StringValue>().await.unwrap().unwrap();
        assert_eq!(m.value, format!("echo: {v}"));
    }
    call.finish().unwrap();
    assert_eq!(call.message().await.unwrap(), None);
}

/// The Echo service's failures through `client`: a handler's status, an unknown method, a
/// deadline (`sleep:3000` within 300 ms), and a call after them on the same connection.
pub async fn echo_failures(client: &dubbo_codec::triple_client::Client) {
    use dubbo_codec::triple_client::TripleError;
    let err = client
        .grpc_unary::<_, StringValue>(&echo_path("Unary"), &sv("fail"), None)
        .await
        .unwrap_err();
    let TripleError::Status(s) = err else {
        panic!("{err:?}")
    };
    assert_eq!(
        (s.code, s.message.as_str()),
        (Code::InvalidArgument, "fail requested")
    );
    let err = client
        .grpc_unary::<_, StringValue>(&echo_path("Nope"), &sv("x"), None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unimplemented, "{err:?}");
    let t0 = std::time::Instant::now();
    let err = client
        .grpc_unary::<_, StringValue>(
            &echo_path("Unary"),
            &sv("sleep:3000"),
            Some(Duration::from_millis(300)),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::DeadlineExceeded, "{err:?}");
    assert!(t0.elapsed() < Duration::from_millis(1500));
    let r: StringValue = client
        .grpc_unary(&echo_path("Unary"), &sv("after"), None)
        .await
        .unwrap();
    assert_eq!(r.value, "echo: after");
}
