//! A DTO of `LocalDateTime`, `LocalDate`, `Instant`, `BigDecimal`, `UUID` and an enum
//! (`io.github.hessianrs.demo.Order`, typed in Rust with chrono, rust_decimal and uuid) between
//! Rust and real Java Dubbo, in hessian2 and in fastjson2, both ways: our typed client against
//! the Java provider's OrderService (`provider --orders`), and the Java consumer (`consumer
//! --only orders`) against our server. Each side checks every field it receives against the
//! values agreed (`OrderService.SENT`) and answers them changed (a day, a second, one unit
//! on), so an echo cannot pass; and each refuses an order one cent off, which shows that it
//! does check. `dubbo-call` makes the same call with the DTO in JSON (its typed fields as
//! `{"class", "value"}` text) and prints the answer's as ISO-8601 and decimal text. Everything
//! runs on 127.0.0.1.

mod common;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::orders::*;
use common::*;
use dubbo_codec::BodyFormat;
use dubbo_rpc::client::{CallError, Client, ClientConfig};
use rust_decimal::Decimal;

/// `advance(order)` through `client` in `format`.
async fn advance(client: &Client, format: BodyFormat, order: &Order) -> Result<Order, CallError> {
    let req = dubbo_codec::Request::builder(ORDER_SERVICE, "advance")
        .version(VERSION)
        // The format first: the argument is then written in it directly.
        .format(format)
        .arg(ORDER_CLASS, order)
        .build()
        .unwrap();
    client.call::<Order>(&req).await
}

/// Our client against the Java provider of `flavour` in `serialization`: the Java side accepts
/// [`sent`] and answers [`advanced`]; it refuses an amount one cent off, naming the field.
async fn against_java_provider(flavour: &str, serialization: &str, format: BodyFormat) {
    let Some(p) = Provider::builder(flavour)
        .log(LOGS, &format!("{flavour}-{serialization}-orders"))
        .args(&["--orders", "--serialization", serialization])
        .start()
    else {
        return;
    };
    let what = format!("{flavour} provider in {serialization}");
    let config = ClientConfig::default()
        .timeout(Duration::from_secs(10))
        .format(format);
    let client = Client::connect_with(p.addr(), config).await.unwrap();
    let got = advance(&client, format, &sent())
        .await
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
    assert_advanced(&got, &what);

    let off = Order {
        amount: Decimal::new(123_451, 2),
        ..sent()
    };
    let err = advance(&client, format, &off).await.unwrap_err();
    let CallError::Exception(e) = err else {
        panic!("{what}: a wrong amount gave {err:?}")
    };
    assert_eq!(e.class, "java.lang.IllegalArgumentException", "{what}: {e}");
    // Java's stack trace comes along: the frame of the method that threw, as Java prints it.
    let frames = e.stack_trace();
    assert!(
        frames
            .iter()
            .any(|f| f.method == "advance" && f.to_string().contains("OrderService")),
        "{what}: {frames:#?}"
    );
    assert_eq!(e.cause(), None, "{what}: no cause");
    let msg = e.message.unwrap_or_default();
    assert!(
        msg.contains("amount: got 1234.51") && !msg.contains("placed"),
        "{what}: the refusal names the amount alone: {msg}"
    );

    let addr = p.addr();
    let serialization = serialization.to_owned();
    tokio::task::spawn_blocking(move || dubbo_call_checks(&addr, &serialization))
        .await
        .unwrap();
}

/// [`sent`] as `dubbo-call` takes it: each typed field as `{"class", "value"}` with its
/// ISO-8601 or decimal text, the enum as hessian-lite's object or, in fastjson2, its name.
fn sent_json(serialization: &str, amount: &str) -> serde_json::Value {
    let typed = |class: &str, value: &str| serde_json::json!({"class": class, "value": value});
    let status = match serialization {
        "hessian2" => {
            serde_json::json!({"class": "io.github.hessianrs.demo.OrderStatus", "name": "NEW"})
        }
        _ => serde_json::json!("NEW"),
    };
    serde_json::json!([{
        "id": typed("java.util.UUID", "123e4567-e89b-12d3-a456-426614174000"),
        "placed": typed("java.time.LocalDateTime", "2024-02-29T13:45:30.123456789"),
        "due": typed("java.time.LocalDate", "2024-12-31"),
        "paid": typed("java.time.Instant", "2023-11-14T22:13:20.000005Z"),
        "amount": typed("java.math.BigDecimal", amount),
        "status": status,
    }])
}

