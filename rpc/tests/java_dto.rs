//! A DTO of `LocalDateTime`, `LocalDate`, `Instant`, `BigDecimal`, `UUID` and an enum
//! (`io.github.hessianrs.demo.Order`, typed in Rust with chrono, rust_decimal and uuid) between
//! Rust and real Java Dubbo, in hessian2 and in fastjson2, both ways: our typed client against
//! the Java provider's OrderService (`provider --orders`), and the Java consumer (`consumer
//! --only orders`) against our server. Each side checks every field it receives against the
//! values agreed (`OrderService.SENT`) and answers them changed (a day, a second, one unit
//! on), so an echo cannot pass; and each refuses an order one cent off, which shows that it
//! does check. `dubbo-call` makes the same call with the DTO in JSON (its typed fields as
//! `{"class", "value"}` text) and prints the answer's as ISO-8601 and decimal text.
//!
//! And with Dubbo's defaults (`--serialization default`: nothing pinned on the Java side):
//! stock 3.2 and 3.3 providers, registered in a ZooKeeper, over the Dubbo protocol and over
//! Triple; our clients read the `prefer.serialization` of the provider's URL there (3.2:
//! `fastjson2,hessian2`, 3.3: `hessian2,fastjson2`) and call in each serialization offered,
//! first the preferred; and stock 3.2 and 3.3 consumers (direct URL: hessian2) against our
//! server over both protocols. Everything runs on 127.0.0.1.

mod common;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::orders::*;
use common::*;
use dubbo_codec::{BodyFormat, Serialization};
use dubbo_registry::zookeeper::ZookeeperRegistry;
use dubbo_registry::{Registry, ServiceUrl};
use dubbo_rpc::client::{CallError, Client, ClientConfig};
use dubbo_rpc::triple_client::{Client as TripleClient, TripleCall, TripleError};
use dubbo_test_support::zookeeper::ZooKeeper;
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
    order_calls(&p.addr(), serialization, format, &what).await;
}

