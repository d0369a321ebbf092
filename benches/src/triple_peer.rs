//! The Echo IDL service the Triple benches serve and call (`benches/benches/triple.rs`,
//! `triple-server`, `triple-load`): protobuf `StringValue` messages under interop/dubbo-java's
//! names, our server's handler of it, and tonic 0.12's server of it, written as tonic-build
//! would generate it (there is no protoc here).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use dubbo_rpc::server::Service;
use tokio::net::TcpListener;
use tokio_stream::StreamExt;

/// The IDL service.
pub const ECHO: &str = "io.github.hessianrs.demo.EchoService";
/// Its unary method's path.
pub const ECHO_UNARY: &str = "/io.github.hessianrs.demo.EchoService/unary";
/// Its server-streaming method's path: [`STREAM_MESSAGES`] answers to one request.
pub const ECHO_SERVER_STREAM: &str = "/io.github.hessianrs.demo.EchoService/serverStream";
/// The messages of each server stream, each the unary answer to its request.
pub const STREAM_MESSAGES: usize = 100;

/// `google.protobuf.StringValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StringValue {
    /// Field 1.
    #[prost(string, tag = "1")]
    pub value: String,
}

/// The unary answer: `"echo: " + value`.
fn echo(request: StringValue) -> StringValue {
    StringValue {
        value: format!("echo: {}", request.value),
    }
}

/// Our server's Echo service (its unary and server-streaming methods).
pub fn echo_service() -> Service {
    Service::new(ECHO)
        .unary("unary", |req: StringValue, _| async move { Ok(echo(req)) })
        .grpc("serverStream", |mut call, out| async move {
            let answer = echo(call.single().await?);
            for _ in 0..STREAM_MESSAGES {
                out.send_msg(&answer).await?;
            }
            Ok(())
        })
}

/// Serves tonic's Echo on `listener` until the process ends, with TCP_NODELAY on each
/// connection as tonic's own `serve` sets it (`serve_with_incoming` takes the sockets as they
/// are; with Nagle on, a 1 KiB answer waits for the peer's delayed ACK, ~40 ms).
pub async fn serve_tonic(listener: TcpListener) -> Result<(), tonic::transport::Error> {
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
}

/// tonic's EchoService, written as tonic-build would generate it.
#[derive(Clone)]
pub struct TonicEcho;

impl tonic::server::NamedService for TonicEcho {
    const NAME: &'static str = ECHO;
}

type BoxFuture<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send>>;

struct TonicUnary;

impl tonic::server::UnaryService<StringValue> for TonicUnary {
    type Response = StringValue;
    type Future = BoxFuture<tonic::Response<StringValue>, tonic::Status>;

    fn call(&mut self, request: tonic::Request<StringValue>) -> Self::Future {
        Box::pin(async move { Ok(tonic::Response::new(echo(request.into_inner()))) })
    }
}

struct TonicServerStream;

impl tonic::server::ServerStreamingService<StringValue> for TonicServerStream {
    type Response = StringValue;
    type ResponseStream =
        Pin<Box<dyn tokio_stream::Stream<Item = Result<StringValue, tonic::Status>> + Send>>;
    type Future = BoxFuture<tonic::Response<Self::ResponseStream>, tonic::Status>;

    fn call(&mut self, request: tonic::Request<StringValue>) -> Self::Future {
        Box::pin(async move {
            let answer = echo(request.into_inner());
            let answers = std::iter::repeat_n(answer, STREAM_MESSAGES).map(Ok);
            let stream: Self::ResponseStream = Box::pin(tokio_stream::iter(answers));
            Ok(tonic::Response::new(stream))
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
        let mut grpc = tonic::server::Grpc::new(tonic::codec::ProstCodec::default());
        match request.uri().path() {
            ECHO_UNARY => {
                return Box::pin(async move { Ok(grpc.unary(TonicUnary, request).await) })
            }
            ECHO_SERVER_STREAM => {
                return Box::pin(async move {
                    Ok(grpc.server_streaming(TonicServerStream, request).await)
                })
            }
            _ => {}
        }
        Box::pin(async move { Ok(tonic::Status::unimplemented("no such method").into_http()) })
    }
}
