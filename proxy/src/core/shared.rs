//! State shared by all workers and the admin endpoint: the current configuration snapshot,
//! the metadata cache, the metrics, the run-time switches, and the state of each upstream
//! endpoint that every worker's choices depend on ([`SharedEndpoint`]: its health and its
//! calls in flight).
//!
//! Workers never lock on the hot path. A change (SIGHUP reload, `/metadata` registration)
//! builds a new immutable [`Snapshot`] and bumps a generation counter; each worker compares
//! the counter with the one it last saw (one relaxed atomic load per batch of frames) and
//! only then takes the lock to fetch the new snapshot.
//!
//! Clusters with a `discovery` get their endpoints from [`crate::discovery`], which hands them
//! over with [`Shared::set_discovered`]; every snapshot (also one built from a reloaded file)
//! carries the latest discovered endpoints of those clusters. Publishing is serialised, so a
//! reload and a discovery update never undo each other.
//!
//! A reload that adds a cluster with a `discovery` is held back ([`Shared::stage`], see
//! [`staging`]) until that cluster has its first provider list, so that no call is routed to
//! a cluster that has no endpoints yet only because its list is on its way.
//!
//! Each snapshot carries a [`SharedEndpoint`] per endpoint of each cluster. A new snapshot
//! keeps those of the endpoints still there (their health and calls in flight go on) and
//! makes fresh ones for endpoints that are new; a worker moves to them when it picks up the
//! snapshot.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use dubbo_codec::metadata::MetadataCache;

use crate::config::{Cluster, Config, Endpoint, Metadata};
use crate::core::fd_budget::CallerSlot;
use crate::core::health::Health;
use crate::core::metrics::{EndpointHealth, Registry};
use crate::core::route::RouteTable;

pub mod staging;

/// One immutable version of everything the workers route with.
pub struct Snapshot {
    /// The configuration.
    pub config: Config,
    /// Its compiled routes.
    pub routes: RouteTable,
    /// The metadata cache: the config's `[[metadata]]` plus what `/metadata` registered.
    pub cache: MetadataCache,
    /// The entries of the cache, for `/metadata`.
    pub metadata: Vec<Metadata>,
    /// Per cluster, the shared state of each endpoint, in the order of the cluster's
    /// `endpoints`.
    pub endpoints: BTreeMap<String, Vec<Arc<SharedEndpoint>>>,
}

/// What all workers know of one endpoint of a cluster.
#[derive(Debug)]
#[repr(align(128))] // Its own cache lines: workers write it on calls (least-request).
pub struct SharedEndpoint {
    /// Outlier ejection and probes.
    pub health: Health,
    /// Calls in flight to it over all workers, for least-request: only clusters balanced
    /// that way count them (workers add their own count when a cluster switches to it and
    /// take it back when it switches away).
    pub active: AtomicU32,
    /// Its health metrics.
    pub metrics: Arc<EndpointHealth>,
    /// Counted in `metrics.ejected`.
    gauged: AtomicBool,
}

impl SharedEndpoint {
    fn new(metrics: Arc<EndpointHealth>, epoch: Instant) -> SharedEndpoint {
        SharedEndpoint {
            health: Health::new(epoch),
            active: AtomicU32::new(0),
            metrics,
            gauged: AtomicBool::new(false),
        }
    }

    /// A call or connection to it failed, in a cluster of `spec` where `ejected` of `n`
    /// endpoints are ejected now. Returns true when that ejects it (outlier ejection, within
    /// the cluster's `max_ejection_percent`; counted and gauged here). Both protocols' failures
    /// go through this one place.
    pub fn failed(&self, now: Instant, spec: &Cluster, (ejected, n): (usize, usize)) -> bool {
        // Counted from the shared state: two workers ejecting two endpoints at the same
        // instant can pass the budget by one.
        let may = (ejected + 1) * 100 <= spec.outlier.max_ejection_percent as usize * n;
        let probe_ms = spec.probe_interval_ms();
        let probe_every = (probe_ms > 0).then(|| Duration::from_millis(probe_ms));
        if !self.health.failure(now, &spec.outlier, may, probe_every) {
            return false;
        }
        self.metrics.ejections.fetch_add(1, Ordering::Relaxed);
        self.regauge(now);
        true
    }