/// Our typed client in `format` (`serialization` by name) against the OrderService at `addr`:
/// [`sent`] is answered [`advanced`], an amount one cent off is refused with Java's exception;
/// then `dubbo-call` does the same in that serialization. `what` names the peer in failures.
async fn order_calls(addr: &str, serialization: &str, format: BodyFormat, what: &str) {
    let config = ClientConfig::default()
        .timeout(Duration::from_secs(10))
        .format(format);
    let client = Client::connect_with(addr.to_owned(), config).await.unwrap();
    let got = advance(&client, format, &sent())
        .await
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
    assert_advanced(&got, what);

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

    let addr = addr.to_owned();
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

/// The Java consumer of `flavour` in `serialization` (`default`: nothing pinned, Dubbo's
/// defaults decide) against our OrderService at `scheme` (`""`: the Dubbo protocol,
/// `"tri://"`: Triple): it checks the answer to [`sent`] and that an order one cent off is
/// refused. Returns what it printed and the serialization ids its calls arrived in; `None`
/// when the Java interop project is absent.
async fn java_consumer_orders(
    flavour: &'static str,
    scheme: &'static str,
    serialization: &'static str,
) -> Option<(ConsumerRun, Vec<u8>)> {
    jar(flavour)?;
    let seen: Arc<Mutex<BTreeSet<u8>>> = Arc::default();
    let server = dubbo_rpc::server::Server::builder()
        .service(order_service(seen.clone()))
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let addr = format!("{scheme}{}", server.local_addr());
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
    let what = format!("{flavour} consumer {scheme}in {serialization}");
    assert!(run.fails().is_empty(), "{what}: {:#?}", run.lines);
    for check in ["orders_connect", "orders_advance", "orders_mismatch"] {
        assert!(
            run.lines.iter().any(|l| *l == format!("ok {check}")),
            "{what}: {check}: {:#?}",
            run.lines
        );
    }
    assert!(run.ok, "{what}: exit status: {:#?}", run.lines);
    server.shutdown(Duration::from_secs(2)).await;
    let ids: Vec<u8> = seen.lock().unwrap().iter().copied().collect();
    Some((run, ids))
}

/// [`java_consumer_orders`] over the Dubbo protocol, pinned to `serialization`: every call
/// arrived in serialization `id`.
async fn java_consumer_against_our_server(
    flavour: &'static str,
    serialization: &'static str,
    id: u8,
) {
    let Some((_, ids)) = java_consumer_orders(flavour, "", serialization).await else {
        return;
    };
    let what = format!("{flavour} consumer in {serialization}");
    assert_eq!(ids, [id], "{what}: the serialization ids of the calls");
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

// Dubbo's defaults: nothing pinned on the Java side (`--serialization default`), as a stock
// application runs; what each side then speaks is what Dubbo chose.

/// The serialization Dubbo uses when a URL names none (no `serialization` parameter).
const DUBBO_DEFAULT_SERIALIZATION: &str = "hessian2";

/// The serializations a provider's URL offers, most preferred first, as a Dubbo 3.2+ consumer
/// reads it: its `prefer.serialization` list, then its `serialization` (Dubbo's default when
/// absent); each once.
fn offered(url: &ServiceUrl) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let prefer = url.param("prefer.serialization").unwrap_or_default();
    let own = url
        .param("serialization")
        .map_or(DUBBO_DEFAULT_SERIALIZATION.to_owned(), |s| s.into_owned());
    for name in prefer.split(',').map(str::trim).chain([own.as_str()]) {
        if !name.is_empty() && !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    names
}

/// The format our client writes serialization `name` in, if it has one.
fn format_named(name: &str) -> Option<BodyFormat> {
    Serialization::from_name(name).and_then(BodyFormat::of)
}

/// A Java provider of `flavour` over `protocol` (`dubbo`, `tri`) with OrderService and nothing
/// pinned, registered in `zoo`; and its OrderService URL as a consumer finds it there. `None`
/// when the Java interop project is absent.
async fn stock_java_provider(
    flavour: &str,
    protocol: &str,
    zoo: &ZooKeeper,
) -> Option<(Provider, ServiceUrl)> {
    let p = Provider::builder(flavour)
        .log(LOGS, &format!("{flavour}-{protocol}-default-orders"))
        .registry(&zoo.address())
        .args(&[
            "--orders",
            "--protocol",
            protocol,
            "--serialization",
            "default",
        ])
        .start()?;
    let registry = ZookeeperRegistry::connect(&format!("zookeeper://{}", zoo.address()))
        .await
        .unwrap();
    let urls = registry.providers(ORDER_SERVICE).await.unwrap();
    let url = urls
        .into_iter()
        .find(|u| u.protocol() == protocol && u.port() == Some(p.port))
        .unwrap_or_else(|| panic!("{flavour}: no {protocol} URL of {ORDER_SERVICE} registered"));
    eprintln!("{flavour} stock {protocol} provider registered {url}");
    Some((p, url))
}

fn zookeeper(name: &str) -> Option<ZooKeeper> {
    ZooKeeper::start(name, Duration::from_secs(4), LOGS)
}

/// The `prefer.serialization` a stock Java provider of `flavour` advertises: its
/// `PreferSerializationProvider`'s list, which `ProtocolConfig.checkDefault` sets (3.2.19:
/// fastjson2 first; 3.3.6 went back to hessian2 first).
fn stock_preference(flavour: &str) -> [&'static str; 2] {
    match flavour {
        "dubbo3" => ["fastjson2", "hessian2"],
        _ => ["hessian2", "fastjson2"],
    }
}

/// Stock Java 3.2 and 3.3 providers (Dubbo protocol, nothing pinned) register no
/// `serialization` and the `prefer.serialization` of [`stock_preference`]; our client, going by
/// that URL, calls in the first it writes (3.2: fastjson2, 3.3: hessian2), and the provider
/// takes each serialization it offers: the typed DTO answered right and a wrong one refused,
/// by our client and by `dubbo-call`, in each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_against_stock_java_providers() {
    let Some(zoo) = zookeeper("dto-stock-dubbo") else {
        return;
    };
    for flavour in ["dubbo3", "dubbo33"] {
        let Some((p, url)) = stock_java_provider(flavour, "dubbo", &zoo).await else {
            return;
        };
        assert_eq!(url.param("serialization"), None, "{flavour}: {url}");
        let offered = offered(&url);
        assert_eq!(offered, stock_preference(flavour), "{flavour}: {url}");
        let first = offered
            .iter()
            .find_map(|n| format_named(n))
            .expect("a serialization our client writes");
        eprintln!("stock {flavour} provider: our client calls in {first:?} first");
        assert_eq!(
            Some(first),
            format_named(&offered[0]),
            "{flavour}: what our client picks"
        );
        for name in &offered {
            let format = format_named(name).unwrap();
            let what = format!("stock {flavour} provider, our client in {name}");
            order_calls(&p.addr(), name, format, &what).await;
        }
    }
}

/// Stock Java 3.2 and 3.3 consumers (Dubbo protocol, direct URL, nothing pinned) against our
/// OrderService: their checks pass, and every call arrives in hessian2, what Dubbo chooses when
/// the provider URL (here the direct one) offers no `prefer.serialization`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stock_java_consumers_against_our_server() {
    for flavour in ["dubbo3", "dubbo33"] {
        let Some((run, ids)) = java_consumer_orders(flavour, "", "default").await else {
            return;
        };
        eprintln!("stock {flavour} consumer, Dubbo protocol: serialization ids {ids:?}");
        assert!(
            run.lines.iter().any(|l| l == "# protocol dubbo"),
            "{flavour}: {:#?}",
            run.lines
        );
        assert_eq!(
            ids,
            [Serialization::Hessian2.id()],
            "stock {flavour} consumer: the serialization ids of its calls"
        );
    }
}

