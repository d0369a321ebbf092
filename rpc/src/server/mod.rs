//! An async Dubbo server: Java consumers call Rust handlers.
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
//!   (Java's rule, see [`dubbo_codec::response`]); one-way calls are never answered;
//! * `$echo` (Java's `EchoService`) is answered with its argument, and `$invoke` (generic
//!   calls) is dispatched to the named method with the arguments it carries.
//!
//! Requests are read in the serialization their header names, Hessian2 or fastjson2 (what
//! Dubbo 3.2+ consumers pick for a provider that prefers it), and answered in the same one.
//!
//! Bad input: a request whose body cannot be read, or whose serialization is neither,
//! is answered with `BAD_REQUEST` and its request id; so is a request over the payload limit
//! (its body is skipped as it arrives, and the connection goes on). Bytes that are not a
//! frame (bad magic) close that connection only.
//!
//! With the `registry` feature, [`Server::register`] writes each service's provider URL in a
//! registry; [`Server::shutdown`] removes them first.
//!
//! Limits, each a [`ServerBuilder`] setting and counted in [`Server::stats`] (names and
//! defaults as `dubbo-proxy`'s listeners): [`max_connections`](ServerBuilder::max_connections)
//! (10,000; one more is closed at once), [`max_inflight`](ServerBuilder::max_inflight) (4,096
//! calls per connection; one more is answered `SERVER_THREADPOOL_EXHAUSTED_ERROR`),
//! [`write_timeout`](ServerBuilder::write_timeout) (30 s without writing a byte to a caller
//! that does not read closes it), [`first_frame_timeout`](ServerBuilder::first_frame_timeout)
//! (90 s), [`frame_timeout`](ServerBuilder::frame_timeout) (10 s to finish a frame begun) and
//! [`idle_timeout`](ServerBuilder::idle_timeout) (180 s). Each connection refused or closed
//! and each call rejected by a limit is also one `tracing` event with the caller's address
//! (`peer`), the setting (`limit`) and its value: `warn` for `max_connections`,
//! `max_inflight` and `write_timeout`, `debug` for the read timeouts.
//!
//! [`Server::shutdown`] is graceful: it stops accepting, sends the read-only event to every
//! client (Java's `HeaderExchangeServer` does the same, so Java consumers stop sending new
//! calls), waits for the calls in flight and until none has arrived for 1 s (calls sent
//! before a consumer saw the event are still served), then closes the connections; all
//! within its grace period, whatever the callers do.
//!
//! ```no_run
//! use dubbo_rpc::server::{Reply, Server, Service};
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

mod accept;
mod connection;
mod dispatch;
#[cfg(feature = "triple")]
mod grpc;
#[cfg(feature = "triple")]
mod http1;
mod limits;
#[cfg(feature = "registry")]
mod metadata_service;
#[cfg(feature = "triple")]
mod outbox;
mod panic;
#[cfg(feature = "tls")]
mod prefixed;
#[cfg(feature = "registry")]
mod register;
mod serve;
mod service;
mod shutdown;
mod sniff;
mod split;
#[cfg(feature = "triple")]
mod streams;
#[cfg(feature = "tls")]
mod tls_accept;
#[cfg(feature = "triple")]
mod triple;
#[cfg(feature = "triple")]
mod triple_reply;
#[cfg(feature = "triple")]
mod triple_stream;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::sync::{mpsc, watch, Notify};
use tokio::task::{AbortHandle, JoinHandle};

#[cfg(feature = "triple")]
pub use self::grpc::{GrpcCall, GrpcFuture, Responder};
use self::limits::{Counters, Limits};
pub use self::limits::{
    ServerStats, DEFAULT_FIRST_FRAME_TIMEOUT, DEFAULT_FRAME_TIMEOUT, DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_INFLIGHT, DEFAULT_WRITE_TIMEOUT,
};
#[cfg(feature = "registry")]
pub use self::metadata_service::metadata_service;
pub use self::service::{Call, HandlerError, HandlerFuture, Protocol, Reply, Service};
#[cfg(feature = "triple")]
pub use self::streams::{StreamCall, StreamSender};
use dubbo_codec::codec::DEFAULT_MAX_PAYLOAD;
use dubbo_codec::frame::Frame;
use dubbo_codec::metadata::MetadataCache;

