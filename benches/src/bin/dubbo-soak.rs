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

fn usage(msg: &str) -> ! {
    eprintln!("dubbo-soak: {msg}");
    eprintln!(
        "usage: dubbo-soak provider [--port P]\n       dubbo-soak run --proxy-bin PATH \
         [--engine tokio|epoll] [--calls N] [--callers 64] [--seed S] [--rate CALLS_PER_S] [--short] [--zookeeper] [--misanswer-every N]\n       \
         [--faults kill,stop,reload,disconnect,zookeeper] [--warmup-secs S] [--hostile-frames N] [--malloc-stats] [--smaps DIR]\n       [--no-warmup-faults] [--rss-tolerance-kib N]"
    );
    std::process::exit(2)
}

fn value<T: std::str::FromStr>(args: &mut impl Iterator<Item = String>, name: &str) -> T {
    let v = args
        .next()
        .unwrap_or_else(|| usage(&format!("missing value for {name}")));
    v.parse()
        .unwrap_or_else(|_| usage(&format!("bad value {v:?} for {name}")))
}

fn main() {
    let mut args = std::env::args().skip(1);
    match args.next().as_deref() {
        Some("provider") => {
            let mut port = 0u16;
            let (mut registry, mut idc) = (None, String::new());
            let mut misanswer_every = 0;
            while let Some(a) = args.next() {
                match a.as_str() {
                    "--port" => port = value(&mut args, &a),
                    "--zookeeper" => registry = Some(value(&mut args, &a)),
                    "--idc" => idc = value(&mut args, &a),
                    "--misanswer-every" => misanswer_every = value(&mut args, &a),
                    _ => usage(&format!("unknown option {a}")),
                }
            }
            let options = provider::ProviderOptions {
                registered: registry.map(|registry| provider::Registered { registry, idc }),
                misanswer_every,
            };
            if let Err(e) = provider::main(port, options) {
                eprintln!("dubbo-soak provider: {e}");
                std::process::exit(1);
            }
        }
        Some("run") => run(args),
        _ => usage("the first argument is `provider` or `run`"),
    }
}

fn run(mut args: impl Iterator<Item = String>) {
    let mut proxy_bin: Option<PathBuf> = None;
    let mut engine = "tokio".to_owned();
    let mut seed = 1u64;
    let mut short = false;
    let mut zookeeper = false;
    let mut misanswer_every = 0;
    let mut faults = None;
    let mut warmup_secs: Option<f64> = None;
    let mut hostile_frames: Option<u64> = None;
    let mut malloc_stats = false;
    let mut smaps = None;
    let mut no_warmup_faults = false;
    let mut rss_tolerance = None;
    let (mut calls, mut callers, mut rate) = (None, None, None);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--proxy-bin" => proxy_bin = Some(value(&mut args, &a)),
            "--engine" => engine = value(&mut args, &a),
            "--calls" => calls = Some(value(&mut args, &a)),
            "--callers" => callers = Some(value(&mut args, &a)),
            "--seed" => seed = value(&mut args, &a),
            "--rate" => rate = Some(value(&mut args, &a)),
            "--short" => short = true,
            "--zookeeper" => zookeeper = true,
            "--misanswer-every" => misanswer_every = value(&mut args, &a),
            "--warmup-secs" => warmup_secs = Some(value(&mut args, &a)),
            "--hostile-frames" => hostile_frames = Some(value(&mut args, &a)),
            "--malloc-stats" => malloc_stats = true,
            "--smaps" => smaps = Some(value(&mut args, &a)),
            "--no-warmup-faults" => no_warmup_faults = true,
            "--rss-tolerance-kib" => rss_tolerance = Some(value(&mut args, &a)),
            "--faults" => {
                let names: String = value(&mut args, &a);
                let kinds = names.split(',').map(|n| {
                    Fault::from_name(n).unwrap_or_else(|| usage(&format!("unknown fault {n:?}")))
                });
                faults = Some(kinds.collect());
            }
            _ => usage(&format!("unknown option {a}")),
        }
    }
    let proxy_bin = proxy_bin.unwrap_or_else(|| usage("--proxy-bin is required"));
    if !matches!(engine.as_str(), "tokio" | "epoll") {
        usage("--engine is tokio or epoll");
    }
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
        usage("--callers and --rate must be positive");
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
