//! An async Dubbo client.
//!
//! One [`Client`] keeps **one TCP connection** to a provider and multiplexes every call on
//! it, as Java's `ExchangeClient` does: each call gets a fresh request id, its frame is queued
//! to the connection's writer task, and the reader task hands each response to the caller
//! waiting for that id (a map id → oneshot channel). Calls complete in whatever order the
//! provider answers.
//!
//! * **Timeouts** are per call: the `timeout` attachment of the request when it has one,
//!   else [`ClientConfig::timeout`]. It covers the whole call: (re)connecting, queueing the
//!   request for the writer, and waiting for the answer. A call that times out forgets its
//!   id, so a late answer is dropped, never delivered to another caller. Connecting has its
//!   own bound too, [`ClientConfig::connect_timeout`].
//! * **Heartbeats**: when nothing has been read for [`ClientConfig::heartbeat`], the client
//!   sends a heartbeat (answered by the provider); when nothing has been read for three
//!   heartbeat periods the connection is considered dead and closed, as Java's
//!   `ReconnectTimerTask` does.
//! * **Reconnect**: a call made while the connection is closed (or after the provider sent
//!   the read-only event of a graceful shutdown) opens a new one. One connect at a time, in
//!   a task of its own: the calls made meanwhile wait for it, each within its own timeout,
//!   and no lock is held while it connects.
//! * Calls: [`Client::call`] (typed, through serde), [`Client::call_value`] (dynamic),
//!   [`Client::generic_call`] (`$invoke`), [`Client::oneway`], [`Client::invoke`] (the raw
//!   [`Response`]).
//!
//! ```no_run
//! use dubbo_rpc::client::Client;
//! use dubbo_codec::Request;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let client = Client::connect("127.0.0.1:20880").await?;
//! let req = Request::builder("com.example.Greeter", "sayHello")
//!     .version("1.0.0")
//!     .arg("java.lang.String", "world")
//!     .build()?;
//! let greeting: String = client.call(&req).await?;
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hessian2::value::Value;
use serde::de::DeserializeOwned;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use crate::conn::{write_loop, FrameReader, Read};
use dubbo_codec::attachments::TIMEOUT_KEY;
use dubbo_codec::codec::DEFAULT_MAX_PAYLOAD;
use dubbo_codec::error::{BodyError, DecodeError};
use dubbo_codec::event::Event;
use dubbo_codec::exception::JavaException;
use dubbo_codec::frame::{Frame, FrameKind};
use dubbo_codec::request::Request;
use dubbo_codec::response::{Outcome, Response, TypedResult};
use dubbo_codec::status::Status;

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// The provider's method threw (a response with status OK and an exception).
    #[error("remote exception {0}")]
    Exception(JavaException),
    /// The provider answered with a status other than OK (`SERVICE_NOT_FOUND`,
    /// `BAD_REQUEST`, `SERVER_TIMEOUT`, ...), with its error message.
    #[error("{status:?} ({code}): {}", message.as_deref().unwrap_or("<no message>"), code = status.as_u8())]
    Status {
        /// The response status.
        status: Status,
        /// The error message (Java's `Response.getErrorMessage()`).
        message: Option<String>,
    },
    /// No answer within the call's timeout (which covers connecting, queueing the request
    /// and waiting for its answer).
    #[error("no response to request {request_id} within {timeout:?}")]
    Timeout {
        /// The request id, whose late answer will be dropped.
        request_id: u64,
        /// The timeout in force.
        timeout: Duration,
    },
    /// Connecting failed.
    #[error("connecting to {addr}: {source}")]
    Connect {
        /// The address.
        addr: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Connecting took longer than [`ClientConfig::connect_timeout`] (a provider that does
    /// not accept: down, overloaded, or a black-holed address).
    #[error("connecting to {addr}: not connected within {timeout:?}")]
    ConnectTimeout {
        /// The address.
        addr: String,
        /// The connect timeout in force.
        timeout: Duration,
    },
    /// The TLS handshake with the provider failed (feature `tls`): its certificate is not
    /// signed by a trusted CA or not valid for the server name, it required a client
    /// certificate, it does not speak TLS, ...
    #[error("TLS with {addr}: {message}")]
    Tls {
        /// The address.
        addr: String,
        /// What failed.
        message: String,
    },
    /// The connection closed (or failed) before the answer came.
    #[error("connection closed: {0}")]
    Closed(String),
    /// The response's body could not be read (or the request's could not be written).
    #[error(transparent)]
    Body(#[from] BodyError),
    /// The request (or the response announced for it) is over the payload limit.
    #[error("payload too large: {0}")]
    PayloadTooLarge(String),
}

impl CallError {
    /// The Java exception, when the provider threw.
    pub fn java_exception(&self) -> Option<&JavaException> {
        match self {
            CallError::Exception(e) => Some(e),
            _ => None,
        }
    }
}

/// Client settings.
///
/// `#[non_exhaustive]`: start from [`ClientConfig::default`] and change what you need, with
/// the setters or the fields, so that a new setting in a later release breaks no caller:
///
/// ```
/// use std::time::Duration;
/// use dubbo_rpc::client::ClientConfig;
///
/// let config = ClientConfig::default()
///     .timeout(Duration::from_secs(1))
///     .reconnect(false);
/// let mut same = ClientConfig::default();
/// same.timeout = Duration::from_secs(1);
/// same.reconnect = false;
/// assert_eq!(config.timeout, same.timeout);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ClientConfig {
    /// Timeout of a call whose request has no `timeout` attachment (default 3 s). It covers
    /// the whole call: connecting (when the call has to), queueing the request and waiting
    /// for the answer.
    pub timeout: Duration,
    /// Heartbeat period (default 60 s, Java's `heartbeat`); three periods without a byte
    /// from the provider close the connection.
    pub heartbeat: Duration,
    /// Timeout of connecting (default 3 s, Java's `connect.timeout`).
    pub connect_timeout: Duration,
    /// Payload limit of frames in both directions (default 8 MiB).
    pub max_payload: u32,
    /// Reconnect when a call finds the connection closed (default true).
    pub reconnect: bool,
    /// The serialization of the client's own frames: generic calls ([`Client::generic_call`])
    /// and heartbeats (default Hessian2). A [`Request`] is sent in its own
    /// [`format`](Request::format).
    pub format: dubbo_codec::BodyFormat,
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            timeout: Duration::from_secs(3),
            heartbeat: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(3),
            max_payload: DEFAULT_MAX_PAYLOAD,
            reconnect: true,
            format: dubbo_codec::BodyFormat::default(),
        }
    }
}

