//! Triple's IDL side against a stock gRPC implementation (grpc-go, `interop/grpc-go`): its
//! client calls our Echo service in every call shape, our client calls its Echo server, and
//! grpcurl calls ours. Everything on 127.0.0.1.

mod common;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use common::echo::{echo_path, echo_service, sv, StringValue};
use dubbo_codec::server::Server;
use dubbo_codec::triple_client::{Client, TripleError};
use dubbo_test_support::java::interop_dir;
use dubbo_triple::Code;

/// `interop/grpc-go/bin/NAME`, built by `interop/grpc-go/build` when missing (once per
/// process). `None` (the test is skipped with a note) when Go is not installed.
fn go_tool(name: &str) -> Option<PathBuf> {
    static BUILD: OnceLock<Mutex<()>> = OnceLock::new();
    let _one = BUILD.get_or_init(Mutex::default).lock().unwrap();
    let dir = interop_dir("grpc-go");
    let bin = dir.join("bin").join(name);
    if !bin.exists() {
        if Command::new("go").arg("version").output().is_err() {
            eprintln!("SKIPPED: Go is not installed (interop/grpc-go needs it)");
            return None;
        }
        let ok = Command::new("bash")
            .arg(dir.join("build"))
            .status()
            .expect("run interop/grpc-go/build")
            .success();
        assert!(ok, "interop/grpc-go/build failed");
    }
    assert!(bin.exists(), "{} missing after the build", bin.display());
    Some(bin)
}

async fn echo_server() -> Server {
    Server::builder()
        .service(echo_service())
        .bind("127.0.0.1:0")
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_grpc_go_client_calls_our_echo_service() {
    let Some(peer) = go_tool("grpcpeer") else {
        return;
    };
    let server = echo_server().await;
    let addr = server.local_addr().to_string();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(peer)
            .args(["client", &addr])
            .output()
            .expect("run grpcpeer client")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stdout}");
    for check in [
        "unary",
        "server_stream",
        "server_stream_many",
        "client_stream",
        "bidi",
        "error",
        "deadline",
        "metadata",
        "unimplemented",
    ] {
        assert!(
            stdout.lines().any(|l| l == format!("ok {check}")),
            "{check}: {stdout}"
        );
    }
    assert!(common::eventually(|| server.inflight() == 0).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpcurl_calls_our_echo_service() {
    let Some(grpcurl) = go_tool("grpcurl") else {
        return;
    };
    let server = echo_server().await;
    let addr = server.local_addr().to_string();
    let proto_dir = interop_dir("grpc-go");
    let out = tokio::task::spawn_blocking(move || {
        Command::new(grpcurl)
            .arg("-plaintext")
            .arg("-import-path")
            .arg(&proto_dir)
            .args(["-proto", "echo.proto", "-d", r#""hi""#, &addr])
            .arg("hessianrs.echo.v1.Echo/Unary")
            .output()
            .expect("run grpcurl")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.trim(), r#""echo: hi""#);
}

/// `grpcpeer server 0`, killed on drop.
struct GoServer {
    child: Child,
    addr: String,
}

impl Drop for GoServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn go_server(peer: PathBuf) -> GoServer {
    let mut child = Command::new(peer)
        .args(["server", "0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start grpcpeer server");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .trim()
        .strip_prefix("READY ")
        .unwrap_or_else(|| panic!("grpcpeer server said {line:?}"));
    GoServer {
        child,
        addr: format!("127.0.0.1:{port}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_calls_the_grpc_go_server() {
    let Some(peer) = go_tool("grpcpeer") else {
        return;
    };
    let go = tokio::task::spawn_blocking(move || go_server(peer))
        .await
        .unwrap();
    let client = Client::connect(&go.addr).await.unwrap();
    let t = Some(Duration::from_secs(5));
    let r: StringValue = client
        .grpc_unary(&echo_path("Unary"), &sv("hi"), t)
        .await
        .unwrap();
    assert_eq!(r.value, "echo: hi");
    // Server streaming, 1,000 messages in order.
    let mut call = client
        .grpc(&echo_path("ServerStream"), Default::default(), t)
        .await
        .unwrap();
    call.send_msg(&sv("many:1000")).await.unwrap();
    call.finish().unwrap();
    let mut n = 0;
    while let Some(m) = call.decode::<StringValue>().await.unwrap() {
        assert_eq!(m.value, format!("m-{n}"));
        n += 1;
    }
    assert_eq!(n, 1000);
    // Client streaming.
    let mut call = client
        .grpc(&echo_path("ClientStream"), Default::default(), t)
        .await
        .unwrap();
    for v in ["a", "b", "c"] {
        call.send_msg(&sv(v)).await.unwrap();
    }
    call.finish().unwrap();
    assert_eq!(
        call.decode::<StringValue>().await.unwrap().unwrap().value,
        "a,b,c"
    );
    // Bidirectional, interleaved, with metadata both ways.
    let mut md = http::HeaderMap::new();
    md.insert("x-trace", "t-1".parse().unwrap());
    let mut call = client.grpc(&echo_path("Bidi"), md, t).await.unwrap();
    for v in ["x", "y"] {
        call.send_msg(&sv(v)).await.unwrap();
        let m = call.decode::<StringValue>().await.unwrap().unwrap();
        assert_eq!(m.value, format!("echo: {v}"));
    }
    assert_eq!(call.headers().await.unwrap()["x-trace"], "t-1");
    call.finish().unwrap();
    assert_eq!(call.message().await.unwrap(), None);
    // A status, an unknown method, a deadline.
    let err = client
        .grpc_unary::<_, StringValue>(&echo_path("Unary"), &sv("fail"), t)
        .await
        .unwrap_err();
    let TripleError::Status(s) = err else {
        panic!("{err:?}")
    };
    assert_eq!(
        (s.code, s.message.as_str()),
        (Code::InvalidArgument, "fail requested")
    );
    let err = client
        .grpc_unary::<_, StringValue>(&echo_path("Nope"), &sv("x"), t)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unimplemented, "{err:?}");
    let err = client
        .grpc_unary::<_, StringValue>(
            &echo_path("Unary"),
            &sv("sleep:2000"),
            Some(Duration::from_millis(300)),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::DeadlineExceeded, "{err:?}");
    // The connection goes on after the reset stream.
    let r: StringValue = client
        .grpc_unary(&echo_path("Unary"), &sv("after"), t)
        .await
        .unwrap();
    assert_eq!(r.value, "echo: after");
    drop(go);
}
