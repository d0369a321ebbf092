//! Registries with real parts: a ZooKeeper server on 127.0.0.1 (`dubbo_test_support::zookeeper`),
//! Rust servers registering in it (`Server::register`), Java Dubbo 2.7 / 3.2 consumers that
//! know only the registry, Java providers registered there, and the Rust cluster client
//! (`dubbo_rpc::cluster`) finding them. Skipped with a note when ZooKeeper or the Java
//! interop project is missing (a failure under CI).

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use dubbo_codec::Serialization;
use dubbo_registry::balance::Policy;
use dubbo_registry::zookeeper::ZookeeperRegistry;
use dubbo_registry::{Registry, ServiceUrl};
use dubbo_rpc::cluster::{ClusterClient, ClusterConfig, ClusterError, Mode};
use dubbo_rpc::registration::Registration;
use dubbo_rpc::server::{Reply, Server, Service};
use dubbo_test_support::net::assert_loopback_only;
use dubbo_test_support::zookeeper::ZooKeeper;
use dubbo_test_support::LogDir;

const SESSION_MS: u64 = 4_000;
const ZK_LOGS: LogDir = LogDir("dubbo-codec-registry");
/// A small service whose answer says which server answered.
const WHERE: &str = "io.github.hessianrs.demo.Where";
/// A small service whose answer says which server answered, over which protocol.
const SPOKEN: &str = "io.github.hessianrs.demo.Spoken";

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

/// A Rust provider registered in ZooKeeper: the node a Java provider would write, and Java
/// 2.7, 3.2 and 3.3 consumers configured with only the registry pass their whole check list
/// against it, in hessian2 when pinned and, for stock 3.x consumers, in fastjson2 (what the
/// URL's `prefer.serialization` offers first); its graceful shutdown removes the node first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_consumers_find_a_rust_provider() {
    let Some(zoo) = zookeeper("rust-provider") else {
        return;
    };
    if FLAVOURS.iter().any(|f| jar(f).is_none()) {
        return;
    }
    let reg = registry(&zoo).await;
    let seen: Arc<std::sync::Mutex<std::collections::BTreeSet<u8>>> = Arc::default();
    let server = Server::builder()
        .service(demo_service_recording(seen.clone()))
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
        ("prefer.serialization", "fastjson2,hessian2"),
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

    let registry_address = format!("zookeeper://{}", zoo.address());
    for flavour in FLAVOURS {
        let run = run_consumer(flavour, &registry_address, &[], LOGS).unwrap();
        run.assert_all_passed(&format!("{flavour} consumer through ZooKeeper"));
    }
    assert_eq!(
        *seen.lock().unwrap(),
        [Serialization::Hessian2.id()].into(),
        "consumers pinned to hessian2"
    );
    // Stock Dubbo 3.2 and 3.3 consumers (nothing pinned) read the provider URL's
    // `prefer.serialization` and call in fastjson2, as they would a Java 3.x provider.
    for flavour in ["dubbo3", "dubbo33"] {
        seen.lock().unwrap().clear();
        let stock = ["--serialization", "default"];
        let run = run_consumer(flavour, &registry_address, &stock, LOGS).unwrap();
        run.assert_all_passed(&format!("stock {flavour} consumer through ZooKeeper"));
        // A provider that does not prefer Triple is called over the Dubbo protocol.
        assert!(
            run.lines.iter().any(|l| l == "# protocol dubbo"),
            "stock {flavour}: {:#?}",
            run.lines
        );
        assert_eq!(
            *seen.lock().unwrap(),
            [Serialization::Fastjson2.id()].into(),
            "stock {flavour} consumer"
        );
    }
    let mut pids = vec![std::process::id()];
    pids.extend(zoo.pid());
    assert_loopback_only(&pids);

    let t = Instant::now();
    server.shutdown(Duration::from_secs(2)).await;
    assert!(reg.providers(INTERFACE).await.unwrap().is_empty());
    eprintln!("shut down and unregistered in {:?}", t.elapsed());
}

