//! The Echo IDL service, in Rust: every call shape, an error, a deadline, metadata echoed.
//! Two peers define it under two names ([`Echo`]): interop/grpc-go (`echo.proto`, package
//! `hessianrs.echo.v1`) and interop/dubbo-java (the Java interface
//! `io.github.hessianrs.demo.EchoService`, protobuf `StringValue`s, no wrapper).

use std::time::Duration;

use dubbo_rpc::server::Service;
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

/// The names of the Echo service and its methods (unary, server streaming, client streaming,
/// bidirectional).
pub struct Echo {
    pub service: &'static str,
    pub methods: [&'static str; 4],
}

/// interop/grpc-go's names.
pub const GRPC_GO: Echo = Echo {
    service: "hessianrs.echo.v1.Echo",
    methods: ["Unary", "ServerStream", "ClientStream", "Bidi"],
};

/// interop/dubbo-java's names (a Java interface's methods).
pub const JAVA: Echo = Echo {
    service: "io.github.hessianrs.demo.EchoService",
    methods: ["unary", "serverStream", "clientStream", "bidi"],
};

impl Echo {
    /// The path of call shape `i` (0 unary .. 3 bidi).
    pub fn path(&self, i: usize) -> String {
        format!("/{}/{}", self.service, self.methods[i])
    }
}

/// grpc-go's path of `method` (any name, for unknown ones too).
pub fn echo_path(method: &str) -> String {
    format!("/{}/{method}", GRPC_GO.service)
}

/// The Echo service with grpc-go's names.
pub fn echo_service() -> Service {
    echo_service_named(&GRPC_GO)
}

/// The Echo service with `names`.
pub fn echo_service_named(names: &Echo) -> Service {
    let [unary, server, client, bidi] = names.methods;
    Service::new(names.service)
        .grpc(unary, |mut call, out| async move {
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
        .grpc(server, |mut call, out| async move {
            echo_trace(&call.headers, &out);
            let v: StringValue = call.single().await?;
            for answer in server_stream_answers(&v.value) {
                out.send_msg(&sv(answer)).await?;
            }
            Ok(())
        })
        .grpc(client, |mut call, out| async move {
            echo_trace(&call.headers, &out);
            let mut all = Vec::new();
            while let Some(v) = call.decode::<StringValue>().await? {
                all.push(v.value);
            }
            out.send_msg(&sv(all.join(","))).await
        })
        .grpc(bidi, |mut call, out| async move {
            echo_trace(&call.headers, &out);
            while let Some(v) = call.decode::<StringValue>().await? {
                out.send_msg(&sv(format!("echo: {}", v.value))).await?;
            }
            Ok(())
        })
}

/// The answers of a server stream to `request`: `<request>-0` .. `-2`; `many:N`: `m-0` ..
/// `m-<N-1>`.
fn server_stream_answers(request: &str) -> Vec<String> {
    match request.strip_prefix("many:") {
        Some(n) => (0..n.parse::<usize>().unwrap_or(0))
            .map(|i| format!("m-{i}"))
            .collect(),
        None => (0..3).map(|i| format!("{request}-{i}")).collect(),
    }
}

/// interop/dubbo-java's `StreamService`: the three echo streams in interface style (Java
/// `String` messages, each wrapped as Java Dubbo wraps them).
pub const STREAM_SERVICE: &str = "io.github.hessianrs.demo.StreamService";

/// [`STREAM_SERVICE`] in Rust (`Service::streaming`).
pub fn stream_service() -> Service {
    const STRING: &str = "java.lang.String";
    Service::new(STREAM_SERVICE)
        .streaming("serverStream", STRING, |mut call, out| async move {
            let request: String = call
                .next()
                .await?
                .ok_or_else(|| Status::new(Code::Internal, "no request"))?;
            for answer in server_stream_answers(&request) {
                out.send(&answer).await?;
            }
            Ok(())
        })
        .streaming("clientStream", STRING, |mut call, out| async move {
            let mut all = Vec::new();
            while let Some(v) = call.next::<String>().await? {
                all.push(v);
            }
            out.send(&all.join(",")).await
        })
        .streaming("bidi", STRING, |mut call, out| async move {
            while let Some(v) = call.next_value().await? {
                let text = v.as_str().unwrap_or_default().to_owned();
                out.send_value(&format!("echo: {text}").into()).await?;
            }
            Ok(())
        })
}

/// The three streams of [`STREAM_SERVICE`] through `client` (interface style, each value
/// wrapped), in `format`: server streaming (3 and 1,000 answers), client streaming, and
/// bidirectional with each answer read before the next request.
pub async fn stream_call_shapes(
    client: &dubbo_rpc::triple_client::Client,
    format: dubbo_codec::BodyFormat,
) {
    use dubbo_rpc::triple_client::TripleCall;
    const STRING: &str = "java.lang.String";
    let call = |method: &str| {
        TripleCall::new(STREAM_SERVICE, method)
            .format(format)
            .timeout(Duration::from_secs(10))
    };
    for (request, want) in [("abc", 3), ("many:1000", 1000)] {
        let mut s = client.stream(&call("serverStream"), STRING).await.unwrap();
        s.send(request).await.unwrap();
        s.finish().unwrap();
        let mut got = Vec::new();
        while let Some(v) = s.next::<String>().await.unwrap() {
            got.push(v);
        }
        assert_eq!(
            got,
            server_stream_answers(request),
            "{format:?} serverStream {request}"
        );
        assert_eq!(got.len(), want);
    }
    let mut s = client.stream(&call("clientStream"), STRING).await.unwrap();
    for v in ["a", "b", "c"] {
        s.send(v).await.unwrap();
    }
    s.finish().unwrap();
    assert_eq!(s.next::<String>().await.unwrap().as_deref(), Some("a,b,c"));
    assert_eq!(s.next::<String>().await.unwrap(), None);
    let mut s = client.stream(&call("bidi"), STRING).await.unwrap();
    for v in ["x", "y", "z"] {
        s.send_value(&v.into()).await.unwrap();
        let answer = s.next_value().await.unwrap().unwrap();
        assert_eq!(
            answer.as_str(),
            Some(format!("echo: {v}").as_str()),
            "{format:?} bidi"
        );
    }
    s.finish().unwrap();
    assert_eq!(s.next::<String>().await.unwrap(), None);
}

fn echo_trace(headers: &http::HeaderMap, out: &dubbo_rpc::server::Responder) {
    if let Some(t) = headers.get("x-trace").and_then(|v| v.to_str().ok()) {
        out.header("x-trace", t);
    }
}

/// Every call shape of the Echo service (`names`) through `client`: unary, server streaming,
/// client streaming, and bidirectional with each answer read before the next request.
pub async fn echo_call_shapes(client: &dubbo_rpc::triple_client::Client, names: &Echo) {
    let t = Some(Duration::from_secs(5));
    let r: StringValue = client
        .grpc_unary(&names.path(0), &sv("hi"), t)
        .await
        .unwrap();
    assert_eq!(r.value, "echo: hi");
    let mut call = client
        .grpc(&names.path(1), Default::default(), t)
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
        .grpc(&names.path(2), Default::default(), t)
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
        .grpc(&names.path(3), Default::default(), t)
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

/// The Echo service's (`names`) failures through `client`: a handler's status, a deadline
/// (`sleep:3000` within 300 ms), and a call after them on the same connection. (An unknown
/// method is UNIMPLEMENTED from grpc-go and from us, UNKNOWN with HTTP 500 from Java 3.3.6.)
pub async fn echo_failures(client: &dubbo_rpc::triple_client::Client, names: &Echo) {
    use dubbo_rpc::triple_client::TripleError;
    let err = client
        .grpc_unary::<_, StringValue>(&names.path(0), &sv("fail"), None)
        .await
        .unwrap_err();
    let TripleError::Status(s) = err else {
        panic!("{err:?}")
    };
    // Java 3.3 writes "INVALID_ARGUMENT : fail requested".
    assert_eq!(s.code, Code::InvalidArgument, "{s}");
    assert!(s.message.contains("fail requested"), "{s}");
    let t0 = std::time::Instant::now();
    let err = client
        .grpc_unary::<_, StringValue>(
            &names.path(0),
            &sv("sleep:3000"),
            Some(Duration::from_millis(300)),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::DeadlineExceeded, "{err:?}");
    assert!(t0.elapsed() < Duration::from_millis(1500));
    let r: StringValue = client
        .grpc_unary(&names.path(0), &sv("after"), None)
        .await
        .unwrap();
    assert_eq!(r.value, "echo: after");
}

/// An unknown method of the Echo service is UNIMPLEMENTED.
pub async fn echo_unimplemented(client: &dubbo_rpc::triple_client::Client, names: &Echo) {
    let err = client
        .grpc_unary::<_, StringValue>(&format!("/{}/nope", names.service), &sv("x"), None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unimplemented, "{err:?}");
}
