//! End to end with real Java Dubbo (2.7 and 3.2, `interop/dubbo-java`) on 127.0.0.1: the Java
//! consumer's whole check list through the proxy to a Java provider (every flavour pair), a
//! weighted split over two Java providers, and a Java provider's graceful shutdown (its
//! read-only event) under load. Skipped with a note when the interop project is absent; the
//! jars are built on demand.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use common::*;
use dubbo_codec::{Request, Status};

for_each_engine!(
    java_consumer_through_proxy_passes_every_check,
    java_providers_weighted_split_and_graceful_shutdown,
);

const DEMO: &str = "io.github.hessianrs.demo.DemoService";

fn java_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../interop/dubbo-java")
}

fn jar(flavour: &str) -> Option<PathBuf> {
    let dir = java_dir();
    if !dir.join("build").exists() {
        eprintln!("note: {} is absent; Java tests skipped", dir.display());
        return None;
    }
    static BUILD: OnceLock<Mutex<()>> = OnceLock::new();
    let _g = BUILD
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let jar = dir.join("target").join(flavour).join("dubbo-interop.jar");
    if !jar.exists() {
        let ok = Command::new(dir.join("build"))
            .status()
            .expect("run interop/dubbo-java/build")
            .success();
        assert!(ok, "interop/dubbo-java/build failed");
    }
    assert!(jar.exists(), "{} missing after the build", jar.display());
    Some(jar)
}

fn log(name: &str) -> Stdio {
    let dir = std::env::temp_dir().join("dubbo-proxy-java");
    let _ = std::fs::create_dir_all(&dir);
    let p = dir.join(format!("{name}-{}.log", std::process::id()));
    std::fs::File::create(&p).map_or_else(|_| Stdio::null(), Stdio::from)
}

struct JavaProvider {
    child: Child,
    stdin: Option<ChildStdin>,
    port: u16,
}

impl JavaProvider {
    fn start(flavour: &str) -> Option<JavaProvider> {
        let jar = jar(flavour)?;
        let mut child = Command::new("java")
            .arg("-jar")
            .arg(&jar)
            .arg("provider")
            .arg("0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log(&format!("provider-{flavour}")))
            .spawn()
            .expect("start java");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(p) = line.strip_prefix("READY ") {
                    let _ = tx.send(p.trim().parse::<u16>().ok());
                }
            }
        });
        let port = match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(Some(p)) => p,
            other => {
                let _ = child.kill();
                panic!("{flavour} provider did not start: {other:?}");
            }
        };
        Some(JavaProvider { child, stdin, port })
    }

    fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Closing stdin makes the provider exit through Dubbo's graceful shutdown (read-only
    /// event to every client, then up to 2 s for calls in flight).
    fn graceful_stop(&mut self) {
        self.stdin.take();
    }
}

impl Drop for JavaProvider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn java_consumer(flavour: &str, addr: &str) -> Option<(bool, Vec<String>)> {
    let jar = jar(flavour)?;
    let t0 = Instant::now();
    let out = Command::new("java")
        .arg("-jar")
        .arg(&jar)
        .arg("consumer")
        .arg(addr)
        .stdin(Stdio::null())
        .stderr(log(&format!("consumer-{flavour}")))
        .output()
        .expect("run the Java consumer");
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    eprintln!(
        "java {flavour} consumer -> {addr}: {} in {:?}",
        out.status,
        t0.elapsed()
    );
    Some((out.status.success(), lines))
}

fn proxy_conf(endpoints: &[(String, u32)]) -> String {
    let eps: Vec<String> = endpoints
        .iter()
        .map(|(a, w)| format!("{{ address = \"{a}\", weight = {w} }}"))
        .collect();
    config(
        1,
        &format!(
            "[[routes]]\ninterface = \"io.github.hessianrs.*\"\ncluster = \"demo\"\ntimeout_ms = 10000\n[clusters.demo]\nendpoints = [{}]\n",
            eps.join(", ")
        ),
    )
}