/// A Rust provider that serves Triple on its Dubbo port and registers
/// `preferred.protocol=tri`: a stock Dubbo 3.3 consumer that knows only ZooKeeper switches to
/// Triple by itself, a 2.7 consumer keeps the Dubbo protocol on the same port.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_3_3_consumers_switch_to_triple_when_a_rust_provider_prefers_it() {
    let Some(zoo) = zookeeper("rust-provider-tri") else {
        return;
    };
    if jar("dubbo33").is_none() || jar("dubbo27").is_none() {
        return;
    }
    let reg = registry(&zoo).await;
    let server = Server::builder()
        .service(demo_service())
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let urls = server
        .register(reg.clone(), &Registration::new("rust-demo").prefer_triple())
        .await
        .unwrap();
    assert_eq!(urls[0].param("preferred.protocol").as_deref(), Some("tri"));
    assert_eq!(urls[0].param("ext.protocol").as_deref(), Some("tri"));
    let registry_address = format!("zookeeper://{}", zoo.address());
    for (flavour, protocol) in [("dubbo33", "tri"), ("dubbo27", "dubbo")] {
        let stock = ["--serialization", "default"];
        let run = run_consumer(flavour, &registry_address, &stock, LOGS).unwrap();
        let what = format!("stock {flavour} consumer through ZooKeeper");
        assert!(run.fails().is_empty(), "{what}: {:#?}", run.fails());
        assert!(run.ok && run.oks() >= 20, "{what}: {:#?}", run.lines);
        assert!(
            run.lines
                .iter()
                .any(|l| *l == format!("# protocol {protocol}")),
            "{what}: not over {protocol}: {:#?}",
            run.lines
        );
    }
    let mut pids = vec![std::process::id()];
    pids.extend(zoo.pid());
    assert_loopback_only(&pids);
    server.shutdown(Duration::from_secs(2)).await;
}

/// `Spoken.spoken()` answers `"<port> <protocol>"`: which server took the call, and over
/// which protocol.
fn spoken_service(port: u16) -> Service {
    Service::new(SPOKEN).method("spoken", move |call| async move {
        Reply::typed(&format!("{port} {:?}", call.protocol))
    })
}

/// The cluster client speaks to each provider what a Dubbo 3.3 consumer would: Triple where
/// the URL prefers it (`preferred.protocol=tri`), the Dubbo protocol elsewhere; a consumer
/// `protocol` setting narrows that as Java's does (only URLs of that protocol are taken).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_client_speaks_what_each_provider_prefers() {
    let Some(zoo) = zookeeper("cluster-protocols") else {
        return;
    };
    let reg = registry(&zoo).await;
    let mut servers = Vec::new();
    let mut ports = Vec::new();
    for how in [
        Registration::new("rust-plain"),
        Registration::new("rust-tri").prefer_triple(),
    ] {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = Server::builder()
            .service(spoken_service(port))
            .serve(listener);
        server.register(reg.clone(), &how).await.unwrap();
        servers.push(server);
        ports.push(port);
    }
    let (plain, tri) = (ports[0], ports[1]);
    let call = dubbo_codec::Request::builder(SPOKEN, "spoken")
        .build()
        .unwrap();
    let client_with = |protocol: Option<&str>| {
        let mut config = ClusterConfig::default().policy(Policy::RoundRobin);
        config.protocol = protocol.map(str::to_owned);
        ClusterClient::builder(reg.clone(), SPOKEN)
            .config(config)
            .build()
    };

    let client = client_with(None).await.unwrap();
    wait_providers(&client, 2).await;
    let mut protocols = client.protocols();
    protocols.sort();
    let by_port: Vec<(u16, &str)> = protocols.iter().map(|(a, p)| (a.port(), *p)).collect();
    let mut want = vec![(plain, "dubbo"), (tri, "tri")];
    want.sort();
    assert_eq!(by_port, want);
    let mut answers = BTreeMap::new();
    for _ in 0..10 {
        let a: String = client.call(&call).await.unwrap();
        *answers.entry(a).or_insert(0) += 1;
    }
    let expected: BTreeMap<String, i32> =
        [(format!("{plain} Dubbo"), 5), (format!("{tri} Triple"), 5)].into();
    assert_eq!(
        answers, expected,
        "round-robin over both, each in its protocol"
    );
    // Dynamic calls and whole responses go the same way.
    for _ in 0..2 {
        let v = client.call_value(&call).await.unwrap();
        let text = v.as_str().unwrap().to_owned();
        assert!(
            text == format!("{plain} Dubbo") || text == format!("{tri} Triple"),
            "{text}"
        );
    }

    // `protocol = "dubbo"`: the Dubbo protocol everywhere (the shared port serves it).
    let dubbo_only = client_with(Some("dubbo")).await.unwrap();
    wait_providers(&dubbo_only, 2).await;
    assert!(dubbo_only.protocols().iter().all(|(_, p)| *p == "dubbo"));
    for _ in 0..4 {
        let a: String = dubbo_only.call(&call).await.unwrap();
        assert!(a.ends_with(" Dubbo"), "{a}");
    }
    // `protocol = "tri"`: Java takes only `tri://` URLs, and these are `dubbo://` ones.
    let err = client_with(Some("tri")).await.unwrap_err();
    assert!(
        matches!(err, ClusterError::NoProvider { listed: 2, .. }),
        "{err}"
    );

    for s in servers {
        s.shutdown(Duration::from_secs(1)).await;
    }
}

