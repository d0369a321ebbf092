//! Dubbo 3 application-level discovery with real parts: a ZooKeeper server on 127.0.0.1 and
//! Java Dubbo 3.2 and 3.3 providers started as stock Dubbo 3 applications
//! (`DubboBootstrap`, `provider --bootstrap instance|all`), found by the Rust cluster client and
//! `dubbo-call --registry` through `/dubbo/mapping/<interface>`, `/services/<app>` and each
//! instance's MetadataService. Skipped with a note when ZooKeeper or the Java interop project
//! is missing (a failure under CI).

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use dubbo_registry::instance::ServiceInstance;
use dubbo_registry::zookeeper::{ZookeeperRegistry, SERVICES_ROOT};
use dubbo_registry::Registry;
use dubbo_rpc::cluster::ClusterClient;
use dubbo_test_support::net::assert_loopback_only;
use dubbo_test_support::zookeeper::ZooKeeper;
use dubbo_test_support::LogDir;
use zookeeper_client as zk;

const SESSION_MS: u64 = 4_000;
const APP: &str = "hessianrs-interop-provider";

/// A ZooKeeper server on 127.0.0.1 for test `name` (`None`: not installed, the test is skipped).
fn zookeeper(name: &str) -> Option<ZooKeeper> {
    ZooKeeper::start(
        name,
        Duration::from_millis(SESSION_MS),
        LogDir("dubbo-codec-app-discovery"),
    )
}

