//! The ZooKeeper registry against a real ZooKeeper server on 127.0.0.1 (Debian's `zookeeper`
//! package, see `dubbo_test_support::zookeeper`): nodes where and as Java Dubbo writes them,
//! subscriptions following changes, empty protection, re-registration after a session
//! expiry and across a server restart. Skipped with a note when ZooKeeper is not installed
//! (a failure under CI).

use std::time::{Duration, Instant};

use dubbo_registry::zookeeper::ZookeeperRegistry;
use dubbo_registry::{Registry, ServiceUrl, Subscription};
mod common;

use common::{next_ports, raw_client, start_zookeeper, SESSION_MS};
use dubbo_test_support::net::assert_loopback_only;

const IFACE: &str = "io.github.hessianrs.demo.Registered";

fn provider(port: u16) -> ServiceUrl {
    ServiceUrl::provider(IFACE, ([127, 0, 0, 1], port).into(), "registry-test")
        .version("1.0.0")
        .methods(&["sayHello", "add"])
        .build()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn register_subscribe_expire_restart() {
    let Some((mut zoo, address)) = start_zookeeper("registry", "dubbo-registry-zookeeper") else {
        return;
    };
    let a = ZookeeperRegistry::connect(&address).await.unwrap();
    let b = ZookeeperRegistry::connect(&address).await.unwrap();
    let unprotected = ZookeeperRegistry::connect(&format!("{address}&empty-protection=false"))
        .await
        .unwrap();
    let mut sub = b.subscribe(IFACE);
    let raw_sub = unprotected.subscribe(IFACE);
    assert_eq!(next_ports(&mut sub).await, [] as [u16; 0]);

    // Registered where and as Java writes it: an ephemeral node of this session, named by the
    // URL-encoded URL, holding the host's address.
    let p1 = provider(20001);
    let t = Instant::now();
    a.register(&p1).await.unwrap();
    assert_eq!(next_ports(&mut sub).await, [20001]);
    eprintln!(
        "a registration seen by a subscriber {:?} later",
        t.elapsed()
    );
    let raw = raw_client(&zoo).await;
    let dir = format!("/dubbo/{IFACE}/providers");
    let children = raw.list_children(&dir).await.unwrap();
    assert_eq!(children, [registry_urlweight::zk::node_name(p1.as_str())]);
    let path = a.node_path(&p1);
    assert_eq!(path, format!("{dir}/{}", children[0]));
    let (data, stat) = raw.get_data(&path).await.unwrap();
    assert_eq!(data, b"127.0.0.1");
    let session = a.session().unwrap();
    assert_eq!(stat.ephemeral_owner, session.id().0);

    // A consumer goes under consumers; listing shows the service and its provider.
    let consumer = ServiceUrl::consumer(IFACE, [127, 0, 0, 1].into(), "registry-test")
        .version("1.0.0")
        .build();
    a.register(&consumer).await.unwrap();
    assert_eq!(
        raw.list_children(&format!("/dubbo/{IFACE}/consumers"))
            .await
            .unwrap()
            .len(),
        1
    );
    assert!(b.services().await.unwrap().contains(&IFACE.to_owned()));
    assert_eq!(b.providers(IFACE).await.unwrap(), std::slice::from_ref(&p1));

    // Changes are followed.
    let p2 = provider(20002);
    a.register(&p2).await.unwrap();
    assert_eq!(next_ports(&mut sub).await, [20001, 20002]);
    a.unregister(&p2).await.unwrap();
    assert_eq!(next_ports(&mut sub).await, [20001]);

    // ZooKeeper goes away for longer than the session timeout: the registry's session
    // expires (the client gives up on it), the subscriber keeps its last list; when the server
    // is back (it restores the old session, and expires it a timeout later) the registry
    // writes its URL again in a new session, replacing the node of the old one.
    zoo.kill();
    tokio::time::sleep(Duration::from_millis(SESSION_MS * 2)).await;
    assert_eq!(sub.current().unwrap().len(), 1);
    let t = Instant::now();
    zoo.restart();
    let raw = loop {
        if let Ok(c) = tokio::time::timeout(Duration::from_secs(2), raw_client(&zoo)).await {
            break c;
        }
        assert!(t.elapsed() < Duration::from_secs(30), "ZooKeeper not back");
    };
    let owner = loop {
        if let Some(s) = a.session().filter(|s| s.id() != session.id()) {
            if let Ok(Some(stat)) = raw.check_stat(&path).await {
                if stat.ephemeral_owner == s.id().0 {
                    break s.id();
                }
            }
        }
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "not registered again after the expiry"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    eprintln!(
        "session {} expired; registered again in session {owner} {:?} after the restart",
        session.id(),
        t.elapsed()
    );
    // The server expires the old session: the new node stays.
    tokio::time::sleep(Duration::from_millis(SESSION_MS * 2)).await;
    assert_eq!(b.providers(IFACE).await.unwrap(), std::slice::from_ref(&p1));
    assert_eq!(sub.current().unwrap().len(), 1);

    // Empty protection: the last provider goes; the protected subscriber keeps it, the
    // unprotected one sees the empty list.
    a.unregister(&p1).await.unwrap();
    assert!(raw.list_children(&dir).await.unwrap().is_empty());
    let t = Instant::now();
    loop {
        if raw_sub.current().is_some_and(|l| l.is_empty()) {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the unprotected subscriber kept {:?}",
            raw_sub.current()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(sub.current().unwrap().len(), 1);

    // Dropping a registry closes its session: its nodes go.
    a.register(&p2).await.unwrap();
    assert_eq!(raw.list_children(&dir).await.unwrap().len(), 1);
    drop(a);
    let t = Instant::now();
    while !raw.list_children(&dir).await.unwrap().is_empty() {
        assert!(
            t.elapsed() < Duration::from_millis(SESSION_MS * 3),
            "a's node outlived it"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    eprintln!("registry dropped; its node gone {:?} later", t.elapsed());

    let mut pids = vec![std::process::id()];
    pids.extend(zoo.pid());
    assert_loopback_only(&pids);
}

/// Resident memory of this process (Linux `VmRSS`), in KiB; 0 elsewhere.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// 1,000 providers of 100 interfaces: registered, listed, and followed by a fresh registry
/// (every list complete), with the times and the memory it took printed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousand_providers_of_a_hundred_interfaces() {
    let Some((_zoo, address)) = start_zookeeper("registry-1000", "dubbo-registry-zookeeper") else {
        return;
    };
    let iface = |i: usize| format!("io.github.hessianrs.load.Service{i:03}");
    let urls: Vec<ServiceUrl> = (0..1000)
        .map(|k| {
            ServiceUrl::provider(
                iface(k % 100),
                ([127, 0, 0, 1], 30_000 + k as u16).into(),
                "load",
            )
            .version("1.0.0")
            .methods(&["get", "put", "list", "delete"])
            .build()
        })
        .collect();
    let a = ZookeeperRegistry::connect(&address).await.unwrap();
    let t = Instant::now();
    for u in &urls {
        a.register(u).await.unwrap();
    }
    let registered = t.elapsed();

    let rss0 = rss_kib();
    let t = Instant::now();
    let b = ZookeeperRegistry::connect(&address).await.unwrap();
    let services = b.services().await.unwrap();
    let listed = t.elapsed();
    assert_eq!(services, (0..100).map(iface).collect::<Vec<_>>());
    let t = Instant::now();
    let mut subs: Vec<Subscription> = services.iter().map(|s| b.subscribe(s)).collect();
    let mut total = 0;
    for s in &mut subs {
        let list = tokio::time::timeout(Duration::from_secs(30), s.next())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(list.len(), 10);
        total += list.len();
    }
    let followed = t.elapsed();
    let rss1 = rss_kib();
    assert_eq!(total, 1000);
    // A change reaches the subscriber of its interface.
    let t = Instant::now();
    a.unregister(&urls[7]).await.unwrap();
    assert_eq!(subs[7].next().await.unwrap().len(), 9);
    let change = t.elapsed();
    eprintln!(
        "1000 providers of 100 interfaces: registered one by one in {registered:?}; a fresh \
         registry listed the 100 services in {listed:?} and had all 100 subscriptions complete \
         {followed:?} later (RSS {rss0} -> {rss1} KiB, {:+} KiB, {} bytes of URL text); an \
         unregistration reached its subscriber in {change:?}",
        rss1 as i64 - rss0 as i64,
        urls.iter().map(|u| u.as_str().len()).sum::<usize>(),
    );
}

/// A write the server refuses is a [`RegistryError::Operation`] whose source is the server's
/// code, typed: a metadata report under an ephemeral node (which can have no children).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operation_error_has_the_server_code_as_its_source() {
    use std::error::Error as _;

    use dubbo_registry::definition::{DefinitionKey, ServiceDefinition};
    use dubbo_registry::{RegistryError, ZookeeperError};
    use zookeeper_client as zk;

    let Some((zoo, address)) = start_zookeeper("registry-errors", "dubbo-registry-zookeeper")
    else {
        return;
    };
    let registry = ZookeeperRegistry::connect(&address).await.unwrap();
    let key = DefinitionKey {
        interface: IFACE.to_owned(),
        version: "1.0.0".to_owned(),
        group: String::new(),
        application: "registry-test".to_owned(),
    };
    let path = key.report_path("dubbo");
    let parent = &path[..path.rfind('/').unwrap()];
    let raw = raw_client(&zoo).await;
    let persistent = zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all());
    raw.mkdir(&parent[..parent.rfind('/').unwrap()], &persistent)
        .await
        .unwrap();
    raw.create(
        parent,
        b"",
        &zk::CreateMode::Ephemeral.with_acls(zk::Acls::anyone_all()),
    )
    .await
    .unwrap();

    let definition =
        ServiceDefinition::from_json(include_bytes!("data/definition-3.2.19.json")).unwrap();
    let err = registry
        .publish_definition(&key, &definition)
        .await
        .unwrap_err();
    match &err {
        RegistryError::Operation { path: p, source } => {
            assert_eq!(p, &path);
            assert_eq!(source, &ZookeeperError::NoChildrenForEphemerals);
        }
        other => panic!("not an operation error: {other:?}"),
    }
    let source = err.source().expect("the server's error as the source");
    assert_eq!(
        source.downcast_ref::<ZookeeperError>(),
        Some(&ZookeeperError::NoChildrenForEphemerals)
    );
    assert!(source.source().is_none(), "the code is the root cause");
    assert_eq!(
        err.to_string(),
        format!("registry operation on {path} failed: no children for ephemerals")
    );
}
