//! Provider discovery: clusters whose endpoints are the providers Java Dubbo registers in
//! ZooKeeper, followed as they come and go.
//!
//! A cluster with a `[clusters.NAME.discovery]` table has no static `endpoints`. One thread
//! (`dubbo-proxy-discovery`, a current-thread tokio runtime) keeps one ZooKeeper session per such
//! cluster and watches the children of `/<root>/<interface>/providers`: each child is an
//! ephemeral node named by the URL-encoded provider URL, written by the provider and gone when
//! the provider unregisters or its session expires (the watch is `dubbo_registry`'s ZooKeeper
//! registry), and the Dubbo 3 application instances that serve the interface
//! (`/dubbo/mapping/<interface>`, `/services/<app>`: `Registry::subscribe_with_instances`,
//! their URLs used when there are any). On every change the URLs are filtered
//! (`dubbo_registry::select`: the cluster's protocol, `dubbo://` or, for a
//! `protocol = "tri"` cluster, `tri://` and `dubbo://` with `tri` in its `ext.protocol`;
//! version, group, methods, `enabled`), weighed
//! (the URL's `weight` times the data centre's `idc_weights` factor, as
//! `registry_urlweight::assemble_url_weight` writes it, then Dubbo's warm-up), and handed to
//! [`Shared::set_discovered`], which publishes a new configuration snapshot: the workers keep the
//! connections of providers still there, connect to new ones, and let those of providers gone
//! finish their calls in flight before closing them.
//!
//! When ZooKeeper goes away the last known providers keep serving: nothing is published until
//! a session is back (the client reconnects within the session; after an expiry a new session
//! lists the providers again). An empty list keeps the last non-empty one while
//! `empty_protection` is on (the default, as Dubbo 3 does).
//!
//! The discovery settings are read from every new snapshot: a SIGHUP that changes a cluster's
//! `discovery` (or the methods routed to it) restarts that cluster's watch.
//!
//! # Warming
//!
//! At start the proxy serves no call before each discovered cluster has its first provider
//! list ([`warm_up`], bounded by the cluster's `initial_fetch_timeout_ms`), as Envoy does not
//! start its workers before its clusters have warmed: callers that connect meanwhile wait in
//! the listen backlog, `READY` is printed and `/healthz` answers 200 only after it, so that a
//! caller or a load balancer never sees a call refused for want of a list that was on its way.
//! A cluster whose ZooKeeper does not answer in time is served without a list (its calls get
//! SERVICE_ERROR until one comes), and the wait names it in a warning.
//!
//! A reload that adds a discovered cluster is held back the same way ([`reload`], bounded by
//! the new cluster's `initial_fetch_timeout_ms`): its watch starts at once, and the reloaded
//! configuration comes into force when the list is there. Meanwhile the running
//! configuration serves every cluster it has, as before the reload.

use std::collections::BTreeMap;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tokio::task::JoinHandle as TaskHandle;

use crate::config::{self, Config};
use crate::core::shared::staging::Reload;
use crate::core::Shared;

pub mod member;
mod zookeeper;

pub use dubbo_registry::select::Selector;

/// How often the supervisor looks for a changed configuration.
const RESCAN: Duration = Duration::from_millis(250);

/// The running discovery thread; dropping it stops it.
pub struct Discovery {
    stop: watch::Sender<bool>,
    thread: Option<JoinHandle<()>>,
}

impl Discovery {
    /// Stops every watch and waits for the thread.
    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        let _ = self.stop.send(true);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Discovery {
    fn drop(&mut self) {
        self.halt();
    }
}

/// What a cluster asks of its providers: its `discovery` settings, and the selector made of
/// them and of the methods routed to the cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterDiscovery {
    /// The cluster's `discovery` table.
    pub discovery: config::Discovery,
    /// Its version, group, methods (`discovery.methods` and those of the routes to the
    /// cluster, sorted, without duplicates), data-centre weights and warm-up.
    pub selector: Selector,
}

impl ClusterDiscovery {
    /// The discovery of a cluster with `discovery` whose providers speak `protocol`, to which
    /// routes send `route_methods`. A Triple-only cluster takes the providers that serve
    /// `tri` (`tri://`, or `dubbo://` with `tri` in its `ext.protocol`); the others take
    /// `dubbo://` providers (and `tri://` ones on the same address are the same endpoint).
    pub fn new<'a>(
        discovery: config::Discovery,
        protocol: config::ProviderProtocol,
        route_methods: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let mut methods: Vec<String> = route_methods.into_iter().map(str::to_owned).collect();
        methods.extend(discovery.methods.iter().cloned());
        methods.sort();
        methods.dedup();
        let mut selector = Selector::new(discovery.version.as_deref(), discovery.group.as_deref())
            .methods(methods)
            .idc_key(discovery.idc_key.clone())
            .warmup(discovery.warmup)
            .protocols([match protocol {
                config::ProviderProtocol::Tri => "tri",
                _ => "dubbo",
            }])
            // The proxy speaks to a port in any protocol it serves, not only its URL's own.
            .ext_protocols(true);
        selector.idc_weights = discovery.idc_weights.clone();
        ClusterDiscovery {
            discovery,
            selector,
        }
    }
}