/// Java 3.2 and 3.3 register as instances only (metadata behind their MetadataService; the
/// 3.3 one with Dubbo's default serializations, fastjson2 preferred for its service), a second
/// 3.3 as both (`all`) with its metadata in the report (`metadata-type=remote`): the
/// client finds each once, through its instance, calls them all, and `dubbo-call --registry`
/// calls through them; every socket stays on loopback.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instance_registered_java_providers_are_found_and_called() {
    let Some(zoo) = zookeeper("app-discovery") else {
        return;
    };
    let builders = [
        ("dubbo3", "instance", "local", "hessian2"),
        ("dubbo33", "instance", "local", "default"),
        ("dubbo33", "all", "remote", "hessian2"),
    ]
    .iter()
    .map(|(f, mode, metadata, serialization)| {
        Provider::builder(f)
            .log(LOGS, &format!("bootstrap-{f}-{mode}-{metadata}"))
            .jvm_arg("-XX:TieredStopAtLevel=1")
            .jvm_arg(&format!("-Ddubbo.application.metadata-type={metadata}"))
            .registry(&zoo.address())
            .args(&["--bootstrap", mode, "--serialization", serialization])
    })
    .collect();
    let Some(mut providers) = Provider::start_all(builders) else {
        return;
    };
    let addrs: BTreeSet<String> = providers.iter().map(Provider::addr).collect();

    // What Java wrote: one instance per provider under its application, the mapping, and an
    // interface-level URL from the `all` provider only.
    let raw = zk::Client::connector()
        .connect(&zoo.address())
        .await
        .unwrap();
    let (mapping, _) = raw
        .get_data(&format!("/dubbo/mapping/{INTERFACE}"))
        .await
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&mapping), APP);
    let dir = format!("{SERVICES_ROOT}/{APP}");
    let mut instances = BTreeSet::new();
    let mut remote = 0;
    // Instances whose MetadataService has Dubbo's default serializations (3.3: `prefer.
    // serialization=hessian2,fastjson2`, nothing pinned).
    let mut stock_serialization = 0;
    for node in raw.list_children(&dir).await.unwrap() {
        let (json, _) = raw.get_data(&format!("{dir}/{node}")).await.unwrap();
        let i = ServiceInstance::from_curator_json(&json).unwrap();
        let revision = i.revision().expect("a metadata revision");
        if i.metadata_is_remote() {
            let report = format!("/dubbo/metadata/{APP}/{revision}");
            assert!(raw.check_stat(&report).await.unwrap().is_some(), "{report}");
            remote += 1;
        } else {
            let params = i.metadata_service_params();
            assert!(params.contains_key("port"), "{i}: {i:?}");
            stock_serialization += usize::from(!params.contains_key("serialization"));
        }
        instances.insert(format!("{}:{}", i.address, i.port));
    }
    assert_eq!(instances, addrs);
    assert_eq!((remote, stock_serialization), (1, 1));
    let interface_level = raw
        .list_children(&format!("/dubbo/{INTERFACE}/providers"))
        .await
        .unwrap();
    assert_eq!(interface_level.len(), 1, "{interface_level:?}");

    let address = format!("zookeeper://{}?session={SESSION_MS}", zoo.address());
    let reg: Arc<dyn Registry> = Arc::new(ZookeeperRegistry::connect(&address).await.unwrap());
    let client = round_robin_client(
        ClusterClient::builder(reg.clone(), INTERFACE).version(VERSION),
        providers.len(),
        "instance-registered Java providers",
    )
    .await;
    let found: BTreeSet<String> = client.providers().iter().map(|p| p.0.to_string()).collect();
    assert_eq!(found, addrs);

    let n = 30;
    say_hello_calls(&client, req, "a", n).await;
    // At least an even share each.
    assert_each_counted(&providers, req, (n / providers.len()) as i64).await;

    let registry_address = format!("zookeeper://{}", zoo.address());
    dubbo_call_says_hello(&["--registry", &registry_address], "cli", &[]);

    // `--list` names the service (from its mapping) and `--list SERVICE` its providers as the
    // client finds them, with their methods from the instances' metadata.
    let list = |args: &[&str]| {
        let out = std::process::Command::new(dubbo_test_support::binary::workspace_binary(
            "dubbo-call",
            "dubbo-call",
        ))
        .args(["--registry", &registry_address, "--list"])
        .args(args)
        .output()
        .expect("run dubbo-call --list");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let services = list(&[]);
    assert!(
        services.contains(&format!("{INTERFACE}\tproviders=3\tversions={VERSION}\t")),
        "{services}"
    );
    let detail = list(&[INTERFACE]);
    for a in &addrs {
        assert!(
            detail.contains(&format!("dubbo://{a}\tversion={VERSION}")),
            "{detail}"
        );
    }
    assert_eq!(detail.matches("sayHello").count(), 3, "{detail}");

    // The instance-only provider stops gracefully: its instance goes, the client follows.
    let gone = providers[0].addr();
    let t = Instant::now();
    providers[0].graceful_stop();
    wait_gone(&client, &gone).await;
    eprintln!(
        "{gone} left the list {:?} after its graceful stop",
        t.elapsed()
    );
    let r: String = client
        .call(
            &req("sayHello")
                .arg("java.lang.String", "b")
                .build()
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(r, "Hello, b");

    let mut pids = vec![std::process::id()];
    pids.extend(zoo.pid());
    pids.extend(providers[1..].iter().map(Provider::pid));
    assert_loopback_only(&pids);
    client.close().await;
}

/// A Dubbo 3.3 application whose protocol is Triple registers as an instance only and serves
/// its MetadataService over Triple (its first protocol): the cluster client reads the metadata
/// over Triple, finds the provider's `tri://` service and calls it over Triple; `dubbo-call
/// --registry` too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_triple_application_is_found_through_its_triple_metadata_service() {
    let Some(zoo) = zookeeper("app-discovery-tri") else {
        return;
    };
    let Some(provider) = Provider::builder("dubbo33")
        .log(LOGS, "bootstrap-dubbo33-instance-tri")
        .jvm_arg("-XX:TieredStopAtLevel=1")
        .registry(&zoo.address())
        .args(&[
            "--bootstrap",
            "instance",
            "--protocol",
            "tri",
            "--serialization",
            "hessian2",
        ])
        .start()
    else {
        return;
    };

    // Its instance says: MetadataService over Triple, Triple on its port.
    let raw = zk::Client::connector()
        .connect(&zoo.address())
        .await
        .unwrap();
    let dir = format!("{SERVICES_ROOT}/{APP}");
    let nodes = raw.list_children(&dir).await.unwrap();
    assert_eq!(nodes.len(), 1, "{nodes:?}");
    let (json, _) = raw.get_data(&format!("{dir}/{}", nodes[0])).await.unwrap();
    let instance = ServiceInstance::from_curator_json(&json).unwrap();
    let params = instance.metadata_service_params();
    assert_eq!(
        params.get("protocol").map(String::as_str),
        Some("tri"),
        "{instance:?}"
    );
    assert!(
        instance.endpoints().iter().all(|e| e.protocol == "tri"),
        "{instance:?}"
    );

    let address = format!("zookeeper://{}?session={SESSION_MS}", zoo.address());
    let reg: Arc<dyn Registry> = Arc::new(ZookeeperRegistry::connect(&address).await.unwrap());
    let client = round_robin_client(
        ClusterClient::builder(reg.clone(), INTERFACE).version(VERSION),
        1,
        "the Triple application's instance",
    )
    .await;
    assert_eq!(
        client
            .protocols()
            .iter()
            .map(|(a, p)| (a.to_string(), *p))
            .collect::<Vec<_>>(),
        [(provider.addr(), "tri")]
    );
    say_hello_calls(&client, req, "tri-instance", 5).await;
    let registry_address = format!("zookeeper://{}", zoo.address());
    let metadata_target = format!("tri://127.0.0.1:{}", params["port"]);
    tokio::task::spawn_blocking(move || {
        dubbo_call_says_hello(&["--registry", &registry_address], "cli", &[]);
        // `--describe` asks that MetadataService directly, over Triple too.
        let (ok, out, err) = dubbo_call(&[&metadata_target, "--describe", INTERFACE, "--app", APP]);
        assert!(ok, "{err}");
        assert!(out.contains("sayHello") && out.contains("getUser"), "{out}");
    })
    .await
    .unwrap();

    let mut pids = vec![std::process::id(), provider.pid()];
    pids.extend(zoo.pid());
    assert_loopback_only(&pids);
    client.close().await;
}

