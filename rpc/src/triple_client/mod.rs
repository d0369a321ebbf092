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
//! A Java interface's `StreamObserver` methods are called with [`Client::stream`] (values
//! sent and read one by one, each wrapped); IDL (protobuf) methods of any call shape with
//! [`Client::grpc`] and [`Client::grpc_unary`].
//!
//! ```no_run
//! use dubbo_rpc::triple_client::{Client, TripleCall};
//!
//! # async fn demo() -> Result<(), dubbo_rpc::triple_client::TripleError> {
//! let client = Client::connect("127.0.0.1:50051").await?;
//! let call = TripleCall::new("io.github.hessianrs.demo.DemoService", "sayHello")
//!     .version("1.0.0")
//!     .arg("java.lang.String", &"world")?;
//! let greeting: String = client.call(&call).await?;
//! # Ok(()) }
//! ```

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use dubbo_triple::message::{MessageDecoder, MessageEncoder, DEFAULT_MAX_MESSAGE};
use dubbo_triple::metadata::{
    AttachmentValue, RequestHead, CONTENT_TYPE_PROTO, TRI_EXCEPTION_CODE,
};
use dubbo_triple::wrapper::{wire_name_of_serialization, RequestWrapper, ResponseWrapper};
use dubbo_triple::{Code, Status};
use hessian2::encode::PeerVersion;
use hessian2::value::Value;
use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::net::TcpStream;

use dubbo_codec::attachments::{
    DUBBO_VERSION_KEY, GROUP_KEY, INTERFACE_KEY, PATH_KEY, TIMEOUT_KEY, VERSION_KEY,
};
use dubbo_codec::descriptor::{desc_to_name, Descriptor};
use dubbo_codec::error::BodyError;
use dubbo_codec::exception::JavaException;
use dubbo_codec::request::Request;
use dubbo_codec::BodyFormat;

mod grpc;
mod stream;

pub use grpc::GrpcStream;
pub use stream::TripleStream;

/// The deadline of a call that sets none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// How close to its deadline a reset stream counts as the deadline passing.
const DEADLINE_SLACK: Duration = Duration::from_millis(50);

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
    /// The connection was not open within [`ClientConfig::connect_timeout`].
    #[error("connecting to {addr}: not connected within {timeout:?}")]
    ConnectTimeout {
        /// The address.
        addr: String,
        /// The limit.
        timeout: Duration,
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
            TripleError::Connect { .. } | TripleError::ConnectTimeout { .. } => Code::Unavailable,
            TripleError::Exception(_) => Code::Unknown,
            // A stream reset by the peer, as gRPC maps RST_STREAM's codes.
            TripleError::Http2(e) => match e.reason() {
                Some(h2::Reason::CANCEL) => Code::Cancelled,
                Some(h2::Reason::REFUSED_STREAM) => Code::Unavailable,
                Some(h2::Reason::ENHANCE_YOUR_CALM) => Code::ResourceExhausted,
                Some(h2::Reason::INADEQUATE_SECURITY) => Code::PermissionDenied,
                _ => Code::Internal,
            },
            _ => Code::Internal,
        }
    }

    /// An error that came as the deadline passed: a server that enforces the caller's
    /// `grpc-timeout` resets the stream at the same moment the caller's own timer fires.
    fn at_deadline(self, deadline: tokio::time::Instant, timeout: Duration) -> TripleError {
        let reset = matches!(&self, TripleError::Http2(e) if e.is_reset());
        if reset && tokio::time::Instant::now() + DEADLINE_SLACK >= deadline {
            TripleError::Timeout(timeout)
        } else {
            self
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
            format: BodyFormat::Hessian2(PeerVersion::V3),
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
        self.args.push(self.format.encode_alone(value)?);
        self.arg_types.push(java_type.into());
        Ok(self)
    }

    /// Adds a dynamic argument of Java type `java_type`.
    pub fn value_arg(mut self, java_type: impl Into<String>, value: &Value) -> TripleCall {
        self.args.push(self.format.value_alone(value));
        self.arg_types.push(java_type.into());
        self
    }

    /// The Triple form of a Dubbo 2 request: the same service, version, group, method and
    /// arguments (each serialized again alone, in the request's serialization), its string
    /// attachments as headers, and its `timeout` attachment as the deadline (else
    /// `default_timeout`). What a cluster client sends a provider it reaches over Triple.
    ///
    /// # Errors
    ///
    /// The request's descriptor or typed arguments cannot be read.
    pub fn from_request(req: &Request, default_timeout: Duration) -> Result<TripleCall, BodyError> {
        let timeout = req
            .attachments
            .get_str(TIMEOUT_KEY)
            .and_then(|t| t.trim().parse::<u64>().ok())
            .filter(|&ms| ms > 0)
            .map_or(default_timeout, Duration::from_millis);
        let version = match req.service_version() {
            "0.0.0" => "",
            v => v,
        };
        let mut call = TripleCall::new(req.service(), req.method.as_str())
            .format(req.format)
            .timeout(timeout)
            .version(version)
            .group(req.group().unwrap_or_default());
        for (key, value) in req.attachments.iter() {
            let fixed = [
                PATH_KEY,
                INTERFACE_KEY,
                VERSION_KEY,
                GROUP_KEY,
                TIMEOUT_KEY,
                DUBBO_VERSION_KEY,
            ];
            if let (false, Some(text)) = (fixed.contains(&key), value.as_str()) {
                call = call.attachment(key, text);
            }
        }
        let values = req.arg_values()?;
        let types = Descriptor::parse(&req.descriptor)?;
        for (desc, value) in types.iter().zip(values.iter()) {
            call = call.value_arg(desc_to_name(desc)?, value);
        }
        Ok(call)
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

/// How a [`Client`] keeps its connection: see [`Client::connect_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientConfig {
    /// How often an HTTP/2 PING checks that the provider is still there (Triple's
    /// heartbeat; default 60 s, Dubbo's heartbeat interval).
    pub keepalive_interval: Duration,
    /// How long a PING may go unanswered before the connection is closed, failing the calls
    /// on it at once rather than at their deadlines (default 20 s).
    pub keepalive_timeout: Duration,
    /// The largest response message read (default 4 MiB).
    pub max_message: u32,
    /// How long opening a connection (TCP and the HTTP/2 handshake) may take (default 3 s,
    /// Dubbo's connect timeout).
    pub connect_timeout: Duration,
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            keepalive_interval: Duration::from_secs(60),
            keepalive_timeout: Duration::from_secs(20),
            max_message: DEFAULT_MAX_MESSAGE,
            connect_timeout: Duration::from_secs(3),
        }
    }
}