impl ClientConfig {
    setters! {
        /// The timeout of a call without a `timeout` attachment.
        timeout: Duration;
        /// The heartbeat period.
        heartbeat: Duration;
        /// How long connecting may take.
        connect_timeout: Duration;
        /// The payload limit of frames in both directions.
        max_payload: u32;
        /// Whether a call that finds the connection closed reconnects.
        reconnect: bool;
        /// The serialization of the client's own frames (generic calls, heartbeats).
        format: dubbo_codec::BodyFormat;
    }
}

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Frame, CallError>>>>>;

/// The outcome of one connect, shared by every call that waited for it.
type Connected = Result<Arc<Conn>, ConnectFailed>;

/// Why a connect failed, in a form every waiting call can have a copy of.
#[derive(Debug, Clone)]
enum ConnectFailed {
    Io(std::io::ErrorKind, String),
    TimedOut(Duration),
    #[cfg_attr(not(feature = "tls"), allow(dead_code))]
    Tls(String),
}

impl ConnectFailed {
    fn to_error(&self, addr: &str) -> CallError {
        let addr = addr.to_owned();
        match self {
            ConnectFailed::Io(kind, message) => CallError::Connect {
                addr,
                source: std::io::Error::new(*kind, message.clone()),
            },
            ConnectFailed::TimedOut(timeout) => CallError::ConnectTimeout {
                addr,
                timeout: *timeout,
            },
            ConnectFailed::Tls(message) => CallError::Tls {
                addr,
                message: message.clone(),
            },
        }
    }
}

/// The client's connection.
enum Slot {
    Empty,
    /// A connect is under way; its outcome comes on the channel.
    Connecting(watch::Receiver<Option<Connected>>),
    Ready(Arc<Conn>),
}

/// One live connection.
struct Conn {
    tx: mpsc::Sender<Frame>,
    pending: Pending,
    closed: Arc<AtomicBool>,
    read_only: Arc<AtomicBool>,
    tasks: Vec<JoinHandle<()>>,
}