/// The discovery of each cluster that has one, by cluster name.
pub fn selectors(config: &Config) -> BTreeMap<String, ClusterDiscovery> {
    config
        .clusters
        .iter()
        .filter_map(|(name, c)| {
            let d = c.discovery.clone()?;
            let routed = config
                .routes
                .iter()
                .filter(|r| r.cluster == *name)
                .filter_map(|r| r.method.as_deref());
            Some((name.clone(), ClusterDiscovery::new(d, c.protocol, routed)))
        })
        .collect()
}

/// Starts the discovery thread if the configuration has a cluster with a `discovery` (or
/// may get one on reload: it is always started, and idles without one). It also keeps the
/// proxy's own registration (`[registry]`) for the listeners `bound` (names and actual
/// addresses), and removes it when stopped.
pub fn start(shared: Arc<Shared>, bound: Vec<(String, SocketAddr)>) -> io::Result<Discovery> {
    let (stop, stopped) = watch::channel(false);
    let thread = crate::threads::spawn_runtime_thread(
        "dubbo-proxy-discovery".into(),
        "discovery".into(),
        move |rt| rt.block_on(supervise(shared, bound, stopped)),
    )?;
    Ok(Discovery {
        stop,
        thread: Some(thread),
    })
}

/// Waits until every cluster with a `discovery` has its first provider list, or its
/// `initial_fetch_timeout_ms` has passed since `since`; returns the clusters that had none
/// in time.
pub async fn warm_up(shared: &Shared, since: Instant) -> Vec<String> {
    let cold = wait_for_lists(since, || Some(shared.warming())).await;
    cold.unwrap_or_default()
}

/// Reloads `config` (validated): at once when it adds no cluster with a `discovery`; else once
/// the clusters it adds have their first provider lists or their `initial_fetch_timeout_ms`
/// has passed (a warning names those that had none), the running configuration serving
/// meanwhile. Returns the reload's warnings, or `None` when a later reload replaced it
/// while it waited.
pub async fn reload(shared: &Shared, config: Config) -> Option<Vec<String>> {
    let since = Instant::now();
    let ticket = match shared.stage(config) {
        Reload::Applied(warnings) => return Some(warnings),
        Reload::Staged(ticket) => ticket,
    };
    let cold = wait_for_lists(since, || shared.staged_warming(ticket)).await?;
    if !cold.is_empty() {
        tracing::warn!(clusters = ?cold, "reload: no provider list within initial_fetch_timeout_ms: the clusters it adds are served without one");
    }
    shared.apply_staged(ticket)
}

/// Polls `waiting` (the clusters without a provider list yet, with how long to wait for
/// each; `None`: stop waiting) until each has its list or its wait since `since` is over;
/// the clusters that had none, or `None` when `waiting` said stop.
async fn wait_for_lists(
    since: Instant,
    mut waiting: impl FnMut() -> Option<Vec<(String, Duration)>>,
) -> Option<Vec<String>> {
    loop {
        let waiting = waiting()?;
        let elapsed = since.elapsed();
        if waiting.iter().all(|(_, limit)| elapsed >= *limit) {
            return Some(waiting.into_iter().map(|(name, _)| name).collect());
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Starts, restarts and stops the watch of each cluster as the configuration says.
async fn supervise(
    shared: Arc<Shared>,
    bound: Vec<(String, SocketAddr)>,
    mut stopped: watch::Receiver<bool>,
) {
    let mut running: BTreeMap<String, (ClusterDiscovery, TaskHandle<()>)> = BTreeMap::new();
    let mut member = member::Member::default();
    let mut seen = (0u64, 0u64);
    loop {
        let g = (shared.generation(), shared.staging());
        if g != seen {
            seen = g;
            let config = shared.snapshot().config.clone();
            member
                .sync(&config, &bound, |c| shared.discovered_methods(c))
                .await;
            let own = member::own_addrs(&config, &bound);
            let mut wanted = selectors(&config);
            // A reload waiting for the clusters it adds: their watches start now (those the
            // running configuration has keep its settings until the reload is in force).
            if let Some(staged) = shared.staged_config() {
                for (name, sel) in selectors(&staged) {
                    wanted.entry(name).or_insert(sel);
                }
            }
            let names: Vec<String> = running.keys().cloned().collect();
            for name in names {
                let keep = wanted.get(&name) == running.get(&name).map(|(s, _)| s);
                if !keep {
                    if let Some((_, task)) = running.remove(&name) {
                        task.abort();
                    }
                    if !wanted.contains_key(&name) {
                        tracing::info!(cluster = %name, "discovery removed from the cluster");
                        shared.set_discovered(&name, None);
                    } else {
                        tracing::info!(cluster = %name, "discovery settings changed: restarting its watch");
                    }
                }
            }
            for (name, sel) in wanted {
                if running.contains_key(&name) {
                    continue;
                }
                let task = tokio::spawn(zookeeper::watch(
                    name.clone(),
                    sel.clone(),
                    shared.clone(),
                    own.clone(),
                ));
                running.insert(name, (sel, task));
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(RESCAN) => {}
            r = stopped.changed() => {
                if r.is_err() || *stopped.borrow() {
                    break;
                }
            }
        }
    }
    // Out of the registry before the drain; the upstreams stay as they are.
    member.leave().await;
    for (_, (_, task)) in running {
        task.abort();
    }
}
