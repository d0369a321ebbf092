//! fastjson2 (serialization id 23) with real Java Dubbo 3.2 and 3.3 (`interop/dubbo-java`, run with
//! `--serialization fastjson2`, or `--serialization default`: nothing pinned, as a stock
//! application runs): our client and `dubbo-call --serialization fastjson2` against the Java
//! provider, and the Java consumer against our server, whose frames a relay records to show
//! which serialization Java chose. Everything runs on 127.0.0.1.

mod common;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use dubbo_codec::BodyFormat;
use dubbo_rpc::client::{CallError, Client, ClientConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const FASTJSON2: &[&str] = &["--serialization", "fastjson2"];
const DEFAULT: &[&str] = &["--serialization", "default"];

fn f2(method: &str) -> dubbo_codec::RequestBuilder {
    req(method).format(BodyFormat::FASTJSON2)
}

async fn client_checks(addr: String) {
    let config = ClientConfig::default()
        .timeout(Duration::from_secs(10))
        .format(BodyFormat::FASTJSON2);
    let client = Client::connect_with(addr, config).await.unwrap();
    demo_calls(&client, BodyFormat::FASTJSON2, "fastjson2").await;
    let err = client
        .call::<String>(
            &f2("throwError")
                .arg("java.lang.String", "boom")
                .build()
                .unwrap(),
        )
        .await
        .unwrap_err();
    let CallError::Exception(e) = err else {
        panic!("throwError gave {err:?}")
    };
    assert!(e.class.ends_with("IllegalStateException"), "{e}");
    assert_eq!(e.message.as_deref(), Some("boom"));
    client.heartbeat().await.unwrap();
}

fn dubbo_call_checks(addr: &str) {
    let call = |method: &str, types: &str, args: &str| {
        dubbo_call(&[
            addr,
            INTERFACE,
            method,
            "--version",
            VERSION,
            "--types",
            types,
            "--args",
            args,
            "--serialization",
            "fastjson2",
        ])
    };
    let (ok, out, err) = call("sayHello", "java.lang.String", r#"["world"]"#);
    assert!(ok, "{err}");
    assert_eq!(out.trim(), r#""Hello, world""#);
    let (ok, out, err) = call("add", "int,int", "[2, 40]");
    assert!(ok, "{err}");
    assert_eq!(out.trim(), "42");
    let (ok, out, err) = call("getUser", "long", "[7]");
    assert!(ok, "{err}");
    assert!(out.contains(r#""email": "user-7@example.com""#), "{out}");
    let (ok, out, _) = call("throwError", "java.lang.String", r#"["x"]"#);
    assert!(!ok, "an exception exits non-zero");
    assert!(out.contains("IllegalStateException"), "{out}");
}

async fn against_java_provider(flavour: &str) {
    let Some(p) = Provider::builder(flavour)
        .log(LOGS, &format!("{flavour}-fastjson2"))
        .args(FASTJSON2)
        .start()
    else {
        return;
    };
    client_checks(p.addr()).await;
    let addr = p.addr();
    tokio::task::spawn_blocking(move || dubbo_call_checks(&addr))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_and_dubbo_call_against_java_provider_3_2_in_fastjson2() {
    against_java_provider("dubbo3").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_and_dubbo_call_against_java_provider_3_3_in_fastjson2() {
    against_java_provider("dubbo33").await;
}

/// Relays connections from a port of its own to `to`, recording the serialization id of
/// every request frame the callers send.
async fn recording_relay(to: String) -> (String, Arc<Mutex<BTreeSet<u8>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let seen: Arc<Mutex<BTreeSet<u8>>> = Arc::default();
    let record = seen.clone();
    tokio::spawn(async move {
        while let Ok((caller, _)) = listener.accept().await {
            let Ok(server) = TcpStream::connect(&to).await else {
                return;
            };
            let (mut cr, mut cw) = caller.into_split();
            let (mut sr, mut sw) = server.into_split();
            tokio::spawn(async move { tokio::io::copy(&mut sr, &mut cw).await });
            let record = record.clone();
            tokio::spawn(async move {
                // Frame headers as they pass: bytes still to skip of the current body.
                let (mut head, mut skip) = (Vec::new(), 0usize);
                let mut buf = vec![0u8; 16 * 1024];
                while let Ok(n) = cr.read(&mut buf).await {
                    if n == 0 || sw.write_all(&buf[..n]).await.is_err() {
                        return;
                    }
                    for &b in &buf[..n] {
                        if skip > 0 {
                            skip -= 1;
                            continue;
                        }
                        head.push(b);
                        if head.len() == 16 {
                            if head[2] & 0x80 != 0 {
                                record.lock().unwrap().insert(head[2] & 0x1f);
                            }
                            skip = u32::from_be_bytes([head[12], head[13], head[14], head[15]])
                                as usize;
                            head.clear();
                        }
                    }
                }
            });
        }
    });
    (addr, seen)
}

/// The Java consumer of `flavour` with `options` against our server; returns the
/// serialization ids of its requests.
async fn java_consumer_against_our_server(
    flavour: &'static str,
    options: &'static [&'static str],
) -> Option<Vec<u8>> {
    jar(flavour)?;
    let server = demo_server().await;
    let (relay, seen) = recording_relay(server.local_addr().to_string()).await;
    let run = tokio::task::spawn_blocking(move || run_consumer(flavour, &relay, options, LOGS))
        .await
        .unwrap()
        .unwrap();
    run.assert_all_passed(&format!(
        "{flavour} consumer {options:?} against our server"
    ));
    server.shutdown(Duration::from_secs(2)).await;
    let ids = seen.lock().unwrap().iter().copied().collect();
    Some(ids)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_consumers_in_fastjson2_against_our_server() {
    for flavour in ["dubbo3", "dubbo33"] {
        let Some(ids) = java_consumer_against_our_server(flavour, FASTJSON2).await else {
            return;
        };
        assert_eq!(
            ids,
            [23],
            "{flavour}: every request (and heartbeat) is fastjson2"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_consumers_with_dubbo_defaults_against_our_server() {
    for flavour in ["dubbo3", "dubbo33"] {
        let Some(ids) = java_consumer_against_our_server(flavour, DEFAULT).await else {
            return;
        };
        eprintln!(
            "{flavour} with Dubbo's defaults, direct URL: requests in serialization ids {ids:?}"
        );
        assert!(!ids.is_empty());
    }
}
