//! `dubbo-proxy`: see the crate documentation and `dubbo-proxy --help`.
//!
//! The main thread owns the process lifecycle: it binds the listeners and the admin port,
//! prints one `READY` line (so scripts and tests learn the ports, also when they asked for
//! port 0), starts the workers, and then waits for signals: SIGHUP reloads the configuration
//! file without touching any connection, SIGTERM / SIGINT drain and exit.

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use tokio::signal::unix::{signal, SignalKind};
use tracing_subscriber::EnvFilter;

use dubbo_proxy::admin::{self, AdminState};
use dubbo_proxy::cli::Args;
use dubbo_proxy::core::Shared;
use dubbo_proxy::engine;

fn main() -> ExitCode {
    // Before any thread allocates (see `memory::pin_thresholds`).
    dubbo_proxy::memory::pin_thresholds();
    let args = Args::parse();
    let config = match args.load() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("dubbo-proxy: invalid configuration:\n{e}");
            return ExitCode::from(2);
        }
    };
    if args.check {
        print!("{}", config.to_toml());
        return ExitCode::SUCCESS;
    }
    // RUST_LOG is held to the rules of `log.level`, else ignored (see `is_plain_log_filter`).
    let filter = std::env::var("RUST_LOG")
        .ok()
        .filter(|f| dubbo_proxy::config::is_plain_log_filter(f))
        .and_then(|f| f.parse::<EnvFilter>().ok())
        .unwrap_or_else(|| EnvFilter::new(&config.log.level));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();

    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("dubbo-proxy: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(run(args, config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("dubbo-proxy: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args, config: dubbo_proxy::config::Config) -> std::io::Result<()> {
    let workers = config.worker_count();
    let bound = engine::bind(&config)?;
    let admin_listener = if config.admin.address.is_empty() {
        None
    } else {
        Some(admin::bind(&config.admin.address).await.map_err(|e| {
            std::io::Error::new(e.kind(), format!("admin {}: {e}", config.admin.address))
        })?)
    };
    let admin_addr = admin_listener.as_ref().and_then(|l| l.local_addr().ok());
    let listen: Vec<String> = bound.addrs.iter().map(|a| a.to_string()).collect();
    let named: Vec<(String, std::net::SocketAddr)> = config
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
    if let Some(l) = admin_listener {
        tokio::spawn(admin::serve(
            l,
            AdminState {
                shared: shared.clone(),
                draining: draining.clone(),
                warming: warming.clone(),
            },
        ));
    }
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sigint = signal(SignalKind::interrupt())?;
    let mut sighup = signal(SignalKind::hangup())?;
    // Clusters with a `discovery` get their providers from ZooKeeper; with `[registry]` the
    // listeners register there. No call is served before their first lists (or their
    // `initial_fetch_timeout_ms`): callers wait in the listen backlog meanwhile.
    let warm_since = std::time::Instant::now();
    let discovery = dubbo_proxy::discovery::start(shared.clone(), named)?;
    let cold = dubbo_proxy::discovery::warm_up(&shared, warm_since).await;
    if !cold.is_empty() {
        tracing::warn!(clusters = ?cold, "no provider list within initial_fetch_timeout_ms: serving without one");
    }
    let handle = engine::start(kind, shared.clone(), bound, workers)?;
    // Worked out with the listeners, the admin endpoint and the workers' own descriptors
    // open, so the reserve is all for what comes and goes.
    let fds = dubbo_proxy::fd_limit::callers_budget(shared.snapshot().config.limits.fd_reserve)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    shared.metrics.fds.set_limit(fds.callers);
    log_fd_limit(&shared, &fds);
    // What the workers freed goes back to the system from this thread, not theirs.
    tokio::spawn(trim_memory(shared.clone()));
    warming.store(false, Ordering::Relaxed);
    tracing::info!(listen = %listen.join(","), admin = ?admin_addr, workers, "dubbo-proxy started");
    {
        let mut out = std::io::stdout().lock();
        let admin = admin_addr.map(|a| a.to_string()).unwrap_or_default();
        let _ = writeln!(out, "READY listen={} admin={admin}", listen.join(","));
        let _ = out.flush();
    }
    loop {
        tokio::select! {
            _ = sigterm.recv() => break,
            _ = sigint.recv() => break,
            _ = sighup.recv() => {
                // Read at once; put in force by a task of its own, which may wait for the
                // clusters the reload adds (signals and the admin go on meanwhile).
                if let Some(config) = load_for_reload(&args, &shared) {
                    tokio::spawn(reload(shared.clone(), config));
                }
            }
        }
    }
    tracing::info!("shutting down: out of the registry, read-only event to callers, draining");
    discovery.stop();
    draining.store(true, Ordering::Relaxed);
    handle.shutdown();
    while !handle.is_finished() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    handle.join();
    tracing::info!("drained, bye");
    Ok(())
}

/// Says what the file descriptor limit allows, and warns when the listeners'
/// `max_connections` could not all be open at once within it.
fn log_fd_limit(shared: &Shared, fds: &dubbo_proxy::fd_limit::FdLimit) {
    if let Some(before) = fds.raised_from {
        tracing::info!(
            "RLIMIT_NOFILE: soft limit raised from {before} to {}",
            fds.soft
        );
    }
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
/// [`dubbo_proxy::memory`]).
async fn trim_memory(shared: Arc<Shared>) {
    let mut every = tokio::time::interval(dubbo_proxy::memory::TRIM_INTERVAL);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        shared.metrics.memory.tick();
    }
}

async fn reload(shared: Arc<Shared>, config: dubbo_proxy::config::Config) {
    match dubbo_proxy::discovery::reload(&shared, config).await {
        Some(warnings) => {
            for w in warnings {
                tracing::warn!("reload: {w}");
            }
            tracing::info!("configuration reloaded");
        }
        None => tracing::info!("reload replaced by a later one before it was in force"),
    }
}

/// The configuration file again, or `None` (logged and counted) when it is refused.
fn load_for_reload(args: &Args, shared: &Shared) -> Option<dubbo_proxy::config::Config> {
    match args.load() {
        Ok(c) => Some(c),
        Err(e) => {
            shared
                .metrics
                .reload_failures
                .fetch_add(1, Ordering::Relaxed);
            tracing::error!("reload refused, keeping the running configuration:\n{e}");
            None
        }
    }
}
