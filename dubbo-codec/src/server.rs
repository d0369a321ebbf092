//! An async Dubbo server (feature `tokio`): Java consumers call Rust handlers.
//!
//! A [`Service`] is an interface name, a version, an optional group, and one async handler
//! per method name. The server reads frames from each connection with the payload limit
//! enforced from the header, answers heartbeats, and runs each call in its own task, so a
//! slow call does not hold up the others on the connection:
//!
//! * the call is routed by service (the `interface` attachment, else `path`), version and
//!   group (the `group` attachment) — versions `""` and `"0.0.0"` are the same; an unknown
//!   service or method is answered with `SERVICE_NOT_FOUND`;
//! * the handler gets a [`Call`] whose arguments it reads typed ([`Call::args`], through
//!   serde) or dynamic ([`Call::values`]), and returns a [`Reply`] or a [`HandlerError`]; a
//!   [`HandlerError::Exception`] becomes a Java exception response (flag
//!   `RESPONSE_WITH_EXCEPTION`, a `Throwable` object Java's hessian-lite reads back);
//! * responses carry attachments exactly when the caller's Dubbo version supports them
//!   (Java's rule, see [`crate::response`]); one-way calls are never answered;
//! * `$echo` (Java's `EchoService`) is answered with its argument, and `$invoke` (generic
//!   calls) is dispatched to the named method with the arguments it carries.
//!
//! Bad input: a request whose body cannot be read, or whose serialization is not Hessian2,
//! is answered with `BAD_REQUEST` and its request id; so is a request over the payload limit
//! (its body is skipped as it arrives, and the connection goes on). Bytes that are not a
//! frame (bad magic) close that connection only.
//!
//! With the `registry` feature, [`Server::register`] writes each service's provider URL in a
//! registry; [`Server::shutdown`] removes them first.
//!
//! [`Server::shutdown`] is graceful: it stops accepting, sends the read-only event to every
//! client (Java's `HeaderExchangeServer` does the same, so Java consumers stop sending new
//! calls), waits for the calls in flight and until none has arrived for 200 ms (calls sent
//! before a consumer saw the event are still served), then closes the connections.
//!
//! ```no_run
//! use dubbo_codec::server::{Reply, Server, Service};
//!
//! # async fn demo() -> std::io::Result<()> {
//! let greeter = Service::new("com.example.Greeter")
//!     .version("1.0.0")
//!     .method("sayHello", |call| async move {
//!         let (name,): (Option<String>,) = call.args()?;
//!         Reply::typed(&format!("Hello, {}", name.as_deref().unwrap_or("null")))
//!     });
//! let server = Server::builder().service(greeter).bind("127.0.0.1:20880").await?;
//! // ... later
//! server.shutdown(std::time::Duration::from_secs(10)).await;
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use hessian2::encode::Encoder;
use hessian2::value::Value;
use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::net::{TcpListener, TcpStream, ToSocketAddrs};
use tokio::sync::{mpsc, watch, Notify};
use tokio::task::JoinHandle;

use crate::attachments::{Attachments, GROUP_KEY, INTERFACE_KEY, PATH_KEY, VERSION_KEY};
use crate::codec::DEFAULT_MAX_PAYLOAD;
use crate::conn::{write_loop, FrameReader, Read, ReadError};
use crate::error::{BodyError, DecodeError};
use crate::event::Event;
use crate::exception::JavaException;
use crate::format::hessian2::encoded_result_body;
use crate::format::{read_args, with_format, BodyFormat, Format};
use crate::frame::{Frame, FrameKind};
use crate::metadata::MetadataCache;
use crate::request::{is_generic_call, RequestHead, ECHO_METHOD};
use crate::response::{
    encode_typed_result_in, error_frame_in, provider_attachments, Outcome, RpcResult,
};
use crate::serialization::Serialization;
use crate::status::Status;

/// How long the graceful shutdown waits, with nothing in flight, for calls still on their way
/// (sent before the consumer saw the read-only event) before it closes the connections.
const DRAIN_QUIET: Duration = Duration::from_millis(200);

/// The future a handler returns.
pub type HandlerFuture = Pin<Box<dyn Future<Output = Result<Reply, HandlerError>> + Send>>;
type Handler = Arc<dyn Fn(Call) -> HandlerFuture + Send + Sync>;

