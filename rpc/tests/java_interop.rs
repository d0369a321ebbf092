//! Interop with real Java Dubbo (2.7 and 3.2, `interop/dubbo-java`): our client against the
//! Java provider, the Java consumer against our server, and `dubbo-call` against the Java
//! provider. Everything runs on 127.0.0.1.

mod common;

use std::time::Duration;

use common::*;
use dubbo_codec::{BodyFormat, Request};
use dubbo_rpc::client::CallError;
use hessian2::value::Value;

async fn client_checks(p: &Provider) {
    let f = &p.flavour;
    let client = client_with_timeout(p.addr(), Duration::from_secs(10)).await;

    // Typed and dynamic calls, a generic one.
    demo_calls(&client, BodyFormat::default(), f).await;

    // Generic invocation of a method with a class.
    let g = client
        .generic_call(
            INTERFACE,
            VERSION,
            None,
            "getUser",
            &["long"],
            vec![Value::Long(7)],
        )
        .await
        .unwrap();
    // Java's GenericFilter answers POJOs as maps with a "class" entry.
    let Value::Map(gm) = &g else {
        panic!("{f}: generic getUser gave {g:?}")
    };
    let get = |k: &str| {
        gm.entries
            .iter()
            .find(|(key, _)| key.as_str() == Some(k))
            .map(|(_, v)| v.clone())
    };
    assert_eq!(get("class"), Some(Value::from(USER_CLASS)), "{f}");
    assert_eq!(get("name"), Some(Value::from("user-7")), "{f}");
    let ge = client
        .generic_call(
            INTERFACE,
            VERSION,
            None,
            "throwError",
            &["java.lang.String"],
            vec![Value::from("gen-boom")],
        )
        .await
        .unwrap_err();
    let ex = ge.java_exception().unwrap_or_else(|| panic!("{f}: {ge}"));
    assert_eq!(ex.class, "java.lang.IllegalStateException", "{f}: {ex}");
    assert_eq!(ex.message.as_deref(), Some("gen-boom"));

    // Exception.
    let err = client
        .call::<Option<String>>(
            &req("throwError")
                .arg("java.lang.String", "boom")
                .build()
                .unwrap(),
        )
        .await
        .unwrap_err();
    let ex = err.java_exception().unwrap_or_else(|| panic!("{f}: {err}"));
    assert_eq!(ex.class, "java.lang.IllegalStateException");
    assert_eq!(ex.message.as_deref(), Some("boom"));

    // Unknown service: a status error, not a hang.
    let err = client
        .call_value(&Request::builder("no.such.Service", "m").build().unwrap())
        .await
        .unwrap_err();
    assert!(matches!(err, CallError::Status { .. }), "{f}: {err}");

    // One-way.
    let token = format!("ff-{f}");
    let last = fire_and_forget(&client, &token, Duration::from_millis(20)).await;
    assert_eq!(last.as_deref(), Some(token.as_str()), "{f}");

    // Timeout: the late answer is dropped, the next call gets its own answer.
    let start = std::time::Instant::now();
    let err = client
        .call::<String>(
            &req("slow")
                .timeout(Duration::from_millis(300))
                .arg("int", &1500)
                .build()
                .unwrap(),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, CallError::Timeout { .. }), "{f}: {err}");
    assert!(start.elapsed() < Duration::from_millis(1200));
    let after: String = client
        .call(&req("slow").arg("int", &1700).build().unwrap())
        .await
        .unwrap();
    assert_eq!(after, "slept 1700", "{f}");

    // 1,000 concurrent calls on the one connection, each matched to its own answer. Java's
    // provider runs calls on a pool of 200 threads and answers THREADPOOL_EXHAUSTED beyond
    // that, so at most 150 are in flight at once.
    let permits = std::sync::Arc::new(tokio::sync::Semaphore::new(150));
    let mut tasks = Vec::new();
    for i in 0..1000i32 {
        let c = client.clone();
        let permits = permits.clone();
        tasks.push(tokio::spawn(async move {
            let _permit = permits.acquire().await.unwrap();
            let r: i32 = c
                .call(&req("add").arg("int", &i).arg("int", &i).build().unwrap())
                .await
                .unwrap();
            (i, r)
        }));
    }
    for t in tasks {
        let (i, r) = t.await.unwrap();
        assert_eq!(r, 2 * i, "{f}");
    }
    assert_eq!(client.connection_count(), 1, "{f}: one connection");
    let rtt = client.heartbeat().await.unwrap();
    assert!(rtt < Duration::from_secs(5));
}