/// `dubbo-call` against the Java provider at `addr`: `advance` with [`sent_json`] prints
/// [`advanced`] as ISO-8601 and decimal text; an amount one cent off is refused.
fn dubbo_call_checks(addr: &str, serialization: &str) {
    let call = |amount: &str| {
        dubbo_call(&[
            addr,
            ORDER_SERVICE,
            "advance",
            "--version",
            VERSION,
            "--types",
            ORDER_CLASS,
            "--args",
            &sent_json(serialization, amount).to_string(),
            "--serialization",
            serialization,
            "--output",
            "json",
        ])
    };
    let (ok, out, err) = call("1234.50");
    assert!(ok, "dubbo-call in {serialization}: {out} {err}");
    let got: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(got["class"], ORDER_CLASS, "{out}");
    assert_eq!(got["amount"], "1235.50", "{out}");
    assert_eq!(got["due"], "2025-01-01", "{out}");
    assert_eq!(got["paid"], "2023-11-14T22:13:21.000005Z", "{out}");
    assert_eq!(got["placed"], "2024-03-01T13:45:30.123456789", "{out}");
    if serialization == "hessian2" {
        assert_eq!(got["id"], "123e4567-e89b-12d3-a456-426614174001", "{out}");
        assert_eq!(got["status"]["name"], "PAID", "{out}");
    } else {
        // fastjson2 writes a UUID as its 16 bytes and an enum as its ordinal, with no class
        // name for a field whose declared type says it: a binary and an int to any reader.
        assert_eq!(
            got["id"], "Ej5FZ+ibEtOkVkJmFBdAAQ==",
            "{out}: the bytes of ...4001"
        );
        assert_eq!(got["status"], 1, "{out}: PAID's ordinal");
    }
    let (ok, out, _) = call("1234.51");
    assert!(!ok, "an exception exits non-zero: {out}");
    assert!(
        out.contains("IllegalArgumentException") && out.contains("amount: got 1234.51"),
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_against_java_provider_in_hessian2() {
    for flavour in ["dubbo27", "dubbo33"] {
        against_java_provider(flavour, "hessian2", BodyFormat::HESSIAN2).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_against_java_provider_in_fastjson2() {
    for flavour in ["dubbo3", "dubbo33"] {
        against_java_provider(flavour, "fastjson2", BodyFormat::FASTJSON2).await;
    }
}

/// The Java consumer of `flavour` in `serialization` against our OrderService: it checks the
/// answer to [`sent`] and that an order one cent off is refused; every call arrived in
/// serialization `id`.
async fn java_consumer_against_our_server(
    flavour: &'static str,
    serialization: &'static str,
    id: u8,
) {
    if jar(flavour).is_none() {
        return;
    }
    let seen: Arc<Mutex<BTreeSet<u8>>> = Arc::default();
    let server = dubbo_rpc::server::Server::builder()
        .service(order_service(seen.clone()))
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let addr = server.local_addr().to_string();
    let run = tokio::task::spawn_blocking(move || {
        run_consumer(
            flavour,
            &addr,
            &["--only", "orders", "--serialization", serialization],
            LOGS,
        )
    })
    .await
    .unwrap()
    .unwrap();
    let what = format!("{flavour} consumer in {serialization}");
    assert!(run.fails().is_empty(), "{what}: {:#?}", run.lines);
    for check in ["orders_connect", "orders_advance", "orders_mismatch"] {
        assert!(
            run.lines.iter().any(|l| *l == format!("ok {check}")),
            "{what}: {check}: {:#?}",
            run.lines
        );
    }
    assert!(run.ok, "{what}: exit status: {:#?}", run.lines);
    let ids: Vec<u8> = seen.lock().unwrap().iter().copied().collect();
    assert_eq!(ids, [id], "{what}: the serialization ids of the calls");
    server.shutdown(Duration::from_secs(2)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_consumers_in_hessian2_against_our_server() {
    for flavour in ["dubbo27", "dubbo33"] {
        java_consumer_against_our_server(flavour, "hessian2", 2).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_consumers_in_fastjson2_against_our_server() {
    for flavour in ["dubbo3", "dubbo33"] {
        java_consumer_against_our_server(flavour, "fastjson2", 23).await;
    }
}
