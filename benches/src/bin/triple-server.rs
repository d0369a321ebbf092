//! `triple-server`: the Rust servers of `benches/triple-compare`, one process each.
//!
//! ```text
//! triple-server ours|tonic [--listen 127.0.0.1:0] [--threads 2]
//! ```
//!
//! * `ours`: `dubbo_rpc::server::Server` (the Dubbo protocol, Triple over HTTP/2 and HTTP/1.1
//!   on one port) serving `io.github.hessianrs.demo.DemoService:1.0.0` `sayHello(String)`
//!   interface-style (`"Hello, " + name`, as the Java demo provider answers) and the IDL unary
//!   method `/io.github.hessianrs.demo.EchoService/unary` (`google.protobuf.StringValue` in and
//!   out, `"echo: " + value`, as the Java provider's EchoService answers).
//! * `tonic`: tonic 0.12's server with the same IDL method, its service written as
//!   tonic-build would generate it (there is no protoc here).
//!
//! Both run a multi-threaded tokio runtime of `--threads` workers (default 2). Prints
//! `READY <port>` once listening; runs until killed.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use dubbo_rpc::server::{Server, Service};
use tokio_stream::StreamExt;

const DEMO: &str = "io.github.hessianrs.demo.DemoService";
const ECHO: &str = "io.github.hessianrs.demo.EchoService";
const ECHO_UNARY: &str = "/io.github.hessianrs.demo.EchoService/unary";

/// `google.protobuf.StringValue`.
#[derive(Clone, PartialEq, prost::Message)]
struct StringValue {
    #[prost(string, tag = "1")]
    value: String,
}

fn usage(msg: &str) -> ! {
    eprintln!("triple-server: {msg}");
    eprintln!("usage: triple-server ours|tonic [--listen HOST:PORT] [--threads N]");
    std::process::exit(2)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| usage("which server?"));
    let mut listen = "127.0.0.1:0".to_string();
    let mut threads = 2usize;
    while let Some(a) = args.next() {
        let v = args
            .next()
            .unwrap_or_else(|| usage(&format!("missing value for {a}")));
        match a.as_str() {
            "--listen" => listen = v,
            "--threads" => threads = v.parse().unwrap_or_else(|_| usage("bad --threads")),
            _ => usage(&format!("unknown option {a}")),
        }
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .enable_all()
        .build()
        .expect("tokio runtime");
    rt.block_on(async move {
        match which.as_str() {
            "ours" => ours(&listen).await,
            "tonic" => tonic_server(&listen).await,
            _ => usage("the server is ours or tonic"),
        }
    })
}

async fn ours(listen: &str) {
    let demo = Service::new(DEMO)
        .version("1.0.0")
        .method("sayHello", |call| async move {
            let (name,): (Option<String>,) = call.args()?;
            call.typed_reply(&format!("Hello, {}", name.as_deref().unwrap_or("null")))
        })
        .signature("sayHello", &["java.lang.String"], "java.lang.String");
    let echo = Service::new(ECHO).unary("unary", |req: StringValue, _| async move {
        Ok(StringValue {
            value: format!("echo: {}", req.value),
        })
    });
    let server = Server::builder()
        .service(demo)
        .service(echo)
        .bind(listen)
        .await
        .unwrap_or_else(|e| usage(&format!("bind {listen}: {e}")));
    println!("READY {}", server.local_addr().port());
    std::future::pending::<()>().await;
}

async fn tonic_server(listen: &str) {
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .unwrap_or_else(|e| usage(&format!("bind {listen}: {e}")));
    println!("READY {}", listener.local_addr().unwrap().port());
    // TCP_NODELAY on each accepted connection, as tonic's own `serve` sets by default
    // (`serve_with_incoming` takes the sockets as they are; with Nagle on, a 1 KiB answer
    // waits for the peer's delayed ACK, ~40 ms).
    let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener).map(|s| {
        if let Ok(s) = &s {
            let _ = s.set_nodelay(true);
        }
        s
    });
    tonic::transport::Server::builder()
        .add_service(TonicEcho)
        .serve_with_incoming(incoming)
        .await
        .expect("tonic server");
}

/// tonic's EchoService, written as tonic-build would generate it.
#[derive(Clone)]
struct TonicEcho;

impl tonic::server::NamedService for TonicEcho {
    const NAME: &'static str = ECHO;
}

type BoxFuture<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send>>;

struct TonicUnary;

impl tonic::server::UnaryService<StringValue> for TonicUnary {
    type Response = StringValue;
    type Future = BoxFuture<tonic::Response<StringValue>, tonic::Status>;

    fn call(&mut self, request: tonic::Request<StringValue>) -> Self::Future {
        Box::pin(async move {
            Ok(tonic::Response::new(StringValue {
                value: format!("echo: {}", request.into_inner().value),
            }))
        })
    }
}

impl<B> tower_service::Service<http::Request<B>> for TonicEcho
where
    B: http_body::Body + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>> + Send + 'static,
{
    type Response = http::Response<tonic::body::BoxBody>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Infallible>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        if request.uri().path() == ECHO_UNARY {
            return Box::pin(async move {
                let mut grpc = tonic::server::Grpc::new(tonic::codec::ProstCodec::default());
                Ok(grpc.unary(TonicUnary, request).await)
            });
        }
        Box::pin(async move { Ok(tonic::Status::unimplemented("no such method").into_http()) })
    }
}