/// What a handler answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A dynamic value (`Value::Null` is answered as a null result).
    Value(Value),
    /// `null` / `void`.
    Null,
    /// One value already serialized as a Hessian2 stream of its own (see [`Reply::typed`]).
    /// A caller in another serialization gets it through a `Value`.
    Encoded(Bytes),
    /// The whole body of an OK response, in the call's serialization (see
    /// [`Call::typed_reply`]).
    Body(Bytes),
}

impl Reply {
    /// A Rust value, serialized through serde (a value that serializes to `null`, such as
    /// `None` or `()`, is a null result, as Java answers a `null` return), never through a
    /// `Value`: the bytes are what the response body carries after its flag (an int, which
    /// touches none of the stream's tables), so the server copies them once into the body.
    pub fn typed<T: Serialize + ?Sized>(value: &T) -> Result<Reply, HandlerError> {
        hessian2::to_vec(value)
            .map(|v| Reply::Encoded(Bytes::from(v)))
            .map_err(|e| {
                HandlerError::Exception(JavaException::runtime(format!(
                    "serializing the result: {e}"
                )))
            })
    }

    /// A dynamic value.
    pub fn value(value: impl Into<Value>) -> Result<Reply, HandlerError> {
        Ok(Reply::Value(value.into()))
    }

    /// A null result (the answer of a `void` method).
    pub fn null() -> Result<Reply, HandlerError> {
        Ok(Reply::Null)
    }
}

/// Why a handler did not produce a value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum HandlerError {
    /// The method "threw": answered as a Java exception (status OK, exception flag).
    #[error("{0}")]
    Exception(JavaException),
    /// Answered with a non-OK status and a message (the arguments could not be read:
    /// `BAD_REQUEST`, ...).
    #[error("{status:?}: {message}")]
    Status {
        /// The status.
        status: Status,
        /// The error message.
        message: String,
    },
}

impl HandlerError {
    /// A `java.lang.RuntimeException` with `message`.
    pub fn runtime(message: impl Into<String>) -> Self {
        HandlerError::Exception(JavaException::runtime(message))
    }

    /// An exception of Java class `class` (e.g. `java.lang.IllegalStateException`).
    pub fn exception(class: &str, message: impl Into<String>) -> Self {
        HandlerError::Exception(JavaException::new(class, Some(message.into())))
    }
}

impl From<JavaException> for HandlerError {
    fn from(e: JavaException) -> Self {
        HandlerError::Exception(e)
    }
}

impl From<BodyError> for HandlerError {
    /// Arguments that cannot be read are a bad request, as in Java (where the codec fails).
    fn from(e: BodyError) -> Self {
        HandlerError::Status {
            status: Status::BadRequest,
            message: format!("Fail to decode request due to: {e}"),
        }
    }
}

#[derive(Debug, Clone)]
enum Args {
    /// The request body, its serialization and where its arguments start.
    Raw {
        body: Bytes,
        format: BodyFormat,
        offset: usize,
        count: usize,
    },
    /// Arguments taken out of a generic call.
    Values(Vec<Value>),
}

/// One call, as a handler sees it.
#[derive(Debug, Clone)]
pub struct Call {
    /// The request id.
    pub request_id: u64,
    /// False for a one-way call (its reply is discarded).
    pub two_way: bool,
    /// The caller's Dubbo protocol version.
    pub dubbo_version: String,
    /// The service (interface) name.
    pub service: String,
    /// The service version.
    pub version: String,
    /// The group, if any.
    pub group: Option<String>,
    /// The method name (for a generic call, the method it names).
    pub method: String,
    /// The parameter descriptor (for a generic call, built from the types it names).
    pub descriptor: String,
    /// The request's attachments.
    pub attachments: Attachments,
    /// True when the call came as a generic call (`$invoke`).
    pub generic: bool,
    /// The caller's address.
    pub peer: SocketAddr,
    /// The serialization of the call, which the answer is written in.
    pub format: BodyFormat,
    args: Args,
}

