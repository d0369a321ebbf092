//! Test support: the Java interop jars (built on demand), a Java provider process killed on
//! drop, and the Rust implementation of the interop DemoService.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use dubbo_codec::server::{HandlerError, Reply, Service};
use hessian2::types::Date;
use serde::{Deserialize, Serialize};

pub const INTERFACE: &str = "io.github.hessianrs.demo.DemoService";
pub const VERSION: &str = "1.0.0";
pub const USER_CLASS: &str = "io.github.hessianrs.demo.User";
pub const CREATED_MS: i64 = 1_700_000_000_000;

/// The Java flavours: (profile directory, description).
pub const FLAVOURS: [&str; 2] = ["dubbo27", "dubbo3"];

/// `io.github.hessianrs.demo.User`, fields in the order hessian-lite writes them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "io.github.hessianrs.demo.User")]
pub struct User {
    pub created: Option<Date>,
    pub active: bool,
    pub email: Option<String>,
    pub age: i32,
    pub name: Option<String>,
    pub id: i64,
}

pub fn user_for(id: i64) -> User {
    User {
        created: Some(Date(CREATED_MS)),
        active: true,
        email: Some(format!("user-{id}@example.com")),
        age: 30,
        name: Some(format!("user-{id}")),
        id,
    }
}

pub fn java_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../interop/dubbo-java")
}

/// The jar of `flavour`, built with `interop/dubbo-java/build` when missing. `None` when the
/// Java interop project is not in the tree (the test is then skipped with a note).
pub fn jar(flavour: &str) -> Option<PathBuf> {
    let dir = java_dir();
    if !dir.join("build").exists() {
        eprintln!("note: {} is absent; Java interop skipped", dir.display());
        return None;
    }
    static BUILD: OnceLock<Mutex<()>> = OnceLock::new();
    let _guard = BUILD
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let jar = dir.join("target").join(flavour).join("dubbo-interop.jar");
    if !jar.exists() {
        let status = Command::new(dir.join("build"))
            .status()
            .expect("running interop/dubbo-java/build");
        assert!(status.success(), "interop/dubbo-java/build failed");
    }
    assert!(jar.exists(), "{} missing after the build", jar.display());
    Some(jar)
}

/// Java's log output goes to a file (its path is printed), not to the test output.
fn log_file(name: &str) -> Stdio {
    let dir = std::env::temp_dir().join("dubbo-codec-interop");
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("{name}-{}.log", std::process::id()));
    eprintln!("java log: {}", path.display());
    std::fs::File::create(&path).map_or_else(|_| Stdio::null(), Stdio::from)
}

/// A Java process (provider) killed when dropped.
pub struct JavaProvider {
    child: Child,
    _stdin: Option<ChildStdin>,
    pub port: u16,
    pub flavour: String,
}

impl JavaProvider {
    /// Starts `java -jar <flavour jar> provider 0` on 127.0.0.1 and waits for `READY <port>`.
    pub fn start(flavour: &str) -> Option<JavaProvider> {
        let jar = jar(flavour)?;
        let mut child = Command::new("java")
            .arg("-jar")
            .arg(&jar)
            .arg("provider")
            .arg("0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log_file(&format!("provider-{flavour}")))
            .spawn()
            .expect("starting java");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout");
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
            Ok(Some(port)) => port,
            other => {
                let _ = child.kill();
                panic!("{flavour} provider did not print READY: {other:?}");
            }
        };
        Some(JavaProvider {
            child,
            _stdin: stdin,
            port,
            flavour: flavour.to_owned(),
        })
    }

    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }
}

impl Drop for JavaProvider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs the Java consumer of `flavour` against `addr`; returns (exit ok, stdout lines).
pub fn run_java_consumer(flavour: &str, addr: &str) -> Option<(bool, Vec<String>)> {
    let jar = jar(flavour)?;
    let start = Instant::now();
    let out = Command::new("java")
        .arg("-jar")
        .arg(&jar)
        .arg("consumer")
        .arg(addr)
        .stdin(Stdio::null())
        .stderr(log_file(&format!("consumer-{flavour}")))
        .output()
        .expect("running the Java consumer");
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    eprintln!(
        "java {flavour} consumer -> {addr}: {:?} in {:?}",
        out.status,
        start.elapsed()
    );
    for l in &lines {
        eprintln!("  {l}");
    }
    Some((out.status.success(), lines))
}

/// The DemoService of the interop project, in Rust.
pub fn demo_service() -> Service {
    let calls = Arc::new(AtomicU64::new(0));
    let last_fired: Arc<Mutex<Option<String>>> = Arc::default();
    let c = move || {
        let calls = calls.clone();
        move || calls.fetch_add(1, Ordering::SeqCst) + 1
    };
    let (c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12) =
        (c(), c(), c(), c(), c(), c(), c(), c(), c(), c(), c(), c());
    let lf1 = last_fired.clone();
    let lf2 = last_fired;
    Service::new(INTERFACE)
        .version(VERSION)
        .method("sayHello", move |call| {
            c1();
            async move {
                let (name,): (Option<String>,) = call.args()?;
                Reply::typed(&format!("Hello, {}", name.as_deref().unwrap_or("null")))
            }
        })
        .method("getUser", move |call| {
            c2();
            async move {
                let (id,): (i64,) = call.args()?;
                Reply::typed(&user_for(id))
            }
        })
        .method("echoUser", move |call| {
            c3();
            async move { echo_first(call) }
        })
        .method("echoMap", move |call| {
            c4();
            async move { echo_first(call) }
        })
        .method("echoList", move |call| {
            c5();
            async move { echo_first(call) }
        })
        .method("throwError", move |call| {
            c6();
            async move {
                let (msg,): (Option<String>,) = call.args()?;
                Err(HandlerError::exception(
                    "java.lang.IllegalStateException",
                    msg.unwrap_or_default(),
                ))
            }
        })
        .method("doNothing", move |_call| {
            c7();
            async move { Reply::null() }
        })
        .method("fireAndForget", move |call| {
            c8();
            let lf = lf1.clone();
            async move {
                let (s,): (Option<String>,) = call.args()?;
                *lf.lock().unwrap() = s;
                Reply::null()
            }
        })
        .method("lastFired", move |_call| {
            c9();
            let lf = lf2.clone();
            async move {
                let v = lf.lock().unwrap().clone();
                Reply::typed(&v)
            }
        })
        .method("slow", move |call| {
            c10();
            async move {
                let (ms,): (i32,) = call.args()?;
                tokio::time::sleep(Duration::from_millis(ms.max(0) as u64)).await;
                Reply::typed(&format!("slept {ms}"))
            }
        })
        .method("add", move |call| {
            c11();
            async move {
                let (a, b): (i32, i32) = call.args()?;
                Reply::typed(&a.wrapping_add(b))
            }
        })
        .method("count", move |_call| {
            let n = c12();
            async move { Reply::typed(&(n as i64)) }
        })
}

/// Answers with the first argument, as decoded (exact round trip of whatever Java sent).
fn echo_first(call: dubbo_codec::server::Call) -> Result<Reply, HandlerError> {
    let mut v = call.values()?;
    if v.is_empty() {
        return Reply::null();
    }
    Reply::value(v.swap_remove(0))
}
