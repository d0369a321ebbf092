//! Calls through `dubbo-proxy`, on each engine, against the same calls made directly, on
//! 127.0.0.1, in one run and one table.
//!
//! An in-process Rust provider answers every call at once with a pre-encoded result of the
//! payload's size (one provider per payload); the proxies run in-process too (their library
//! API, one worker each, all started before the first round: the ones not measured idle).
//! Closed loop: every client connection keeps one call of the payload's size in flight.
//! For each payload (1 KiB, 64 KiB) and connection count (1, 64, 512), the targets take
//! turns, round after round (so drift on a shared machine hits all of them), each round for
//! a bounded time: `direct`, `tokio`, `epoll` (default `[epoll]` settings: no busy-poll,
//! large bodies forwarded by reference), `epoll-busy` (`busy_poll = true`, Netpoll's
//! `msec = 0 / -1`), `epoll-spin50` (`busy_poll_us = 50` as well: a 50 us spin) and
//! `epoll-copy` (`forward_by_reference = 0`: every body copied).
//!
//! Columns: calls/s over all rounds and the slowest-fastest round, latency percentiles,
//! ratios to the tokio engine and to direct calls, and the CPU time the proxy's worker
//! thread spent per call (from `/proc/self/task/TID/schedstat`): on a machine shared with
//! other work, throughput moves with what the neighbours do, CPU per call less so (not
//! immune: on a VM, the cost of waking a halted vCPU is charged to the thread that sleeps
//! and wakes). Before the table, the read path alone: the epoll engine's one `unsafe`
//! (reading into uninitialised capacity) against zeroing the room first.
//!
//! Environment: `PROXY_LOAD_MS` (per round, default 500), `PROXY_LOAD_ROUNDS` (default 3),
//! `PROXY_LOAD_CONNS` (default `1,64,512`), `PROXY_LOAD_PAYLOADS` (bytes, default
//! `1024,65536`), `PROXY_LOAD_TARGETS` (default
//! `direct,tokio,epoll,epoll-busy,epoll-spin50,epoll-copy`),
//! `PROXY_LOAD_WORKERS` (proxy worker threads, default 1).
//!
//! 512 connections need about 1,100 descriptors in this one process (client and server
//! side of every connection, twice for a proxied one): the soft `RLIMIT_NOFILE` is raised to
//! the hard limit with `prlimit` if it is lower than that.
//!
//! `cargo bench -p benches --bench proxy_load`

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use dubbo_codec::response::{Outcome, RpcResult};
use dubbo_codec::{FrameCodec, Request};
use dubbo_proxy::config::{Config, EngineKind, EpollOptions};
use dubbo_proxy::internals::{self as engine, Shared};
use hessian2::value::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

fn env_list(name: &str, default: &str) -> Vec<String> {
    std::env::var(name)
        .unwrap_or_else(|_| default.to_owned())
        .split(',')
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What a round measures: direct calls, or a proxy on an engine with these `[epoll]`
/// settings.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    Direct,
    Proxy(EngineKind, EpollOptions),
}

const TARGETS: [(&str, Target); 6] = [
    ("direct", Target::Direct),
    ("tokio", Target::Proxy(EngineKind::Tokio, EPOLL_DEFAULT)),
    ("epoll", Target::Proxy(EngineKind::Epoll, EPOLL_DEFAULT)),
    (
        "epoll-busy",
        Target::Proxy(
            EngineKind::Epoll,
            EpollOptions {
                busy_poll: true,
                ..EPOLL_DEFAULT
            },
        ),
    ),
    (
        "epoll-spin50",
        Target::Proxy(
            EngineKind::Epoll,
            EpollOptions {
                busy_poll: true,
                busy_poll_us: 50,
                ..EPOLL_DEFAULT
            },
        ),
    ),
    (
        "epoll-copy",
        Target::Proxy(
            EngineKind::Epoll,
            EpollOptions {
                forward_by_reference: 0,
                ..EPOLL_DEFAULT
            },
        ),
    ),
];

const EPOLL_DEFAULT: EpollOptions = EpollOptions::DEFAULT;

impl Target {
    fn parse(s: &str) -> Target {
        TARGETS
            .iter()
            .find(|t| t.0 == s)
            .unwrap_or_else(|| panic!("unknown target {s}"))
            .1
    }

