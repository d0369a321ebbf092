//! State shared by all workers and the admin endpoint: the current configuration snapshot,
//! the metadata cache, the metrics and the run-time switches.
//!
//! Workers never lock on the hot path. A change (SIGHUP reload, `/metadata` registration)
//! builds a new immutable [`Snapshot`] and bumps a generation counter; each worker compares
//! the counter with the one it last saw (one relaxed atomic load per batch of frames) and
//! only then takes the lock to fetch the new snapshot.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use dubbo_codec::metadata::MetadataCache;

use crate::config::{Config, Metadata};
use crate::core::metrics::Registry;
use crate::core::route::RouteTable;

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
}

/// See the [module docs](self).
pub struct Shared {
    /// Number of workers (metric shards).
    pub workers: usize,
    /// Names of the listeners running (fixed for the process's life).
    pub listeners: Vec<String>,
    generation: AtomicU64,
    snapshot: RwLock<Arc<Snapshot>>,
    registered: Mutex<Vec<Metadata>>,
    /// All counters.
    pub metrics: Registry,
    /// `/api/v1/downgrade/on`: access logging and per-call tracing off.
    pub downgrade: AtomicBool,
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

impl Shared {
    /// Shared state for a validated configuration and `workers` workers.
    pub fn new(config: Config, workers: usize) -> Arc<Shared> {
        let listeners: Vec<String> = config.listeners.iter().map(|l| l.name.clone()).collect();
        let metrics = Registry::new(workers);
        let routes = RouteTable::compile(&config, &listeners, &metrics);
        let (cache, metadata) = build_cache(&config, &[]);
        Arc::new(Shared {
            workers,
            listeners,
            generation: AtomicU64::new(1),
            snapshot: RwLock::new(Arc::new(Snapshot {
                config,
                routes,
                cache,
                metadata,
            })),
            registered: Mutex::new(Vec::new()),
            metrics,
            downgrade: AtomicBool::new(false),
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

    fn publish(&self, config: Config) {
        let routes = RouteTable::compile(&config, &self.listeners, &self.metrics);
        let registered = self
            .registered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let (cache, metadata) = build_cache(&config, &registered);
        *self.snapshot.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(Snapshot {
            config,
            routes,
            cache,
            metadata,
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
        self.publish(config);
        self.metrics.reloads.fetch_add(1, Ordering::Relaxed);
        warnings
    }

    /// Adds a (path, version) -> (interface, group) entry to the metadata cache.
    pub fn register_metadata(&self, m: Metadata) {
        self.registered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(m);
        let config = self.snapshot().config.clone();
        self.publish(config);
    }

    /// True when per-call logging is wanted now.
    #[inline]
    pub fn downgraded(&self) -> bool {
        self.downgrade.load(Ordering::Relaxed)
    }
}
