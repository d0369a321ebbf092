//! Calls through `dubbo-proxy` against the same calls made directly, on 127.0.0.1.
//!
//! An in-process Rust provider answers every call at once with a pre-encoded 1 KiB result;
//! the proxy runs in-process too (its library API, one worker per engine run). Closed loop:
//! every connection keeps one call in flight. For 1 and 64 connections, direct and proxied
//! rounds alternate (so drift on a shared machine hits both), each for a bounded time
//! (`PROXY_LOAD_MS`, default 1000 ms per round, 2 rounds). Prints throughput, p50/p99
//! latency and the proxied/direct ratios.
//!
//! `cargo bench -p benches --bench proxy_load`

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use dubbo_codec::response::{Outcome, RpcResult};
use dubbo_codec::{FrameCodec, Request};
use dubbo_proxy::config::{Config, EngineKind};
use dubbo_proxy::core::Shared;
use dubbo_proxy::engine;
use hessian2::value::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The engines compared (issue 6 adds `EngineKind::Epoll`).
const ENGINES: &[EngineKind] = &[EngineKind::Tokio];
const PAYLOAD: usize = 1024;

fn main() {
    let round = Duration::from_millis(
        std::env::var("PROXY_LOAD_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1000),
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let upstream = start_provider().await;
        for &kind in ENGINES {
            let proxy = start_proxy(kind, upstream);
            println!(
                "proxy_load: engine {kind:?}, payload {PAYLOAD} B, {round:?} per round, 2 rounds alternating"
            );
            println!(
                "{:>5} | {:>12} {:>8} {:>8} | {:>12} {:>8} {:>8} | {:>6} {:>9}",
                "conns", "direct/s", "p50 us", "p99 us", "proxy/s", "p50 us", "p99 us", "ratio", "+p50 us"
            );
            for conns in [1usize, 64] {
                let mut direct = Stats::default();
                let mut proxied = Stats::default();
                for _ in 0..2 {
                    direct.merge(load(upstream, conns, round).await);
                    proxied.merge(load(proxy, conns, round).await);
                }
                let (d50, d99) = direct.percentiles();
                let (p50, p99) = proxied.percentiles();
                println!(
                    "{:>5} | {:>12.0} {:>8} {:>8} | {:>12.0} {:>8} {:>8} | {:>6.2} {:>9}",
                    conns,
                    direct.rate(),
                    d50,
                    d99,
                    proxied.rate(),
                    p50,
                    p99,
                    proxied.rate() / direct.rate(),
                    p50 as i64 - d50 as i64
                );
            }
        }
    });
}

fn start_proxy(kind: EngineKind, upstream: SocketAddr) -> SocketAddr {
    let toml = format!(
        r#"
workers = 1
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
    let bound = engine::bind(&config).unwrap();
    let addr = bound.addrs[0];
    let shared = Shared::new(config, 1);
    let handle = engine::start(kind, shared, bound, 1).unwrap();
    // Runs until the process exits.
    std::mem::forget(handle);
    addr
}

async fn start_provider() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut result = BytesMut::new();
    RpcResult::new(Outcome::Value(Value::String("r".repeat(PAYLOAD))))
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
}

impl Stats {
    fn merge(&mut self, other: Stats) {
        self.calls += other.calls;
        self.elapsed += other.elapsed;
        self.latencies_us.extend(other.latencies_us);
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

/// `conns` connections, one call in flight each, for `dur`.
async fn load(addr: SocketAddr, conns: usize, dur: Duration) -> Stats {
    let req = Request::builder("com.example.Bench", "echo")
        .version("1.0.0")
        .arg("java.lang.String", &"q".repeat(PAYLOAD))
        .build()
        .unwrap()
        .to_frame(0, true);
    let mut wire = BytesMut::new();
    req.encode(&mut wire).unwrap();
    let wire = wire.freeze();
    let stop = Arc::new(AtomicBool::new(false));
    let t0 = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..conns {
        let wire = wire.clone();
        let stop = stop.clone();
        tasks.push(tokio::spawn(async move {
            let mut s = TcpStream::connect(addr).await.unwrap();
            s.set_nodelay(true).unwrap();
            let mut codec = FrameCodec::new();
            let mut buf = BytesMut::with_capacity(16 * 1024);
            let mut msg = wire.to_vec();
            let mut lat = Vec::with_capacity(100_000);
            let mut id = (c as u64) << 40;
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
                lat.push(t0.elapsed().as_micros().min(u32::MAX as u128) as u32);
            }
            lat
        }));
    }
    tokio::time::sleep(dur).await;
    stop.store(true, Ordering::Relaxed);
    let mut stats = Stats::default();
    for t in tasks {
        stats.latencies_us.extend(t.await.unwrap());
    }
    // From the first connect to the last answer: every call counted fell inside.
    stats.elapsed = t0.elapsed();
    stats.calls = stats.latencies_us.len() as u64;
    stats
}
