//! The Triple pipeline: caller connections that opened with an HTTP/2 preface, routed stream
//! by stream through the same route table, clusters, balancers, health and timeouts as Dubbo
//! 2 traffic, and forwarded as they are (no message is decoded: HEADERS, DATA and trailers
//! pass through).
//!
//! Both engines hand such connections here ([`Effect::HandOff`]): the socket and the bytes
//! read from it so far. The pipeline runs on tokio, with the `h2` crate on both sides:
//! the tokio engine's worker runtime spawns it where the connection was read, the epoll
//! engine keeps a small runtime of its own for it ([`Pipeline::own_runtime`]).
//!
//! * [`call`]: one stream, from routing to its end, and the answers the proxy makes;
//! * [`relay`]: one direction of a stream's body, flow control end to end;
//! * [`upstream`]: the endpoint choice and the pooled provider connections;
//!   [`upstream_tls`]: TLS on them, for clusters with `[clusters.NAME.tls]`;
//! * [`http1`]: Triple's HTTP/1.1 form (`curl` with JSON), forwarded over HTTP/1.1;
//!   `head_limit`: its request heads' time limit; [`json_bridge`]: its calls bridged to a
//!   cluster whose providers speak only the Dubbo protocol (generic invocations);
//! * [`answer`]: `grpc-status` answers; [`prefixed`]: the bytes read before the hand-off;
//! * [`state`]: what the pipeline's tasks share; [`tls_io`]: a TLS caller's socket, its
//!   session carried on from the engine's handshake;
//! * `fail`: how a forwarded or bridged call ends when it does not end well;
//! * [`to_dubbo`]: calls bridged to a cluster whose providers speak only the Dubbo protocol;
//! * [`from_dubbo`]: Dubbo callers' calls bridged to a cluster whose providers speak only
//!   Triple (the core hands them over: [`Effect::Bridge`]).
//!
//! [`Effect::HandOff`]: crate::core::Effect::HandOff
//! [`Effect::Bridge`]: crate::core::Effect::Bridge

use std::io;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::stream::{FuturesUnordered, StreamExt};
use tokio::runtime::{Handle, Runtime};

use crate::core::fd_budget::CallerSlot;
use crate::core::{BridgeAnswer, BridgeCall, BridgeTicket, Shared};

pub mod answer;
pub mod call;
mod fail;
pub mod from_dubbo;
mod head_limit;
pub mod http1;
pub mod http1_call;
pub mod json_bridge;
pub mod prefixed;
pub mod relay;
pub mod state;
pub mod tls_io;
pub mod to_dubbo;
pub mod upstream;
pub mod upstream_tls;

use relay::{CONNECTION_WINDOW, STREAM_WINDOW};
use state::Triple;

/// The largest request header block a caller may send (HTTP/2's
/// `SETTINGS_MAX_HEADER_LIST_SIZE`; h2's default is 16 MiB): the size dubbo-rpc's Triple
/// server takes, so the proxy holds no more per stream than the providers would.
const MAX_HEADER_LIST: u32 = 16 * 1024;

/// Where the pipeline's tasks run.
#[derive(Clone)]
enum Runs {
    /// On the runtime of the thread that hands a connection over (the tokio engine).
    Caller,
    /// On its own runtime (the epoll engine).
    Own(Arc<Runtime>),
}

/// The handle engines give connections to. See the [module docs](self).
#[derive(Clone)]
pub struct Pipeline {
    triple: Arc<Triple>,
    runs: Runs,
}

impl Pipeline {
    /// A pipeline whose tasks run on the runtime of the thread that calls
    /// [`Pipeline::accept`] (which must be inside one).
    pub fn on_caller_runtime(shared: Arc<Shared>) -> Pipeline {
        Pipeline {
            triple: Arc::new(Triple::new(shared)),
            runs: Runs::Caller,
        }
    }

