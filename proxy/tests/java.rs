//! End to end with real Java Dubbo (2.7 and 3.2, `interop/dubbo-java`) on 127.0.0.1: the Java
//! consumer's whole check list through the proxy to a Java provider (every flavour pair), a
//! weighted split over two Java providers, and a Java provider's graceful shutdown (its
//! read-only event) under load. Skipped with a note when the interop project is absent; the
//! jars are built on demand.

mod common;
mod demo;

use std::time::Instant;

use common::*;
use demo::{count_of, hello};
use dubbo_codec::Status;
use dubbo_test_support::java::{run_consumer, Provider, FLAVOURS};
use dubbo_test_support::LogDir;

for_each_engine!(
    java_consumer_through_proxy_passes_every_check,
    java_providers_weighted_split_and_graceful_shutdown,
);

const LOGS: LogDir = LogDir("dubbo-proxy-java");

fn provider(flavour: &str) -> Option<Provider> {
    Provider::builder(flavour).log(LOGS, flavour).start()
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
    for provider_flavour in FLAVOURS {
        let Some(p) = provider(provider_flavour) else {
            return;
        };
        let proxy = Proxy::start(engine, &proxy_conf(&[(p.addr(), 100)]));
        let addr = proxy.addr().to_string();
        for consumer in FLAVOURS {
            let a = addr.clone();
            let run = tokio::task::spawn_blocking(move || run_consumer(consumer, &a, &[], LOGS))
                .await
                .unwrap()
                .unwrap();
            let what = format!("{consumer} consumer -> proxy -> {provider_flavour} provider");
            eprintln!("{what}: {} checks ok", run.oks());
            run.assert_all_passed(&what);
        }
        let (_, m) = proxy.admin("GET", "/metrics");
        assert!(
            m.contains("dubbo_proxy_heartbeats_answered_total")
                && m.contains("dubbo_proxy_route_requests_total"),
            "{m}"
        );
    }
}

async fn java_providers_weighted_split_and_graceful_shutdown(engine: &str) {
    let Some(mut a) = provider("dubbo3") else {
        return;
    };
    let Some(b) = provider("dubbo27") else {
        return;
    };
    let proxy = Proxy::start(engine, &proxy_conf(&[(a.addr(), 3), (b.addr(), 1)]));
    let mut cl = Client::connect(proxy.addr()).await;
    // Warm up until both providers answer through the proxy.
    for id in 0..8u64 {
        assert_eq!(cl.call(id, &hello("w")).await.0, Status::Ok);
    }
    let (a0, b0) = (
        count_of(&a.addr(), None).await,
        count_of(&b.addr(), None).await,
    );
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
    let da = count_of(&a.addr(), None).await - a0 - 1;
    let db = count_of(&b.addr(), None).await - b0 - 1;
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
