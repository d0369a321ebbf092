//! A real ZooKeeper on 127.0.0.1 and Java providers registered in it, for the tests of the
//! proxy's discovery and membership (`zookeeper`, `zookeeper_triple`).

#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use dubbo_test_support::java::Provider;
use dubbo_test_support::zookeeper::ZooKeeper;
use dubbo_test_support::LogDir;
use zookeeper_client as zk;

use crate::common::http;

/// The server's `maxSessionTimeout`: no session (a provider's, the proxy's) lasts longer.
pub const SESSION_MS: u64 = 4_000;

pub const LOGS: LogDir = LogDir("dubbo-proxy-zookeeper");

/// A ZooKeeper server on 127.0.0.1 (see `dubbo_test_support::zookeeper`).
pub fn zookeeper(name: &str) -> Option<ZooKeeper> {
    ZooKeeper::start(name, Duration::from_millis(SESSION_MS), LOGS)
}

/// A Java Dubbo provider registered in ZooKeeper.
pub fn provider(flavour: &str, name: &str, zookeeper: &str, extra: &[&str]) -> Option<Provider> {
    Provider::builder(flavour)
        .log(LOGS, name)
        .jvm_arg("-XX:TieredStopAtLevel=1")
        .registry(zookeeper)
        .args(extra)
        .start()
}

/// The endpoints of `cluster` in the proxy's configuration in force (`/config`).
pub fn endpoints(proxy_admin: SocketAddr, cluster: &str) -> Vec<(String, u32)> {
    let (st, body) = http(proxy_admin, "GET", "/config", "");
    assert_eq!(st, 200);
    let c: dubbo_proxy::config::Config = toml::from_str(&body).expect("/config is TOML");
    c.clusters[cluster]
        .endpoints
        .iter()
        .map(|e| (e.address.clone(), e.weight))
        .collect()
}

/// Waits (up to `limit`) until `ok` holds for the endpoints of `cluster`; how long it took.
pub async fn wait_endpoints(
    admin: SocketAddr,
    cluster: &str,
    limit: Duration,
    ok: impl Fn(&[(String, u32)]) -> bool,
) -> Duration {
    let t0 = Instant::now();
    loop {
        let eps = endpoints(admin, cluster);
        if ok(&eps) {
            return t0.elapsed();
        }
        assert!(
            t0.elapsed() < limit,
            "endpoints of {cluster} after {limit:?}: {eps:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub fn has(eps: &[(String, u32)], addr: &str) -> bool {
    eps.iter().any(|(a, _)| a == addr)
}

/// The children of `path`, read in a session of its own.
pub async fn zk_children(zookeeper: &str, path: &str) -> Vec<String> {
    let client = zk::Client::connector()
        .with_session_timeout(Duration::from_millis(SESSION_MS))
        .connect(zookeeper)
        .await
        .unwrap();
    client.list_children(path).await.unwrap_or_default()
}