    /// A pipeline with its own runtime of `threads` threads.
    pub fn own_runtime(shared: Arc<Shared>, threads: usize) -> io::Result<Pipeline> {
        let rt = crate::threads::log_like_builder(&mut tokio::runtime::Builder::new_multi_thread())
            .worker_threads(threads.max(1))
            .thread_name("dubbo-proxy-triple")
            .enable_all()
            .build()?;
        Ok(Pipeline {
            triple: Arc::new(Triple::new(shared)),
            runs: Runs::Own(Arc::new(rt)),
        })
    }

    /// The proxy drains (SIGTERM): every caller connection gets GOAWAY (the streams it has
    /// open go on to their ends, within their deadlines) and closes once they are done.
    pub fn drain(&self) {
        self.triple.draining.send_replace(true);
    }

    /// True once no caller connection is open.
    pub fn is_drained(&self) -> bool {
        self.triple.open.load(Relaxed) == 0
    }

    /// Waits until no caller connection is open, or `limit` has passed (blocking: for the
    /// epoll engine's threads). Returns [`Pipeline::is_drained`].
    pub fn wait_drained(&self, limit: Duration) -> bool {
        let end = std::time::Instant::now() + limit;
        while !self.is_drained() && std::time::Instant::now() < end {
            std::thread::sleep(Duration::from_millis(10));
        }
        self.is_drained()
    }

    /// Makes a Dubbo call the core bridged to a Triple-only cluster
    /// ([`Effect::Bridge`](crate::core::Effect::Bridge)); the engine gives the answer back
    /// to its worker ([`Worker::bridged`](crate::core::Worker::bridged)).
    pub fn bridge(
        &self,
        call: BridgeCall,
    ) -> impl std::future::Future<Output = (BridgeTicket, BridgeAnswer)> + Send + 'static {
        from_dubbo::call(self.triple.clone(), call)
    }

    /// Runs `task` where the pipeline's tasks run: its own runtime, or the caller's.
    pub fn spawn(&self, task: impl std::future::Future<Output = ()> + Send + 'static) {
        match &self.runs {
            Runs::Caller => drop(tokio::spawn(task)),
            Runs::Own(rt) => drop(rt.spawn(task)),
        }
    }

    /// Serves a caller connection that arrived on listener `listener`; `read`: the bytes
    /// already read from it (its HTTP/2 preface first).
    pub fn accept(
        &self,
        stream: std::net::TcpStream,
        read: Bytes,
        listener: usize,
        slot: CallerSlot,
    ) {
        self.serve(Handed::Plain(stream), read, listener, slot);
    }

    /// [`Pipeline::accept`] for a caller of a TLS listener: `tls` is the session whose
    /// handshake the engine did, `read` the plaintext it took already.
    pub fn accept_tls(
        &self,
        stream: std::net::TcpStream,
        tls: rustls::ServerConnection,
        read: Bytes,
        listener: usize,
        slot: CallerSlot,
    ) {
        self.serve(Handed::Tls(stream, Box::new(tls)), read, listener, slot);
    }

    fn serve(&self, stream: Handed, read: Bytes, listener: usize, slot: CallerSlot) {
        self.triple
            .shared
            .metrics
            .triple
            .connections
            .fetch_add(1, Relaxed);
        // Counted from now: a drain that begins before the task runs waits for it.
        let open = OpenConnection::new(self.triple.clone(), listener, slot);
        let task = serve_connection(open, stream, read, listener);
        match &self.runs {
            Runs::Caller => match Handle::try_current() {
                Ok(h) => drop(h.spawn(task)),
                Err(e) => tracing::error!("triple: no runtime to serve a connection on: {e}"),
            },
            Runs::Own(rt) => drop(rt.spawn(task)),
        }
    }
}

/// Counts a caller connection open while it lives: in the pipeline (for the drain), and,
/// when it goes, no longer in its listener's connections (counted since it was accepted).
/// It holds the connection's place in the file descriptor budget until then.
struct OpenConnection {
    triple: Arc<Triple>,
    listener: usize,
    _slot: CallerSlot,
}

impl OpenConnection {
    fn new(triple: Arc<Triple>, listener: usize, slot: CallerSlot) -> OpenConnection {
        triple.open.fetch_add(1, Relaxed);
        OpenConnection {
            triple,
            listener,
            _slot: slot,
        }
    }
}