fn dubbo_call_checks(p: &Provider) {
    let addr = p.addr();
    let (ok, out, err) = dubbo_call(&[
        &addr,
        INTERFACE,
        "sayHello",
        "--version",
        VERSION,
        "--types",
        "java.lang.String",
        "--args",
        r#"["world"]"#,
    ]);
    assert!(ok, "{err}");
    assert_eq!(out.trim(), r#""Hello, world""#);
    let (ok, out, err) = dubbo_call(&[
        &addr,
        INTERFACE,
        "add",
        "--version",
        VERSION,
        "--types",
        "int,int",
        "--args",
        "[2, 40]",
    ]);
    assert!(ok, "{err}");
    assert_eq!(out.trim(), "42");
    let (ok, out, err) = dubbo_call(&[
        &addr,
        INTERFACE,
        "echoUser",
        "--version",
        VERSION,
        "--types",
        USER_CLASS,
        "--args",
        r#"[{"class": "io.github.hessianrs.demo.User", "id": 5, "name": "five", "age": 5, "active": true}]"#,
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["name"], "five", "{out}");
    assert_eq!(v["id"], 5, "{out}");
    let (ok, out, err) = dubbo_call(&[
        &addr,
        INTERFACE,
        "getUser",
        "--version",
        VERSION,
        "--types",
        "long",
        "--args",
        "[9]",
        "--attach",
        "trace=t1",
        "--timeout",
        "5000",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["email"], "user-9@example.com", "{out}");
    assert_eq!(v["class"], USER_CLASS, "{out}");
    let (ok, out, err) = dubbo_call(&[
        &addr,
        INTERFACE,
        "echoMap",
        "--version",
        VERSION,
        "--types",
        "java.util.Map",
        "--args",
        r#"[{"a": 1, "b": [true, null, "x"]}]"#,
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v, serde_json::json!({"a": 1, "b": [true, null, "x"]}));
    let (ok, out, _) = dubbo_call(&[
        &addr,
        INTERFACE,
        "throwError",
        "--version",
        VERSION,
        "--types",
        "java.lang.String",
        "--args",
        r#"["cli-boom"]"#,
    ]);
    assert!(!ok);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["exception"], "java.lang.IllegalStateException", "{out}");
    assert_eq!(v["message"], "cli-boom", "{out}");
    let (ok, _, err) = dubbo_call(&[
        &addr,
        INTERFACE,
        "slow",
        "--version",
        VERSION,
        "--types",
        "int",
        "--args",
        "[2000]",
        "--timeout",
        "200",
    ]);
    assert!(!ok);
    assert!(err.contains("within"), "{err}");
    let (ok, _, err) = dubbo_call(&[
        &addr,
        INTERFACE,
        "sayHello",
        "--version",
        "9.9.9",
        "--types",
        "java.lang.String",
        "--args",
        r#"["x"]"#,
    ]);
    assert!(!ok, "wrong version must fail");
    assert!(!err.is_empty());
}

async fn java_provider_suite(flavour: &str) {
    let Some(p) = java_provider(flavour) else {
        return;
    };
    client_checks(&p).await;
    let p2 = std::sync::Arc::new(p);
    let p3 = p2.clone();
    tokio::task::spawn_blocking(move || dubbo_call_checks(&p3))
        .await
        .unwrap();
    drop(p2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_and_dubbo_call_against_java_provider_2_7() {
    java_provider_suite("dubbo27").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_and_dubbo_call_against_java_provider_3_2() {
    java_provider_suite("dubbo3").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_and_dubbo_call_against_java_provider_3_3() {
    java_provider_suite("dubbo33").await;
}

async fn java_consumer_suite(flavour: &str) {
    java_consumer_suite_with(flavour, run_java_consumer).await;
}

/// The Java consumer's checks of `flavour` against our server, the consumer started by `run`.
async fn java_consumer_suite_with(
    flavour: &str,
    run: fn(&str, &str) -> Option<dubbo_test_support::java::ConsumerRun>,
) {
    if jar(flavour).is_none() {
        return;
    }
    let server = demo_server().await;
    let addr = server.local_addr().to_string();
    let f = flavour.to_owned();
    let run = tokio::task::spawn_blocking(move || run(&f, &addr))
        .await
        .unwrap()
        .unwrap();
    run.assert_all_passed(&format!("{flavour} consumer against our server"));
    server.shutdown(Duration::from_secs(2)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_consumer_2_7_against_our_server() {
    java_consumer_suite("dubbo27").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_consumer_3_2_against_our_server() {
    java_consumer_suite("dubbo3").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_consumer_3_3_against_our_server() {
    java_consumer_suite("dubbo33").await;
}

/// Stock Dubbo 3.2 and 3.3 consumers (no serialization pinned) against our server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stock_java_consumers_3_2_and_3_3_against_our_server() {
    java_consumer_suite_with("dubbo3", run_stock_java_consumer).await;
    java_consumer_suite_with("dubbo33", run_stock_java_consumer).await;
}
