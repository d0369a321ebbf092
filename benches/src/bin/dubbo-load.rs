//! `dubbo-load`: a Dubbo load generator (tokio) for the Java demo provider
//! (`interop/dubbo-java`, `io.github.hessianrs.demo.DemoService:1.0.0`), directly or through a
//! proxy.
//!
//! ```text
//! dubbo-load --target 127.0.0.1:20880 [--connections N] [--inflight M] [--rate CALLS_PER_S]
//!            [--duration SECS] [--warmup SECS] [--payload BYTES] [--method sayHello|doNothing]
//!            [--threads T] [--timeout-ms MS] [--group G] [--attach K=V]... [--label NAME]
//!            [--tls-ca CA.pem [--tls-cert CERT.pem --tls-key KEY.pem] [--tls-no-resumption]]
//!            [--connection-per-call]
//! ```
//!
//! With `--tls-ca` every connection is TLS (dubbo-rpc's rustls client), its handshake made
//! before the warm-up, so the measurement sees records, not handshakes.
//!
//! * `--connection-per-call` (closed loop): N callers, each opening a connection, making one
//!   call over it and closing it, again and again: with TLS, calls/s are handshakes/s.
//!   Sessions are resumed (TLS 1.3 tickets, rustls's in-memory cache shared by all the
//!   connections) unless `--tls-no-resumption`: then every handshake is a full one.
//!
//! * closed loop (default, `--rate 0`): N connections, M calls in flight on each; a call is sent
//!   as soon as the previous one of its slot is answered. Latency = send to answer.
//! * open loop (`--rate R`): R calls per second in total, spread over the N connections, each
//!   with at most M in flight (a call that finds no free slot waits for one). Latency is
//!   measured from the call's *scheduled* time, so queueing behind a slow server counts
//!   (no coordinated omission).
//!
//! `sayHello` sends a string of `--payload` bytes (ASCII) and checks that the answer is
//! `"Hello, " + it` (the provider's echo); `doNothing` has no argument and a null answer.
//! The request is encoded once; each call re-sends it with a fresh id.
//!
//! Output: one machine-readable line
//! `RESULT label=.. mode=.. conns=.. inflight=.. payload=.. secs=.. calls=.. ok=.. errors=..
//! rps=.. p50_us=.. p99_us=.. p999_us=.. max_us=.. [err_<kind>=n ...]`, then a human line.
//! Exit status 0 when at least one call succeeded, 1 otherwise, 2 on a usage error.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use benches::cli::{at_least_one, positive};
use benches::load_stats::{closed_loop, short, Stats};
use dubbo_codec::frame::Frame;
use dubbo_codec::request::Request;
use dubbo_codec::response::{Outcome, Response};
use dubbo_rpc::client::{CallError, Client, ClientConfig};
use dubbo_rpc::tls::ClientTls;
use hessian2::value::Value;

const DEMO: &str = "io.github.hessianrs.demo.DemoService";

/// The command line (see the module docs).
#[derive(Debug, Clone, clap::Parser)]
#[command(
    name = "dubbo-load",
    about = "A Dubbo load generator for the Java demo provider"
)]
struct Opts {
    /// The provider or proxy, HOST:PORT.
    #[arg(long)]
    target: String,
    /// Connections.
    #[arg(long, default_value_t = 1, value_parser = at_least_one)]
    connections: usize,
    /// Calls in flight per connection.
    #[arg(long, default_value_t = 1, value_parser = at_least_one)]
    inflight: usize,
    /// Calls per second in total (open loop); 0: closed loop.
    #[arg(long, default_value_t = 0.0)]
    rate: f64,
    /// Seconds measured.
    #[arg(long, default_value_t = 5.0, value_parser = positive)]
    duration: f64,
    /// Seconds of load before the measurement.
    #[arg(long, default_value_t = 1.0)]
    warmup: f64,
    /// Bytes of the sayHello argument.
    #[arg(long, default_value_t = 16)]
    payload: usize,
    /// The method called.
    #[arg(long, default_value = "sayHello", value_parser = ["sayHello", "doNothing"])]
    method: String,
    /// Tokio worker threads.
    #[arg(long, default_value_t = 2, value_parser = at_least_one)]
    threads: usize,
    /// Each call's timeout.
    #[arg(long, default_value_t = 5000)]
    timeout_ms: u64,
    /// The `group` attachment.
    #[arg(long)]
    group: Option<String>,
    /// An attachment K=V (repeatable).
    #[arg(long, value_parser = key_value)]
    attach: Vec<(String, String)>,
    /// The label of the RESULT line.
    #[arg(long, default_value = "run")]
    label: String,
    /// TLS: the CA (PEM) the target's certificate must be signed by; without it, plain TCP.
    #[arg(long)]
    tls_ca: Option<std::path::PathBuf>,
    /// TLS: the client certificate chain (PEM) presented to a target that asks for one.
    #[arg(long, requires_all = ["tls_ca", "tls_key"])]
    tls_cert: Option<std::path::PathBuf>,
    /// TLS: the client certificate's private key (PEM).
    #[arg(long, requires_all = ["tls_ca", "tls_cert"])]
    tls_key: Option<std::path::PathBuf>,
    /// TLS: no session resumption (every handshake a full one).
    #[arg(long, requires = "tls_ca")]
    tls_no_resumption: bool,
    /// A new connection for every call, closed after it (closed loop only).
    #[arg(long, conflicts_with = "rate")]
    connection_per_call: bool,
}