impl Drop for OpenConnection {
    fn drop(&mut self) {
        self.triple.open.fetch_sub(1, Relaxed);
        self.triple.shared.metrics.caller_gone(self.listener);
    }
}

/// The listener's limits a Triple connection keeps.
struct ConnLimits {
    /// The HTTP/2 handshake (the rest of the caller's preface, the proxy's SETTINGS out) must
    /// be done within the listener's `frame_timeout_ms`, and so must the PING of a GOAWAY
    /// (and an HTTP/1.1 request head, from its first byte).
    handshake: Option<Duration>,
    /// With no stream open for the listener's `idle_timeout_ms`, the connection is closed
    /// with GOAWAY (HTTP/1.1: with no request for that long, it is closed).
    idle: Option<Duration>,
    /// The listener's `max_inflight`: the streams one caller connection may have open at
    /// once (HTTP/2's SETTINGS_MAX_CONCURRENT_STREAMS; a caller waits for a stream to end
    /// before it opens more, as a Dubbo caller's reads pause at its `max_inflight` calls).
    streams: u32,
}

impl ConnLimits {
    fn of(triple: &Triple, listener: usize) -> ConnLimits {
        let snap = triple.shared.snapshot();
        let millis = |ms: u64| (ms > 0).then(|| Duration::from_millis(ms));
        match snap.config.listeners.get(listener) {
            Some(l) => ConnLimits {
                handshake: millis(l.frame_timeout_ms),
                idle: millis(l.idle_timeout_ms),
                streams: l.max_inflight,
            },
            None => ConnLimits {
                handshake: None,
                idle: None,
                streams: crate::config::Listener::new("").max_inflight,
            },
        }
    }
}

/// Runs `f` within `limit`, if there is one; `None` when it took longer.
async fn within<F: std::future::Future>(limit: Option<Duration>, f: F) -> Option<F::Output> {
    match limit {
        Some(t) => tokio::time::timeout(t, f).await.ok(),
        None => Some(f.await),
    }
}

/// Resolves once the proxy drains (at once if it already does).
async fn until_draining(draining: &mut tokio::sync::watch::Receiver<bool>) {
    // An error means the sender is gone: the proxy is going away, which is no drain signal
    // of its own (its connections end with it).
    if draining.wait_for(|d| *d).await.is_err() {
        std::future::pending::<()>().await
    }
}

/// A caller's socket as an engine hands it over.
enum Handed {
    Plain(std::net::TcpStream),
    /// With the TLS session the engine did the handshake with.
    Tls(std::net::TcpStream, Box<rustls::ServerConnection>),
}

/// Serves one caller connection: an HTTP/2 server whose every stream is a [`call`].
async fn serve_connection(open: OpenConnection, stream: Handed, read: Bytes, listener: usize) {
    let (std, tls) = match stream {
        Handed::Plain(s) => (s, None),
        Handed::Tls(s, tls) => (s, Some(tls)),
    };
    let source = std.peer_addr().ok().map(|a| a.ip());
    let stream = match std
        .set_nonblocking(true)
        .and_then(|()| tokio::net::TcpStream::from_std(std))
    {
        Ok(s) => s,
        Err(e) => return tracing::warn!("triple: hand-off: {e}"),
    };
    let h2 = read.starts_with(b"PRI");
    match tls {
        None if !h2 => {
            // An HTTP/1.1 request line (the core hands over nothing else).
            let io = prefixed::Prefixed::new(read, stream);
            let peer = call::Peer {
                identity: None,
                source,
            };
            serve_http1(open, io, listener, peer).await
        }
        None => {
            let io = prefixed::Prefixed::new(read, stream);
            let peer = call::Peer {
                identity: None,
                source,
            };
            serve_h2(open, io, listener, peer).await
        }
        Some(tls) => {
            let identity = dubbo_rpc::tls::peer_identity(tls.peer_certificates())
                .map(|i| Arc::<str>::from(i.as_str()));
            let peer = call::Peer { identity, source };
            let io = tls_io::TlsIo::new(read, stream, *tls);
            if h2 {
                return serve_h2(open, io, listener, peer).await;
            }
            // Triple's HTTP/1.1 form (curl with JSON), with ALPN `http/1.1` or none.
            serve_http1(open, io, listener, peer).await
        }
    }
}