/// Builds a [`Server`].
#[derive(Debug, Clone)]
pub struct ServerBuilder {
    services: Vec<Service>,
    max_payload: u32,
    limits: Limits,
    #[cfg(feature = "tls")]
    tls: Option<crate::tls::ServerTls>,
}

impl Default for ServerBuilder {
    fn default() -> Self {
        ServerBuilder {
            services: Vec::new(),
            max_payload: DEFAULT_MAX_PAYLOAD,
            limits: Limits::default(),
            #[cfg(feature = "tls")]
            tls: None,
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

    /// Closes a connection from which no frame was read for this long (default 180 s, three
    /// of Java's 60 s heartbeats; zero: never). Counted in [`ServerStats::closed_idle`].
    pub fn idle_timeout(mut self, idle: Duration) -> Self {
        self.limits.idle_timeout = idle;
        self
    }

    /// Open connections at most (default 10,000): one more is accepted and closed at once,
    /// while the open ones go on being served. Counted in
    /// [`ServerStats::connections_refused`]. Zero is taken as one.
    pub fn max_connections(mut self, max: usize) -> Self {
        self.limits.max_connections = max.max(1);
        self
    }

    /// Calls running at once on one connection (default 4,096): a call past it is answered
    /// at once with `SERVER_THREADPOOL_EXHAUSTED_ERROR` and its request id, as Java answers
    /// when its thread pool is full (a one-way call is dropped). Counted in
    /// [`ServerStats::calls_rejected`]. Zero is taken as one.
    pub fn max_inflight(mut self, max: usize) -> Self {
        self.limits.max_inflight = max.max(1);
        self
    }

    /// Closes a connection whose answers could not be written for this long: the caller
    /// stopped reading them (default 30 s; zero: never). The answers waiting for it are
    /// dropped; other connections are not affected. Counted in
    /// [`ServerStats::closed_write_timeout`].
    pub fn write_timeout(mut self, timeout: Duration) -> Self {
        self.limits.write_timeout = timeout;
        self
    }

    /// Closes a connection that sent no frame at all within this long of connecting
    /// (default 90 s: above Dubbo's 60 s heartbeat, so a consumer that connects and waits is
    /// not cut off, and under the idle timeout; zero: never). Counted in
    /// [`ServerStats::closed_no_frame`].
    pub fn first_frame_timeout(mut self, timeout: Duration) -> Self {
        self.limits.first_frame_timeout = timeout;
        self
    }

    /// Closes a connection on which a frame began (a part of its header or body, or the
    /// body of a frame over the payload limit being skipped) and did not finish within this
    /// long (default 10 s; zero: never): a caller cannot hold a connection by trickling
    /// bytes. Counted in [`ServerStats::closed_partial_frame`].
    pub fn frame_timeout(mut self, timeout: Duration) -> Self {
        self.limits.frame_timeout = timeout;
        self
    }

    /// Serves TLS only (feature `tls`), every protocol on the one port: see the
    /// [`tls`](crate::tls) module. A caller that does not open with a TLS handshake, or
    /// whose handshake fails or takes longer than the handshake timeout, is closed and
    /// counted in [`ServerStats`].
    #[cfg(feature = "tls")]
    pub fn tls(mut self, tls: crate::tls::ServerTls) -> Self {
        self.tls = Some(tls);
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
        let (closing_tx, closing_rx) = watch::channel(Phase::Serving);
        let (read_only_tx, read_only_rx) = watch::channel(false);
        let state = Arc::new(State {
            services,
            late_services: Default::default(),
            metadata,
            max_payload: self.max_payload,
            limits: self.limits,
            counters: Counters::default(),
            open: AtomicUsize::new(0),
            conns: Mutex::new(HashMap::new()),
            next_conn: AtomicU64::new(0),
            inflight: AtomicUsize::new(0),
            dispatched: AtomicU64::new(0),
            idle: Notify::new(),
            closing: closing_rx,
            read_only: read_only_rx,
            local_ip: local_addr.ip(),
            port: local_addr.port(),
            #[cfg(feature = "tls")]
            tls: self.tls,
            #[cfg(feature = "tls")]
            handshaking: Mutex::default(),
        });
        let accept = tokio::spawn(accept::accept_loop(listener, state.clone()));
        Server {
            local_addr,
            state,
            closing: closing_tx,
            read_only: read_only_tx,
            accept,
            #[cfg(feature = "registry")]
            registered: Mutex::default(),
        }
    }
}

impl State {
    /// The service of `key`: one the server was built with, else one added later.
    fn service(&self, key: &str) -> Option<Arc<Service>> {
        if let Some(s) = self.services.get(key) {
            return Some(s.clone());
        }
        let late = self.late_services.read().unwrap_or_else(|e| e.into_inner());
        late.get(key).cloned()
    }
}

struct ConnHandle {
    tx: mpsc::Sender<Frame>,
    /// The serialization id of the last call on the connection (what the read-only event
    /// is written in, as Java writes it in the channel's serialization).
    serialization: Arc<AtomicU8>,
    /// The connection's writer: aborting it closes the connection and frees what waits in
    /// its channel, whatever the caller does.
    writer: AbortHandle,
}

/// Where the server is in its life; the connections watch it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Serving,
    /// Shutting down: stop reading, let the writers flush.
    Closing,
    /// The grace period is over: connections still open are cut.
    Aborted,
}

struct State {
    services: HashMap<String, Arc<Service>>,
    /// Services added once serving: the MetadataService of an instance registration.
    late_services: std::sync::RwLock<HashMap<String, Arc<Service>>>,
    metadata: MetadataCache,
    max_payload: u32,
    limits: Limits,
    counters: Counters,
    /// Connections accepted and not yet closed (their writer included): what
    /// `max_connections` bounds.
    open: AtomicUsize,
    conns: Mutex<HashMap<u64, ConnHandle>>,
    next_conn: AtomicU64,
    inflight: AtomicUsize,
    /// Calls dispatched so far: the drain waits until none came for a while.
    dispatched: AtomicU64,
    idle: Notify,
    closing: watch::Receiver<Phase>,
    /// True once the shutdown announced it (the read-only event): a connection that becomes
    /// a Dubbo one after that gets the event too.
    read_only: watch::Receiver<bool>,
    local_ip: IpAddr,
    port: u16,
    #[cfg(feature = "tls")]
    tls: Option<crate::tls::ServerTls>,
    /// Handshakes under way, by the caller's IP address.
    #[cfg(feature = "tls")]
    handshaking: Mutex<HashMap<IpAddr, usize>>,
}

/// A running server. Dropping it stops accepting but leaves open connections to finish;
/// [`Server::shutdown`] is the graceful way.
pub struct Server {
    local_addr: SocketAddr,
    state: Arc<State>,
    closing: watch::Sender<Phase>,
    read_only: watch::Sender<bool>,
    accept: JoinHandle<()>,
    #[cfg(feature = "registry")]
    registered: Mutex<Vec<(Arc<dyn dubbo_registry::Registry>, register::Registered)>>,
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
        self.state.open.load(Ordering::Acquire)
    }

    /// What the limits did so far (connections refused or closed, calls rejected).
    pub fn stats(&self) -> ServerStats {
        self.state.counters.snapshot()
    }

    /// Calls being handled.
    pub fn inflight(&self) -> usize {
        self.state.inflight.load(Ordering::Acquire)
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