    fn name(self) -> &'static str {
        TARGETS.iter().find(|t| t.1 == self).map_or("?", |t| t.0)
    }
}

fn main() {
    let round = Duration::from_millis(env_num("PROXY_LOAD_MS", 500));
    let rounds = env_num("PROXY_LOAD_ROUNDS", 3) as usize;
    let workers = env_num("PROXY_LOAD_WORKERS", 1) as usize;
    let conns: Vec<usize> = env_list("PROXY_LOAD_CONNS", "1,64,512")
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
    let payloads: Vec<usize> = env_list("PROXY_LOAD_PAYLOADS", "1024,65536")
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
    let targets: Vec<Target> = env_list(
        "PROXY_LOAD_TARGETS",
        "direct,tokio,epoll,epoll-busy,epoll-spin50,epoll-copy",
    )
    .iter()
    .map(|s| Target::parse(s))
    .collect();
    let max_conns = conns.iter().copied().max().unwrap_or(1) as u64;
    let need = max_conns * 2 + 128;
    let limit = dubbo_test_support::net::raise_fd_limit(need);
    if limit < need {
        eprintln!(
            "proxy_load: open files limited to {limit} (need {need}): the largest connection counts may fail"
        );
    }

    read_path();

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        println!(
            "proxy_load: {round:?} per round, {rounds} rounds alternating, {workers} proxy worker(s), load average {}",
            load_average()
        );
        println!(
            "{:>8} {:>6} {:>13} | {:>10} {:>15} {:>8} {:>8} | {:>8} {:>8} | {:>10}",
            "payload", "conns", "target", "calls/s", "rounds", "p50 us", "p99 us", "x tokio", "x direct", "cpu us/call"
        );
        for &payload in &payloads {
            let upstream = start_provider(payload).await;
            let addrs: Vec<(Target, SocketAddr, Vec<u32>)> = targets
                .iter()
                .map(|&t| {
                    let (addr, tids) = match t {
                        Target::Direct => (upstream, Vec::new()),
                        Target::Proxy(kind, epoll) => start_proxy(kind, epoll, upstream, workers),
                    };
                    (t, addr, tids)
                })
                .collect();
            // Warm up: connections to the provider open, caches and pools filled.
            for (_, addr, _) in &addrs {
                load(*addr, 4, payload, Duration::from_millis(100)).await;
            }
            for &n in &conns {
                let mut stats: Vec<Stats> = addrs.iter().map(|_| Stats::default()).collect();
                for _ in 0..rounds {
                    for (i, (_, addr, tids)) in addrs.iter().enumerate() {
                        let cpu0 = cpu_ns(tids);
                        let mut st = load(*addr, n, payload, round).await;
                        st.cpu_ns = cpu_ns(tids) - cpu0;
                        stats[i].merge(st);
                    }
                }
                let rate_of = |t: Target| {
                    addrs
                        .iter()
                        .position(|a| a.0 == t)
                        .map(|i| stats[i].rate())
                };
                let tokio = rate_of(Target::parse("tokio"));
                let direct = rate_of(Target::Direct);
                for (i, (t, _, tids)) in addrs.iter().enumerate() {
                    let t = *t;
                    let s = &mut stats[i];
                    let (p50, p99) = s.percentiles();
                    let ratio = |base: Option<f64>| match base {
                        Some(b) if b > 0.0 => format!("{:.2}", s.rate() / b),
                        _ => "-".to_owned(),
                    };
                    println!(
                        "{:>8} {:>6} {:>13} | {:>10.0} {:>15} {:>8} {:>8} | {:>8} {:>8} | {:>10}",
                        size(payload),
                        n,
                        t.name(),
                        s.rate(),
                        s.range(),
                        p50,
                        p99,
                        ratio(tokio),
                        ratio(direct),
                        if tids.is_empty() {
                            "-".to_owned()
                        } else {
                            format!("{:.1}", s.cpu_ns as f64 / 1e3 / s.calls.max(1) as f64)
                        },
                    );
                }
            }
        }
        println!("load average after: {}", load_average());
    });
}