impl ClientConfig {
    /// The PING interval and how long one may go unanswered.
    pub fn keepalive(mut self, interval: Duration, timeout: Duration) -> Self {
        self.keepalive_interval = interval;
        self.keepalive_timeout = timeout;
        self
    }

    /// The largest response message read.
    pub fn max_message(mut self, max: u32) -> Self {
        self.max_message = max;
        self
    }

    /// How long opening a connection may take.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }
}

/// A Triple client: one HTTP/2 connection, calls multiplexed on it. When the connection is
/// gone (the provider closed it, said GOAWAY in a graceful shutdown, or stopped answering
/// PINGs) the next call opens a new one; a call is only retried on it when it was never sent.
#[derive(Debug, Clone)]
pub struct Client {
    /// The connection's handle; `None` before the first call of a [`Client::lazy`] one.
    send: Arc<Mutex<Option<h2::client::SendRequest<Bytes>>>>,
    /// Held while a connection is opened, so that a burst of calls opens one.
    opening: Arc<tokio::sync::Mutex<()>>,
    authority: String,
    config: ClientConfig,
    /// TLS, offering ALPN `h2` (feature `tls`).
    #[cfg(feature = "tls")]
    tls: Option<crate::tls::ClientTls>,
}

impl Client {
    /// Connects to `addr` (`host:port`) over HTTP/2 without TLS (h2c, as Dubbo's `tri://`).
    pub async fn connect(addr: &str) -> Result<Client, TripleError> {
        Client::connect_with(addr, ClientConfig::default()).await
    }

    /// [`Client::connect`] with a configuration.
    pub async fn connect_with(addr: &str, config: ClientConfig) -> Result<Client, TripleError> {
        let client = Client::lazy(addr, config);
        client.ready().await?;
        Ok(client)
    }

    /// A client of `addr` that connects on its first call (a cluster's providers are
    /// connected to when they are first picked).
    pub fn lazy(addr: impl Into<String>, config: ClientConfig) -> Client {
        Client {
            send: Arc::default(),
            opening: Arc::default(),
            authority: addr.into(),
            config,
            #[cfg(feature = "tls")]
            tls: None,
        }
    }

