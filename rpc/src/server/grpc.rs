//! IDL methods (feature `triple`): gRPC-style methods whose messages are protobuf, served
//! over Triple beside a service's interface-style methods, in all four call shapes.
//!
//! A handler gets a [`GrpcCall`]: the request headers and the stream of request
//! [`messages`](GrpcCall::messages), read as they arrive; it answers through a
//! [`Responder`], one message at a time, and ends the call by returning `Ok(())` (status
//! `OK`) or a [`Status`]. Unary, server-streaming and client-streaming methods are the same
//! thing with one message on one side; [`Service::unary`] serves the unary case with prost
//! types on a path of its own (no channels: the request read whole, the answer written at
//! once).
//!
//! Flow control runs end to end: requests are read no faster than the handler takes them
//! (a few messages are buffered, then HTTP/2's window closes on the caller), and
//! [`Responder::send`] waits while the caller does not read (past 64 KiB of unsent
//! responses), so memory stays bounded by a few messages and 64 KiB per stream, whatever
//! either side does.

use std::future::Future;
use std::net::SocketAddr;

use crate::identity::PeerIdentity;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use bytes::{Bytes, BytesMut};
use dubbo_triple::message::{MessageEncoder, PREFIX_LEN};
use dubbo_triple::{prost, Code, Status};
use http::{HeaderMap, HeaderName, HeaderValue};
use tokio::sync::mpsc;

use super::outbox::{Closed, Outbox};
use super::Service;

/// The future a gRPC handler returns.
pub type GrpcFuture = Pin<Box<dyn Future<Output = Result<(), Status>> + Send>>;
pub(super) type GrpcHandler = Arc<dyn Fn(GrpcCall, Responder) -> GrpcFuture + Send + Sync>;

/// The future of a unary method's handler: its response as a whole gRPC message body
/// (5-byte prefix included), ready to be written.
pub(super) type UnaryFuture = Pin<Box<dyn Future<Output = Result<Bytes, Status>> + Send>>;
pub(super) type UnaryHandler = Arc<dyn Fn(Bytes, HeaderMap) -> UnaryFuture + Send + Sync>;

/// How an IDL method is served.
#[derive(Clone)]
pub(super) enum GrpcMethod {
    /// One message each way ([`Service::unary`]): the request read whole, the handler run in
    /// the stream's own task, the answer's headers, message and trailers written at once;
    /// no channel and no second task, the way most calls are made.
    Unary(UnaryHandler),
    /// Any call shape ([`Service::grpc`]): requests through a channel, answers through an
    /// outbox, as they come.
    Streaming(GrpcHandler),
}

/// Request messages a stream buffers before the caller is held back.
pub(super) const BUFFERED_MESSAGES: usize = 4;

/// One call of an IDL method, as its handler sees it.
#[derive(Debug)]
pub struct GrpcCall {
    /// The service (`package.Service`).
    pub service: String,
    /// The method.
    pub method: String,
    /// The request headers (metadata).
    pub headers: HeaderMap,
    /// The caller's address.
    pub peer: SocketAddr,
    /// The identity in the caller's verified TLS client certificate (feature `tls`, a
    /// server with a client CA); `None` for a caller without one.
    pub peer_identity: Option<PeerIdentity>,
    pub(super) messages: mpsc::Receiver<Result<Bytes, Status>>,
}

impl GrpcCall {
    /// The next request message (`None` when the caller has sent them all); an error when
    /// the request stream is broken (a message over the limit, cut short, ...).
    pub async fn message(&mut self) -> Result<Option<Bytes>, Status> {
        self.messages.recv().await.transpose()
    }

    /// The next request message decoded as `M`.
    pub async fn decode<M: prost::Message + Default>(&mut self) -> Result<Option<M>, Status> {
        self.message().await?.map(decode_request).transpose()
    }

