//! `dubbo-proxy`: see the crate documentation and `dubbo-proxy --help`.
//!
//! The main thread reads the configuration, raises the soft `RLIMIT_NOFILE` to the hard one
//! (what a library leaves to its host process), starts a [`Server`] (listeners, admin port,
//! discovery, workers), prints one `READY` line (so scripts and tests learn the ports, also
//! when they asked for port 0), and then waits for signals: SIGHUP reloads the configuration
//! file without touching any connection, SIGTERM / SIGINT drain and exit.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use tokio::signal::unix::{signal, SignalKind};
use tracing_subscriber::EnvFilter;

use dubbo_proxy::cli::Args;
use dubbo_proxy::Server;

fn main() -> ExitCode {
    // Before any thread allocates (see `memory::pin_thresholds`).
    dubbo_proxy::pin_malloc_thresholds();
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
    if let (soft, Some(before)) = dubbo_proxy::raise_fd_limit() {
        tracing::info!("RLIMIT_NOFILE: soft limit raised from {before} to {soft}");
    }

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
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sigint = signal(SignalKind::interrupt())?;
    let mut sighup = signal(SignalKind::hangup())?;
    let server = Server::start(config).await?;
    {
        let listen: Vec<String> = server
            .listen_addrs()
            .iter()
            .map(|a| a.to_string())
            .collect();
        let admin = server
            .admin_addr()
            .map(|a| a.to_string())
            .unwrap_or_default();
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "READY listen={} admin={admin}", listen.join(","));
        let _ = out.flush();
    }
    loop {
        tokio::select! {
            _ = sigterm.recv() => break,
            _ = sigint.recv() => break,
            _ = sighup.recv() => match args.load() {
                // Read at once; put in force by a task of its own, which may wait for the
                // clusters the reload adds (signals and the admin go on meanwhile).
                Ok(config) => drop(tokio::spawn(server.reload(config))),
                Err(e) => server.refuse_reload(&e),
            },
        }
    }
    server.shutdown().await;
    Ok(())
}