/// Java Triple providers in ZooKeeper, as Dubbo 3.3 (`ext-protocol: tri` on the Dubbo port,
/// `preferred-protocol: tri`: one `dubbo://` URL) and 3.2 (`protocol: tri`: a `tri://` URL)
/// register them: the cluster client and `dubbo-call --registry` reach both over Triple,
/// typed and dynamic calls and Java exceptions included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_client_reaches_java_triple_providers() {
    let Some(zoo) = zookeeper("java-triple") else {
        return;
    };
    let builders = vec![
        Provider::builder("dubbo33")
            .log(LOGS, "registered-dubbo33-tri")
            .registry(&zoo.address())
            .args(&[
                "--protocol",
                "dubbo",
                "--ext-protocol",
                "tri",
                "--param",
                "preferred-protocol=tri",
                "--param",
                "warmup=0",
            ]),
        Provider::builder("dubbo3")
            .log(LOGS, "registered-dubbo3-tri")
            .registry(&zoo.address())
            .args(&["--protocol", "tri", "--param", "warmup=0"]),
    ];
    let Some(providers) = Provider::start_all(builders) else {
        return;
    };
    let reg = registry(&zoo).await;
    let client = round_robin_client(
        ClusterClient::builder(reg.clone(), INTERFACE).version(VERSION),
        providers.len(),
        "Java Triple providers",
    )
    .await;
    assert!(
        client.protocols().iter().all(|(_, p)| *p == "tri"),
        "{:?}",
        client.protocols()
    );
    say_hello_calls(&client, req, "tri", 10).await;
    let user: User = client
        .call(&req("getUser").arg("long", &7i64).build().unwrap())
        .await
        .unwrap();
    assert_eq!(user, user_for(7));
    let hello = client
        .call_value(
            &req("sayHello")
                .arg("java.lang.String", &"v")
                .build()
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(hello.as_str(), Some("Hello, v"));
    let err = client
        .call_value(
            &req("throwError")
                .arg("java.lang.String", &"over triple")
                .build()
                .unwrap(),
        )
        .await
        .unwrap_err();
    let e = err.java_exception().unwrap_or_else(|| panic!("{err}"));
    assert_eq!(e.class, "java.lang.IllegalStateException");
    assert_eq!(e.message.as_deref(), Some("over triple"));
    // Each provider took its share.
    for p in &providers {
        let direct = dubbo_rpc::triple_client::Client::connect(&p.addr())
            .await
            .unwrap();
        let count: i64 = direct
            .call(&dubbo_rpc::triple_client::TripleCall::new(INTERFACE, "count").version(VERSION))
            .await
            .unwrap();
        assert!(count >= 5, "{} answered {count}", p.flavour);
    }
    // dubbo-call finds them the same way.
    let registry_address = format!("zookeeper://{}", zoo.address());
    tokio::task::spawn_blocking(move || {
        let target = ["--registry", registry_address.as_str()];
        dubbo_call_says_hello(&target, "dubbo-call", &[]);
        dubbo_call_says_hello(&target, "dubbo-call", &["--protocol", "tri"]);
    })
    .await
    .unwrap();

    let mut pids = vec![std::process::id()];
    pids.extend(zoo.pid());
    pids.extend(providers.iter().map(Provider::pid));
    assert_loopback_only(&pids);
    client.close().await;
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
    let rr = where_client(&reg, ClusterConfig::default().policy(Policy::RoundRobin)).await;
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

    // Smooth weighted round-robin picks the heaviest provider first: the dead one, so these
    // first calls test how each mode takes a failure (weighted random picked a live provider
    // about one time in 25, and the test failed then).
    let failfast = where_client(
        &reg,
        ClusterConfig::default()
            .mode(Mode::Failfast)
            .policy(Policy::RoundRobin),
    )
    .await;
    let err = failfast.call::<i32>(&where_req()).await.unwrap_err();
    assert!(
        matches!(err, ClusterError::Call { provider, .. } if provider.port() == dead_port),
        "{err}"
    );
    let failsafe = where_client(
        &reg,
        ClusterConfig::default()
            .mode(Mode::Failsafe)
            .policy(Policy::RoundRobin),
    )
    .await;
    assert_eq!(
        failsafe.call_value(&where_req()).await.unwrap(),
        hessian2::value::Value::Null
    );
    let forking = where_client(&reg, ClusterConfig::default().mode(Mode::Forking).forks(3)).await;
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
        .config(ClusterConfig::default().policy(Policy::ConsistentHash))
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

/// Java providers of every flavour (2.7, 3.2, 3.3) registered in ZooKeeper: the Rust cluster
/// client finds them all, balances over them, and when one is killed under load every call
/// is still answered (failover retries on the others), and the killed one leaves the list
/// when its session expires.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_client_over_java_providers_one_killed() {
    let Some(zoo) = zookeeper("java-providers") else {
        return;
    };
    let builders = FLAVOURS
        .iter()
        .map(|f| {
            Provider::builder(f)
                .log(LOGS, &format!("registered-{f}"))
                .jvm_arg("-XX:TieredStopAtLevel=1")
                .registry(&zoo.address())
                .args(&["--param", "warmup=0"])
        })
        .collect();
    let Some(mut providers) = Provider::start_all(builders) else {
        return;
    };
    let reg = registry(&zoo).await;
    let client = round_robin_client(
        ClusterClient::builder(reg.clone(), INTERFACE)
            .version(VERSION)
            .register_as("rust-consumer", [127, 0, 0, 1].into()),
        providers.len(),
        "Java providers",
    )
    .await;

    // Every provider takes its share (round-robin, equal weights), typed calls work.
    let n = 30;
    say_hello_calls(&client, req, "r", n).await;
    let user: User = client
        .call(&req("getUser").arg("long", &42i64).build().unwrap())
        .await
        .unwrap();
    assert_eq!(user, user_for(42));
    // More than an even share each.
    assert_each_counted(&providers, req, (n / providers.len()) as i64 + 1).await;

    // Load from 8 tasks; provider 0 is killed (SIGKILL) a second in.
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let tasks: Vec<_> = (0..8)
        .map(|k| {
            let (client, stop) = (client.clone(), stop.clone());
            tokio::spawn(async move {
                let (mut ok, mut failed) = (0u32, Vec::new());
                let mut i = 0u32;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let name = format!("{k}-{i}");
                    let r = client
                        .call::<String>(
                            &req("sayHello")
                                .arg("java.lang.String", &name)
                                .build()
                                .unwrap(),
                        )
                        .await;
                    match r {
                        Ok(s) if s == format!("Hello, {name}") => ok += 1,
                        other => failed.push(format!("{other:?}")),
                    }
                    i += 1;
                }
                (ok, failed)
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let killed = providers[0].addr();
    let t_kill = Instant::now();
    providers[0].kill();
    tokio::time::sleep(Duration::from_secs(3)).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (mut ok, mut failed) = (0, Vec::new());
    for t in tasks {
        let (o, f) = tokio::time::timeout(Duration::from_secs(15), t)
            .await
            .expect("every call answered")
            .unwrap();
        ok += o;
        failed.extend(f);
    }
    eprintln!(
        "load with {killed} killed: {ok} calls ok, {} failed: {failed:?}",
        failed.len()
    );
    assert!(ok > 100, "only {ok} calls");
    assert!(failed.is_empty(), "{failed:?}");
    // Its node goes when its session expires; the client drops it then.
    loop {
        if !client.providers().iter().any(|p| p.0.to_string() == killed) {
            break;
        }
        assert!(
            t_kill.elapsed() < Duration::from_millis(SESSION_MS + 6_000),
            "{killed} still listed: {:?}",
            client.providers()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    eprintln!(
        "{killed} left the list {:?} after it was killed",
        t_kill.elapsed()
    );

    let mut pids = vec![std::process::id()];
    pids.extend(zoo.pid());
    pids.extend(providers[1..].iter().map(Provider::pid));
    assert_loopback_only(&pids);
    client.close().await;
}

/// `dubbo-call --registry`: calls through a listed provider even when another listed one is
/// dead; `--list` and `--list SERVICE` show services, providers, versions, groups, methods.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dubbo_call_with_a_registry() {
    let Some(zoo) = zookeeper("dubbo-call") else {
        return;
    };
    let reg = registry(&zoo).await;
    let zk = format!("zookeeper://{}", zoo.address());
    let demo = Server::builder()
        .service(demo_service())
        .service(demo_service().group("blue"))
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    demo.register(reg.clone(), &Registration::new("rust-demo"))
        .await
        .unwrap();
    // A dead provider listed with a weight that makes it the likely pick.
    let dead_port = dubbo_test_support::net::free_port();
    let dead = ServiceUrl::provider(INTERFACE, ([127, 0, 0, 1], dead_port).into(), "ghost")
        .version(VERSION)
        .methods(&["sayHello"])
        .param("warmup", "0")
        .param("weight", "100000")
        .build();
    reg.register(&dead).await.unwrap();
    for i in 0..5 {
        dubbo_call_says_hello(&["--registry", &zk], &format!("reg{i}"), &[]);
    }
    // The group is honoured; an exception is printed as one.
    let (ok, out, err) = dubbo_call(&[
        "--registry",
        &zk,
        INTERFACE,
        "throwError",
        "--version",
        VERSION,
        "--group",
        "blue",
        "--types",
        "java.lang.String",
        "--args",
        "[\"boom\"]",
    ]);
    assert!(!ok, "{err}");
    assert!(
        out.contains("java.lang.IllegalStateException") && out.contains("boom"),
        "{out}"
    );
    // No provider of that service: a clear error.
    let (ok, _, err) = dubbo_call(&["--registry", &zk, "no.Such", "m"]);
    assert!(!ok && err.contains("no provider of no.Such"), "{err}");

    let (ok, out, err) = dubbo_call(&["--registry", &zk, "--list"]);
    assert!(ok, "{err}");
    assert_eq!(
        out.trim(),
        format!("{INTERFACE}\tproviders=3\tversions=1.0.0\tgroups=,blue")
    );
    let (ok, out, err) = dubbo_call(&["--registry", &zk, "--list", INTERFACE]);
    assert!(ok, "{err}");
    eprintln!("{out}");
    let port = demo.local_addr().port();
    assert!(
        out.starts_with(&format!("{INTERFACE}\tproviders=3\n")),
        "{out}"
    );
    assert!(out.contains(&format!("  dubbo://127.0.0.1:{port}\tversion=1.0.0\tgroup=blue\tapplication=rust-demo\trelease=3.2.19\tdubbo=2.0.2\n")), "{out}");
    assert!(
        out.contains(&format!(
            "  dubbo://127.0.0.1:{dead_port}\tversion=1.0.0\tgroup=\tapplication=ghost"
        )),
        "{out}"
    );
    assert!(out.contains("    methods: add, count, doNothing, echoList, echoMap, echoUser, fireAndForget, getUser, lastFired, sayHello, slow, throwError\n"), "{out}");
    let (ok, _, err) = dubbo_call(&["--list"]);
    assert!(!ok && err.contains("--list needs --registry"), "{err}");
    demo.shutdown(Duration::from_secs(1)).await;
}

/// A Java 3.2 consumer that knows only the registry keeps calling while Rust providers come
/// and go: a third one registers, the first one shuts down gracefully (out of the registry,
/// read-only event, drain) under load, and no call fails.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_consumer_load_while_rust_providers_come_and_go() {
    let Some(zoo) = zookeeper("come-and-go") else {
        return;
    };
    if jar("dubbo3").is_none() {
        return;
    }
    let reg = registry(&zoo).await;
    let how = Registration::new("rust-demo");
    let mut servers = Vec::new();
    for _ in 0..2 {
        let s = demo_server().await;
        s.register(reg.clone(), &how).await.unwrap();
        servers.push(s);
    }
    let zk = format!("zookeeper://{}", zoo.address());
    let consumer = tokio::task::spawn_blocking(move || {
        run_consumer(
            "dubbo3",
            &zk,
            &["--load", "60000", "--concurrency", "8"],
            LOGS,
        )
    });
    // Let the consumer start and load both providers.
    let t = Instant::now();
    while servers
        .iter()
        .any(|s| s.inflight() == 0 && s.connection_count() == 0)
    {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the consumer never came"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let third = demo_server().await;
    third.register(reg.clone(), &how).await.unwrap();
    let t = Instant::now();
    while third.connection_count() == 0 {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the new provider was never called"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    eprintln!(
        "a new Rust provider was connected to {:?} after it registered",
        t.elapsed()
    );
    let first = servers.remove(0);
    let t = Instant::now();
    first.shutdown(Duration::from_secs(3)).await;
    eprintln!("a Rust provider shut down under load in {:?}", t.elapsed());
    let run = consumer.await.unwrap().unwrap();
    let summary = run
        .lines
        .iter()
        .find(|l| l.starts_with("load "))
        .cloned()
        .unwrap_or_default();
    eprintln!("{summary}");
    assert!(run.ok, "{:#?}", run.lines);
    assert!(summary.contains(" failed=0 "), "{summary}");
}