    /// [`Client::connect_with`] over TLS (feature `tls`), offering ALPN `h2` as Java
    /// Dubbo's Triple clients do; the handshake is bounded by the connect timeout with the
    /// rest of connecting. A failed handshake is [`TripleError::Connect`].
    #[cfg(feature = "tls")]
    pub async fn connect_tls(
        addr: &str,
        config: ClientConfig,
        tls: crate::tls::ClientTls,
    ) -> Result<Client, TripleError> {
        let client = Client::lazy_tls(addr, config, tls);
        client.ready().await?;
        Ok(client)
    }

    /// [`Client::lazy`] over TLS (feature `tls`).
    #[cfg(feature = "tls")]
    pub fn lazy_tls(
        addr: impl Into<String>,
        config: ClientConfig,
        tls: crate::tls::ClientTls,
    ) -> Client {
        Client {
            tls: Some(tls.for_h2()),
            ..Client::lazy(addr, config)
        }
    }

    /// The URI scheme of the calls: `https` over TLS.
    fn scheme(&self) -> &'static str {
        #[cfg(feature = "tls")]
        if self.tls.is_some() {
            return "https";
        }
        "http"
    }

    #[cfg(feature = "tls")]
    fn tls(&self) -> Option<&crate::tls::ClientTls> {
        self.tls.as_ref()
    }

    #[cfg(not(feature = "tls"))]
    fn tls(&self) -> Option<&std::convert::Infallible> {
        None
    }

    fn current(&self) -> Option<h2::client::SendRequest<Bytes>> {
        self.send.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// A handle ready to open a stream: the connection's, or a new connection's when there
    /// is none yet or it is gone.
    pub(crate) async fn ready(&self) -> Result<h2::client::SendRequest<Bytes>, TripleError> {
        if let Some(send) = self.current() {
            if let Ok(send) = send.ready().await {
                return Ok(send);
            }
        }
        let _opening = self.opening.lock().await;
        // Another call may have opened one while this one waited.
        if let Some(send) = self.current() {
            if let Ok(send) = send.ready().await {
                return Ok(send);
            }
        }
        let fresh = open(&self.authority, self.config, self.tls()).await?;
        *self.send.lock().unwrap_or_else(|e| e.into_inner()) = Some(fresh.clone());
        Ok(fresh.ready().await?)
    }

    /// The address connected to.
    pub fn addr(&self) -> &str {
        &self.authority
    }

    /// Calls and reads the result into `T` through serde.
    pub async fn call<T: DeserializeOwned>(&self, call: &TripleCall) -> Result<T, TripleError> {
        let (format, data) = self.invoke(call).await?;
        Ok(format.decode_alone(&data)?)
    }

    /// Calls and reads the result as a dynamic value.
    pub async fn call_value(&self, call: &TripleCall) -> Result<Value, TripleError> {
        let (format, data) = self.invoke(call).await?;
        Ok(format.read_alone(&data)?)
    }

    /// Sends a call and returns the serialized result.
    async fn invoke(&self, call: &TripleCall) -> Result<(BodyFormat, Bytes), TripleError> {
        match self.invoke_once(call).await {
            // The server never processed the stream (it was past a GOAWAY's last stream):
            // safe to send again, on a new connection.
            Err(TripleError::Http2(e)) if e.reason() == Some(h2::Reason::REFUSED_STREAM) => {
                self.invoke_once(call).await
            }
            other => other,
        }
    }

    async fn invoke_once(&self, call: &TripleCall) -> Result<(BodyFormat, Bytes), TripleError> {
        let timeout = call.head.timeout.unwrap_or(DEFAULT_TIMEOUT);
        let (mut request, body) = call.request();
        *request.uri_mut() = http::Uri::builder()
            .scheme(self.scheme())
            .authority(self.authority.as_str())
            .path_and_query(call.head.path())
            .build()
            .map_err(|e| TripleError::Status(Status::new(Code::Internal, e.to_string())))?;
        let mut send = self.ready().await?;
        let (response, mut stream) = send.send_request(request, false)?;
        // A failed send is not the end: the server may have answered first (an unknown service,
        // a refusal), and its answer says why.
        let sent = stream.send_data(body, true);
        let exchange = async {
            let response = response.await?;
            let (parts, mut recv) = response.into_parts();
            // Trailers-only: the call failed before any message (Java 3.3 sends such a
            // status with HTTP 500 or 408: grpc-status says more than the HTTP status).
            if let Some(status) = Status::from_headers(&parts.headers) {
                if !status.is_ok() || recv.is_end_stream() {
                    return Err(TripleError::Status(status));
                }
            }
            if parts.status != http::StatusCode::OK {
                return Err(TripleError::Status(http_status(parts.status)));
            }
            let exception = parts
                .headers
                .get(TRI_EXCEPTION_CODE)
                .is_some_and(|v| v.as_bytes() != b"0");
            let mut decoder = MessageDecoder::new(self.config.max_message);
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
                    "fastjson2" => BodyFormat::FASTJSON2,
                    _ => call.format,
                };
            if exception {
                let value = format.read_alone(&wrapper.data)?;
                return Err(TripleError::Exception(JavaException::from_value(value)));
            }
            Ok((format, wrapper.data))
        };
        let deadline = tokio::time::Instant::now() + timeout;
        match tokio::time::timeout_at(deadline, exchange).await {
            // An answer to a request that was not sent whole is not its answer.
            Ok(Ok(_)) if sent.is_err() => Err(TripleError::from(sent.unwrap_err())),
            Ok(r) => r.map_err(|e| e.at_deadline(deadline, timeout)),
            Err(_) => {
                // RST_STREAM(CANCEL): the provider drops the call too.
                stream.send_reset(h2::Reason::CANCEL);
                Err(TripleError::Timeout(timeout))
            }
        }
    }
}