    /// The one request message of a unary or server-streaming call: an error when there is
    /// none or more than one.
    pub async fn single<M: prost::Message + Default>(&mut self) -> Result<M, Status> {
        let m = self
            .decode()
            .await?
            .ok_or_else(|| Status::new(Code::Internal, "no request message for a unary method"))?;
        if self.message().await?.is_some() {
            return Err(Status::new(
                Code::Internal,
                "more than one request message for a unary method",
            ));
        }
        Ok(m)
    }
}

/// Sends a call's response messages (and, before the first, its response headers).
#[derive(Debug, Clone)]
pub struct Responder {
    pub(super) outbox: Arc<Outbox>,
    pub(super) headers: Arc<Mutex<HeaderMap>>,
}

impl Responder {
    /// Sends one message; waits while the caller is not reading. An error when the call is
    /// over (the caller cancelled, the deadline passed).
    pub async fn send(&self, message: Bytes) -> Result<(), Status> {
        self.send_encoded(|b| b.extend_from_slice(&message)).await
    }

    /// Sends one protobuf message, encoded straight into the stream's buffer.
    pub async fn send_msg<M: prost::Message>(&self, message: &M) -> Result<(), Status> {
        self.send_encoded(|b| {
            // `BytesMut` grows as needed: encoding into it cannot fail.
            let _ = message.encode(b);
        })
        .await
    }

    /// Sends the one message `write` appends (its 5-byte prefix is written around it).
    pub(super) async fn send_encoded(
        &self,
        write: impl FnOnce(&mut BytesMut),
    ) -> Result<(), Status> {
        let mut write = Some(|b: &mut BytesMut| MessageEncoder::new(b).finish_with(write));
        std::future::poll_fn(|cx| self.outbox.poll_push(cx, &mut write))
            .await
            .map_err(|Closed| Status::new(Code::Cancelled, "the call is over"))
    }

    /// Adds a response header, sent with the response's headers (before the first message,
    /// or with the status when there is none). Ignored once they are sent; invalid names or
    /// values are left out.
    pub fn header(&self, name: &str, value: &str) {
        if let (Ok(n), Ok(v)) = (HeaderName::try_from(name), HeaderValue::from_str(value)) {
            super::lock(&self.headers).append(n, v);
        }
    }
}

impl Service {
    /// The handler of IDL method `name`, any call shape: it reads the request messages from
    /// the [`GrpcCall`] and answers through the [`Responder`].
    pub fn grpc<F, Fut>(mut self, name: impl Into<String>, handler: F) -> Self
    where
        F: Fn(GrpcCall, Responder) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), Status>> + Send + 'static,
    {
        let h: GrpcHandler = Arc::new(move |call, out| Box::pin(handler(call, out)));
        self.grpc_methods
            .insert(name.into(), GrpcMethod::Streaming(h));
        self
    }

    /// The handler of unary IDL method `name`, with prost request and response types.
    pub fn unary<Req, Resp, F, Fut>(mut self, name: impl Into<String>, handler: F) -> Self
    where
        Req: prost::Message + Default + 'static,
        Resp: prost::Message + 'static,
        F: Fn(Req, HeaderMap) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Resp, Status>> + Send + 'static,
    {
        let handler = Arc::new(handler);
        let h: UnaryHandler = Arc::new(move |message, headers| {
            let handler = handler.clone();
            Box::pin(async move {
                let response = handler(decode_request::<Req>(message)?, headers).await?;
                let mut body = BytesMut::with_capacity(PREFIX_LEN + response.encoded_len());
                MessageEncoder::new(&mut body).finish_with(|b| {
                    // `BytesMut` grows as needed: encoding into it cannot fail.
                    let _ = response.encode(b);
                });
                Ok(body.freeze())
            })
        });
        self.grpc_methods.insert(name.into(), GrpcMethod::Unary(h));
        self
    }
}

/// A request message decoded as `M`.
fn decode_request<M: prost::Message + Default>(bytes: Bytes) -> Result<M, Status> {
    M::decode(bytes).map_err(|e| {
        Status::new(
            Code::Internal,
            format!("request message is not {}: {e}", std::any::type_name::<M>()),
        )
    })
}