/// `K=V` with a non-empty K.
fn key_value(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.into(), v.into())),
        _ => Err("expected K=V".into()),
    }
}

/// A usage error after parsing: exits 2, as clap does for its own.
fn usage(msg: &str) -> ! {
    eprintln!("dubbo-load: {msg}");
    std::process::exit(2)
}

fn classify(r: Result<Frame, CallError>, expect_len: Option<usize>) -> Result<(), String> {
    let f = match r {
        Ok(f) => f,
        Err(CallError::Timeout { .. }) => return Err("timeout".into()),
        Err(CallError::Closed(_)) => return Err("closed".into()),
        Err(CallError::Connect { .. } | CallError::ConnectTimeout { .. }) => {
            return Err("connect".into())
        }
        Err(CallError::PayloadTooLarge(_)) => return Err("too_large".into()),
        Err(e) => return Err(format!("client_{}", short(&e.to_string()))),
    };
    match Response::from_frame(&f) {
        Ok(Response::Result(r)) => match (r.outcome, expect_len) {
            (Outcome::Value(Value::String(s)), Some(n)) if s.len() == n => Ok(()),
            (Outcome::Null, None) => Ok(()),
            (Outcome::Exception(_), _) => Err("exception".into()),
            _ => Err("wrong_answer".into()),
        },
        Ok(Response::Error { status, .. }) => {
            Err(format!("status_{}", short(&format!("{status:?}"))))
        }
        Err(_) => Err("bad_body".into()),
    }
}

fn main() {
    let o = <Opts as clap::Parser>::parse();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(o.threads)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let code = rt.block_on(run(o));
    std::process::exit(code);
}

async fn run(o: Opts) -> i32 {
    let mut b = Request::builder(DEMO, o.method.as_str()).version("1.0.0");
    if let Some(g) = &o.group {
        b = b.group(g.clone());
    }
    for (k, v) in &o.attach {
        b = b.attach(k.clone(), v.clone());
    }
    let expect_len = if o.method == "sayHello" {
        let s: String = (0..o.payload)
            .map(|i| (b'a' + (i % 26) as u8) as char)
            .collect();
        b = b.arg("java.lang.String", &s);
        Some(o.payload + "Hello, ".len())
    } else {
        None
    };
    let req = match b.build() {
        Ok(r) => r,
        Err(e) => usage(&format!("request: {e}")),
    };
    let frame = req.to_frame(0, true);
    let timeout = Duration::from_millis(o.timeout_ms);
    let config = ClientConfig::default().timeout(timeout).reconnect(true);
    let tls = o.tls_ca.as_ref().map(|ca| {
        let mut b = ClientTls::builder(ca);
        if let (Some(cert), Some(key)) = (&o.tls_cert, &o.tls_key) {
            b = b.identity(cert, key);
        }
        let tls = b.build().unwrap_or_else(|e| usage(&format!("TLS: {e}")));
        if !o.tls_no_resumption {
            return tls;
        }
        let mut config = (**tls.config()).clone();
        config.resumption = rustls::client::Resumption::disabled();
        ClientTls::from_config(Arc::new(config), None)
            .unwrap_or_else(|e| usage(&format!("TLS: {e}")))
    });
    if o.connection_per_call {
        let config = config.reconnect(false);
        return per_call(&o, config, tls, frame, expect_len).await;
    }
    let mut clients = Vec::new();
    for _ in 0..o.connections {
        match connect(&o.target, &config, tls.as_ref()).await {
            Ok(c) => clients.push(c),
            Err(e) => {
                eprintln!("dubbo-load: connect {}: {e}", o.target);
                println!(
                    "RESULT label={} calls=0 ok=0 errors=1 err_connect=1",
                    o.label
                );
                return 1;
            }
        }
    }
    let start = Instant::now();
    let measure_from = start + Duration::from_secs_f64(o.warmup);
    let end = measure_from + Duration::from_secs_f64(o.duration);
    let stats: Arc<Mutex<Stats>> = Arc::new(Mutex::new(Stats::new()));
    let mut tasks = Vec::new();
    if o.rate <= 0.0 {
        for c in &clients {
            for _ in 0..o.inflight {
                let c = c.clone();
                let frame = frame.clone();
                let stats = stats.clone();
                tasks.push(tokio::spawn(async move {
                    let local = closed_loop(measure_from, end, || async {
                        let r = c.send_frame(frame.clone(), timeout).await;
                        classify(r, expect_len)
                    })
                    .await;
                    stats.lock().unwrap().merge(&local);
                }));
            }
        }
    } else {
        let per_conn = o.rate / o.connections as f64;
        let stop = Arc::new(AtomicBool::new(false));
        for (i, c) in clients.iter().enumerate() {
            let c = c.clone();
            let frame = frame.clone();
            let stats = stats.clone();
            let sem = Arc::new(tokio::sync::Semaphore::new(o.inflight));
            let _ = &stop;
            tasks.push(tokio::spawn(async move {
                let period = Duration::from_secs_f64(1.0 / per_conn);
                // stagger the connections' schedules over one period
                let first = start + period.mul_f64(i as f64 / o.connections as f64);
                let mut n: u32 = 0;
                let mut calls = Vec::new();
                loop {
                    let due = first + period * n;
                    n += 1;
                    if due >= end {
                        break;
                    }
                    tokio::time::sleep_until(due.into()).await;
                    let permit = sem.clone().acquire_owned().await.unwrap();
                    let c = c.clone();
                    let frame = frame.clone();
                    let stats = stats.clone();
                    calls.push(tokio::spawn(async move {
                        let r = c.send_frame(frame, timeout).await;
                        drop(permit);
                        let t1 = Instant::now();
                        if due >= measure_from && t1 <= end + timeout {
                            stats
                                .lock()
                                .unwrap()
                                .record(classify(r, expect_len), (t1 - due).as_micros() as u64);
                        }
                    }));
                    if calls.len() >= 4096 {
                        calls.retain(|h: &tokio::task::JoinHandle<()>| !h.is_finished());
                    }
                }
                for h in calls {
                    let _ = h.await;
                }
            }));
        }
    }
    for t in tasks {
        let _ = t.await;
    }
    let s = stats.lock().unwrap();
    report(&o, &s)
}