impl Conn {
    fn usable(&self) -> bool {
        !self.closed.load(Ordering::Acquire) && !self.read_only.load(Ordering::Acquire)
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

struct Inner {
    addr: String,
    config: ClientConfig,
    /// Never held across an await: a connect runs in its own task.
    conn: Mutex<Slot>,
    next_id: AtomicU64,
    connects: AtomicU64,
    #[cfg(feature = "tls")]
    tls: Option<crate::tls::ClientTls>,
}

impl Inner {
    fn new(addr: String, config: ClientConfig) -> Inner {
        Inner {
            addr,
            config,
            conn: Mutex::new(Slot::Empty),
            next_id: AtomicU64::new(1),
            connects: AtomicU64::new(0),
            #[cfg(feature = "tls")]
            tls: None,
        }
    }
}

/// A Dubbo client over one multiplexed connection. Cheap to clone (clones share the
/// connection). See the [module documentation](self).
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("addr", &self.inner.addr)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Connects to `addr` (`host:port`) with the default settings.
    pub async fn connect(addr: impl Into<String>) -> Result<Client, CallError> {
        Client::connect_with(addr, ClientConfig::default()).await
    }

    /// Connects to `addr` with `config`.
    pub async fn connect_with(
        addr: impl Into<String>,
        config: ClientConfig,
    ) -> Result<Client, CallError> {
        let client = Client::lazy(addr, config);
        client.connection().await?;
        Ok(client)
    }

    /// A client that connects on its first call.
    pub fn lazy(addr: impl Into<String>, config: ClientConfig) -> Client {
        Client {
            inner: Arc::new(Inner::new(addr.into(), config)),
        }
    }

    /// Connects to `addr` over TLS (feature `tls`): the handshake is part of connecting, and
    /// bounded by [`ClientConfig::connect_timeout`] with it; a failed one is
    /// [`CallError::Tls`].
    #[cfg(feature = "tls")]
    pub async fn connect_tls(
        addr: impl Into<String>,
        config: ClientConfig,
        tls: crate::tls::ClientTls,
    ) -> Result<Client, CallError> {
        let client = Client::lazy_tls(addr, config, tls);
        client.connection().await?;
        Ok(client)
    }

    /// A client that connects over TLS on its first call (feature `tls`).
    #[cfg(feature = "tls")]
    pub fn lazy_tls(
        addr: impl Into<String>,
        config: ClientConfig,
        tls: crate::tls::ClientTls,
    ) -> Client {
        let mut inner = Inner::new(addr.into(), config);
        inner.tls = Some(tls);
        Client {
            inner: Arc::new(inner),
        }
    }

    /// The provider's address.
    pub fn addr(&self) -> &str {
        &self.inner.addr
    }

    /// How many connections this client has opened (1 unless it reconnected).
    pub fn connection_count(&self) -> u64 {
        self.inner.connects.load(Ordering::Relaxed)
    }

    /// Calls and reads the result into `T` through serde. A Java exception, a non-OK status,
    /// a timeout or a connection failure is an error.
    pub async fn call<T: DeserializeOwned>(&self, req: &Request) -> Result<T, CallError> {
        let frame = self
            .send(
                req.to_frame(self.next_id(), true),
                timeout_of(req, &self.inner.config),
            )
            .await?;
        let status = frame.header().status();
        if !status.is_ok() {
            return Err(status_error(&frame));
        }
        let format = dubbo_codec::BodyFormat::require(frame.header().serialization())?;
        let typed = TypedResult::<T>::decode_in(format, frame.body())?;
        typed.outcome.map_err(CallError::Exception)
    }

    /// Calls and returns the result as a [`Value`] (`Value::Null` for `null`/`void`).
    pub async fn call_value(&self, req: &Request) -> Result<Value, CallError> {
        match self.invoke(req).await? {
            Response::Result(r) => match r.outcome {
                Outcome::Value(v) => Ok(v),
                Outcome::Null => Ok(Value::Null),
                Outcome::Exception(e) => Err(CallError::Exception(JavaException::from_value(e))),
            },
            Response::Error { status, message } => Err(CallError::Status { status, message }),
        }
    }

    /// A generic call (`$invoke`) of `method` on `service` with `version` and `group`:
    /// `param_types` are Java type names, `args` the arguments (POJOs as objects or as maps
    /// with a `class` entry). Java returns POJOs as maps (with a `class` entry).
    pub async fn generic_call(
        &self,
        service: &str,
        version: &str,
        group: Option<&str>,
        method: &str,
        param_types: &[&str],
        args: Vec<Value>,
    ) -> Result<Value, CallError> {
        let mut b = Request::generic(service, method, param_types, args)
            .version(version)
            .format(self.inner.config.format);
        if let Some(g) = group {
            b = b.group(g);
        }
        self.call_value(&b.build()?).await
    }

    /// Calls and returns the decoded response, whatever its status.
    pub async fn invoke(&self, req: &Request) -> Result<Response, CallError> {
        let frame = self
            .send(
                req.to_frame(self.next_id(), true),
                timeout_of(req, &self.inner.config),
            )
            .await?;
        Ok(Response::from_frame(&frame)?)
    }

    /// Sends a one-way call: no response is expected, none comes. Connecting and queueing
    /// it take the call's timeout at most.
    pub async fn oneway(&self, req: &Request) -> Result<(), CallError> {
        let frame = req.to_frame(self.next_id(), false);
        self.check_payload(&frame)?;
        let id = frame.request_id();
        let timeout = timeout_of(req, &self.inner.config);
        let queued = async {
            let conn = self.connection().await?;
            conn.tx
                .send(frame)
                .await
                .map_err(|_| CallError::Closed("writer stopped".into()))
        };
        tokio::time::timeout(timeout, queued)
            .await
            .unwrap_or(Err(CallError::Timeout {
                request_id: id,
                timeout,
            }))
    }

    /// Sends a heartbeat and waits for its answer; returns the round-trip time.
    pub async fn heartbeat(&self) -> Result<Duration, CallError> {
        let start = Instant::now();
        self.send(
            Frame::heartbeat_request_in(self.next_id(), self.inner.config.format),
            self.inner.config.timeout,
        )
        .await?;
        Ok(start.elapsed())
    }

    /// Sends a two-way frame (its request id is replaced by a fresh one) and waits up to
    /// `timeout` for the frame that answers it.
    pub async fn send_frame(&self, frame: Frame, timeout: Duration) -> Result<Frame, CallError> {
        let (header, body) = frame.into_parts();
        let id = self.next_id();
        let header =
            dubbo_codec::header::Header::new(header.flag(), header.status().as_u8(), id, 0);
        self.send(Frame::new(header, body), timeout).await
    }

    /// Closes the connection (calls in flight fail with [`CallError::Closed`]); the next call
    /// reconnects.
    pub async fn close(&self) {
        let slot = std::mem::replace(&mut *lock(&self.inner.conn), Slot::Empty);
        match slot {
            Slot::Ready(conn) => shut(&conn.pending, &conn.closed, "closed by the client"),
            // A connect under way goes on; its connection replaces the empty slot.
            Slot::Connecting(rx) => *lock(&self.inner.conn) = Slot::Connecting(rx),
            Slot::Empty => {}
        }
    }

    fn next_id(&self) -> u64 {
        self.inner.next_id.fetch_add(1, Ordering::Relaxed)
    }

    fn check_payload(&self, frame: &Frame) -> Result<(), CallError> {
        let len = frame.body().len();
        let limit = self.inner.config.max_payload;
        if len > limit as usize {
            return Err(CallError::PayloadTooLarge(format!(
                "request body of {len} bytes exceeds the limit of {limit}"
            )));
        }
        Ok(())
    }

    /// Sends a two-way frame and waits for its answer; `timeout` covers it all, connecting
    /// included.
    async fn send(&self, frame: Frame, timeout: Duration) -> Result<Frame, CallError> {
        self.check_payload(&frame)?;
        let id = frame.request_id();
        // The connection the call's id was registered on, to forget it on a timeout.
        let mut registered = None;
        let call = async {
            let conn = self.connection().await?;
            let (tx, rx) = oneshot::channel();
            lock(&conn.pending).insert(id, tx);
            registered = Some(conn.clone());
            if conn.closed.load(Ordering::Acquire) {
                lock(&conn.pending).remove(&id);
                return Err(CallError::Closed("connection closed".into()));
            }
            if conn.tx.send(frame).await.is_err() {
                lock(&conn.pending).remove(&id);
                return Err(CallError::Closed("writer stopped".into()));
            }
            rx.await
                .unwrap_or_else(|_| Err(CallError::Closed("connection closed".into())))
        };
        let outcome = tokio::time::timeout(timeout, call).await;
        outcome.unwrap_or_else(|_| {
            // Forget the id: a late answer finds no one and is dropped.
            if let Some(conn) = registered {
                lock(&conn.pending).remove(&id);
            }
            Err(CallError::Timeout {
                request_id: id,
                timeout,
            })
        })
    }

    /// The connection, opened if there is none (or it closed, or its provider is shutting
    /// down). One connect at a time runs, in a task of its own, so that a call giving up
    /// (its timeout) abandons none of the others waiting for it.
    async fn connection(&self) -> Result<Arc<Conn>, CallError> {
        let mut outcome = {
            let mut slot = lock(&self.inner.conn);
            match &*slot {
                Slot::Ready(c) if c.usable() || !self.inner.config.reconnect => {
                    return Ok(c.clone())
                }
                Slot::Connecting(rx) => rx.clone(),
                Slot::Ready(_) | Slot::Empty => {
                    let (tx, rx) = watch::channel(None);
                    *slot = Slot::Connecting(rx.clone());
                    let client = self.clone();
                    tokio::spawn(async move {
                        let connected = client.open().await.map(Arc::new);
                        let mut slot = lock(&client.inner.conn);
                        // `close` may have emptied the slot meanwhile: the new connection is
                        // the client's all the same.
                        *slot = match &connected {
                            Ok(conn) => Slot::Ready(conn.clone()),
                            Err(_) => Slot::Empty,
                        };
                        drop(slot);
                        let _ = tx.send(Some(connected));
                    });
                    rx
                }
            }
        };
        let connected = outcome
            .wait_for(Option::is_some)
            .await
            .map_err(|_| CallError::Closed("the connect was abandoned".into()))?
            .clone();
        match connected {
            Some(Ok(conn)) => Ok(conn),
            Some(Err(failed)) => Err(failed.to_error(&self.inner.addr)),
            None => Err(CallError::Closed("the connect was abandoned".into())),
        }
    }

    async fn open(&self) -> Result<Conn, ConnectFailed> {
        let cfg = &self.inner.config;
        let addr = &self.inner.addr;
        let deadline = tokio::time::Instant::now() + cfg.connect_timeout;
        let connected = tokio::time::timeout_at(deadline, TcpStream::connect(addr)).await;
        let stream = match connected {
            Ok(Ok(s)) => s,
            Ok(Err(e)) => return Err(ConnectFailed::Io(e.kind(), e.to_string())),
            Err(_) => return Err(ConnectFailed::TimedOut(cfg.connect_timeout)),
        };
        let _ = stream.set_nodelay(true);
        #[cfg(feature = "tls")]
        if let Some(tls) = &self.inner.tls {
            let handshake = tokio::time::timeout_at(deadline, tls.handshake(addr, stream)).await;
            let stream = match handshake {
                Ok(Ok(s)) => s,
                Ok(Err(e)) => return Err(ConnectFailed::Tls(e.to_string())),
                Err(_) => return Err(ConnectFailed::TimedOut(cfg.connect_timeout)),
            };
            self.inner.connects.fetch_add(1, Ordering::Relaxed);
            let (r, w) = tokio::io::split(stream);
            return Ok(self.start(r, w));
        }
        self.inner.connects.fetch_add(1, Ordering::Relaxed);
        let (r, w) = stream.into_split();
        Ok(self.start(r, w))
    }

    /// Starts the reader, writer and heartbeat tasks of a connection.
    fn start<R, W>(&self, r: R, w: W) -> Conn
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let cfg = &self.inner.config;
        let (tx, rx) = mpsc::channel::<Frame>(1024);
        let pending: Pending = Arc::default();
        let closed = Arc::new(AtomicBool::new(false));
        let read_only = Arc::new(AtomicBool::new(false));
        let last_read = Arc::new(Mutex::new(Instant::now()));

        let writer = {
            let pending = pending.clone();
            let closed = closed.clone();
            let max = cfg.max_payload;
            tokio::spawn(async move {
                let result = write_loop(w, rx, max, None).await;
                let why = match result {
                    Ok(()) => "writer stopped".to_owned(),
                    Err(e) => format!("write failed: {e}"),
                };
                shut(&pending, &closed, &why);
            })
        };
        let reader = {
            let pending = pending.clone();
            let closed = closed.clone();
            let read_only = read_only.clone();
            let last_read = last_read.clone();
            let tx = tx.clone();
            let mut frames = FrameReader::new(r, cfg.max_payload);
            tokio::spawn(async move {
                let why = loop {
                    let item = frames.next().await;
                    *lock(&last_read) = Instant::now();
                    match item {
                        Ok(Read::Frame(frame)) => match frame.kind() {
                            FrameKind::Response | FrameKind::EventResponse(_) => {
                                if let Some(waiter) = lock(&pending).remove(&frame.request_id()) {
                                    let _ = waiter.send(Ok(frame));
                                }
                            }
                            FrameKind::EventRequest(Event::Heartbeat)
                                if frame.header().is_two_way() =>
                            {
                                let format =
                                    dubbo_codec::BodyFormat::of(frame.header().serialization())
                                        .unwrap_or_default();
                                let _ = tx.try_send(Frame::heartbeat_response_in(
                                    frame.request_id(),
                                    format,
                                ));
                            }
                            FrameKind::EventRequest(Event::ReadOnly) => {
                                read_only.store(true, Ordering::Release);
                            }
                            FrameKind::EventRequest(Event::Writeable) => {
                                read_only.store(false, Ordering::Release);
                            }
                            // Calls from the provider (callbacks) are not supported.
                            _ => {}
                        },
                        Ok(Read::TooLarge(e)) => {
                            if let DecodeError::PayloadTooLarge { header, .. } = &e {
                                if !header.is_request() {
                                    if let Some(w) = lock(&pending).remove(&header.request_id()) {
                                        let _ =
                                            w.send(Err(CallError::PayloadTooLarge(e.to_string())));
                                    }
                                }
                            }
                        }
                        Ok(Read::Eof) => break "closed by the provider".to_owned(),
                        Err(e) => break format!("read failed: {e}"),
                    }
                };
                shut(&pending, &closed, &why);
            })
        };
        let heart = {
            let tx = tx.clone();
            let closed = closed.clone();
            let pending = pending.clone();
            let period = cfg.heartbeat;
            let inner = Arc::downgrade(&self.inner);
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(period.max(Duration::from_millis(10)));
                tick.tick().await;
                loop {
                    tick.tick().await;
                    if closed.load(Ordering::Acquire) {
                        return;
                    }
                    let idle = lock(&last_read).elapsed();
                    if idle >= period * 3 {
                        shut(&pending, &closed, "no heartbeat answer for three periods");
                        return;
                    }
                    if idle >= period {
                        let Some(inner) = inner.upgrade() else { return };
                        let id = inner.next_id.fetch_add(1, Ordering::Relaxed);
                        let format = inner.config.format;
                        let _ = tx.try_send(Frame::heartbeat_request_in(id, format));
                    }
                }
            })
        };
        Conn {
            tx,
            pending,
            closed,
            read_only,
            tasks: vec![writer, reader, heart],
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Marks the connection closed and fails every call waiting on it.
fn shut(pending: &Pending, closed: &AtomicBool, why: &str) {
    closed.store(true, Ordering::Release);
    let waiters: Vec<_> = lock(pending).drain().collect();
    for (_, w) in waiters {
        let _ = w.send(Err(CallError::Closed(why.to_owned())));
    }
}

fn timeout_of(req: &Request, cfg: &ClientConfig) -> Duration {
    req.attachments
        .get_str(TIMEOUT_KEY)
        .and_then(|t| t.trim().parse::<u64>().ok())
        .filter(|&ms| ms > 0)
        .map_or(cfg.timeout, Duration::from_millis)
}

fn status_error(frame: &Frame) -> CallError {
    let message = dubbo_codec::response::decode_error_message(frame.body())
        .unwrap_or_else(|e| Some(e.to_string()));
    CallError::Status {
        status: frame.header().status(),
        message,
    }
}
