//! What the ZooKeeper tests of this crate share: a server on 127.0.0.1 with the tests'
//! session timeout and the registry address that reaches it, a raw client to read and write
//! nodes as Java Dubbo would, and the next provider list of a subscription as ports.

use std::time::Duration;

use dubbo_registry::{ServiceUrl, Subscription};
use dubbo_test_support::zookeeper::ZooKeeper;
use dubbo_test_support::LogDir;
use zookeeper_client as zk;

/// The session timeout the servers allow and the registries ask for: short, so that an
/// expiry fits in a test.
pub const SESSION_MS: u64 = 4_000;

/// A ZooKeeper server named `name` (logs under `logs`) and the `zookeeper://` address of a
/// registry on it; `None` (with a note) when ZooKeeper is not installed.
pub fn start_zookeeper(name: &str, logs: &'static str) -> Option<(ZooKeeper, String)> {
    let zoo = ZooKeeper::start(name, Duration::from_millis(SESSION_MS), LogDir(logs))?;
    let address = format!("zookeeper://{}?session={SESSION_MS}", zoo.address());
    Some((zoo, address))
}

/// A plain ZooKeeper client of the server, outside any registry.
pub async fn raw_client(zoo: &ZooKeeper) -> zk::Client {
    zk::Client::connector()
        .with_session_timeout(Duration::from_millis(SESSION_MS))
        .connect(&zoo.address())
        .await
        .expect("a raw ZooKeeper client")
}

/// The next list the subscription hands out (10 s at most), as sorted ports.
pub async fn next_ports(sub: &mut Subscription) -> Vec<u16> {
    let list = tokio::time::timeout(Duration::from_secs(10), sub.next())
        .await
        .expect("a provider list within 10 s")
        .expect("the registry is open");
    let mut ports: Vec<u16> = list.iter().filter_map(ServiceUrl::port).collect();
    ports.sort_unstable();
    ports
}
