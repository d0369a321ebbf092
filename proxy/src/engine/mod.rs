//! The I/O engines: what turns sockets and clocks into calls on the sans-I/O
//! [`Worker`](crate::core::Worker).
//!
//! An engine binds nothing itself: [`bind`] opens the listeners once (so their ports are
//! known, and printed, before any worker starts), then [`start`] runs one worker per thread.
//! Every engine does the same four things with a worker: feed it bytes, apply its effects
//! (connect, flush, close), tick it at its deadline, and begin its shutdown on SIGTERM.

use std::io;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::config::{Config, EngineKind};
use crate::core::fd_budget::CallerSlot;
use crate::core::Shared;
use crate::triple::Pipeline;

pub mod epoll;
mod tls;
pub mod tokio;

/// Listeners opened from a configuration, in its order.
pub struct Bound {
    /// The sockets (shared by all workers).
    pub listeners: Vec<TcpListener>,
    /// Their actual addresses (port 0 resolved).
    pub addrs: Vec<SocketAddr>,
}

/// Opens every listener of `config`.
pub fn bind(config: &Config) -> io::Result<Bound> {
    let mut listeners = Vec::new();
    let mut addrs = Vec::new();
    for l in &config.listeners {
        let addr: SocketAddr = l
            .address
            .parse()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, format!("{e}")))?;
        let sock = TcpListener::bind(addr)
            .map_err(|e| io::Error::new(e.kind(), format!("listen on {addr}: {e}")))?;
        sock.set_nonblocking(true)?;
        addrs.push(sock.local_addr()?);
        listeners.push(sock);
    }
    Ok(Bound { listeners, addrs })
}

/// Running workers.
pub struct EngineHandle {
    threads: Vec<JoinHandle<()>>,
    shutdown: Box<dyn Fn() + Send + Sync>,
}

impl EngineHandle {
    /// Begins the graceful shutdown: stop accepting, read-only event to callers, drain.
    pub fn shutdown(&self) {
        (self.shutdown)();
    }

    /// Waits for every worker to finish (after [`EngineHandle::shutdown`]).
    pub fn join(self) {
        for t in self.threads {
            let _ = t.join();
        }
    }

    /// True once every worker thread has finished.
    pub fn is_finished(&self) -> bool {
        self.threads.iter().all(|t| t.is_finished())
    }
}

/// Runs worker `id`'s thread body. A panic stops only that worker (its connections close
/// with it); it is logged and counted in `dubbo_proxy_worker_panics_total`, and `/healthz`
/// answers 503 from then on, so that a load balancer or supervisor takes the process out and
/// restarts it: a worker's calls and connections cannot be handed to another in flight.
pub(crate) fn supervised(id: usize, shared: &Shared, body: impl FnOnce()) {
    if let Err(panic) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into());
        tracing::error!("worker {id} stopped: {what}; /healthz answers 503 until a restart");
        shared
            .metrics
            .worker_panics
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Gives a caller connection the core found to be Triple's to the Triple pipeline, with the
/// plaintext read from it and, from a TLS listener, the session it goes on with (the
/// pipeline decrypts from where the engine stopped). A connection that never reaches the
/// pipeline, which would have uncounted it, is uncounted here.
fn hand_off(
    triple: &Pipeline,
    shared: &Shared,
    stream: io::Result<std::net::TcpStream>,
    tls: Option<&tls::Session>,
    read: bytes::Bytes,
    listener: usize,
    slot: Option<CallerSlot>,
) {
    let Some(slot) = slot else {
        tracing::warn!("triple hand-off: not a caller's connection");
        return shared.metrics.caller_gone(listener);
    };
    match (stream, tls.map(tls::Session::take_server)) {
        (Ok(stream), None) => triple.accept(stream, read, listener, slot),
        (Ok(stream), Some(Some(tls))) => triple.accept_tls(stream, tls, read, listener, slot),
        (Ok(_), Some(None)) => {
            tracing::warn!("triple hand-off: no TLS session");
            shared.metrics.caller_gone(listener);
        }
        (Err(e), _) => {
            tracing::warn!("triple hand-off: {e}");
            shared.metrics.caller_gone(listener);
        }
    }
}

/// Starts `workers` workers of the configured engine on the bound listeners.
pub fn start(
    kind: EngineKind,
    shared: Arc<Shared>,
    bound: Bound,
    workers: usize,
) -> io::Result<EngineHandle> {
    match kind {
        EngineKind::Tokio => {
            let (tx, rx) = ::tokio::sync::watch::channel(false);
            let threads = tokio::start(shared, bound.listeners, workers, rx)?;
            Ok(EngineHandle {
                threads,
                shutdown: Box::new(move || {
                    let _ = tx.send(true);
                }),
            })
        }
        EngineKind::Epoll => {
            let options = shared.snapshot().config.epoll;
            let (threads, shutdown) = epoll::start(shared, bound.listeners, workers, options)?;
            Ok(EngineHandle { threads, shutdown })
        }
    }
}
