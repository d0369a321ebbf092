//! The proxy as a library: [`Server::start`] does what the `dubbo-proxy` binary does between
//! reading its configuration and waiting for signals, so a program (or a test) can run a
//! proxy in its own process, reload it and drain it (see the crate documentation).

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::task::JoinHandle;

use crate::admin::{self, AdminState};
use crate::config::Config;
use crate::core::Shared;
use crate::discovery::{self, Discovery};
use crate::engine::{self, EngineHandle};
use crate::fd_limit::{self, FdLimit};

/// A running proxy: its listeners, admin endpoint, workers and discovery.
pub struct Server {
    shared: Arc<Shared>,
    engine: EngineHandle,
    discovery: Discovery,
    draining: Arc<AtomicBool>,
    listen: Vec<SocketAddr>,
    admin: Option<SocketAddr>,
    /// The admin endpoint's, the memory trimmer's and the TLS file watch's tasks, stopped with
    /// the server.
    tasks: Vec<JoinHandle<()>>,
}

impl Server {
    /// Binds the listeners and the admin address, waits for the discovered clusters' first
    /// provider lists (or their `initial_fetch_timeout_ms`: callers wait in the listen
    /// backlog meanwhile), starts the workers and works out the callers' file descriptor
    /// budget from the soft `RLIMIT_NOFILE` in force (which it does not change: the binary
    /// raises it first, with [`crate::raise_fd_limit`]).
    ///
    /// Runs inside a tokio runtime: the admin endpoint and the memory trimmer are tasks on
    /// it (the workers have threads of their own, and log where the thread that started
    /// them logs: its [`tracing`] dispatcher, scoped or global). It installs no signal
    /// handler and no global subscriber, so several servers can run in one process.
    pub async fn start(config: Config) -> io::Result<Server> {
        let workers = config.worker_count();
        let bound = engine::bind(&config)?;
        let admin_listener = if config.admin.address.is_empty() {
            None
        } else {
            Some(admin::bind(&config.admin.address).await.map_err(|e| {
                io::Error::new(e.kind(), format!("admin {}: {e}", config.admin.address))
            })?)
        };
        let admin = admin_listener.as_ref().and_then(|l| l.local_addr().ok());
        let listen = bound.addrs.clone();
        let named: Vec<(String, SocketAddr)> = config
            .listeners
            .iter()
            .map(|l| l.name.clone())
            .zip(bound.addrs.iter().copied())
            .collect();
        let kind = config.engine;
        let shared = Shared::new(config, workers);
        for (stats, addr) in shared.metrics.listeners.iter().zip(&bound.addrs) {
            let _ = stats.bound.set(*addr);
        }
        let draining = Arc::new(AtomicBool::new(false));
        let warming = Arc::new(AtomicBool::new(true));
        let mut tasks = Vec::new();
        if let Some(l) = admin_listener {
            tasks.push(tokio::spawn(admin::serve(
                l,
                AdminState {
                    shared: shared.clone(),
                    draining: draining.clone(),
                    warming: warming.clone(),
                },
            )));
        }
        let warm_since = Instant::now();
        let discovery = discovery::start(shared.clone(), named)?;
        let cold = discovery::warm_up(&shared, warm_since).await;
        if !cold.is_empty() {
            tracing::warn!(clusters = ?cold, "no provider list within initial_fetch_timeout_ms: serving without one");
        }
        let engine = engine::start(kind, shared.clone(), bound, workers)?;
        // Worked out with the listeners, the admin endpoint and the workers' own descriptors
        // open, so the reserve is all for what comes and goes.
        let fds = fd_limit::callers_budget(shared.snapshot().config.limits.fd_reserve)
            .map_err(|e| io::Error::other(e.to_string()))?;
        shared.metrics.fds.set_limit(fds.callers);
        log_fd_limit(&shared, &fds);
        // What the workers freed goes back to the system from this task, not their threads.
        tasks.push(tokio::spawn(trim_memory(shared.clone())));
        // Renewed certificates are taken up without a SIGHUP.
        tasks.push(tokio::spawn(crate::tls_watch::watch(shared.clone())));
        warming.store(false, Ordering::Relaxed);
        tracing::info!(listen = ?listen, admin = ?admin, workers, "dubbo-proxy started");
        Ok(Server {
            shared,
            engine,
            discovery,
            draining,
            listen,
            admin,
            tasks,
        })
    }

    /// The listeners' addresses (a configured port 0 resolved), in configuration order.
    pub fn listen_addrs(&self) -> &[SocketAddr] {
        &self.listen
    }

    /// The admin endpoint's address, if the configuration has one.
    pub fn admin_addr(&self) -> Option<SocketAddr> {
        self.admin
    }

    /// The configuration's generation in force: 1 at the start, one more for each reload
    /// put in force.
    pub fn generation(&self) -> u64 {
        self.shared.generation()
    }

    /// Puts `config` in force without touching any connection, once the clusters it adds
    /// have their first provider lists; a later reload that comes first replaces it. The
    /// listeners stay those of the start. The future holds no borrow of the server, so it
    /// can run as a task of its own while signals and the admin go on.
    pub fn reload(&self, config: Config) -> impl std::future::Future<Output = ()> + Send + 'static {
        let shared = self.shared.clone();
        async move {
            match discovery::reload(&shared, config).await {
                Some(warnings) => {
                    for w in warnings {
                        tracing::warn!("reload: {w}");
                    }
                    tracing::info!("configuration reloaded");
                }
                None => tracing::info!("reload replaced by a later one before it was in force"),
            }
        }
    }

    /// A reload that could not be read: counted (`dubbo_proxy_config_reload_failures_total`) and
    /// logged with `why`; the configuration in force stays.
    pub fn refuse_reload(&self, why: &dyn std::fmt::Display) {
        self.shared
            .metrics
            .reload_failures
            .fetch_add(1, Ordering::Relaxed);
        tracing::error!("reload refused, keeping the running configuration:\n{why}");
    }

    /// Leaves the registry, tells callers (Dubbo's read-only event, Triple's GOAWAY), drains
    /// the calls in flight within `drain_timeout_ms`, and stops the workers and tasks.
    pub async fn shutdown(self) {
        tracing::info!("shutting down: out of the registry, read-only event to callers, draining");
        self.discovery.stop();
        self.draining.store(true, Ordering::Relaxed);
        self.engine.shutdown();
        while !self.engine.is_finished() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        self.engine.join();
        for t in self.tasks {
            t.abort();
        }
        tracing::info!("drained, bye");
    }
}

/// Says what the file descriptor limit allows, and warns when the listeners'
/// `max_connections` could not all be open at once within it.
fn log_fd_limit(shared: &Shared, fds: &FdLimit) {
    let wanted: usize = shared
        .snapshot()
        .config
        .listeners
        .iter()
        .map(|l| l.max_connections)
        .fold(0, usize::saturating_add);
    if wanted > fds.callers {
        tracing::warn!(
            rlimit_nofile = fds.soft,
            open = fds.in_use,
            "the listeners' max_connections ({wanted} in all) are more than the file descriptors \
             leave for callers ({}): callers past that are refused and /healthz says overloaded; \
             raise the hard limit (ulimit -Hn, systemd's LimitNOFILE)",
            fds.callers
        );
    }
}

/// Once a second, gives freed memory back to the system if enough was freed (see
/// [`crate::memory`]).
async fn trim_memory(shared: Arc<Shared>) {
    let mut every = tokio::time::interval(crate::memory::TRIM_INTERVAL);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        shared.metrics.memory.tick();
    }
}
