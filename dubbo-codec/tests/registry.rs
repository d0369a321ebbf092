//! Registries with real parts: a ZooKeeper server on 127.0.0.1 (`dubbo_test_support::zookeeper`),
//! Rust servers registering in it (`Server::register`), Java Dubbo 2.7 / 3.2 consumers that
//! know only the registry, Java providers registered there, and the Rust cluster client
//! (`dubbo_codec::cluster`) finding them. Skipped with a note when ZooKeeper or the Java
//! interop project is missing (a failure under CI).

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use dubbo_codec::cluster::{ClusterClient, ClusterConfig, ClusterError, Mode};
use dubbo_codec::registration::Registration;
use dubbo_codec::server::{Reply, Server, Service};
use dubbo_registry::balance::Policy;
use dubbo_registry::zookeeper::ZookeeperRegistry;
use dubbo_registry::{Registry, ServiceUrl};
use dubbo_test_support::net::assert_loopback_only;
use dubbo_test_support::zookeeper::ZooKeeper;
use dubbo_test_support::LogDir;

const SESSION_MS: u64 = 4_000;
const ZK_LOGS: LogDir = LogDir("dubbo-codec-registry");
/// A small service whose answer says which server answered.
const WHERE: &str = "io.github.hessianrs.demo.Where";

fn zookeeper(name: &str) -> Option<ZooKeeper> {
    ZooKeeper::start(name, Duration::from_millis(SESSION_MS), ZK_LOGS)
}

async fn registry(zoo: &ZooKeeper) -> Arc<dyn Registry> {
    let address = format!("zookeeper://{}?session={SESSION_MS}", zoo.address());
    Arc::new(ZookeeperRegistry::connect(&address).await.unwrap())
}

/// `Where.port()` answers the port of the server that took the call.
fn where_service(port: u16) -> Service {
    Service::new(WHERE)
        .version("1.0.0")
        .method("port", move |_call| async move {
            Reply::typed(&i32::from(port))
        })
}

/// A Rust server of `Where` on `port` (0: any) of 127.0.0.1, registered with `how`.
async fn where_server(reg: &Arc<dyn Registry>, port: u16, how: &Registration) -> Server {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = Server::builder()
        .service(where_service(port))
        .serve(listener);
    server.register(reg.clone(), how).await.unwrap();
    server
}

fn where_req() -> dubbo_codec::Request {
    dubbo_codec::Request::builder(WHERE, "port")
        .version("1.0.0")
        .build()
        .unwrap()
}

async fn where_client(reg: &Arc<dyn Registry>, config: ClusterConfig) -> ClusterClient {
    ClusterClient::builder(reg.clone(), WHERE)
        .version("1.0.0")
        .config(config)
        .build()
        .await
        .unwrap()
}

/// How many of `n` calls each port answered.
async fn spread(c: &ClusterClient, n: usize) -> BTreeMap<u16, usize> {
    let mut m = BTreeMap::new();
    for _ in 0..n {
        let p: i32 = c.call(&where_req()).await.unwrap();
        *m.entry(p as u16).or_default() += 1;
    }
    m
}