impl Call {
    /// The number of arguments.
    pub fn arg_count(&self) -> usize {
        match &self.args {
            Args::Raw { count, .. } => *count,
            Args::Values(v) => v.len(),
        }
    }

    /// The arguments as a Rust tuple, through serde: `let (name, n): (String, i32) =
    /// call.args()?;`. An error converts to a `BAD_REQUEST` answer with `?`.
    pub fn args<T: DeserializeOwned>(&self) -> Result<T, BodyError> {
        match &self.args {
            Args::Raw {
                body,
                format,
                offset,
                count,
            } => with_format!(*format, f => f.decode_args(body, *offset, *count)),
            Args::Values(values) => {
                // Write the values as one Hessian2 stream and read them back typed.
                let mut enc = Encoder::new(BytesMut::new());
                for v in values {
                    v.encode(&mut enc);
                }
                let f = crate::format::hessian2::Hessian2 {
                    lite: enc.version(),
                };
                f.decode_args(&enc.into_inner().freeze(), 0, values.len())
            }
        }
    }

    /// A Rust value as the answer to this call, serialized through serde in the call's
    /// serialization, never through a `Value` (for a Hessian2 call, [`Reply::typed`]).
    pub fn typed_reply<T: Serialize + ?Sized>(&self, value: &T) -> Result<Reply, HandlerError> {
        if let BodyFormat::Hessian2(_) = self.format {
            return Reply::typed(value);
        }
        let attachments = provider_attachments(&self.dubbo_version);
        encode_typed_result_in(self.format, value, attachments)
            .map(Reply::Body)
            .map_err(|e| {
                HandlerError::Exception(JavaException::runtime(format!(
                    "serializing the result: {e}"
                )))
            })
    }

    /// The arguments as dynamic values (references count from the first argument).
    pub fn values(&self) -> Result<Vec<Value>, BodyError> {
        match &self.args {
            Args::Raw {
                body,
                format,
                offset,
                count,
            } => {
                let rest = body.get(*offset..).unwrap_or_default();
                with_format!(*format, f => read_args(&mut f.reader(rest, *offset), *count))
            }
            Args::Values(v) => Ok(v.clone()),
        }
    }
}

/// A service: interface, version, group and its methods' handlers.
#[derive(Clone)]
pub struct Service {
    interface: String,
    version: String,
    group: Option<String>,
    methods: HashMap<String, Handler>,
    /// Java signatures declared with [`Service::signature`]: (method, parameter types, return
    /// type), published as the service definition at [`Server::register`].
    signatures: Vec<(String, Vec<String>, String)>,
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("interface", &self.interface)
            .field("version", &self.version)
            .field("group", &self.group)
            .field("methods", &self.methods.keys().collect::<Vec<_>>())
            .field("signatures", &self.signatures)
            .finish()
    }
}

fn norm_version(v: &str) -> &str {
    if v == "0.0.0" {
        ""
    } else {
        v
    }
}

impl Service {
    /// A service with no version, no group and no methods.
    pub fn new(interface: impl Into<String>) -> Self {
        Service {
            interface: interface.into(),
            version: String::new(),
            group: None,
            methods: HashMap::new(),
            signatures: Vec::new(),
        }
    }

    /// The version (`""` and `"0.0.0"` both mean none).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// The group.
    pub fn group(mut self, group: impl Into<String>) -> Self {
        self.group = Some(group.into()).filter(|g: &String| !g.is_empty());
        self
    }

    /// The handler of method `name` (every overload of it: see [`Call::descriptor`]).
    pub fn method<F, Fut>(mut self, name: impl Into<String>, handler: F) -> Self
    where
        F: Fn(Call) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Reply, HandlerError>> + Send + 'static,
    {
        let h: Handler = Arc::new(move |call| Box::pin(handler(call)));
        self.methods.insert(name.into(), h);
        self
    }

    /// Declares a Java signature of method `name` (once per overload): its parameter types
    /// (`java.lang.String`, `long`, `io.example.User`, `java.util.List<java.lang.String>`) and
    /// return type (`void` for none). With the `registry` feature, [`Server::register`]
    /// publishes the declared signatures as the service definition, as a Java provider does,
    /// so that `dubbo-call --describe` (or a Dubbo admin console) shows them; a method without
    /// one is known by name only.
    pub fn signature(mut self, name: &str, parameter_types: &[&str], return_type: &str) -> Self {
        let params = parameter_types.iter().map(|&t| t.to_owned()).collect();
        self.signatures
            .push((name.to_owned(), params, return_type.to_owned()));
        self
    }

