//! The Triple client (feature `triple`): calls Java Dubbo 3 (or Rust) Triple providers over
//! one HTTP/2 connection, each call a stream of its own.
//!
//! Calls are interface-style, as a Java consumer of a Java interface makes them: each
//! argument serialized on its own in Hessian2 or fastjson2 inside Triple's request wrapper,
//! the result read back typed (serde) or as a [`Value`]. A Java exception the provider threw
//! comes back as [`TripleError::Exception`] with its class; any other failure as a gRPC
//! [`Status`]. Each call has a deadline, sent as `grpc-timeout`; when it passes, the stream
//! is reset (RST_STREAM) so the provider stops working on it too.
//!
//! ```no_run
//! use dubbo_codec::triple_client::{Client, TripleCall};
//!
//! # async fn demo() -> Result<(), dubbo_codec::triple_client::TripleError> {
//! let client = Client::connect("127.0.0.1:50051").await?;
//! let call = TripleCall::new("io.github.hessianrs.demo.DemoService", "sayHello")
//!     .version("1.0.0")
//!     .arg("java.lang.String", &"world")?;
//! let greeting: String = client.call(&call).await?;
//! # Ok(()) }
//! ```

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use dubbo_triple::message::{MessageDecoder, MessageEncoder, DEFAULT_MAX_MESSAGE};
use dubbo_triple::metadata::{
    AttachmentValue, RequestHead, CONTENT_TYPE_PROTO, TRI_EXCEPTION_CODE,
};
use dubbo_triple::wrapper::{wire_name_of_serialization, RequestWrapper, ResponseWrapper};
use dubbo_triple::{Code, Status};
use hessian2::encode::LiteVersion;
use hessian2::value::Value;
use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::net::TcpStream;

use crate::error::BodyError;
use crate::exception::JavaException;
use crate::format::{encode_one, read_args, value_alone, with_format, BodyFormat, Format};

