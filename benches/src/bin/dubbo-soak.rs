//! `dubbo-soak`: the chaos soak of `dubbo-proxy` (issue 17).
//!
//! ```text
//! dubbo-soak provider [--port P]        the echo provider (started by `run`, one process each)
//! dubbo-soak run --proxy-bin PATH [--engine tokio|epoll] [--calls N] [--callers 64]
//!                [--seed S] [--rate CALLS_PER_S] [--short] [--zookeeper]
//!                [--misanswer-every N] [--faults kill,stop,reload,disconnect,zookeeper]
//!                [--warmup-secs S] [--hostile-frames N] [--malloc-stats] [--smaps DIR]
//!                [--no-warmup-faults] [--rss-tolerance-kib N]
//! ```
//!
//! `run` starts 3 providers and the proxy, drives `--callers` callers whose every call carries
//! a unique token the provider echoes, and meanwhile SIGKILLs and restarts providers, SIGSTOPs
//! one past the route timeout, reloads the proxy without a provider and with it again, and
//! drops caller connections with calls in flight, in an order and with gaps drawn from the
//! seed. It prints a Markdown table row and a `SOAK key=value ...` line, and exits 1 when a
//! call was never answered or answered with another call's token, a fault kind was not
//! applied, or the proxy's fds did not come back (2 on a usage error).
//! `--zookeeper`: the providers register in a real ZooKeeper (Debian's `zookeeper` package)
//! that the proxy's cluster discovers them from, a reload takes a provider out by its data
//! centre's weight, and the schedule also SIGKILLs and restarts ZooKeeper.
//! `--warmup-secs` (1 with `--short`, else 20): load without faults before the baseline of
//! the proxy's fds and RSS is taken.
//! `--faults`: the kinds each cycle applies (default: all; `zookeeper` with `--zookeeper` only),
//! to tell which fault a change of memory or fds follows.
//! `--misanswer-every N`: the providers answer every N-th echo with the previous call's token,
//! as a proxy that mixed answers up would; the run must fail (the test of the checker).
//! `--hostile-frames N` (1,000 with `--short`, else 10,000): bad frames (bad magic, 2 GiB length
//! claims, garbage bodies, truncated frames) sent on connections of their own during the load;
//! the table reports the proxy's peak and retained RSS per MiB of them.
//! `--malloc-stats`: the proxy's live heap at the baseline and after the drain, as glibc's
//! `malloc_stats` counts it (gdb attaches to the proxy for each; see `benches/soak/README.md`).
//! After the warm-up (not with `--short` or `--no-warmup-faults`) one untimed cycle of every
//! fault kind runs under the same load, with a tenth of the hostile frames, before the
//! baseline is read; the RSS read before that cycle is printed as the pre-fault baseline.
//! `--rss-tolerance-kib N` (default [`soak::RSS_TOLERANCE_KIB`] in the long run, unchecked with
//! `--short`): the run fails when the proxy's RSS after the drain is more than N KiB over the
//! baseline (`rss_back=PASS|FAIL` in the `SOAK` line).
//! `--smaps DIR`: the proxy's `/proc/PID/smaps` saved at each memory reading (`baseline.smaps`,
//! `end.smaps`), to tell per mapping what a step of RSS is.
//! `--short` is the run of the test suite: at least 2,000 calls at 500/s, one fault cycle.

use std::path::PathBuf;

use benches::soak::{self, provider, report::HEADER, Fault, Options};

/// The command line (see the module docs).
#[derive(Debug, clap::Parser)]
#[command(name = "dubbo-soak", about = "The chaos soak of dubbo-proxy")]
enum Cli {
    /// The echo provider (started by `run`, one process each).
    Provider {
        /// Port on 127.0.0.1 (0: the kernel's pick).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// Registers in this registry (zookeeper://HOST:PORT?session=MS).
        #[arg(long, value_name = "URL")]
        zookeeper: Option<String>,
        /// The `idc` parameter of its registration.
        #[arg(long, default_value = "")]
        idc: String,
        /// Answers every N-th echo with the previous call's token (0: never).
        #[arg(long, default_value_t = 0)]
        misanswer_every: u64,
    },
    /// The soak: providers, the proxy, callers and the fault schedule.
    Run(RunArgs),
}