/// `advance(order)` through our Triple client in `format`.
async fn triple_advance(
    client: &TripleClient,
    format: BodyFormat,
    order: &Order,
) -> Result<Order, TripleError> {
    let call = TripleCall::new(ORDER_SERVICE, "advance")
        .version(VERSION)
        .timeout(Duration::from_secs(10))
        .format(format)
        .arg(ORDER_CLASS, order)?;
    client.call::<Order>(&call).await
}

/// Stock Java 3.2 and 3.3 providers over Triple (`--protocol tri`, nothing pinned), OrderService
/// in interface style (each argument in Triple's request wrapper): their `tri://` URL offers
/// the [`stock_preference`] as over the Dubbo protocol, and our Triple client's `advance` with
/// the typed DTO is answered right, and a wrong one refused, in each serialization offered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_triple_client_against_stock_java_triple_providers() {
    let Some(zoo) = zookeeper("dto-stock-tri") else {
        return;
    };
    for flavour in ["dubbo3", "dubbo33"] {
        let Some((p, url)) = stock_java_provider(flavour, "tri", &zoo).await else {
            return;
        };
        assert_eq!(url.param("serialization"), None, "{flavour}: {url}");
        let offered = offered(&url);
        assert_eq!(offered, stock_preference(flavour), "{flavour}: {url}");
        let client = TripleClient::connect(&p.addr()).await.unwrap();
        for name in &offered {
            let format = format_named(name).unwrap();
            let what = format!("stock {flavour} Triple provider, our client in {name}");
            let got = triple_advance(&client, format, &sent())
                .await
                .unwrap_or_else(|e| panic!("{what}: {e:?}"));
            assert_advanced(&got, &what);
            let off = Order {
                amount: Decimal::new(123_451, 2),
                ..sent()
            };
            match triple_advance(&client, format, &off).await {
                Err(TripleError::Exception(e)) => {
                    assert_eq!(e.class, "java.lang.IllegalArgumentException", "{what}: {e}");
                    let msg = e.message.unwrap_or_default();
                    assert!(
                        msg.contains("amount: got 1234.51") && !msg.contains("placed"),
                        "{what}: the refusal names the amount alone: {msg}"
                    );
                }
                other => panic!("{what}: a wrong amount gave {other:?}"),
            }
        }
    }
}

/// Stock Java 3.2 and 3.3 consumers over Triple (`tri://` direct URL, nothing pinned) against
/// our OrderService in interface style: their checks pass, and their request wrappers name
/// hessian2 (a direct URL offers no `prefer.serialization`; Dubbo's default is hessian2).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stock_java_triple_consumers_against_our_server() {
    for flavour in ["dubbo3", "dubbo33"] {
        let Some((run, ids)) = java_consumer_orders(flavour, "tri://", "default").await else {
            return;
        };
        eprintln!("stock {flavour} consumer, Triple: serialization ids {ids:?}");
        assert!(
            run.lines.iter().any(|l| l == "# protocol tri"),
            "{flavour}: {:#?}",
            run.lines
        );
        assert_eq!(
            ids,
            [Serialization::Hessian2.id()],
            "stock {flavour} Triple consumer: the serialization ids of its calls"
        );
    }
}
