//! Interface-style streaming calls: a Java interface's `StreamObserver` methods
//! (`void serverStream(String, StreamObserver<String>)`,
//! `StreamObserver<String> bidi(StreamObserver<String>)`), called as a Java consumer calls
//! them. The stream is an IDL stream ([`GrpcStream`]) whose messages are wrapped: each
//! request value a `TripleRequestWrapper` with one argument, each response value a
//! `TripleResponseWrapper`, in the call's serialization.

use bytes::BytesMut;
use dubbo_codec::BodyFormat;
use dubbo_triple::metadata::CONTENT_TYPE_PROTO;
use dubbo_triple::wrapper::{
    serialization_of_wire_name, wire_name_of_serialization, RequestWrapper, ResponseWrapper,
};
use dubbo_triple::{Code, Status};
use hessian2::value::Value;
use http::HeaderMap;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{Client, GrpcStream, TripleCall, TripleError};

/// One interface-style streaming call: request values sent with [`send`](Self::send) and
/// ended with [`finish`](Self::finish), response values read with [`next`](Self::next)
/// until it gives `None` (status `OK`) or the call's status as an error. Dropping it cancels
/// the call.
#[derive(Debug)]
pub struct TripleStream {
    grpc: GrpcStream,
    format: BodyFormat,
    request_type: String,
}

impl Client {
    /// Starts a streaming call of `call`'s method with its service, version, group,
    /// attachments, deadline and serialization (its arguments, if any, are not sent: values
    /// go through [`TripleStream::send`]); `request_type` is the Java class of the request
    /// values (`java.lang.String`), named in each wrapper.
    pub async fn stream(
        &self,
        call: &TripleCall,
        request_type: impl Into<String>,
    ) -> Result<TripleStream, TripleError> {
        let mut headers = HeaderMap::new();
        call.head.write_headers(CONTENT_TYPE_PROTO, &mut headers);
        let grpc = self
            .grpc(&call.head.path(), headers, call.head.timeout)
            .await?;
        Ok(TripleStream {
            grpc,
            format: call.format,
            request_type: request_type.into(),
        })
    }
}

impl TripleStream {
    /// Sends one request value, serialized through serde; waits while the server does not
    /// read.
    pub async fn send<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), TripleError> {
        let data = self.format.encode_alone(value)?;
        self.send_data(data).await
    }

    /// Sends one dynamic request value.
    pub async fn send_value(&mut self, value: &Value) -> Result<(), TripleError> {
        let data = self.format.value_alone(value);
        self.send_data(data).await
    }

    async fn send_data(&mut self, data: bytes::Bytes) -> Result<(), TripleError> {
        let name = self.format.serialization().name().unwrap_or("hessian2");
        let wrapper = RequestWrapper {
            serialize_type: wire_name_of_serialization(name).to_owned(),
            args: vec![data],
            arg_types: vec![self.request_type.clone()],
        };
        let mut message = BytesMut::new();
        wrapper.encode_into(&mut message);
        self.grpc.send(&message).await
    }

    /// Ends the request stream.
    pub fn finish(&mut self) -> Result<(), TripleError> {
        self.grpc.finish()
    }

    /// Cancels the call (RST_STREAM with CANCEL).
    pub fn cancel(&mut self) {
        self.grpc.cancel();
    }

    /// The next response value's serialization and bytes.
    async fn next_data(&mut self) -> Result<Option<(BodyFormat, bytes::Bytes)>, TripleError> {
        let Some(message) = self.grpc.message().await? else {
            return Ok(None);
        };
        let wrapper = ResponseWrapper::decode_bytes(message).map_err(|e| {
            TripleError::Status(Status::new(
                Code::Internal,
                format!("response wrapper: {e}"),
            ))
        })?;
        let format = match serialization_of_wire_name(&wrapper.serialize_type) {
            "fastjson2" => BodyFormat::FASTJSON2,
            _ => self.format,
        };
        Ok(Some((format, wrapper.data)))
    }

    /// The next response value read into `T` through serde: `None` once the call ended with
    /// `OK`, its status as an error otherwise.
    pub async fn next<T: DeserializeOwned>(&mut self) -> Result<Option<T>, TripleError> {
        match self.next_data().await? {
            Some((format, data)) => Ok(Some(format.decode_alone(&data)?)),
            None => Ok(None),
        }
    }

    /// The next response value as a dynamic value.
    pub async fn next_value(&mut self) -> Result<Option<Value>, TripleError> {
        match self.next_data().await? {
            Some((format, data)) => Ok(Some(format.read_alone(&data)?)),
            None => Ok(None),
        }
    }
}