/// The epoll engine's one `unsafe`, measured: reading a socket into a block's spare
/// capacity as uninitialised memory (`read_into`) against zeroing the room first so that a
/// safe `&mut [u8]` can be made (`read_zeroed`, room capped at 64 KiB), through a Unix
/// socket pair, in alternating batches; the block is of the class the engine reads such
/// messages into (4 KiB for 1 KiB messages, 256 KiB for 64 KiB ones).
fn read_path() {
    use dubbo_proxy::internals::{read_into, read_zeroed};
    use std::io::Write;
    use std::os::unix::net::UnixStream;
    let (mut a, mut b) = UnixStream::pair().unwrap();
    println!("read path: ns per message written and read back (best of 5 batches)");
    for (n, class) in [(1024usize, 4 << 10), (64 << 10, 256 << 10)] {
        let mut block = BytesMut::with_capacity(class);
        let data = vec![7u8; n];
        let mut best = [f64::MAX; 2];
        for _ in 0..5 {
            for (k, zeroed) in [false, true].into_iter().enumerate() {
                let iters = if n > 4096 { 2_000 } else { 20_000 };
                let t0 = Instant::now();
                for _ in 0..iters {
                    a.write_all(&data).unwrap();
                    let mut got = 0;
                    while got < n {
                        block.clear();
                        got += if zeroed {
                            read_zeroed(&mut b, &mut block, 64 << 10).unwrap()
                        } else {
                            read_into(&b, &mut block, usize::MAX).unwrap()
                        };
                    }
                }
                let ns = t0.elapsed().as_nanos() as f64 / iters as f64;
                best[k] = best[k].min(ns);
            }
        }
        println!(
            "  {:>7} into {:>7}: uninit {:>7.0} ns, zeroed {:>7.0} ns ({:+.0}%)",
            size(n),
            size(class),
            best[0],
            best[1],
            (best[1] / best[0] - 1.0) * 100.0
        );
    }
}