/// A Rust provider registered as a Dubbo 3 application instance only
/// (`RegisterMode::Instance`): its instance node, the service-name mapping and no
/// interface-level URL in ZooKeeper; stock Dubbo 3.2 and 3.3 consumers that know only the
/// registry find it through the instance and the MetadataService it serves, and pass every
/// check; the cluster client finds it the same way; its shutdown removes the instance.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_consumers_find_a_rust_provider_registered_as_an_instance() {
    let Some(zoo) = zookeeper("app-discovery-rust") else {
        return;
    };
    if ["dubbo3", "dubbo33"].iter().any(|f| jar(f).is_none()) {
        return;
    }
    let address = format!("zookeeper://{}?session={SESSION_MS}", zoo.address());
    let reg: Arc<dyn Registry> = Arc::new(ZookeeperRegistry::connect(&address).await.unwrap());
    let server = dubbo_rpc::server::Server::builder()
        .service(demo_service())
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let how = dubbo_rpc::registration::Registration::new("rust-demo")
        .register_mode(dubbo_rpc::registration::RegisterMode::Instance);
    server.register(reg.clone(), &how).await.unwrap();

    let raw = zk::Client::connector()
        .connect(&zoo.address())
        .await
        .unwrap();
    let (mapping, _) = raw
        .get_data(&format!("/dubbo/mapping/{INTERFACE}"))
        .await
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&mapping), "rust-demo");
    let dir = format!("{SERVICES_ROOT}/rust-demo");
    let nodes = raw.list_children(&dir).await.unwrap();
    assert_eq!(nodes, [server.local_addr().to_string()]);
    let (json, stat) = raw.get_data(&format!("{dir}/{}", nodes[0])).await.unwrap();
    assert_ne!(stat.ephemeral_owner, 0, "an ephemeral node");
    let instance = ServiceInstance::from_curator_json(&json).unwrap();
    assert_eq!(instance.port, server.local_addr().port());
    assert!(
        instance.revision().is_some_and(|r| r.len() == 32),
        "{instance:?}"
    );
    assert!(
        reg.providers(INTERFACE).await.unwrap().is_empty(),
        "no interface-level URL"
    );

    let registry_address = format!("zookeeper://{}", zoo.address());
    for flavour in ["dubbo3", "dubbo33"] {
        // Dubbo's defaults: nothing pinned, register-mode `all` (the interop guard's
        // `interface` would keep the consumer from reading application instances).
        let stock = ["--serialization", "default", "--register-mode", "all"];
        let run = run_consumer(flavour, &registry_address, &stock, LOGS).unwrap();
        run.assert_all_passed(&format!("stock {flavour} consumer through the instance"));
    }
    let client = round_robin_client(
        ClusterClient::builder(reg.clone(), INTERFACE).version(VERSION),
        1,
        "the Rust instance",
    )
    .await;
    say_hello_calls(&client, req, "instance", 3).await;
    client.close().await;

    let mut pids = vec![std::process::id()];
    pids.extend(zoo.pid());
    assert_loopback_only(&pids);
    server.shutdown(Duration::from_secs(2)).await;
    assert!(
        raw.list_children(&dir).await.unwrap().is_empty(),
        "instance removed"
    );
}
