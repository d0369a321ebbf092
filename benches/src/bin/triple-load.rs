//! `triple-load`: a closed-loop Triple load generator for `benches/triple-compare`.
//!
//! ```text
//! triple-load --target HOST:PORT --mode interface|idl|idl-tonic|stream [--connections N]
//!             [--inflight M] [--duration SECS] [--warmup SECS] [--payload BYTES]
//!             [--threads T] [--timeout-ms MS] [--label NAME]
//! ```
//!
//! * `interface`: our Triple client (`dubbo_rpc::triple_client`), interface-style
//!   `io.github.hessianrs.demo.DemoService:1.0.0` `sayHello(String)` (Hessian2, the default),
//!   checking that the answer is `"Hello, " + it`.
//! * `idl`: our Triple client's `grpc_unary` of `/io.github.hessianrs.demo.EchoService/unary`
//!   (`google.protobuf.StringValue`), checking that the answer is `"echo: " + it`.
//! * `idl-tonic`: the same IDL call from tonic 0.12's client (`tonic::client::Grpc` over a
//!   `Channel`), to compare the client side.
//! * `stream`: our Triple client's server-streaming call of
//!   `/io.github.hessianrs.demo.EchoService/serverStream`: one request, `STREAM_MESSAGES`
//!   (100) answers, each checked. Here a "call" of the RESULT line is one message received
//!   (`calls`, `ok`, `rps` count messages, so CPU per call is CPU per message) and the
//!   latencies are those of whole streams; `streams=` gives their number.
//!
//! N connections (one client, one HTTP/2 connection each), M callers on each; a caller sends
//! its next call as soon as its previous one is answered. The payload is an ASCII string of
//! `--payload` bytes. Output: one line `RESULT label=.. mode=.. conns=.. inflight=..
//! payload=.. secs=.. calls=.. ok=.. errors=.. rps=.. p50_us=.. p99_us=.. p999_us=.. max_us=..
//! cpu_ticks=.. [err_<kind>=n ...]` (`cpu_ticks`: this process's utime+stime over the measured
//! seconds, from /proc/self/stat, in clock ticks), as `dubbo-load` prints. Exit status 0 when
//! at least one call succeeded, 1 otherwise, 2 on a usage error (clap's).

use benches::cli::{at_least_one, positive};
use benches::load_stats::{short, Stats};
use benches::triple_peer::{StringValue, ECHO_SERVER_STREAM, ECHO_UNARY, STREAM_MESSAGES};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dubbo_rpc::triple_client::{Client, TripleCall};

const DEMO: &str = "io.github.hessianrs.demo.DemoService";

/// What is called (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Mode {
    Interface,
    Idl,
    IdlTonic,
    Stream,
}

/// The command line (see the module docs).
#[derive(Debug, Clone, clap::Parser)]
#[command(
    name = "triple-load",
    about = "A closed-loop Triple load generator for benches/triple-compare"
)]
struct Opts {
    /// The server or proxy, HOST:PORT.
    #[arg(long)]
    target: String,
    /// What is called.
    #[arg(long, value_enum, default_value_t = Mode::Interface)]
    mode: Mode,
    /// Connections (one client, one HTTP/2 connection each).
    #[arg(long, default_value_t = 1, value_parser = at_least_one)]
    connections: usize,
    /// Callers per connection.
    #[arg(long, default_value_t = 1, value_parser = at_least_one)]
    inflight: usize,
    /// Seconds measured.
    #[arg(long, default_value_t = 5.0, value_parser = positive)]
    duration: f64,
    /// Seconds of load before the measurement.
    #[arg(long, default_value_t = 1.0)]
    warmup: f64,
    /// Bytes of the string sent.
    #[arg(long, default_value_t = 64)]
    payload: usize,
    /// Tokio worker threads.
    #[arg(long, default_value_t = 2, value_parser = at_least_one)]
    threads: usize,
    /// Each call's timeout.
    #[arg(long = "timeout-ms", default_value = "5000", value_parser = parse_millis)]
    timeout: Duration,
    /// The label of the RESULT line.
    #[arg(long, default_value = "run")]
    label: String,
}

/// Milliseconds, as a duration.
fn parse_millis(s: &str) -> Result<Duration, String> {
    s.parse()
        .map(Duration::from_millis)
        .map_err(|_| format!("{s:?} is not a number of milliseconds"))
}

/// This process's utime + stime in clock ticks (fields 14 and 15 of /proc/self/stat).
fn cpu_ticks() -> u64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = s.rsplit_once(") ").map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let n = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
    // After the comm: field 3 (state) is index 0, so utime (14) is 11 and stime (15) is 12.
    n(11) + n(12)
}

/// One caller's way of making a call: ours (interface, IDL unary or server stream) or tonic's.
#[derive(Clone)]
enum Caller {
    Interface(Client, Arc<TripleCall>),
    Idl(Client, Arc<StringValue>),
    Stream(Client, Arc<StringValue>),
    Tonic(
        tonic::client::Grpc<tonic::transport::Channel>,
        Arc<StringValue>,
    ),
}