fn size(n: usize) -> String {
    if n % 1024 == 0 {
        format!("{} KiB", n / 1024)
    } else {
        format!("{n} B")
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// The threads of this process.
fn tids() -> Vec<u32> {
    std::fs::read_dir("/proc/self/task")
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// CPU time (ns) the threads have run, from `/proc/self/task/TID/schedstat`.
fn cpu_ns(tids: &[u32]) -> u64 {
    tids.iter()
        .filter_map(|t| {
            std::fs::read_to_string(format!("/proc/self/task/{t}/schedstat"))
                .ok()?
                .split_whitespace()
                .next()?
                .parse::<u64>()
                .ok()
        })
        .sum()
}

/// Starts a proxy: its address and its worker threads.
fn start_proxy(
    kind: EngineKind,
    epoll: EpollOptions,
    upstream: SocketAddr,
    workers: usize,
) -> (SocketAddr, Vec<u32>) {
    let toml = format!(
        r#"
workers = {workers}
[admin]
address = ""
[log]
level = "warn"
[[listeners]]
address = "127.0.0.1:0"
[[routes]]
cluster = "c"
[clusters.c]
endpoints = [{{ address = "{upstream}" }}]
"#
    );
    let mut config = Config::from_toml(&toml).unwrap();
    config.engine = kind;
    config.epoll = epoll;
    let bound = engine::bind(&config).unwrap();
    let addr = bound.addrs[0];
    let shared = Shared::new(config, workers);
    let before = tids();
    let handle = engine::start(kind, shared, bound, workers).unwrap();
    // Runs until the process exits.
    std::mem::forget(handle);
    let mut new: Vec<u32> = tids().into_iter().filter(|t| !before.contains(t)).collect();
    new.sort_unstable();
    (addr, new)
}

async fn start_provider(payload: usize) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut result = BytesMut::new();
    RpcResult::new(Outcome::Value(Value::String("r".repeat(payload))))
        .to_frame(0)
        .encode(&mut result)
        .unwrap();
    let result = result.freeze();
    tokio::spawn(async move {
        loop {
            let Ok((s, _)) = listener.accept().await else {
                return;
            };
            let _ = s.set_nodelay(true);
            let result = result.clone();
            tokio::spawn(async move {
                let (mut rd, mut wr) = s.into_split();
                let mut codec = FrameCodec::new();
                let mut buf = BytesMut::with_capacity(64 * 1024);
                let mut out = BytesMut::with_capacity(64 * 1024);
                loop {
                    match rd.read_buf(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {}
                    }
                    while let Ok(Some(f)) = codec.decode_frame(&mut buf) {
                        let h = f.header();
                        if h.is_event() && h.is_two_way() {
                            dubbo_codec::Frame::heartbeat_response(f.request_id())
                                .encode(&mut out)
                                .unwrap();
                        } else if h.is_request() && h.is_two_way() {
                            let start = out.len();
                            out.extend_from_slice(&result);
                            out[start + 4..start + 12]
                                .copy_from_slice(&f.request_id().to_be_bytes());
                        }
                    }
                    if !out.is_empty() {
                        if wr.write_all(&out).await.is_err() {
                            return;
                        }
                        out.clear();
                    }
                }
            });
        }
    });
    addr
}

#[derive(Default)]
struct Stats {
    calls: u64,
    elapsed: Duration,
    latencies_us: Vec<u32>,
    /// CPU time of the proxy's threads.
    cpu_ns: u64,
    /// Calls/s of each round.
    rounds: Vec<f64>,
}

impl Stats {
    fn merge(&mut self, other: Stats) {
        self.calls += other.calls;
        self.cpu_ns += other.cpu_ns;
        self.elapsed += other.elapsed;
        self.latencies_us.extend(other.latencies_us);
        self.rounds.extend(other.rounds);
    }

    /// The slowest and fastest round's calls/s.
    fn range(&self) -> String {
        let lo = self.rounds.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = self.rounds.iter().copied().fold(0.0, f64::max);
        format!("{:.0}-{:.0}", lo, hi)
    }

    fn rate(&self) -> f64 {
        self.calls as f64 / self.elapsed.as_secs_f64()
    }

    fn percentiles(&mut self) -> (u32, u32) {
        self.latencies_us.sort_unstable();
        let n = self.latencies_us.len().max(1);
        let at = |q: f64| {
            self.latencies_us
                .get(((n as f64 * q) as usize).min(n - 1))
                .copied()
                .unwrap_or(0)
        };
        (at(0.5), at(0.99))
    }
}

/// `conns` connections, one call of `payload` bytes in flight each, for `dur` once all are
/// connected (calls answered after `dur` are not counted).
async fn load(addr: SocketAddr, conns: usize, payload: usize, dur: Duration) -> Stats {
    let req = Request::builder("com.example.Bench", "echo")
        .version("1.0.0")
        .arg("java.lang.String", &"q".repeat(payload))
        .build()
        .unwrap()
        .to_frame(0, true);
    let mut wire = BytesMut::new();
    req.encode(&mut wire).unwrap();
    let wire = wire.freeze();
    let mut streams = Vec::with_capacity(conns);
    for _ in 0..conns {
        let s = TcpStream::connect(addr).await.unwrap();
        s.set_nodelay(true).unwrap();
        streams.push(s);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let start = Arc::new(tokio::sync::Barrier::new(conns + 1));
    let mut tasks = Vec::new();
    for (c, mut s) in streams.into_iter().enumerate() {
        let wire = wire.clone();
        let stop = stop.clone();
        let start = start.clone();
        tasks.push(tokio::spawn(async move {
            let mut codec = FrameCodec::new();
            let mut buf = BytesMut::with_capacity(16 * 1024);
            let mut msg = wire.to_vec();
            let mut lat = Vec::with_capacity(10_000);
            let mut id = (c as u64) << 40;
            start.wait().await;
            while !stop.load(Ordering::Relaxed) {
                id += 1;
                msg[4..12].copy_from_slice(&id.to_be_bytes());
                let t0 = Instant::now();
                s.write_all(&msg).await.unwrap();
                loop {
                    if let Some(f) = codec.decode_frame(&mut buf).unwrap() {
                        assert_eq!(f.request_id(), id);
                        break;
                    }
                    if s.read_buf(&mut buf).await.unwrap() == 0 {
                        panic!("connection closed");
                    }
                }
                if !stop.load(Ordering::Relaxed) {
                    lat.push(t0.elapsed().as_micros().min(u32::MAX as u128) as u32);
                }
            }
            lat
        }));
    }
    start.wait().await;
    let t0 = Instant::now();
    tokio::time::sleep(dur).await;
    stop.store(true, Ordering::Relaxed);
    let elapsed = t0.elapsed();
    let mut stats = Stats::default();
    for t in tasks {
        stats.latencies_us.extend(t.await.unwrap());
    }
    stats.elapsed = elapsed;
    stats.calls = stats.latencies_us.len() as u64;
    stats.rounds.push(stats.rate());
    stats
}
