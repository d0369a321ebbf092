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
//! * [`answer`]: `grpc-status` answers; [`prefixed`]: the bytes read before the hand-off.
//!
//! [`Effect::HandOff`]: crate::core::Effect::HandOff

use std::io;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use bytes::Bytes;
use tokio::runtime::{Handle, Runtime};

use crate::core::Shared;

pub mod answer;
pub mod call;
pub mod prefixed;
pub mod relay;
pub mod upstream;

/// Streams one caller connection may have open at once (HTTP/2 SETTINGS
/// MAX_CONCURRENT_STREAMS; Java Dubbo's Triple server allows `Integer.MAX_VALUE`, gRPC's
/// servers 100 to unbounded).
const MAX_STREAMS: u32 = 1024;

/// The receive window of each stream, both sides: what one stream direction may hold in the
/// proxy (HTTP/2's 64 KiB default would leave a fast link idle between window updates; the
/// same as dubbo-rpc's Triple client and server).
const STREAM_WINDOW: u32 = 256 * 1024;

/// The receive window of a connection: a multiple of a stream's, so that streams whose
/// reader stopped do not hold back the others on the connection until 16 of them do. h2
/// also sizes its budget of small DATA frames held (half this) from it.
const CONNECTION_WINDOW: u32 = 16 * STREAM_WINDOW;

/// What the pipeline's tasks share.
pub struct Triple {
    shared: Arc<Shared>,
    upstreams: upstream::Upstreams,
}

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
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads.max(1))
            .thread_name("dubbo-proxy-triple")
            .enable_all()
            .build()?;
        Ok(Pipeline {
            triple: Arc::new(Triple::new(shared)),
            runs: Runs::Own(Arc::new(rt)),
        })
    }

    /// Serves a caller connection that arrived on listener `listener`; `read`: the bytes
    /// already read from it (its HTTP/2 preface first).
    pub fn accept(&self, stream: std::net::TcpStream, read: Bytes, listener: usize) {
        self.triple
            .shared
            .metrics
            .triple
            .connections
            .fetch_add(1, Relaxed);
        let task = serve_connection(self.triple.clone(), stream, read, listener);
        match &self.runs {
            Runs::Caller => match Handle::try_current() {
                Ok(h) => drop(h.spawn(task)),
                Err(e) => tracing::error!("triple: no runtime to serve a connection on: {e}"),
            },
            Runs::Own(rt) => drop(rt.spawn(task)),
        }
    }
}

impl Triple {
    fn new(shared: Arc<Shared>) -> Triple {
        Triple {
            shared,
            upstreams: upstream::Upstreams::default(),
        }
    }
}

/// Serves one caller connection: an HTTP/2 server whose every stream is a [`call`].
async fn serve_connection(
    triple: Arc<Triple>,
    stream: std::net::TcpStream,
    read: Bytes,
    listener: usize,
) {
    let stream = match stream
        .set_nonblocking(true)
        .and_then(|()| tokio::net::TcpStream::from_std(stream))
    {
        Ok(s) => s,
        Err(e) => return tracing::warn!("triple: hand-off: {e}"),
    };
    let io = prefixed::Prefixed::new(read, stream);
    let handshake = h2::server::Builder::new()
        .max_concurrent_streams(MAX_STREAMS)
        .initial_window_size(STREAM_WINDOW)
        .initial_connection_window_size(CONNECTION_WINDOW)
        .handshake::<_, Bytes>(io);
    let mut conn = match handshake.await {
        Ok(c) => c,
        Err(e) => return tracing::debug!("triple: handshake: {e}"),
    };
    // Accepting is also what drives the connection (its frames, its flow control): the
    // calls run as their own tasks meanwhile.
    while let Some(next) = conn.accept().await {
        match next {
            Ok((request, respond)) => {
                tokio::spawn(call::serve(triple.clone(), request, respond, listener));
            }
            Err(e) => {
                tracing::debug!("triple: caller connection: {e}");
                return;
            }
        }
    }
    // No new streams (the caller sent GOAWAY or closed): the open ones still need the
    // connection driven until they end.
    let _ = std::future::poll_fn(|cx| conn.poll_closed(cx)).await;
}