async fn java_consumer_through_proxy_passes_every_check(engine: &str) {
    for provider in ["dubbo27", "dubbo3"] {
        let Some(p) = JavaProvider::start(provider) else {
            return;
        };
        let proxy = Proxy::start(engine, &proxy_conf(&[(p.addr(), 100)]));
        let addr = proxy.addr().to_string();
        for consumer in ["dubbo27", "dubbo3"] {
            let a = addr.clone();
            let c = consumer.to_owned();
            let (ok, lines) = tokio::task::spawn_blocking(move || java_consumer(&c, &a))
                .await
                .unwrap()
                .unwrap();
            let fails: Vec<&String> = lines.iter().filter(|l| l.starts_with("FAIL")).collect();
            let oks = lines.iter().filter(|l| l.starts_with("ok ")).count();
            eprintln!("{consumer} consumer -> proxy -> {provider} provider: {oks} checks ok");
            assert!(
                ok && fails.is_empty() && oks >= 20,
                "{consumer} consumer -> proxy -> {provider} provider: {fails:?}"
            );
        }
        let (_, m) = proxy.admin("GET", "/metrics");
        assert!(
            m.contains("dubbo_proxy_heartbeats_answered_total")
                && m.contains("dubbo_proxy_route_requests_total"),
            "{m}"
        );
    }
}

fn hello(name: &str) -> Request {
    Request::builder(DEMO, "sayHello")
        .version("1.0.0")
        .arg("java.lang.String", name)
        .build()
        .unwrap()
}

async fn count_of(addr: &str) -> i64 {
    let mut c = Client::connect(addr.parse().unwrap()).await;
    let req = Request::builder(DEMO, "count")
        .version("1.0.0")
        .build()
        .unwrap();
    c.send_call(1, &req).await;
    let f = c.response(1).await;
    match dubbo_codec::Response::from_frame(&f).unwrap() {
        dubbo_codec::Response::Result(r) => match r.outcome {
            dubbo_codec::Outcome::Value(hessian2::value::Value::Long(n)) => n,
            dubbo_codec::Outcome::Value(hessian2::value::Value::Int(n)) => i64::from(n),
            other => panic!("count: {other:?}"),
        },
        other => panic!("count: {other:?}"),
    }
}

async fn java_providers_weighted_split_and_graceful_shutdown(engine: &str) {
    let Some(mut a) = JavaProvider::start("dubbo3") else {
        return;
    };
    let Some(b) = JavaProvider::start("dubbo27") else {
        return;
    };
    let proxy = Proxy::start(engine, &proxy_conf(&[(a.addr(), 3), (b.addr(), 1)]));
    let mut cl = Client::connect(proxy.addr()).await;
    // Warm up until both providers answer through the proxy.
    for id in 0..8u64 {
        assert_eq!(cl.call(id, &hello("w")).await.0, Status::Ok);
    }
    let (a0, b0) = (count_of(&a.addr()).await, count_of(&b.addr()).await);
    // 10,000 calls, 100 in flight at a time.
    let n = 10_000u64;
    let window = 100u64;
    let base = 1_000u64;
    for id in base..base + window {
        cl.send_call(id, &hello("x")).await;
    }
    for id in base..base + n {
        let (st, s) = outcome(&cl.response(id).await);
        assert_eq!((st, s.as_str()), (Status::Ok, "Hello, x"), "call {id}");
        if id + window < base + n {
            cl.send_call(id + window, &hello("x")).await;
        }
    }
    // count() counts itself too.
    let da = count_of(&a.addr()).await - a0 - 1;
    let db = count_of(&b.addr()).await - b0 - 1;
    assert_eq!(da + db, n as i64);
    let share = da as f64 / n as f64;
    assert!((share - 0.75).abs() < 0.05, "a got {da}, b got {db}");

    // Provider a shuts down gracefully under load: its read-only event stops new calls to
    // it, its calls in flight complete, and every call succeeds on b.
    let base = 100_000u64;
    let n = 3_000u64;
    let window = 20u64;
    for id in base..base + window {
        cl.send_call(id, &hello("y")).await;
    }
    let mut stopped = false;
    let t0 = Instant::now();
    for id in base..base + n {
        if id == base + 200 {
            a.graceful_stop();
            stopped = true;
        }
        let (st, s) = outcome(&cl.response(id).await);
        assert_eq!(
            (st, s.as_str()),
            (Status::Ok, "Hello, y"),
            "call {id} during shutdown"
        );
        if id + window < base + n {
            cl.send_call(id + window, &hello("y")).await;
        }
    }
    assert!(stopped);
    eprintln!(
        "{n} calls across a provider's graceful shutdown in {:?}",
        t0.elapsed()
    );
    // After it is gone, b takes everything.
    for id in 200_000..200_020u64 {
        assert_eq!(cl.call(id, &hello("z")).await.0, Status::Ok);
    }
}