/// The deadline of a call that sets none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// Why a Triple call failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TripleError {
    /// The connection could not be opened.
    #[error("connecting to {addr}: {source}")]
    Connect {
        /// The address.
        addr: String,
        /// What failed.
        source: std::io::Error,
    },
    /// HTTP/2 failed (the connection broke, the stream was reset, ...).
    #[error("HTTP/2: {0}")]
    Http2(#[from] h2::Error),
    /// The call ended with a status other than `OK`.
    #[error("{0}")]
    Status(Status),
    /// The provider threw a Java exception.
    #[error("{0}")]
    Exception(JavaException),
    /// An argument could not be written, or the result read.
    #[error(transparent)]
    Body(#[from] BodyError),
    /// The deadline passed.
    #[error("no answer within {0:?}")]
    Timeout(Duration),
}

impl TripleError {
    /// The gRPC code of the failure: the status's, `DEADLINE_EXCEEDED` for a timeout,
    /// `UNAVAILABLE` for the connection, `INTERNAL` for the rest.
    pub fn code(&self) -> Code {
        match self {
            TripleError::Status(s) => s.code,
            TripleError::Timeout(_) => Code::DeadlineExceeded,
            TripleError::Connect { .. } => Code::Unavailable,
            TripleError::Exception(_) => Code::Unknown,
            _ => Code::Internal,
        }
    }
}

/// One interface-style call: service, method, options and arguments (each serialized as it
/// is added).
#[derive(Debug, Clone)]
pub struct TripleCall {
    head: RequestHead,
    format: BodyFormat,
    args: Vec<Bytes>,
    arg_types: Vec<String>,
}

impl TripleCall {
    /// A call of `method` of `service` (a Java interface name), in Hessian2, with the
    /// default deadline.
    pub fn new(service: impl Into<String>, method: impl Into<String>) -> TripleCall {
        let mut head = RequestHead::new(service, method);
        head.timeout = Some(DEFAULT_TIMEOUT);
        TripleCall {
            head,
            format: BodyFormat::Hessian2(LiteVersion::V3),
            args: Vec::new(),
            arg_types: Vec::new(),
        }
    }

    /// The service version.
    pub fn version(mut self, version: impl Into<String>) -> TripleCall {
        self.head.version = version.into();
        self
    }

    /// The service group.
    pub fn group(mut self, group: impl Into<String>) -> TripleCall {
        self.head.group = group.into();
        self
    }

    /// The deadline (sent as `grpc-timeout`).
    pub fn timeout(mut self, timeout: Duration) -> TripleCall {
        self.head.timeout = Some(timeout);
        self
    }

    /// The calling application (`tri-consumer-appname`).
    pub fn application(mut self, name: impl Into<String>) -> TripleCall {
        self.head.application = Some(name.into());
        self
    }

    /// An attachment (a header of its own).
    pub fn attachment(mut self, key: impl Into<String>, value: impl Into<String>) -> TripleCall {
        self.head
            .attachments
            .push((key.into(), AttachmentValue::Text(value.into())));
        self
    }

    /// The serialization of the arguments (and so of the answer). Set it before the
    /// arguments: each is serialized as it is added.
    pub fn format(mut self, format: BodyFormat) -> TripleCall {
        self.format = format;
        self
    }

    /// Adds an argument of Java type `java_type` (`java.lang.String`, `long`,
    /// `io.example.User`), serialized through serde.
    pub fn arg<T: Serialize + ?Sized>(
        mut self,
        java_type: impl Into<String>,
        value: &T,
    ) -> Result<TripleCall, TripleError> {
        let bytes = with_format!(self.format, f => encode_one(f, value))?;
        self.args.push(Bytes::from(bytes));
        self.arg_types.push(java_type.into());
        Ok(self)
    }

    /// Adds a dynamic argument of Java type `java_type`.
    pub fn value_arg(mut self, java_type: impl Into<String>, value: &Value) -> TripleCall {
        self.args.push(value_alone(self.format, value));
        self.arg_types.push(java_type.into());
        self
    }

    fn request(&self) -> (http::Request<()>, Bytes) {
        let mut request = http::Request::builder()
            .method(http::Method::POST)
            .uri(self.head.path())
            .body(())
            .unwrap_or_default();
        self.head
            .write_headers(CONTENT_TYPE_PROTO, request.headers_mut());
        let wrapper = RequestWrapper {
            serialize_type: wire_name_of_serialization(
                self.format.serialization().name().unwrap_or("hessian2"),
            )
            .to_owned(),
            args: self.args.clone(),
            arg_types: self.arg_types.clone(),
        };
        let mut body = BytesMut::new();
        MessageEncoder::new(&mut body).finish_with(|b| wrapper.encode_into(b));
        (request, body.freeze())
    }
}

/// A Triple client: one HTTP/2 connection, calls multiplexed on it.
#[derive(Debug, Clone)]
pub struct Client {
    send: h2::client::SendRequest<Bytes>,
    authority: String,
    max_message: u32,
}

impl Client {
    /// Connects to `addr` (`host:port`) over HTTP/2 without TLS (h2c, as Dubbo's `tri://`).
    pub async fn connect(addr: &str) -> Result<Client, TripleError> {
        let connect_err = |source| TripleError::Connect {
            addr: addr.to_owned(),
            source,
        };
        let tcp = TcpStream::connect(addr).await.map_err(connect_err)?;
        let _ = tcp.set_nodelay(true);
        let (send, connection) = h2::client::Builder::new()
            .max_header_list_size(64 * 1024)
            .handshake::<_, Bytes>(tcp)
            .await?;
        // The connection's I/O runs in a task of its own until every handle is dropped.
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(Client {
            send,
            authority: addr.to_owned(),
            max_message: DEFAULT_MAX_MESSAGE,
        })
    }

    /// The address connected to.
    pub fn addr(&self) -> &str {
        &self.authority
    }

    /// Calls and reads the result into `T` through serde.
    pub async fn call<T: DeserializeOwned>(&self, call: &TripleCall) -> Result<T, TripleError> {
        let (format, data) = self.invoke(call).await?;
        let (value, _) = with_format!(format, f => f.deserialize_at::<T>(&data, 0, "value"))?;
        Ok(value)
    }

    /// Calls and reads the result as a dynamic value.
    pub async fn call_value(&self, call: &TripleCall) -> Result<Value, TripleError> {
        let (format, data) = self.invoke(call).await?;
        Ok(read_value(format, &data)?)
    }

    /// Sends a call and returns the serialized result.
    async fn invoke(&self, call: &TripleCall) -> Result<(BodyFormat, Bytes), TripleError> {
        let timeout = call.head.timeout.unwrap_or(DEFAULT_TIMEOUT);
        let (mut request, body) = call.request();
        *request.uri_mut() = http::Uri::builder()
            .scheme("http")
            .authority(self.authority.as_str())
            .path_and_query(call.head.path())
            .build()
            .map_err(|e| TripleError::Status(Status::new(Code::Internal, e.to_string())))?;
        let mut send = self.send.clone().ready().await?;
        let (response, mut stream) = send.send_request(request, false)?;
        stream.send_data(body, true)?;
        let exchange = async {
            let response = response.await?;
            let (parts, mut recv) = response.into_parts();
            if parts.status != http::StatusCode::OK {
                return Err(TripleError::Status(Status::new(
                    Code::from_http_status(parts.status.as_u16()),
                    format!("HTTP status {}", parts.status),
                )));
            }
            // Trailers-only: the call failed before any message.
            if let Some(status) = Status::from_headers(&parts.headers) {
                if !status.is_ok() || recv.is_end_stream() {
                    return Err(TripleError::Status(status));
                }
            }
            let exception = parts
                .headers
                .get(TRI_EXCEPTION_CODE)
                .is_some_and(|v| v.as_bytes() != b"0");
            let mut decoder = MessageDecoder::new(self.max_message);
            let mut buf = BytesMut::new();
            let mut message = None;
            while let Some(chunk) = recv.data().await {
                let chunk = chunk?;
                let _ = recv.flow_control().release_capacity(chunk.len());
                buf.extend_from_slice(&chunk);
                while let Some(m) = decoder
                    .decode(&mut buf)
                    .map_err(|e| TripleError::Status(Status::new(Code::Internal, e.to_string())))?
                {
                    message.get_or_insert(m.data);
                }
            }
            let trailers = recv.trailers().await?.unwrap_or_default();
            let status = Status::from_headers(&trailers).unwrap_or_else(|| {
                Status::new(Code::Internal, "the response ended without grpc-status")
            });
            if !status.is_ok() {
                return Err(TripleError::Status(status));
            }
            let message = message.ok_or_else(|| {
                TripleError::Status(Status::new(Code::Internal, "no response message"))
            })?;
            let wrapper = ResponseWrapper::decode_bytes(message)
                .map_err(|e| TripleError::Status(Status::new(Code::Internal, e.to_string())))?;
            let format =
                match dubbo_triple::wrapper::serialization_of_wire_name(&wrapper.serialize_type) {
                    "fastjson2" => BodyFormat::Fastjson2,
                    _ => call.format,
                };
            if exception {
                let value = read_value(format, &wrapper.data)?;
                return Err(TripleError::Exception(JavaException::from_value(value)));
            }
            Ok((format, wrapper.data))
        };
        match tokio::time::timeout(timeout, exchange).await {
            Ok(r) => r,
            Err(_) => {
                // RST_STREAM(CANCEL): the provider drops the call too.
                stream.send_reset(h2::Reason::CANCEL);
                Err(TripleError::Timeout(timeout))
            }
        }
    }
}

/// The one value of `data` (a serialization of its own).
fn read_value(format: BodyFormat, data: &[u8]) -> Result<Value, BodyError> {
    let mut values = with_format!(format, f => read_args(&mut f.reader(data, 0), 1))?;
    Ok(values.pop().unwrap_or(Value::Null))
}