/// A connection to `target`, over TLS with `tls`.
async fn connect(
    target: &str,
    config: &ClientConfig,
    tls: Option<&ClientTls>,
) -> Result<Client, CallError> {
    match tls {
        None => Client::connect_with(target, config.clone()).await,
        Some(tls) => Client::connect_tls(target, config.clone(), tls.clone()).await,
    }
}

/// `--connection-per-call`: each of the N callers connects, calls once and closes, until the
/// end; latency counts from the connect (with TLS: the handshake) to the answer.
async fn per_call(
    o: &Opts,
    config: ClientConfig,
    tls: Option<ClientTls>,
    frame: Frame,
    expect_len: Option<usize>,
) -> i32 {
    let timeout = Duration::from_millis(o.timeout_ms);
    let measure_from = Instant::now() + Duration::from_secs_f64(o.warmup);
    let end = measure_from + Duration::from_secs_f64(o.duration);
    let stats: Arc<Mutex<Stats>> = Arc::new(Mutex::new(Stats::new()));
    let mut tasks = Vec::new();
    for _ in 0..o.connections {
        let (target, config, tls) = (o.target.clone(), config.clone(), tls.clone());
        let (frame, stats) = (frame.clone(), stats.clone());
        tasks.push(tokio::spawn(async move {
            let local = closed_loop(measure_from, end, || async {
                let r = match connect(&target, &config, tls.as_ref()).await {
                    Ok(c) => c.send_frame(frame.clone(), timeout).await,
                    Err(e) => Err(e),
                };
                classify(r, expect_len)
            })
            .await;
            stats.lock().unwrap().merge(&local);
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    let s = stats.lock().unwrap();
    report(o, &s)
}

/// Prints the RESULT line and the human one; the exit status.
fn report(o: &Opts, s: &Stats) -> i32 {
    let secs = o.duration;
    let errors: u64 = s.errors.values().sum();
    let calls = s.ok + errors;
    let rps = s.ok as f64 / secs;
    let q = |p: f64| {
        if s.ok == 0 {
            0
        } else {
            s.hist.value_at_quantile(p)
        }
    };
    let (p50, p99, p999, max) = (
        q(0.5),
        q(0.99),
        q(0.999),
        if s.ok == 0 { 0 } else { s.hist.max() },
    );
    let mode = if o.rate > 0.0 {
        format!("open:{}", o.rate)
    } else if o.connection_per_call {
        "connection-per-call".into()
    } else {
        "closed".into()
    };
    let mut line = format!(
        "RESULT label={} mode={mode} conns={} inflight={} payload={} method={} secs={secs} calls={calls} ok={} errors={errors} rps={rps:.0} p50_us={p50} p99_us={p99} p999_us={p999} max_us={max}",
        o.label, o.connections, o.inflight, o.payload, o.method, s.ok
    );
    for (k, v) in &s.errors {
        line.push_str(&format!(" err_{k}={v}"));
    }
    println!("{line}");
    println!(
        "{}: {mode} loop, {} conn x {} in flight, {}-byte {}: {:.0} calls/s over {secs} s, p50 {} us, p99 {} us, p99.9 {} us, max {} us; {} ok, {} errors{}",
        o.label,
        o.connections,
        o.inflight,
        o.payload,
        o.method,
        rps,
        p50,
        p99,
        p999,
        max,
        s.ok,
        errors,
        if s.errors.is_empty() {
            String::new()
        } else {
            format!(" {:?}", s.errors)
        }
    );
    if s.ok > 0 {
        0
    } else {
        1
    }
}