/// Opens an HTTP/2 connection to `addr`; its I/O runs in a task of its own until every
/// handle is dropped, or a PING goes unanswered.
async fn open(
    addr: &str,
    config: ClientConfig,
    #[cfg_attr(not(feature = "tls"), allow(unused_variables))] tls: Option<&Tls>,
) -> Result<h2::client::SendRequest<Bytes>, TripleError> {
    let handshake = async {
        let tcp = TcpStream::connect(addr)
            .await
            .map_err(|source| TripleError::Connect {
                addr: addr.to_owned(),
                source,
            })?;
        let _ = tcp.set_nodelay(true);
        #[cfg(feature = "tls")]
        if let Some(tls) = tls {
            let tls = tls
                .handshake(addr, tcp)
                .await
                .map_err(|source| TripleError::Connect {
                    addr: addr.to_owned(),
                    source,
                })?;
            return h2_handshake(tls, config).await;
        }
        h2_handshake(tcp, config).await
    };
    tokio::time::timeout(config.connect_timeout, handshake)
        .await
        .map_err(|_| TripleError::ConnectTimeout {
            addr: addr.to_owned(),
            timeout: config.connect_timeout,
        })?
}

/// The TLS of a connection: none without the `tls` feature.
#[cfg(feature = "tls")]
type Tls = crate::tls::ClientTls;
#[cfg(not(feature = "tls"))]
type Tls = std::convert::Infallible;

/// The HTTP/2 handshake over `io`, with the client's settings; the connection's I/O then
/// runs in a task of its own.
async fn h2_handshake<T>(
    io: T,
    config: ClientConfig,
) -> Result<h2::client::SendRequest<Bytes>, TripleError>
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (send, mut connection) = h2::client::Builder::new()
        .max_header_list_size(64 * 1024)
        .initial_window_size(crate::h2_send::STREAM_WINDOW)
        .initial_connection_window_size(crate::h2_send::CONNECTION_WINDOW)
        .handshake::<_, Bytes>(io)
        .await?;
    let pings = connection.ping_pong();
    tokio::spawn(async move {
        let keepalive = async {
            match pings {
                Some(pings) => keepalive(pings, config).await,
                None => std::future::pending().await,
            }
        };
        // Dropping the connection closes it: its streams fail at once.
        tokio::select! {
            _ = connection => {}
            _ = keepalive => {}
        }
    });
    Ok(send)
}

/// The status of a response that is not gRPC (no `grpc-status`), by its HTTP status.
fn http_status(status: http::StatusCode) -> Status {
    Status::new(
        Code::from_http_status(status.as_u16()),
        format!("HTTP status {status}"),
    )
}

/// Returns when a PING went unanswered for `keepalive_timeout`.
async fn keepalive(mut pings: h2::PingPong, config: ClientConfig) {
    loop {
        tokio::time::sleep(config.keepalive_interval).await;
        let pong = tokio::time::timeout(config.keepalive_timeout, pings.ping(h2::Ping::opaque()));
        if !matches!(pong.await, Ok(Ok(_))) {
            return;
        }
    }
}