impl Caller {
    /// Makes one call; the messages it received, each as expected.
    async fn call(&mut self, expect: &str, timeout: Duration) -> Result<u64, String> {
        let got = match self {
            Caller::Interface(c, call) => c
                .call::<String>(call)
                .await
                .map_err(|e| format!("{:?}", e.code()))?,
            Caller::Idl(c, req) => {
                c.grpc_unary::<_, StringValue>(ECHO_UNARY, &**req, Some(timeout))
                    .await
                    .map_err(|e| format!("{:?}", e.code()))?
                    .value
            }
            Caller::Stream(c, req) => {
                let code = |e: dubbo_rpc::triple_client::TripleError| format!("{:?}", e.code());
                let mut call = c
                    .grpc(ECHO_SERVER_STREAM, Default::default(), Some(timeout))
                    .await
                    .map_err(code)?;
                call.send_msg(&**req).await.map_err(code)?;
                call.finish().map_err(code)?;
                let mut n = 0u64;
                while let Some(m) = call.decode::<StringValue>().await.map_err(code)? {
                    if m.value != expect {
                        return Err("wrong_answer".into());
                    }
                    n += 1;
                }
                return if n == STREAM_MESSAGES as u64 {
                    Ok(n)
                } else {
                    Err("short_stream".into())
                };
            }
            Caller::Tonic(g, req) => {
                g.ready().await.map_err(|_| "not_ready".to_string())?;
                let mut request = tonic::Request::new((**req).clone());
                request.set_timeout(timeout);
                let r: tonic::Response<StringValue> = g
                    .unary(
                        request,
                        http::uri::PathAndQuery::from_static(ECHO_UNARY),
                        tonic::codec::ProstCodec::default(),
                    )
                    .await
                    .map_err(|s| format!("{:?}", s.code()))?;
                r.into_inner().value
            }
        };
        if got == expect {
            Ok(1)
        } else {
            Err("wrong_answer".into())
        }
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

async fn connect(o: &Opts, name: &str) -> Result<Caller, String> {
    Ok(match o.mode {
        Mode::Interface => {
            let client = Client::connect(&o.target)
                .await
                .map_err(|e| e.to_string())?;
            let call = TripleCall::new(DEMO, "sayHello")
                .version("1.0.0")
                .arg("java.lang.String", name)
                .map_err(|e| e.to_string())?
                .timeout(o.timeout);
            Caller::Interface(client, Arc::new(call))
        }
        Mode::Idl | Mode::Stream => {
            let client = Client::connect(&o.target)
                .await
                .map_err(|e| e.to_string())?;
            let request = Arc::new(StringValue {
                value: name.to_string(),
            });
            if o.mode == Mode::Idl {
                Caller::Idl(client, request)
            } else {
                Caller::Stream(client, request)
            }
        }
        Mode::IdlTonic => {
            let channel = tonic::transport::Endpoint::from_shared(format!("http://{}", o.target))
                .map_err(|e| e.to_string())?
                .connect()
                .await
                .map_err(|e| e.to_string())?;
            Caller::Tonic(
                tonic::client::Grpc::new(channel),
                Arc::new(StringValue {
                    value: name.to_string(),
                }),
            )
        }
    })
}

async fn run(o: Opts) -> i32 {
    let name: String = (0..o.payload)
        .map(|i| (b'a' + (i % 26) as u8) as char)
        .collect();
    let expect = Arc::new(match o.mode {
        Mode::Interface => format!("Hello, {name}"),
        Mode::Idl | Mode::IdlTonic | Mode::Stream => format!("echo: {name}"),
    });
    let mut callers = Vec::new();
    for _ in 0..o.connections {
        match connect(&o, &name).await {
            Ok(c) => callers.push(c),
            Err(e) => {
                eprintln!("triple-load: connect {}: {e}", o.target);
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
    // Messages received in the measured calls (one per call but in `stream` mode).
    let messages = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for c in &callers {
        for _ in 0..o.inflight {
            let mut c = c.clone();
            let stats = stats.clone();
            let messages = messages.clone();
            let expect = expect.clone();
            let timeout = o.timeout;
            tasks.push(tokio::spawn(async move {
                let mut local = Stats::new();
                loop {
                    let t0 = Instant::now();
                    if t0 >= end {
                        break;
                    }
                    let r = c.call(&expect, timeout).await.map_err(|e| short(&e));
                    let t1 = Instant::now();
                    if t0 >= measure_from && t1 <= end {
                        if let Ok(n) = r {
                            messages.fetch_add(n, Ordering::Relaxed);
                        }
                        local.record(r.map(drop), (t1 - t0).as_micros() as u64);
                    }
                }
                stats.lock().unwrap().merge(&local);
            }));
        }
    }
    // This process's CPU over the measured window.
    tokio::time::sleep_until(measure_from.into()).await;
    let c0 = cpu_ticks();
    tokio::time::sleep_until(end.into()).await;
    let c1 = cpu_ticks();
    for t in tasks {
        let _ = t.await;
    }
    let secs = o.duration;
    let s = stats.lock().unwrap();
    let errors: u64 = s.errors.values().sum();
    // Messages for a stream (each call one message otherwise): what CPU per call divides by.
    let ok = messages.load(Ordering::Relaxed);
    let calls = ok + errors;
    let rps = ok as f64 / secs;
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
    let mode = match o.mode {
        Mode::Interface => "interface",
        Mode::Idl => "idl",
        Mode::IdlTonic => "idl-tonic",
        Mode::Stream => "stream",
    };
    let mut line = format!(
        "RESULT label={} mode={mode} conns={} inflight={} payload={} secs={secs} calls={calls} ok={ok} errors={errors} rps={rps:.0} p50_us={p50} p99_us={p99} p999_us={p999} max_us={max} cpu_ticks={} streams={}",
        o.label, o.connections, o.inflight, o.payload, c1 - c0, s.ok
    );
    for (k, v) in &s.errors {
        line.push_str(&format!(" err_{k}={v}"));
    }
    println!("{line}");
    if s.ok > 0 {
        0
    } else {
        1
    }
}
