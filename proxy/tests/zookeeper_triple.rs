//! A migration to Triple through the proxy, with real ZooKeeper servers and real Java Dubbo
//! on 127.0.0.1: a Java 3.3 provider that exports `tri://` alone, registered in one ZooKeeper
//! ("back"), found by a Triple-only cluster's discovery (`protocol = "tri"`); the proxy
//! registered in another ("front") as a provider whose port serves both protocols and
//! prefers Triple (`registry.preferred_protocol = "tri"`). A stock Java 2.7 consumer that
//! knows only the front registry calls in the Dubbo protocol (bridged to Triple); a stock
//! Java 3.3 consumer switches to Triple by itself. Skipped with a note when ZooKeeper or the
//! Java interop project is absent (a failure under CI).

mod common;
mod demo;
mod zoo;

use std::time::{Duration, Instant};

use common::*;
use demo::DEMO;
use dubbo_test_support::java::{run_consumer, ConsumerRun};
use dubbo_test_support::net::assert_loopback_only;
use zoo::*;

/// The proxy's node in the front registry, once it is there with the methods of the
/// provider behind.
async fn registered_node(front: &str) -> String {
    let dir = format!("/dubbo/{DEMO}/providers");
    let t = Instant::now();
    loop {
        let nodes = zk_children(front, &dir).await;
        if let [n] = &nodes[..] {
            let url = registry_urlweight::zk::decode_node_name(n).into_owned();
            if registry_urlweight::get_param(&url, "methods").is_some() {
                return url;
            }
        }
        assert!(
            t.elapsed() < Duration::from_secs(15),
            "the proxy never registered: {nodes:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn consumer_via(flavour: &'static str, registry: String) -> ConsumerRun {
    tokio::task::spawn_blocking(move || run_consumer(flavour, &registry, &[], LOGS))
        .await
        .unwrap()
        .expect("the interop project is there")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_consumers_migrate_to_a_triple_only_provider_through_the_proxy() {
    let (Some(back), Some(front)) = (zookeeper("tri-back"), zookeeper("tri-front")) else {
        return;
    };
    let Some(p) = provider(
        "dubbo33",
        "tri-only",
        &back.address(),
        &["--protocol", "tri", "--param", "warmup=0"],
    ) else {
        return;
    };
    let conf = config(
        1,
        &format!(
            "[registry]\nzookeeper = \"{front}\"\napplication = \"gateway\"\npreferred_protocol = \"tri\"\n\
             session_timeout_ms = {SESSION_MS}\n\
             [[routes]]\ninterface = \"{DEMO}\"\nversion = \"1.0.0\"\ncluster = \"demo\"\ntimeout_ms = 10000\n\
             [clusters.demo]\nprotocol = \"tri\"\n[clusters.demo.discovery]\nzookeeper = \"{back}\"\n\
             interface = \"{DEMO}\"\nversion = \"1.0.0\"\nsession_timeout_ms = {SESSION_MS}\n",
            front = front.address(),
            back = back.address()
        ),
    );
    let proxy = Proxy::start_process("tokio", &conf);
    // The provider registered a tri:// URL: the Triple-only cluster takes it.
    let admin = proxy.admin.unwrap();
    wait_endpoints(admin, "demo", Duration::from_secs(15), |e| {
        has(e, &p.addr())
    })
    .await;

    let node = registered_node(&front.address()).await;
    assert!(
        node.starts_with(&format!("dubbo://{}/{DEMO}?", proxy.addr())),
        "{node}"
    );
    assert_eq!(
        registry_urlweight::get_param(&node, "ext.protocol"),
        Some("tri")
    );
    assert_eq!(
        registry_urlweight::get_param(&node, "preferred.protocol"),
        Some("tri")
    );

    let zk_front = format!("zookeeper://{}", front.address());
    let old = consumer_via("dubbo27", zk_front.clone()).await;
    old.assert_all_passed(
        "2.7 consumer -> front registry -> proxy (bridge) -> 3.3 tri:// provider",
    );
    assert!(
        old.lines.iter().any(|l| l == "# protocol dubbo"),
        "{:#?}",
        old.lines
    );

    let new = consumer_via("dubbo33", zk_front).await;
    new.assert_all_passed("3.3 consumer -> front registry -> proxy -> 3.3 tri:// provider");
    assert!(
        new.lines.iter().any(|l| l == "# protocol tri"),
        "the 3.3 consumer did not switch to Triple: {:#?}",
        new.lines
    );
    assert!(proxy.metric("dubbo_proxy_triple_calls_total") >= 20.0);
    let pids = [
        back.pid().unwrap(),
        front.pid().unwrap(),
        proxy.pid(),
        p.pid(),
    ];
    assert_loopback_only(&pids);
}
