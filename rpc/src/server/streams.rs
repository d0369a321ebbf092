//! Interface-style streaming methods (feature `triple`): Java's `StreamObserver` methods of a
//! plain Java interface, such as
//!
//! ```java
//! void serverStream(String request, StreamObserver<String> responses);
//! StreamObserver<String> bidi(StreamObserver<String> responses);
//! ```
//!
//! On the wire these are gRPC streams like an IDL method's, but each message is a Java value
//! wrapped as Java Dubbo wraps an interface's calls: every request message a
//! `TripleRequestWrapper` with one argument, every response a `TripleResponseWrapper`, in the
//! serialization the caller chose (answered in the same one). A handler reads the request
//! values from a [`StreamCall`] and sends values through a [`StreamSender`]; flow control is
//! the IDL path's ([`super::grpc`]), which this is built on.

use std::future::Future;
use std::net::SocketAddr;

use crate::identity::PeerIdentity;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use dubbo_codec::BodyFormat;
use dubbo_triple::wrapper::{wire_name_of_serialization, RequestWrapper, ResponseWrapper};
use dubbo_triple::{Code, Status};
use hessian2::encode::PeerVersion;
use hessian2::value::Value;
use http::HeaderMap;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::grpc::{GrpcCall, Responder};
use super::triple::format_of_wire_name;
use super::Service;

/// The serialization of a call: learnt from its first request message, Hessian2 until then
/// (Java answers in the serialization of the request wrapper it read).
type SharedFormat = Arc<OnceLock<BodyFormat>>;

fn format_or_default(format: &SharedFormat) -> BodyFormat {
    format
        .get()
        .copied()
        .unwrap_or(BodyFormat::Hessian2(PeerVersion::V3))
}

/// One call of an interface-style streaming method, as its handler sees it: the request
/// values, read as they arrive.
#[derive(Debug)]
pub struct StreamCall {
    /// The service (the Java interface name).
    pub service: String,
    /// The method.
    pub method: String,
    /// The request headers (Triple's metadata and attachments).
    pub headers: HeaderMap,
    /// The caller's address.
    pub peer: SocketAddr,
    /// The identity in the caller's verified TLS client certificate (feature `tls`, a
    /// server with a client CA); `None` for a caller without one.
    pub peer_identity: Option<PeerIdentity>,
    messages: GrpcCall,
    format: SharedFormat,
}

impl StreamCall {
    /// The serialization the caller wrote in (Hessian2 before its first message).
    pub fn format(&self) -> BodyFormat {
        format_or_default(&self.format)
    }

    /// The next request value's serialized bytes and its serialization (`None` when the
    /// caller has sent them all).
    async fn next_bytes(&mut self) -> Result<Option<(BodyFormat, Bytes)>, Status> {
        let Some(message) = self.messages.message().await? else {
            return Ok(None);
        };
        let wrapper = RequestWrapper::decode_bytes(message)
            .map_err(|e| Status::new(Code::Internal, format!("request wrapper: {e}")))?;
        let format = format_of_wire_name(&wrapper.serialize_type)?;
        let _ = self.format.set(format);
        let mut args = wrapper.args.into_iter();
        match (args.next(), args.next()) {
            (Some(arg), None) => Ok(Some((format, arg))),
            _ => Err(Status::new(
                Code::Internal,
                "a stream's request wrapper carries one argument",
            )),
        }
    }

    /// The next request value read into `T` through serde (`None` when the caller has sent
    /// them all).
    pub async fn next<T: DeserializeOwned>(&mut self) -> Result<Option<T>, Status> {
        match self.next_bytes().await? {
            Some((format, bytes)) => format
                .decode_alone(&bytes)
                .map(Some)
                .map_err(|e| Status::new(Code::Internal, format!("request value: {e}"))),
            None => Ok(None),
        }
    }

    /// The next request value as a dynamic value.
    pub async fn next_value(&mut self) -> Result<Option<Value>, Status> {
        match self.next_bytes().await? {
            Some((format, bytes)) => format
                .read_alone(&bytes)
                .map(Some)
                .map_err(|e| Status::new(Code::Internal, format!("request value: {e}"))),
            None => Ok(None),
        }
    }
}

/// Sends the response values of an interface-style stream, each wrapped as Java wraps them.
#[derive(Debug, Clone)]
pub struct StreamSender {
    responder: Responder,
    format: SharedFormat,
    java_type: Arc<str>,
}

impl StreamSender {
    /// Sends one value, serialized through serde; waits while the caller is not reading. An
    /// error when the call is over.
    pub async fn send<T: Serialize + ?Sized>(&self, value: &T) -> Result<(), Status> {
        let format = format_or_default(&self.format);
        let data = format
            .encode_alone(value)
            .map_err(|e| Status::new(Code::Internal, format!("response value: {e}")))?;
        self.send_data(format, data).await
    }

    /// Sends one dynamic value.
    pub async fn send_value(&self, value: &Value) -> Result<(), Status> {
        let format = format_or_default(&self.format);
        self.send_data(format, format.value_alone(value)).await
    }

    async fn send_data(&self, format: BodyFormat, data: Bytes) -> Result<(), Status> {
        let name = format.serialization().name().unwrap_or("hessian2");
        let wrapper = ResponseWrapper {
            serialize_type: wire_name_of_serialization(name).to_owned(),
            data,
            r#type: self.java_type.to_string(),
        };
        self.responder
            .send_encoded(|b| wrapper.encode_into(b))
            .await
    }

    /// Adds a response header (see [`Responder::header`]).
    pub fn header(&self, name: &str, value: &str) {
        self.responder.header(name, value);
    }
}

impl Service {
    /// The handler of interface-style streaming method `name` (a Java `StreamObserver`
    /// method), any call shape: it reads the request values from the [`StreamCall`] and
    /// answers through the [`StreamSender`], whose messages name `response_type` (the Java
    /// class of the responses, as Java writes it in each wrapper; `java.lang.String`). Its
    /// `Ok(())` ends the stream with status `OK`.
    pub fn streaming<F, Fut>(
        self,
        name: impl Into<String>,
        response_type: impl Into<String>,
        handler: F,
    ) -> Self
    where
        F: Fn(StreamCall, StreamSender) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), Status>> + Send + 'static,
    {
        let handler = Arc::new(handler);
        let java_type: Arc<str> = response_type.into().into();
        self.grpc(name, move |mut call, responder| {
            let format = SharedFormat::default();
            let sender = StreamSender {
                responder,
                format: format.clone(),
                java_type: java_type.clone(),
            };
            let call = StreamCall {
                service: std::mem::take(&mut call.service),
                method: std::mem::take(&mut call.method),
                headers: std::mem::take(&mut call.headers),
                peer: call.peer,
                peer_identity: call.peer_identity.take(),
                messages: call,
                format,
            };
            handler(call, sender)
        })
    }
}
