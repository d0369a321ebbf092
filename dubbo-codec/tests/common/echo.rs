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
