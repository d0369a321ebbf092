//! Application-level discovery against a real ZooKeeper server on 127.0.0.1, fed with the
//! nodes Java Dubbo 3.3.6 wrote (`tests/data`, captured from interop/dubbo-java's
//! `provider --bootstrap instance` with `metadata-type=remote`): the mapping, instances coming
//! and going, their metadata read from the report, and the fall-back to interface-level URLs
//! when no instance is left. Skipped with a note when ZooKeeper is not installed.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use dubbo_registry::instance::{MetadataInfo, MetadataSource, ServiceInstance};
use dubbo_registry::zookeeper::{ZookeeperRegistry, SERVICES_ROOT};
use dubbo_registry::{Registry, RegistryError, RegistryFuture, ServiceUrl};
mod common;

use common::{next_ports, raw_client, start_zookeeper};
use dubbo_test_support::net::assert_loopback_only;
use zookeeper_client as zk;

const IFACE: &str = "io.github.hessianrs.demo.DemoService";
const APP: &str = "hessianrs-interop-provider";
const INSTANCE: &str = include_str!("data/instance-remote-3.3.6.json");
const REPORT: &str = include_str!("data/metadata-report-3.3.6.json");
/// The port Java's provider had when the nodes were captured.
const JAVA_PORT: &str = "39459";
/// The revision it had.
const REVISION: &str = "551da3e92a991f853b02d56ece3abcc7";

/// Counts the calls it gets: instances that keep their metadata in the report must not
/// need it.
#[derive(Debug, Default)]
struct CountingSource(AtomicUsize);

impl MetadataSource for CountingSource {
    fn metadata<'a>(
        &'a self,
        instance: &'a ServiceInstance,
        _revision: &'a str,
    ) -> RegistryFuture<'a, MetadataInfo> {
        self.0.fetch_add(1, Ordering::Relaxed);
        Box::pin(async move {
            Err(RegistryError::Metadata {
                instance: instance.to_string(),
                source: "no MetadataService in this test".into(),
            })
        })
    }
}