    fn key(&self) -> String {
        service_key(&self.interface, &self.version, self.group.as_deref())
    }
}

/// Java's service key form: `group/interface:version`.
fn service_key(interface: &str, version: &str, group: Option<&str>) -> String {
    let mut k = String::new();
    if let Some(g) = group.filter(|g| !g.is_empty()) {
        k.push_str(g);
        k.push('/');
    }
    k.push_str(interface);
    let v = norm_version(version);
    if !v.is_empty() {
        k.push(':');
        k.push_str(v);
    }
    k
}

/// Builds a [`Server`].
#[derive(Debug, Clone)]
pub struct ServerBuilder {
    services: Vec<Service>,
    max_payload: u32,
    idle_timeout: Duration,
}

impl Default for ServerBuilder {
    fn default() -> Self {
        ServerBuilder {
            services: Vec::new(),
            max_payload: DEFAULT_MAX_PAYLOAD,
            idle_timeout: Duration::from_secs(180),
        }
    }
}

impl ServerBuilder {
    /// Adds a service (a later one with the same interface, version and group replaces it).
    pub fn service(mut self, service: Service) -> Self {
        self.services.push(service);
        self
    }

    /// The payload limit in both directions (default 8 MiB).
    pub fn max_payload(mut self, max_payload: u32) -> Self {
        self.max_payload = max_payload;
        self
    }

    /// Closes a connection from which nothing was read for this long (default 180 s, three
    /// of Java's 60 s heartbeats).
    pub fn idle_timeout(mut self, idle: Duration) -> Self {
        self.idle_timeout = idle;
        self
    }

    /// Binds and starts serving.
    pub async fn bind(self, addr: impl ToSocketAddrs) -> std::io::Result<Server> {
        let listener = TcpListener::bind(addr).await?;
        Ok(self.serve(listener))
    }

    /// Starts serving on a bound listener.
    pub fn serve(self, listener: TcpListener) -> Server {
        let local_addr = listener
            .local_addr()
            .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 0)));
        let mut metadata = MetadataCache::new();
        let mut services = HashMap::new();
        for s in self.services {
            metadata.register(&s.interface, &s.version, &s.interface, s.group.as_deref());
            services.insert(s.key(), Arc::new(s));
        }
        let (closing_tx, closing_rx) = watch::channel(false);
        let state = Arc::new(State {
            services,
            metadata,
            max_payload: self.max_payload,
            idle_timeout: self.idle_timeout,
            conns: Mutex::new(HashMap::new()),
            next_conn: AtomicU64::new(0),
            inflight: AtomicUsize::new(0),
            dispatched: AtomicU64::new(0),
            idle: Notify::new(),
            closing: closing_rx,
            port: local_addr.port(),
        });
        let accept = tokio::spawn(accept_loop(listener, state.clone()));
        Server {
            local_addr,
            state,
            closing: closing_tx,
            accept,
            #[cfg(feature = "registry")]
            registered: Mutex::default(),
        }
    }
}

struct ConnHandle {
    tx: mpsc::Sender<Frame>,
    /// The serialization id of the last call on the connection (what the read-only event
    /// is written in, as Java writes it in the channel's serialization).
    serialization: Arc<AtomicU8>,
}

struct State {
    services: HashMap<String, Arc<Service>>,
    metadata: MetadataCache,
    max_payload: u32,
    idle_timeout: Duration,
    conns: Mutex<HashMap<u64, ConnHandle>>,
    next_conn: AtomicU64,
    inflight: AtomicUsize,
    /// Calls dispatched so far: the drain waits until none came for a while.
    dispatched: AtomicU64,
    idle: Notify,
    closing: watch::Receiver<bool>,
    port: u16,
}