/// The HTTP/1.1 server of one caller connection over `io`; `peer`: who the caller is.
async fn serve_http1<T>(open: OpenConnection, io: T, listener: usize, peer: call::Peer)
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let triple = open.triple.clone();
    let limits = ConnLimits::of(&triple, listener);
    let draining = triple.draining.subscribe();
    http1::serve_connection(triple, io, listener, peer, limits, draining).await;
    drop(open)
}

/// The HTTP/2 server of one caller connection over `io`; `peer`: who the caller is.
async fn serve_h2<T>(open: OpenConnection, io: T, listener: usize, peer: call::Peer)
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let triple = open.triple.clone();
    let mut draining = triple.draining.subscribe();
    let limits = ConnLimits::of(&triple, listener);
    let handshake = h2::server::Builder::new()
        .max_concurrent_streams(limits.streams)
        .max_header_list_size(MAX_HEADER_LIST)
        .initial_window_size(STREAM_WINDOW)
        .initial_connection_window_size(CONNECTION_WINDOW)
        .handshake::<_, Bytes>(io);
    let mut conn = match within(limits.handshake, handshake).await {
        Some(Ok(c)) => c,
        Some(Err(e)) => return tracing::debug!("triple: handshake: {e}"),
        None => return tracing::debug!("triple: no HTTP/2 handshake within frame_timeout_ms"),
    };
    // The calls of this connection run inside its task, beside the accepting that drives the
    // connection (its frames, its flow control): h2 serialises a connection's streams behind
    // one lock anyway, and a stream woken by a frame this task just read is polled without a
    // task switch or a spawn per call.
    let mut calls = FuturesUnordered::new();
    // The idle limit is one timer for the connection's life, pushed on only when it fires
    // (not re-armed per stream): `last_stream` says when a stream last came.
    let mut last_stream = tokio::time::Instant::now();
    let idle_check = tokio::time::sleep(limits.idle.unwrap_or(Duration::MAX / 4));
    tokio::pin!(idle_check);
    let draining = until_draining(&mut draining);
    tokio::pin!(draining);
    loop {
        tokio::select! {
            biased;
            () = &mut draining => {
                // GOAWAY: no new streams; the open ones end by themselves (or their deadline).
                conn.graceful_shutdown();
                break;
            }
            Some(()) = calls.next(), if !calls.is_empty() => {}
            next = conn.accept() => match next {
                Some(Ok((request, respond))) => {
                    last_stream = tokio::time::Instant::now();
                    let peer = peer.clone();
                    calls.push(call::serve(triple.clone(), request, respond, listener, peer));
                }
                Some(Err(e)) => return tracing::debug!("triple: caller connection: {e}"),
                None => break,
            },
            () = &mut idle_check, if limits.idle.is_some() => {
                let idle = limits.idle.unwrap_or_default();
                let now = tokio::time::Instant::now();
                if calls.is_empty() && now >= last_stream + idle {
                    // Idle: no new stream for that long, and none running. GOAWAY, then h2
                    // waits for the PING it sends after it: a caller that does not answer
                    // gets the handshake's limit (or a second), then the socket closes.
                    conn.graceful_shutdown();
                    let limit = limits.handshake.or(Some(Duration::from_secs(1)));
                    let _ = within(limit, std::future::poll_fn(|cx| conn.poll_closed(cx))).await;
                    return;
                }
                idle_check.as_mut().reset((last_stream + idle).max(now + idle / 2));
            }
        }
    }
    // No new streams (GOAWAY either way, or the caller closed): the open ones still need the
    // connection driven until they end.
    let closed = std::future::poll_fn(|cx| conn.poll_closed(cx));
    let ended = async { while calls.next().await.is_some() {} };
    let _ = tokio::join!(closed, ended);
    drop(open);
}