    /// Brings the ejected gauge in line with the health state (whichever worker sees a
    /// change first moves it, once).
    pub fn regauge(&self, now: Instant) {
        let ejected = self.health.ejected_at(now);
        if self.gauged.load(Ordering::Relaxed) != ejected
            && self
                .gauged
                .compare_exchange(!ejected, ejected, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            self.metrics
                .ejected
                .fetch_add(if ejected { 1 } else { -1 }, Ordering::Relaxed);
        }
    }
}

impl Drop for SharedEndpoint {
    /// The endpoint left its cluster (and no worker holds it any more): no longer counted as
    /// ejected.
    fn drop(&mut self) {
        if *self.gauged.get_mut() {
            self.metrics.ejected.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// What the provider URLs of a discovered cluster say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderInfo {
    /// Metadata cache entries: (path, version) -> (interface, group).
    pub metadata: Vec<Metadata>,
    /// The union of their `methods`, sorted.
    pub methods: Vec<String>,
}

/// See the `core::shared` module docs.
pub struct Shared {
    /// Number of workers (metric shards).
    pub workers: usize,
    /// Names of the listeners running (fixed for the process's life).
    pub listeners: Vec<String>,
    /// The origin of the times in [`Health`].
    epoch: Instant,
    generation: AtomicU64,
    snapshot: RwLock<Arc<Snapshot>>,
    registered: Mutex<Vec<Metadata>>,
    /// Endpoints of clusters with a `discovery`, by cluster name.
    discovered: Mutex<BTreeMap<String, Vec<Endpoint>>>,
    /// What the provider URLs of those clusters say, by cluster name.
    discovered_metadata: Mutex<BTreeMap<String, ProviderInfo>>,
    /// Held while a snapshot is built and stored.
    publishing: Mutex<()>,
    /// A reloaded configuration waiting for the discovered clusters it adds.
    staged: Mutex<Option<staging::Staged>>,
    /// Bumped each time `staged` changes (the discovery rescans on it).
    staging: AtomicU64,
    /// All counters.
    pub metrics: Registry,
    /// `/api/v1/downgrade/on`: the per-call access log (`log.access_log`) off.
    pub downgrade: AtomicBool,
    /// TLS handshakes under way per caller address, over all workers.
    pub handshakes: Arc<super::handshakes::Handshakes>,
    /// The second (since `epoch`, plus one) of the last log line about callers refused for
    /// the file descriptor budget.
    refusal_logged: AtomicU64,
}

fn build_cache(config: &Config, registered: &[Metadata]) -> (MetadataCache, Vec<Metadata>) {
    let mut cache = MetadataCache::new();
    let mut all = Vec::new();
    for m in config.metadata.iter().chain(registered) {
        cache.register(
            &m.path,
            &m.version,
            m.interface.as_deref().unwrap_or(&m.path),
            m.group.as_deref(),
        );
        all.push(m.clone());
    }
    (cache, all)
}

/// The shared state of every endpoint of `config`: those of `old` for endpoints still in the
/// same cluster, fresh ones for the others.
fn endpoint_states(
    config: &Config,
    old: Option<&Snapshot>,
    metrics: &Registry,
    epoch: Instant,
) -> BTreeMap<String, Vec<Arc<SharedEndpoint>>> {
    let mut out = BTreeMap::new();
    for (name, c) in &config.clusters {
        let mut kept = old
            .and_then(|s| Some((s.config.clusters.get(name)?, s.endpoints.get(name)?)))
            .map(|(c, states)| c.endpoints.iter().zip(states).collect::<Vec<_>>())
            .unwrap_or_default();
        let states = c
            .endpoints
            .iter()
            .map(
                |e| match kept.iter().position(|(k, _)| k.address == e.address) {
                    Some(i) => kept.swap_remove(i).1.clone(),
                    None => Arc::new(SharedEndpoint::new(
                        metrics.endpoint_health(name, &e.address),
                        epoch,
                    )),
                },
            )
            .collect();
        out.insert(name.clone(), states);
    }
    out
}

/// Gives every cluster with a `discovery` its discovered endpoints (none yet: no endpoints).
fn merge_discovered(config: &mut Config, discovered: &BTreeMap<String, Vec<Endpoint>>) {
    for (name, c) in config.clusters.iter_mut() {
        if c.discovery.is_some() {
            c.endpoints = discovered.get(name).cloned().unwrap_or_default();
        }
    }
}

impl Shared {
    /// Shared state for a validated configuration and `workers` workers.
    pub fn new(config: Config, workers: usize) -> Arc<Shared> {
        let listeners: Vec<String> = config.listeners.iter().map(|l| l.name.clone()).collect();
        let metrics = Registry::new(workers).with_listeners(&listeners);
        let routes = RouteTable::compile(&config, &listeners, &metrics);
        let (cache, metadata) = build_cache(&config, &[]);
        // The one clock read of the core: an origin for the times workers share.
        let epoch = Instant::now();
        let endpoints = endpoint_states(&config, None, &metrics, epoch);
        Arc::new(Shared {
            workers,
            listeners,
            epoch,
            generation: AtomicU64::new(1),
            snapshot: RwLock::new(Arc::new(Snapshot {
                config,
                routes,
                cache,
                metadata,
                endpoints,
            })),
            registered: Mutex::new(Vec::new()),
            discovered: Mutex::new(BTreeMap::new()),
            discovered_metadata: Mutex::new(BTreeMap::new()),
            publishing: Mutex::new(()),
            staged: Mutex::new(None),
            staging: AtomicU64::new(0),
            metrics,
            downgrade: AtomicBool::new(false),
            handshakes: Arc::default(),
            refusal_logged: AtomicU64::new(0),
        })
    }

    /// A place for a caller connection just accepted on listener `listener` (index in the
    /// configuration), taken by the acceptor before any worker sees the socket; `None` when
    /// the file descriptor budget is spent: the caller is closed at once, counted as rejected
    /// on its listener.
    /// A flood is logged once a second at most (`now`: the acceptor's clock).
    pub fn admit_caller(&self, listener: usize, now: Instant) -> Option<CallerSlot> {
        let slot = self.metrics.fds.admit();
        if slot.is_none() {
            if let Some(ls) = self.metrics.listeners.get(listener) {
                let before = ls.rejected.fetch_add(1, Ordering::Relaxed);
                let second = now.saturating_duration_since(self.epoch).as_secs() + 1;
                if self.refusal_logged.swap(second, Ordering::Relaxed) != second {
                    tracing::warn!(
                        listener = %ls.name,
                        callers = self.metrics.fds.open(),
                        rejected_so_far = before + 1,
                        "connections refused: the file descriptor budget for callers is spent"
                    );
                }
            }
        }
        slot
    }

    /// What keeps the proxy from taking new callers now, if anything: the file descriptor
    /// budget spent, or a listener with its `max_connections` open.
    pub fn overload(&self) -> Option<String> {
        let fds = &self.metrics.fds;
        if fds.is_full() {
            return Some(format!(
                "{} caller connections open, all the file descriptor budget allows",
                fds.open()
            ));
        }
        let snap = self.snapshot();
        self.metrics
            .listeners
            .iter()
            .zip(&snap.config.listeners)
            .find(|(ls, l)| ls.open.load(Ordering::Relaxed) >= l.max_connections as i64)
            .map(|(ls, l)| {
                format!(
                    "listener {} has its max_connections ({}) open",
                    ls.name, l.max_connections
                )
            })
    }

    /// The generation of the current snapshot.
    #[inline]
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The current snapshot.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.snapshot
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Builds and stores a snapshot of `config` (`None`: the current one again).
    fn publish(&self, config: Option<Config>) {
        let _one_at_a_time = self.publishing.lock().unwrap_or_else(|e| e.into_inner());
        let old = self.snapshot();
        let mut config = config.unwrap_or_else(|| old.config.clone());
        merge_discovered(
            &mut config,
            &self.discovered.lock().unwrap_or_else(|e| e.into_inner()),
        );
        let mut routes = RouteTable::compile(&config, &self.listeners, &self.metrics);
        routes.keep_limits(&old.routes);
        let mut registered = self
            .registered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        registered.extend(
            self.discovered_metadata
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .values()
                .flat_map(|i| i.metadata.iter().cloned()),
        );
        let (cache, metadata) = build_cache(&config, &registered);
        let endpoints = endpoint_states(&config, Some(&old), &self.metrics, self.epoch);
        drop(old);
        *self.snapshot.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(Snapshot {
            config,
            routes,
            cache,
            metadata,
            endpoints,
        });
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// Replaces the configuration (already validated). Listener changes need a restart:
    /// they are reported and otherwise ignored (the running listeners stay).
    pub fn reload(&self, config: Config) -> Vec<String> {
        let mut warnings = Vec::new();
        let old = self.snapshot();
        if old.config.listeners != config.listeners {
            warnings.push("listeners changed: the change takes effect on restart".to_owned());
        }
        if old.config.admin != config.admin || old.config.engine != config.engine {
            warnings.push("admin/engine changed: the change takes effect on restart".to_owned());
        }
        self.publish(Some(config));
        // Release: whoever sees the count (the engines' TLS files) sees the new snapshot.
        self.metrics.reloads.fetch_add(1, Ordering::Release);
        warnings
    }

    /// Adds a (path, version) -> (interface, group) entry to the metadata cache.
    pub fn register_metadata(&self, m: Metadata) {
        self.registered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(m);
        self.publish(None);
    }

    /// Sets the endpoints of a cluster that has a `discovery` (`None`: forget them) and
    /// publishes a snapshot with them. Connections to endpoints still there are kept; those to
    /// endpoints gone finish their calls in flight, then close.
    pub fn set_discovered(&self, cluster: &str, endpoints: Option<Vec<Endpoint>>) {
        {
            let mut d = self.discovered.lock().unwrap_or_else(|e| e.into_inner());
            match endpoints {
                Some(e) => d.insert(cluster.to_owned(), e),
                None => {
                    self.discovered_metadata
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .remove(cluster);
                    d.remove(cluster)
                }
            };
        }
        self.publish(None);
    }

    /// Sets what the provider URLs of a cluster with a `discovery` say: metadata cache
    /// entries (path, version, interface, group) and their methods; publishes a snapshot when
    /// that changed. It goes with the cluster's discovery.
    pub fn set_discovered_info(&self, cluster: &str, info: ProviderInfo) {
        {
            let mut d = self
                .discovered_metadata
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if d.get(cluster) == Some(&info) {
                return;
            }
            d.insert(cluster.to_owned(), info);
        }
        self.publish(None);
    }

    /// The clusters with a `discovery` that have had no provider list yet, with their
    /// `initial_fetch_timeout_ms`.
    pub fn warming(&self) -> Vec<(String, Duration)> {
        let snap = self.snapshot();
        let d = self.discovered.lock().unwrap_or_else(|e| e.into_inner());
        snap.config
            .clusters
            .iter()
            .filter(|(name, _)| !d.contains_key(*name))
            .filter_map(|(name, c)| {
                let wait = c.discovery.as_ref()?.initial_fetch_timeout_ms;
                Some((name.clone(), Duration::from_millis(wait)))
            })
            .collect()
    }

    /// True when `cluster` has had a provider list from its discovery.
    fn has_list(&self, cluster: &str) -> bool {
        self.discovered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains_key(cluster)
    }

    /// The methods the discovered providers of `cluster` offer (sorted), none when unknown.
    pub fn discovered_methods(&self, cluster: &str) -> Vec<String> {
        self.discovered_metadata
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(cluster)
            .map(|i| i.methods.clone())
            .unwrap_or_default()
    }

    /// True when per-call logging is wanted now.
    #[inline]
    pub fn downgraded(&self) -> bool {
        self.downgrade.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovered_endpoints_survive_reloads() {
        let text = "[[listeners]]\naddress = \"127.0.0.1:0\"\n[[routes]]\ncluster = \"d\"\n\
                    [clusters.d.discovery]\nzookeeper = \"127.0.0.1:2181\"\ninterface = \"a.B\"\n";
        let config = Config::from_toml(text).unwrap();
        let shared = Shared::new(config.clone(), 1);
        assert!(shared.snapshot().config.clusters["d"].endpoints.is_empty());
        let g = shared.generation();
        let eps = vec![Endpoint {
            address: "127.0.0.1:1".into(),
            weight: 3,
        }];
        shared.set_discovered("d", Some(eps.clone()));
        assert!(shared.generation() > g);
        assert_eq!(shared.snapshot().config.clusters["d"].endpoints, eps);
        // A reload of the file (no endpoints in it) keeps them, and so does /metadata.
        shared.reload(config);
        assert_eq!(shared.snapshot().config.clusters["d"].endpoints, eps);
        shared.register_metadata(Metadata {
            path: "p".into(),
            version: String::new(),
            interface: None,
            group: None,
        });
        assert_eq!(shared.snapshot().config.clusters["d"].endpoints, eps);
        // Metadata from the providers' URLs joins the cache, once; it goes with the discovery.
        let learnt = Metadata {
            path: "a.B".into(),
            version: "1.0.0".into(),
            interface: Some("a.B".into()),
            group: Some("g".into()),
        };
        let info = ProviderInfo {
            metadata: vec![learnt.clone()],
            methods: vec!["m".into()],
        };
        shared.set_discovered_info("d", info.clone());
        let g = shared.generation();
        shared.set_discovered_info("d", info);
        assert_eq!(shared.generation(), g);
        assert_eq!(shared.discovered_methods("d"), ["m"]);
        assert!(shared.snapshot().metadata.contains(&learnt));
        assert_eq!(
            shared.snapshot().cache.lookup("a.B", "1.0.0"),
            dubbo_codec::metadata::Lookup::Unique {
                interface: "a.B",
                group: Some("g")
            }
        );
        shared.set_discovered("d", None);
        assert!(shared.snapshot().config.clusters["d"].endpoints.is_empty());
        assert!(!shared.snapshot().metadata.contains(&learnt));
        assert!(shared.discovered_methods("d").is_empty());
    }

    #[test]
    fn endpoint_state_is_kept_for_the_endpoints_a_reload_keeps() {
        let text = "[[listeners]]\naddress = \"127.0.0.1:0\"\n[[routes]]\ncluster = \"c\"\n\
                    [clusters.c]\nendpoints = [{ address = \"127.0.0.1:1\" }, { address = \"127.0.0.1:2\" }]\n";
        let config = Config::from_toml(text).unwrap();
        let shared = Shared::new(config.clone(), 2);
        let before = shared.snapshot().endpoints["c"].clone();
        let now = Instant::now();
        let outlier = crate::config::Outlier {
            consecutive_failures: 1,
            ..Default::default()
        };
        assert!(before[1].health.failure(now, &outlier, true, None));
        before[1].regauge(now);
        let gauge = &shared.metrics.endpoint_health("c", "127.0.0.1:2").ejected;
        assert_eq!(gauge.load(Ordering::Relaxed), 1);
        // 127.0.0.1:2 stays (first now), 127.0.0.1:1 leaves, 127.0.0.1:3 comes.
        let mut next = config.clone();
        next.clusters.get_mut("c").unwrap().endpoints = vec![
            next.clusters["c"].endpoints[1].clone(),
            Endpoint {
                address: "127.0.0.1:3".into(),
                weight: 1,
            },
        ];
        shared.reload(next);
        let after = shared.snapshot().endpoints["c"].clone();
        assert!(Arc::ptr_eq(&after[0], &before[1]), "kept, still ejected");
        assert!(after[0].health.ejected_at(now));
        assert!(!Arc::ptr_eq(&after[1], &before[0]));
        // It leaves: once no one holds it, it is no longer counted as ejected.
        let mut gone = config;
        gone.clusters.get_mut("c").unwrap().endpoints.truncate(1);
        shared.reload(gone);
        assert_eq!(gauge.load(Ordering::Relaxed), 1, "still held here");
        drop((before, after));
        assert_eq!(gauge.load(Ordering::Relaxed), 0);
    }
}