/// A running server. Dropping it stops accepting but leaves open connections to finish;
/// [`Server::shutdown`] is the graceful way.
pub struct Server {
    local_addr: SocketAddr,
    state: Arc<State>,
    closing: watch::Sender<bool>,
    accept: JoinHandle<()>,
    #[cfg(feature = "registry")]
    registered: Mutex<
        Vec<(
            Arc<dyn dubbo_registry::Registry>,
            dubbo_registry::ServiceUrl,
        )>,
    >,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("local_addr", &self.local_addr)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// A builder.
    pub fn builder() -> ServerBuilder {
        ServerBuilder::default()
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// What the server exports, as a [`MetadataCache`] (for a router in front of it).
    pub fn metadata(&self) -> &MetadataCache {
        &self.state.metadata
    }

    /// Open connections.
    pub fn connection_count(&self) -> usize {
        lock(&self.state.conns).len()
    }

    /// Calls being handled.
    pub fn inflight(&self) -> usize {
        self.state.inflight.load(Ordering::Acquire)
    }

    /// Graceful shutdown: stop accepting, send the read-only event on every connection, wait
    /// up to `grace` for the calls in flight to finish, then close every connection.
    pub async fn shutdown(self, grace: Duration) {
        // Out of the registry first, so that consumers stop choosing this server.
        #[cfg(feature = "registry")]
        {
            let registered = std::mem::take(&mut *lock(&self.registered));
            for (registry, url) in registered {
                let _ = registry.unregister(&url).await;
            }
        }
        self.accept.abort();
        let conns: Vec<_> = lock(&self.state.conns)
            .values()
            .map(|c| (c.tx.clone(), c.serialization.load(Ordering::Relaxed)))
            .collect();
        for (i, (tx, id)) in conns.iter().enumerate() {
            let format = BodyFormat::of(Serialization::from_id(*id)).unwrap_or_default();
            let _ = tx.send(Frame::read_only_event_in(i as u64, format)).await;
        }
        // Drained: nothing in flight, and no call arrived for DRAIN_QUIET. A consumer may
        // have sent calls before the read-only event reached it; they are served, not cut
        // off by a close at the first moment nothing happened to be in flight.
        let drained = async {
            loop {
                let notified = self.state.idle.notified();
                if self.state.inflight.load(Ordering::Acquire) != 0 {
                    notified.await;
                    continue;
                }
                let seen = self.state.dispatched.load(Ordering::Acquire);
                tokio::time::sleep(DRAIN_QUIET).await;
                if self.state.inflight.load(Ordering::Acquire) == 0
                    && self.state.dispatched.load(Ordering::Acquire) == seen
                {
                    return;
                }
            }
        };
        let _ = tokio::time::timeout(grace, drained).await;
        let _ = self.closing.send(true);
        // Give the writers a moment to flush the last answers.
        let wait_closed = async {
            while !lock(&self.state.conns).is_empty() {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(1), wait_closed).await;
    }
}

#[cfg(feature = "registry")]
impl Server {
    /// Registers every service as a provider at this server's address in `registry` (see
    /// [`Registration`](crate::registration::Registration) for the URL), until
    /// [`shutdown`](Server::shutdown), which unregisters them before it drains (or until the
    /// registry is dropped). Returns the URLs registered. A service with
    /// [`signature`](Service::signature)s declared has them published as its service
    /// definition in the registry's metadata report (for ZooKeeper:
    /// `/dubbo/metadata/<interface>[/<version>][/<group>]/provider/<application>`).
    ///
    /// # Errors
    ///
    /// The registry's error; the services registered before it stay registered.
    pub async fn register(
        &self,
        registry: Arc<dyn dubbo_registry::Registry>,
        how: &crate::registration::Registration,
    ) -> Result<Vec<dubbo_registry::ServiceUrl>, dubbo_registry::RegistryError> {
        let mut urls = Vec::new();
        for s in self.state.services.values() {
            let methods: Vec<&str> = s.methods.keys().map(String::as_str).collect();
            let url = how.provider_url(
                self.local_addr,
                &s.interface,
                &s.version,
                s.group.as_deref(),
                &methods,
            )?;
            registry.register(&url).await?;
            lock(&self.registered).push((registry.clone(), url.clone()));
            if !s.signatures.is_empty() {
                let (key, definition) = s.definition(&url);
                registry.publish_definition(&key, &definition).await?;
            }
            urls.push(url);
        }
        Ok(urls)
    }
}

#[cfg(feature = "registry")]
impl Service {
    /// Its declared signatures as a Java provider's service definition, keyed as registered
    /// in `url`.
    fn definition(
        &self,
        url: &dubbo_registry::ServiceUrl,
    ) -> (
        dubbo_registry::definition::DefinitionKey,
        dubbo_registry::definition::ServiceDefinition,
    ) {
        use dubbo_registry::definition::{DefinitionKey, MethodDefinition, ServiceDefinition};
        let key = DefinitionKey {
            interface: self.interface.clone(),
            version: norm_version(&self.version).to_owned(),
            group: self.group.clone().unwrap_or_default(),
            application: url.param("application").unwrap_or_default().into_owned(),
        };
        let parameters = [
            "application",
            "dubbo",
            "group",
            "interface",
            "methods",
            "release",
            "side",
            "version",
        ]
        .into_iter()
        .filter_map(|k| Some((k.to_owned(), url.param(k)?.into_owned())))
        .collect();
        let definition = ServiceDefinition {
            canonical_name: self.interface.clone(),
            methods: self
                .signatures
                .iter()
                .map(|(name, params, ret)| MethodDefinition {
                    name: name.clone(),
                    parameter_types: params.clone(),
                    return_type: ret.clone(),
                })
                .collect(),
            parameters,
            ..ServiceDefinition::default()
        };
        (key, definition)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

async fn accept_loop(listener: TcpListener, state: Arc<State>) {
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                tokio::spawn(serve_conn(stream, peer, state.clone()));
            }
            Err(_) => {
                // Out of file descriptors and the like: back off instead of spinning.
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

async fn serve_conn(stream: TcpStream, peer: SocketAddr, state: Arc<State>) {
    let _ = stream.set_nodelay(true);
    let (r, w) = stream.into_split();
    let (tx, rx) = mpsc::channel::<Frame>(1024);
    let writer = tokio::spawn(write_loop(w, rx, state.max_payload));
    let id = state.next_conn.fetch_add(1, Ordering::Relaxed);
    let serialization = Arc::new(AtomicU8::new(Serialization::Hessian2.id()));
    lock(&state.conns).insert(
        id,
        ConnHandle {
            tx: tx.clone(),
            serialization: serialization.clone(),
        },
    );
    let mut frames = FrameReader::new(r, state.max_payload);
    let mut closing = state.closing.clone();
    loop {
        let item = tokio::select! {
            item = tokio::time::timeout(state.idle_timeout, frames.next()) => item,
            _ = closing.wait_for(|c| *c) => break,
        };
        match item {
            Err(_) => break, // idle
            Ok(Ok(Read::Frame(frame))) => {
                if let Some(format) = BodyFormat::of(frame.header().serialization()) {
                    serialization.store(format.serialization().id(), Ordering::Relaxed);
                }
                on_frame(frame, peer, &state, &tx).await
            }
            Ok(Ok(Read::TooLarge(e))) => {
                if let DecodeError::PayloadTooLarge { header, .. } = &e {
                    if header.is_request() && header.is_two_way() && !header.is_event() {
                        let _ = tx
                            .send(error_frame_in(
                                header.request_id(),
                                answer_format(header.serialization()),
                                Status::BadRequest,
                                Some(&format!("Fail to decode request due to: {e}")),
                            ))
                            .await;
                    }
                }
            }
            Ok(Ok(Read::Eof)) => break,
            // Bad magic or a stream cut inside a frame: nothing can be answered.
            Ok(Err(ReadError::Decode(_))) | Ok(Err(ReadError::Io(_))) => break,
        }
    }
    lock(&state.conns).remove(&id);
    drop(tx);
    // The writer ends when the last sender (held by calls still running) is gone.
    let _ = writer.await;
}

async fn on_frame(frame: Frame, peer: SocketAddr, state: &Arc<State>, tx: &mpsc::Sender<Frame>) {
    let id = frame.request_id();
    let two_way = frame.header().is_two_way();
    let serialization = frame.header().serialization();
    let reply_format = answer_format(serialization);
    match frame.kind() {
        FrameKind::EventRequest(Event::Heartbeat) if two_way => {
            let _ = tx
                .send(Frame::heartbeat_response_in(id, reply_format))
                .await;
        }
        FrameKind::Request | FrameKind::OneWayRequest => {
            let Some(format) = BodyFormat::of(serialization) else {
                if two_way {
                    let msg = format!(
                        "Fail to decode request due to: unsupported serialization id {} ({}); this server reads {}",
                        serialization.id(),
                        serialization.name().unwrap_or("unknown"),
                        readable_serializations()
                    );
                    let _ = tx
                        .send(error_frame_in(
                            id,
                            reply_format,
                            Status::BadRequest,
                            Some(&msg),
                        ))
                        .await;
                }
                return;
            };
            match route(frame, format, peer, state) {
                Ok((handler, call)) => {
                    state.inflight.fetch_add(1, Ordering::AcqRel);
                    state.dispatched.fetch_add(1, Ordering::AcqRel);
                    let tx = tx.clone();
                    let state = state.clone();
                    tokio::spawn(async move {
                        let dubbo_version = call.dubbo_version.clone();
                        let result = match tokio::spawn(handler(call)).await {
                            Ok(r) => r,
                            Err(_) => Err(HandlerError::runtime("the handler panicked")),
                        };
                        if two_way {
                            let frame =
                                answer(id, format, &dubbo_version, result, state.max_payload);
                            let _ = tx.send(frame).await;
                        }
                        if state.inflight.fetch_sub(1, Ordering::AcqRel) == 1 {
                            state.idle.notify_waiters();
                        }
                    });
                }
                Err((status, msg)) => {
                    if two_way {
                        let _ = tx
                            .send(error_frame_in(id, format, status, Some(&msg)))
                            .await;
                    }
                }
            }
        }
        // Responses, heartbeat answers and other events need nothing from a server.
        _ => {}
    }
}

/// Finds the handler of a request and builds its [`Call`].
/// The serialization an answer to a frame in `serialization` is written in: the same when
/// this crate writes it, else Hessian2 (the caller cannot read it either way; Hessian2 is the
/// dubbo protocol's default).
fn answer_format(serialization: Serialization) -> BodyFormat {
    BodyFormat::of(serialization).unwrap_or_default()
}

/// The names of the serializations a server reads, for error messages.
fn readable_serializations() -> String {
    Serialization::KNOWN
        .iter()
        .filter(|s| BodyFormat::of(**s).is_some())
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn route(
    frame: Frame,
    format: BodyFormat,
    peer: SocketAddr,
    state: &State,
) -> Result<(Handler, Call), (Status, String)> {
    let request_id = frame.request_id();
    let two_way = frame.header().is_two_way();
    let body = frame.body().clone();
    let bad = |e: BodyError| {
        (
            Status::BadRequest,
            format!("Fail to decode request due to: {e}"),
        )
    };
    let (head, attachments) =
        RequestHead::decode_with_attachments_in(format, &body).map_err(bad)?;
    let service = attachments
        .get_str(INTERFACE_KEY)
        .or_else(|| attachments.get_str(PATH_KEY))
        .unwrap_or(&head.path)
        .to_owned();
    let version = attachments
        .get_str(VERSION_KEY)
        .unwrap_or(&head.version)
        .to_owned();
    let group = attachments
        .get_str(GROUP_KEY)
        .filter(|g| !g.is_empty())
        .map(str::to_owned);
    let key = service_key(&service, &version, group.as_deref());
    let Some(svc) = state.services.get(&key) else {
        let mut known: Vec<_> = state.services.keys().map(String::as_str).collect();
        known.sort_unstable();
        return Err((
            Status::ServiceNotFound,
            format!(
                "Not found exported service: {key}:{} in [{}], may be version or group mismatch, channel: consumer: {peer}",
                state.port,
                known.join(", ")
            ),
        ));
    };
    let mut method = head.method.to_string();
    let mut descriptor = head.descriptor.to_string();
    let mut generic = false;
    let mut args = Args::Raw {
        body: body.clone(),
        format,
        offset: head.args_offset,
        count: head.arg_count,
    };
    if is_generic_call(&method, &descriptor) {
        // $invoke(String method, String[] types, Object[] args)
        let call_args = Call {
            request_id,
            two_way,
            dubbo_version: String::new(),
            service: String::new(),
            version: String::new(),
            group: None,
            method: String::new(),
            descriptor: String::new(),
            attachments: Attachments::new(),
            generic: false,
            peer,
            format,
            args,
        }
        .values()
        .map_err(bad)?;
        let mut it = call_args.into_iter();
        let (Some(Value::String(m)), Some(types), Some(list)) = (it.next(), it.next(), it.next())
        else {
            return Err((
                Status::BadRequest,
                "Fail to decode request due to: malformed $invoke arguments".into(),
            ));
        };
        let types: Vec<String> = match types {
            Value::List(l) => l
                .items
                .iter()
                .filter_map(|t| t.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        };
        descriptor = types
            .iter()
            .map(|t| crate::descriptor::name_to_desc(t).unwrap_or_default())
            .collect();
        let values = match list {
            Value::List(l) => l.items,
            Value::Null => Vec::new(),
            _ => {
                return Err((
                    Status::BadRequest,
                    "Fail to decode request due to: $invoke arguments are not a list".into(),
                ))
            }
        };
        method = m;
        generic = true;
        args = Args::Values(values);
    } else if method == ECHO_METHOD && head.arg_count == 1 && !svc.methods.contains_key(ECHO_METHOD)
    {
        let echo: Handler = Arc::new(|call: Call| {
            Box::pin(async move {
                let mut v = call.values()?;
                Ok(Reply::Value(v.pop().unwrap_or(Value::Null)))
            })
        });
        return Ok((
            echo,
            Call {
                request_id,
                two_way,
                dubbo_version: head.dubbo_version.to_string(),
                service,
                version,
                group,
                method,
                descriptor,
                attachments,
                generic,
                peer,
                format,
                args,
            },
        ));
    }
    let Some(handler) = svc.methods.get(&method) else {
        return Err((
            Status::ServiceNotFound,
            format!("Not found method {method}({descriptor}) in exported service {key}"),
        ));
    };
    Ok((
        handler.clone(),
        Call {
            request_id,
            two_way,
            dubbo_version: head.dubbo_version.to_string(),
            service,
            version,
            group,
            method,
            descriptor,
            attachments,
            generic,
            peer,
            format,
            args,
        },
    ))
}

/// The response frame of a finished call.
fn answer(
    id: u64,
    format: BodyFormat,
    dubbo_version: &str,
    result: Result<Reply, HandlerError>,
    max_payload: u32,
) -> Frame {
    let result_frame =
        |outcome| RpcResult::for_request(outcome, dubbo_version).to_frame_in(id, format);
    let frame = match result {
        Ok(Reply::Value(v)) => result_frame(Outcome::Value(v)),
        Ok(Reply::Null) => result_frame(Outcome::Null),
        Ok(Reply::Encoded(bytes)) if matches!(format, BodyFormat::Hessian2(_)) => Frame::response(
            id,
            format.serialization(),
            Status::Ok,
            encoded_result_body(&bytes, provider_attachments(dubbo_version)),
        ),
        Ok(Reply::Body(body)) => Frame::response(id, format.serialization(), Status::Ok, body),
        // Hessian2 bytes for a caller in another serialization: through a value.
        Ok(Reply::Encoded(bytes)) => match hessian2::value::from_slice(&bytes) {
            Ok(v) => result_frame(Outcome::Value(v)),
            Err(e) => result_frame(Outcome::Exception(
                JavaException::runtime(format!("serializing the result: {e}")).value,
            )),
        },
        Err(HandlerError::Exception(e)) => result_frame(Outcome::Exception(e.value)),
        Err(HandlerError::Status { status, message }) => {
            error_frame_in(id, format, status, Some(&message))
        }
    };
    if frame.body().len() > max_payload as usize {
        // Java's ExceedPayloadLimitException on encode: SERIALIZATION_ERROR with a message.
        return error_frame_in(
            id,
            format,
            Status::SerializationError,
            Some(&format!(
                "Data length too large: {}, max payload: {max_payload}",
                frame.body().len()
            )),
        );
    }
    frame
}
