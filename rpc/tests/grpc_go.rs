//! Triple's IDL side against a stock gRPC implementation (grpc-go, `interop/grpc-go`): its
//! client calls our Echo service in every call shape, our client calls its Echo server, and
//! grpcurl calls ours. Everything on 127.0.0.1.

mod common;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::echo::{
    echo_call_shapes, echo_failures, echo_path, echo_service, echo_unimplemented, sv, StringValue,
    GRPC_GO,
};
use dubbo_rpc::server::Server;
use dubbo_rpc::triple_client::Client;
use dubbo_test_support::go::go_tool;
use dubbo_test_support::java::interop_dir;

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
    echo_call_shapes(&client, &GRPC_GO).await;
    echo_failures(&client, &GRPC_GO).await;
    echo_unimplemented(&client, &GRPC_GO).await;
    // Server streaming of 1,000 messages in order, and metadata both ways.
    let mut md = http::HeaderMap::new();
    md.insert("x-trace", "t-1".parse().unwrap());
    let mut call = client
        .grpc(&echo_path("ServerStream"), md, Some(Duration::from_secs(5)))
        .await
        .unwrap();
    call.send_msg(&sv("many:1000")).await.unwrap();
    call.finish().unwrap();
    assert_eq!(call.headers().await.unwrap()["x-trace"], "t-1");
    let mut n = 0;
    while let Some(m) = call.decode::<StringValue>().await.unwrap() {
        assert_eq!(m.value, format!("m-{n}"));
        n += 1;
    }
    assert_eq!(n, 1000);
    drop(go);
}