/// Waits until the client uses `n` providers.
async fn wait_providers(c: &ClusterClient, n: usize) -> Duration {
    let t = Instant::now();
    while c.providers().iter().filter(|p| !p.2).count() != n {
        assert!(
            t.elapsed() < Duration::from_secs(15),
            "providers: {:?}",
            c.providers()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    t.elapsed()
}

/// A Rust provider registered in ZooKeeper: the node a Java provider would write, and stock
/// Java 2.7 and 3.2 consumers configured with only the registry pass their whole check list
/// against it; its graceful shutdown removes the node first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_consumers_find_a_rust_provider() {
    let Some(zoo) = zookeeper("rust-provider") else {
        return;
    };
    if FLAVOURS.iter().any(|f| jar(f).is_none()) {
        return;
    }
    let reg = registry(&zoo).await;
    let server = Server::builder()
        .service(demo_service())
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let urls = server
        .register(
            reg.clone(),
            &Registration::new("rust-demo").timeout_ms(5000),
        )
        .await
        .unwrap();
    assert_eq!(urls.len(), 1);
    let url = &urls[0];
    eprintln!("registered {url}");
    assert_eq!(url.socket_addr(), Some(server.local_addr()));
    assert_eq!(url.service_key(), format!("{INTERFACE}:{VERSION}"));
    for (k, v) in [
        ("application", "rust-demo"),
        ("dubbo", "2.0.2"),
        ("interface", INTERFACE),
        ("serialization", "hessian2"),
        ("prefer.serialization", "hessian2"),
        ("side", "provider"),
        ("timeout", "5000"),
        ("methods", "add,count,doNothing,echoList,echoMap,echoUser,fireAndForget,getUser,lastFired,sayHello,slow,throwError"),
    ] {
        assert_eq!(url.param(k).as_deref(), Some(v), "{k}");
    }
    for k in ["pid", "release", "timestamp"] {
        assert!(url.param(k).is_some(), "{k}");
    }
    // What a subscriber (the Rust one here) lists is that URL.
    assert_eq!(reg.providers(INTERFACE).await.unwrap(), urls);

    for flavour in FLAVOURS {
        let run = run_consumer(
            flavour,
            &format!("zookeeper://{}", zoo.address()),
            &[],
            LOGS,
        )
        .unwrap();
        run.assert_all_passed(&format!("{flavour} consumer through ZooKeeper"));
    }
    let mut pids = vec![std::process::id()];
    pids.extend(zoo.pid());
    assert_loopback_only(&pids);

    let t = Instant::now();
    server.shutdown(Duration::from_secs(2)).await;
    assert!(reg.providers(INTERFACE).await.unwrap().is_empty());
    eprintln!("shut down and unregistered in {:?}", t.elapsed());
}

/// Balancers, cluster modes and live changes with Rust providers in ZooKeeper.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_client_balances_and_fails_over() {
    let Some(zoo) = zookeeper("cluster") else {
        return;
    };
    let reg = registry(&zoo).await;
    let plain = Registration::new("where").warmup_ms(0);
    let a = where_server(&reg, 0, &plain.clone().weight(300)).await;
    let b = where_server(&reg, 0, &plain.clone().weight(100)).await;
    let (pa, pb) = (a.local_addr().port(), b.local_addr().port());

    // Smooth weighted round-robin: exactly 3:1.
    let rr = where_client(
        &reg,
        ClusterConfig {
            policy: Policy::RoundRobin,
            ..ClusterConfig::default()
        },
    )
    .await;
    assert_eq!(
        spread(&rr, 400).await,
        BTreeMap::from([(pa, 300), (pb, 100)])
    );
    // Weighted random: about 3:1.
    let random = where_client(&reg, ClusterConfig::default()).await;
    let s = spread(&random, 2000).await;
    assert!((1350..=1650).contains(&s[&pa]), "{s:?}");

    // A provider that is registered but dead (nothing listens): failover answers every call
    // from the others and takes it out; failfast fails the calls it picks; failsafe answers
    // null; forking succeeds.
    let dead_port = dubbo_test_support::net::free_port();
    let dead = ServiceUrl::provider(WHERE, ([127, 0, 0, 1], dead_port).into(), "where")
        .version("1.0.0")
        .methods(&["port"])
        .param("warmup", "0")
        .param("weight", "10000")
        .build();
    reg.register(&dead).await.unwrap();
    let t = wait_providers(&random, 3).await;
    eprintln!("a new provider followed {t:?} after its registration");
    let s = spread(&random, 50).await;
    assert_eq!(s.values().sum::<usize>(), 50);
    assert!(!s.contains_key(&dead_port));
    assert!(
        random
            .providers()
            .iter()
            .any(|p| p.0.port() == dead_port && p.2),
        "taken out: {:?}",
        random.providers()
    );

    let failfast = where_client(
        &reg,
        ClusterConfig {
            mode: Mode::Failfast,
            ..ClusterConfig::default()
        },
    )
    .await;
    let err = failfast.call::<i32>(&where_req()).await.unwrap_err();
    assert!(
        matches!(err, ClusterError::Call { provider, .. } if provider.port() == dead_port),
        "{err}"
    );
    let failsafe = where_client(
        &reg,
        ClusterConfig {
            mode: Mode::Failsafe,
            ..ClusterConfig::default()
        },
    )
    .await;
    assert_eq!(
        failsafe.call_value(&where_req()).await.unwrap(),
        hessian2::value::Value::Null
    );
    let forking = where_client(
        &reg,
        ClusterConfig {
            mode: Mode::Forking,
            forks: 3,
            ..ClusterConfig::default()
        },
    )
    .await;
    let p: i32 = forking.call(&where_req()).await.unwrap();
    assert!([pa, pb].contains(&(p as u16)));

    // The dead provider comes alive: the probe brings it back.
    let t = Instant::now();
    let c = where_server(&reg, dead_port, &plain).await;
    wait_providers(&random, 3).await;
    eprintln!(
        "a provider taken out came back {:?} after it listened",
        t.elapsed()
    );
    reg.unregister(&dead).await.unwrap();
    wait_providers(&random, 3).await;

    // Consistent hash on the first argument: the same key, the same provider.
    let ch = ClusterClient::builder(reg.clone(), WHERE)
        .version("1.0.0")
        .config(ClusterConfig {
            policy: Policy::ConsistentHash,
            ..ClusterConfig::default()
        })
        .build()
        .await
        .unwrap();
    let keyed = |k: &str| {
        dubbo_codec::Request::builder(WHERE, "port")
            .version("1.0.0")
            .arg("java.lang.String", k)
            .build()
            .unwrap()
    };
    let mut owners = BTreeMap::new();
    for k in 0..60 {
        let key = format!("user-{k}");
        let first: i32 = ch.call(&keyed(&key)).await.unwrap();
        for _ in 0..3 {
            assert_eq!(ch.call::<i32>(&keyed(&key)).await.unwrap(), first);
        }
        *owners.entry(first).or_insert(0) += 1;
    }
    assert!(owners.len() >= 2, "{owners:?}");

    // Graceful shutdown unregisters: the clients stop using it.
    let pc = c.local_addr().port();
    c.shutdown(Duration::from_secs(1)).await;
    let t = wait_providers(&random, 2).await;
    eprintln!("a provider's unregistration followed {t:?} after its shutdown");
    let s = spread(&random, 100).await;
    assert!(!s.contains_key(&pc), "{s:?}");
    let mut pids = vec![std::process::id()];
    pids.extend(zoo.pid());
    assert_loopback_only(&pids);
    drop((a, b));
}
