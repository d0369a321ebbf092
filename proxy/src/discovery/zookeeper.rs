//! One cluster's watch of `/<root>/<interface>/providers` in ZooKeeper, through
//! `dubbo_registry`'s ZooKeeper registry (one session per cluster).
//!
//! ```text
//!  registry session (reconnects, new session after expiry) ─▶ provider list ─▶ select ─▶ publish if changed
//!                                                                  ▲                         │
//!                                                                  └── every second while a provider warms up
//! ```
//!
//! The registry keeps the last list while ZooKeeper is away (nothing is handed out until a
//! session lists the providers again), so the last published endpoints stay.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dubbo_registry::zookeeper::{ZookeeperOptions, ZookeeperRegistry};
use dubbo_registry::{Registry, ServiceUrl};
use dubbo_rpc::instance_metadata::MetadataServiceSource;

use super::ClusterDiscovery;
use crate::config::{Endpoint, Metadata};
use crate::core::shared::ProviderInfo;
use crate::core::Shared;

/// While a provider warms up, its weight is recomputed this often.
const WARMUP_TICK: Duration = Duration::from_secs(1);

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// What one cluster's watch knows.
struct State {
    cluster: String,
    discovery: ClusterDiscovery,
    shared: Arc<Shared>,
    /// The proxy's own advertised addresses (`[registry]`), never taken as providers.
    own: Vec<SocketAddr>,
    /// The provider URLs last listed.
    urls: Arc<[ServiceUrl]>,
    /// What was handed to [`Shared::set_discovered`] last.
    published: Option<Vec<Endpoint>>,
    /// A provider is warming up.
    warming: bool,
}

impl State {
    /// Selects the endpoints of the URLs listed last and publishes them if they changed.
    fn update(&mut self) {
        let mut sel = self.discovery.selector.select(&self.urls, now_ms());
        sel.endpoints.retain(|e| !self.own.contains(&e.addr));
        self.warming = sel.warming;
        self.shared
            .set_discovered_info(&self.cluster, info_of(&sel.endpoints));
        let endpoints: Vec<Endpoint> = sel
            .endpoints
            .iter()
            .map(|e| Endpoint {
                address: e.addr.to_string(),
                weight: e.weight,
            })
            .collect();
        if self.published.as_ref() == Some(&endpoints) {
            return;
        }
        for (url, why) in &sel.skipped {
            tracing::debug!(cluster = %self.cluster, url = %url, reason = why.as_str(), "provider left out");
        }
        if endpoints.is_empty() && self.discovery.discovery.empty_protection {
            if let Some(last) = self.published.as_ref().filter(|l| !l.is_empty()) {
                tracing::warn!(
                    cluster = %self.cluster,
                    kept = last.len(),
                    skipped = sel.skipped.len(),
                    "ZooKeeper lists no usable provider: keeping the last known ones (empty_protection)"
                );
                return;
            }
        }
        let list: Vec<String> = endpoints
            .iter()
            .map(|e| format!("{} (weight {})", e.address, e.weight))
            .collect();
        tracing::info!(
            cluster = %self.cluster,
            providers = %list.join(", "),
            skipped = sel.skipped.len(),
            "providers from ZooKeeper"
        );
        self.shared
            .set_discovered(&self.cluster, Some(endpoints.clone()));
        self.published = Some(endpoints);
    }
}

/// What the providers taken say: metadata cache entries ((path, version) -> (interface,
/// group), sorted, one per distinct entry: the cache itself refuses to guess between two) and
/// the union of their methods.
fn info_of(endpoints: &[dubbo_registry::select::Endpoint]) -> ProviderInfo {
    let mut v: Vec<Metadata> = endpoints
        .iter()
        .map(|e| Metadata {
            path: e.url.path().to_owned(),
            version: e.url.version().into_owned(),
            interface: Some(e.url.interface().into_owned()),
            group: Some(e.url.group().into_owned()).filter(|g| !g.is_empty()),
        })
        .collect();
    v.sort_by(|a, b| {
        (&a.path, &a.version, &a.interface, &a.group).cmp(&(
            &b.path,
            &b.version,
            &b.interface,
            &b.group,
        ))
    });
    v.dedup();
    let mut methods: Vec<String> = endpoints.iter().flat_map(|e| e.url.methods()).collect();
    methods.sort();
    methods.dedup();
    ProviderInfo {
        metadata: v,
        methods,
    }
}

/// Follows the providers of one cluster until aborted.
pub async fn watch(
    cluster: String,
    discovery: ClusterDiscovery,
    shared: Arc<Shared>,
    own: Vec<SocketAddr>,
) {
    let d = &discovery.discovery;
    let registry = ZookeeperRegistry::start(
        format!("zookeeper://{}", d.zookeeper),
        &d.zookeeper,
        ZookeeperOptions::default()
            .root(d.root.clone())
            .session_timeout(Duration::from_millis(d.session_timeout_ms))
            .empty_protection(d.empty_protection),
    );
    // As a Dubbo 3 consumer: the application instances serving the interface when there are
    // any (their metadata from their MetadataService), else the interface-level URLs.
    let mut providers =
        registry.subscribe_with_instances(&d.interface, Arc::new(MetadataServiceSource));
    let mut st = State {
        cluster,
        discovery,
        shared,
        own,
        urls: Arc::new([]),
        published: None,
        warming: false,
    };
    loop {
        tokio::select! {
            list = providers.next() => match list {
                Ok(urls) => {
                    st.urls = urls;
                    st.update();
                }
                Err(_) => return, // the registry closed: only when the task is aborted
            },
            _ = tokio::time::sleep(WARMUP_TICK), if st.warming => st.update(),
        }
    }
}
