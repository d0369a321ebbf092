//! Test support: the Java interop peers (from `dubbo-test-support`: jars built on demand,
//! processes killed on drop) as these tests start them, and the Rust implementation of the
//! interop DemoService.

#![allow(dead_code)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::BytesMut;
use dubbo_codec::{Frame, FrameCodec};
use dubbo_rpc::client::{Client, ClientConfig};
use dubbo_rpc::server::{HandlerError, Reply, Server, Service};
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;
// Each test binary uses some of these.
#[allow(unused_imports)]
pub use dubbo_test_support::java::{
    dubbo_jar as jar, interop_dir, run_consumer, ConsumerRun, Provider, DEMO_SERVICE as INTERFACE,
    DEMO_USER as USER_CLASS, DEMO_VERSION as VERSION, FLAVOURS,
};
use dubbo_test_support::LogDir;

mod checks;
pub mod echo;
pub mod orders;
pub mod triple;
// Each test binary uses some of these.
#[allow(unused_imports)]
pub use checks::*;
use hessian2::types::Date;
use serde::{Deserialize, Serialize};

pub const CREATED_MS: i64 = 1_700_000_000_000;

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

/// Java's log output goes to files here (each path is printed), not to the test output.
pub const LOGS: LogDir = LogDir("dubbo-codec-interop");

/// A Java provider of `flavour` on 127.0.0.1, killed when dropped; `None` (the test is skipped
/// with a note) when the Java interop project is not in the tree.
pub fn java_provider(flavour: &str) -> Option<Provider> {
    Provider::builder(flavour).log(LOGS, flavour).start()
}

/// Runs the Java consumer of `flavour` against `addr`.
pub fn run_java_consumer(flavour: &str, addr: &str) -> Option<ConsumerRun> {
    run_consumer(flavour, addr, &[], LOGS)
}

/// As [`run_java_consumer`], with Dubbo's own defaults (`--serialization default`: nothing
/// pinned, as a stock application runs).
pub fn run_stock_java_consumer(flavour: &str, addr: &str) -> Option<ConsumerRun> {
    run_consumer(flavour, addr, &["--serialization", "default"], LOGS)
}

/// A request to the DemoService.
pub fn req(method: &str) -> dubbo_codec::RequestBuilder {
    dubbo_codec::Request::builder(INTERFACE, method).version(VERSION)
}

/// Sends `fireAndForget(token)` one-way, then asks `lastFired()` every `poll` (100 times at
/// most) until it answers `token`: its last answer.
pub async fn fire_and_forget(client: &Client, token: &str, poll: Duration) -> Option<String> {
    client
        .oneway(
            &req("fireAndForget")
                .arg("java.lang.String", token)
                .build()
                .unwrap(),
        )
        .await
        .unwrap();
    let mut last = None;
    for _ in 0..100 {
        last = client
            .call::<Option<String>>(&req("lastFired").build().unwrap())
            .await
            .unwrap();
        if last.as_deref() == Some(token) {
            break;
        }
        tokio::time::sleep(poll).await;
    }
    last
}

/// A client of `addr` whose calls time out after `timeout`.
pub async fn client_with_timeout(addr: String, timeout: Duration) -> Client {
    Client::connect_with(addr, ClientConfig::default().timeout(timeout))
        .await
        .unwrap()
}

/// Reads one frame from a raw socket (`None` when the server closed the connection).
pub async fn read_frame(s: &mut TcpStream, buf: &mut BytesMut) -> Option<Frame> {
    let mut codec = FrameCodec::new();
    loop {
        if let Some(f) = codec.decode_frame(buf).unwrap() {
            return Some(f);
        }
        let n = tokio::time::timeout(Duration::from_secs(5), s.read_buf(buf))
            .await
            .expect("the server answers or closes within 5 s")
            .unwrap_or(0);
        if n == 0 {
            return None;
        }
    }
}

/// The bytes of `frame` on the wire.
pub fn wire(frame: &Frame) -> Vec<u8> {
    let mut v = Vec::new();
    frame.encode(&mut v).unwrap();
    v
}

/// Asserts that `server` answers a new client's call (`add(1, 2)`).
pub async fn assert_serves(server: &Server) {
    let client = Client::connect(server.local_addr().to_string())
        .await
        .unwrap();
    let r: i32 = client
        .call(&req("add").arg("int", &1).arg("int", &2).build().unwrap())
        .await
        .unwrap();
    assert_eq!(r, 3);
}

/// Waits up to 10 s for `done` to hold, checking every 10 ms.
pub async fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let until = std::time::Instant::now() + Duration::from_secs(10);
    while std::time::Instant::now() < until {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    done()
}

/// The DemoService of the interop project, in Rust.
pub fn demo_service() -> Service {
    demo_service_recording(Arc::default())
}

/// The DemoService, recording the serialization id of every `sayHello` call in `seen`.
pub fn demo_service_recording(seen: Arc<Mutex<std::collections::BTreeSet<u8>>>) -> Service {
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
            seen.lock()
                .unwrap()
                .insert(call.format.serialization().id());
            async move {
                let (name,): (Option<String>,) = call.args()?;
                call.typed_reply(&format!("Hello, {}", name.as_deref().unwrap_or("null")))
            }
        })
        .method("getUser", move |call| {
            c2();
            async move {
                let (id,): (i64,) = call.args()?;
                call.typed_reply(&user_for(id))
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
        .method("lastFired", move |call| {
            c9();
            let lf = lf2.clone();
            async move {
                let v = lf.lock().unwrap().clone();
                call.typed_reply(&v)
            }
        })
        .method("slow", move |call| {
            c10();
            async move {
                let (ms,): (i32,) = call.args()?;
                tokio::time::sleep(Duration::from_millis(ms.max(0) as u64)).await;
                call.typed_reply(&format!("slept {ms}"))
            }
        })
        .method("add", move |call| {
            c11();
            async move {
                let (a, b): (i32, i32) = call.args()?;
                call.typed_reply(&a.wrapping_add(b))
            }
        })
        .method("count", move |call| {
            let n = c12();
            async move { call.typed_reply(&(n as i64)) }
        })
}

/// Answers with the first argument, as decoded (exact round trip of whatever Java sent).
fn echo_first(call: dubbo_rpc::server::Call) -> Result<Reply, HandlerError> {
    let mut v = call.values()?;
    if v.is_empty() {
        return Reply::null();
    }
    Reply::value(v.swap_remove(0))
}