/// `dubbo-soak run`'s options.
#[derive(Debug, clap::Args)]
struct RunArgs {
    /// The dubbo-proxy binary.
    #[arg(long, value_name = "PATH")]
    proxy_bin: PathBuf,
    /// The proxy's engine.
    #[arg(long, default_value = "tokio", value_parser = ["tokio", "epoll"])]
    engine: String,
    /// Calls in all.
    #[arg(long)]
    calls: Option<u64>,
    /// Callers (connections).
    #[arg(long)]
    callers: Option<u32>,
    /// The fault schedule's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Calls per second.
    #[arg(long, value_name = "CALLS_PER_S")]
    rate: Option<f64>,
    /// The test suite's run: 2,000 calls at 500/s, one fault cycle.
    #[arg(long)]
    short: bool,
    /// Providers register in a real ZooKeeper the proxy discovers them from.
    #[arg(long)]
    zookeeper: bool,
    /// Providers answer every N-th echo with the previous call's token.
    #[arg(long, default_value_t = 0)]
    misanswer_every: u64,
    /// The fault kinds each cycle applies, comma-separated.
    #[arg(long, value_delimiter = ',', value_parser = fault, value_name = "kill,stop,reload,disconnect,zookeeper")]
    faults: Option<Vec<Fault>>,
    /// Seconds of load without faults before the baseline.
    #[arg(long, value_name = "S")]
    warmup_secs: Option<f64>,
    /// Bad frames sent during the load.
    #[arg(long, value_name = "N")]
    hostile_frames: Option<u64>,
    /// The proxy's live heap (glibc malloc_stats, through gdb).
    #[arg(long)]
    malloc_stats: bool,
    /// Saves the proxy's smaps at each memory reading in DIR.
    #[arg(long, value_name = "DIR")]
    smaps: Option<PathBuf>,
    /// No untimed fault cycle after the warm-up.
    #[arg(long)]
    no_warmup_faults: bool,
    /// How far over its baseline the proxy's RSS may end, in KiB.
    #[arg(long, value_name = "N")]
    rss_tolerance_kib: Option<u64>,
}

fn fault(name: &str) -> Result<Fault, String> {
    Fault::from_name(name).ok_or_else(|| format!("unknown fault {name:?}"))
}

fn main() {
    match <Cli as clap::Parser>::parse() {
        Cli::Provider {
            port,
            zookeeper,
            idc,
            misanswer_every,
        } => {
            let options = provider::ProviderOptions {
                registered: zookeeper.map(|registry| provider::Registered { registry, idc }),
                misanswer_every,
            };
            if let Err(e) = provider::main(port, options) {
                eprintln!("dubbo-soak provider: {e}");
                std::process::exit(1);
            }
        }
        Cli::Run(args) => run(args),
    }
}

fn run(args: RunArgs) {
    let RunArgs {
        proxy_bin,
        engine,
        calls,
        callers,
        seed,
        rate,
        short,
        zookeeper,
        misanswer_every,
        faults,
        warmup_secs,
        hostile_frames,
        malloc_stats,
        smaps,
        no_warmup_faults,
        rss_tolerance_kib: rss_tolerance,
    } = args;
    let mut opts = Options::short(proxy_bin, &engine, seed);
    if !short {
        // The long run: 200,000 calls at 2,000/s, a fault every 1-4 s, after a 20 s warm-up.
        opts.calls = 200_000;
        opts.rate = 2000.0;
        opts.gaps_ms = (1000, 4000);
        opts.warmup = std::time::Duration::from_secs(20);
        opts.hostile_frames = 10_000;
        opts.settle = std::time::Duration::from_secs(3);
        opts.warmup_faults = true;
        opts.rss_tolerance = Some(soak::RSS_TOLERANCE_KIB);
    }
    if no_warmup_faults {
        opts.warmup_faults = false;
    }
    opts.rss_tolerance = rss_tolerance.or(opts.rss_tolerance);
    opts.hostile_frames = hostile_frames.unwrap_or(opts.hostile_frames);
    opts.calls = calls.unwrap_or(opts.calls);
    opts.callers = callers.unwrap_or(opts.callers);
    opts.rate = rate.unwrap_or(opts.rate);
    opts.zookeeper = zookeeper;
    opts.misanswer_every = misanswer_every;
    opts.faults = faults;
    opts.malloc_stats = malloc_stats;
    opts.smaps = smaps;
    if let Some(s) = warmup_secs {
        opts.warmup = std::time::Duration::from_secs_f64(s.max(0.1));
    }
    if opts.callers == 0 || opts.rate <= 0.0 {
        eprintln!("dubbo-soak: --callers and --rate must be positive");
        std::process::exit(2);
    }
    match soak::run(&opts) {
        Ok(report) => {
            println!("{HEADER}\n{}", report.row());
            println!("{}", report.line());
            for e in &report.tally.examples {
                println!("example: {e}");
            }
            let failures = report.failures();
            if failures.is_empty() {
                println!("PASS");
            } else {
                println!("FAIL: {}", failures.join("; "));
                std::process::exit(1);
            }
        }
        Err(e) => {
            eprintln!("dubbo-soak: {e}");
            std::process::exit(1);
        }
    }
}