async fn put(client: &zk::Client, path: &str, data: &str, mode: zk::CreateMode) {
    let persistent = zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all());
    let parent = &path[..path.rfind('/').unwrap()];
    client.mkdir(parent, &persistent).await.unwrap();
    client
        .create(
            path,
            data.as_bytes(),
            &mode.with_acls(zk::Acls::anyone_all()),
        )
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_from_mapping_and_report_with_interface_fallback() {
    let Some((zoo, address)) = start_zookeeper("instances", "dubbo-registry-instances") else {
        return;
    };
    let reg = ZookeeperRegistry::connect(&address).await.unwrap();
    let source = Arc::new(CountingSource::default());
    let mut sub = reg.subscribe_with_instances(IFACE, source.clone());
    assert_eq!(next_ports(&mut sub).await, [] as [u16; 0]);

    // Interface level only, as a 2.7 provider registers.
    let interface_level = ServiceUrl::provider(IFACE, ([127, 0, 0, 1], 20001).into(), "old")
        .version("1.0.0")
        .build();
    reg.register(&interface_level).await.unwrap();
    assert_eq!(next_ports(&mut sub).await, [20001]);

    // An instance of an application the mapping names: preferred over interface level.
    let raw = raw_client(&zoo).await;
    let services = format!("{SERVICES_ROOT}/{APP}");
    // What Java writes for an instance on `port` whose metadata `revision` has its service on
    // `service_port`: the report (once per revision) and the instance node.
    let report = |revision: &str, service_port: u16| {
        REPORT
            .replace(JAVA_PORT, &service_port.to_string())
            .replace(REVISION, revision)
    };
    let instance = |port: u16, revision: &str| {
        INSTANCE
            .replace(JAVA_PORT, &port.to_string())
            .replace(REVISION, revision)
    };
    for (revision, service_port) in [("r1", 30001), ("r2", 30002), ("r3", 30011)] {
        put(
            &raw,
            &format!("/dubbo/metadata/{APP}/{revision}"),
            &report(revision, service_port),
            zk::CreateMode::Persistent,
        )
        .await;
    }
    put(
        &raw,
        &format!("{services}/127.0.0.1:30001"),
        &instance(30001, "r1"),
        zk::CreateMode::Ephemeral,
    )
    .await;
    // Found once the mapping names its application.
    put(
        &raw,
        &format!("/dubbo/mapping/{IFACE}"),
        APP,
        zk::CreateMode::Persistent,
    )
    .await;
    assert_eq!(next_ports(&mut sub).await, [30001]);

    // A second instance; then the first one's metadata changes (a new revision written into
    // its node): its URL follows (Java takes the service's port from the metadata).
    put(
        &raw,
        &format!("{services}/127.0.0.1:30002"),
        &instance(30002, "r2"),
        zk::CreateMode::Ephemeral,
    )
    .await;
    assert_eq!(next_ports(&mut sub).await, [30001, 30002]);
    raw.set_data(
        &format!("{services}/127.0.0.1:30001"),
        instance(30001, "r3").as_bytes(),
        None,
    )
    .await
    .unwrap();
    assert_eq!(next_ports(&mut sub).await, [30002, 30011]);

    // An instance whose report is not there yet (nothing to watch for it): found when the
    // read is tried again.
    put(
        &raw,
        &format!("{services}/127.0.0.1:30003"),
        &instance(30003, "r4"),
        zk::CreateMode::Ephemeral,
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    put(
        &raw,
        &format!("/dubbo/metadata/{APP}/r4"),
        &report("r4", 30003),
        zk::CreateMode::Persistent,
    )
    .await;
    let t = std::time::Instant::now();
    assert_eq!(next_ports(&mut sub).await, [30002, 30003, 30011]);
    eprintln!(
        "a late report was read {:?} after it was written",
        t.elapsed()
    );
    raw.delete(&format!("{services}/127.0.0.1:30003"), None)
        .await
        .unwrap();
    assert_eq!(next_ports(&mut sub).await, [30002, 30011]);

    // Instances go: the list follows; with none left, the interface-level URL is back.
    raw.delete(&format!("{services}/127.0.0.1:30001"), None)
        .await
        .unwrap();
    assert_eq!(next_ports(&mut sub).await, [30002]);
    raw.delete(&format!("{services}/127.0.0.1:30002"), None)
        .await
        .unwrap();
    assert_eq!(next_ports(&mut sub).await, [20001]);
    assert_eq!(source.0.load(Ordering::Relaxed), 0, "report-only metadata");

    let mut pids = vec![std::process::id()];
    pids.extend(zoo.pid());
    assert_loopback_only(&pids);
}

/// 500 instances of one application (one revision, metadata in the report): how long until a
/// subscriber has them all, and until one instance's removal reaches it (each change reads the
/// instances again).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_hundred_instances() {
    const N: u16 = 500;
    let Some((zoo, address)) = start_zookeeper("instances-500", "dubbo-registry-instances") else {
        return;
    };
    let raw = raw_client(&zoo).await;
    // The service's port is left to each instance's endpoints.
    let report = REPORT.replace(&format!("\"port\":{JAVA_PORT},"), "");
    put(
        &raw,
        &format!("/dubbo/metadata/{APP}/{REVISION}"),
        &report,
        zk::CreateMode::Persistent,
    )
    .await;
    put(
        &raw,
        &format!("/dubbo/mapping/{IFACE}"),
        APP,
        zk::CreateMode::Persistent,
    )
    .await;
    let services = format!("{SERVICES_ROOT}/{APP}");
    for k in 0..N {
        let port = 40000 + k;
        put(
            &raw,
            &format!("{services}/127.0.0.1:{port}"),
            &INSTANCE.replace(JAVA_PORT, &port.to_string()),
            zk::CreateMode::Ephemeral,
        )
        .await;
    }
    let reg = ZookeeperRegistry::connect(&address).await.unwrap();
    let t = std::time::Instant::now();
    let mut sub = reg.subscribe_with_instances(IFACE, Arc::new(CountingSource::default()));
    let ports = next_ports(&mut sub).await;
    let first = t.elapsed();
    assert_eq!(ports, (40000..40000 + N).collect::<Vec<_>>());
    let t = std::time::Instant::now();
    raw.delete(&format!("{services}/127.0.0.1:40000"), None)
        .await
        .unwrap();
    assert_eq!(next_ports(&mut sub).await.len(), usize::from(N) - 1);
    eprintln!(
        "{N} instances: first list after {first:?}, a removal seen after {:?}",
        t.elapsed()
    );
}
