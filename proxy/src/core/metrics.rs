//! Counters and latency histograms, rendered as Prometheus text by the admin endpoint.
//!
//! The hot path only does relaxed atomic adds on memory its own worker owns: every [`Stats`]
//! has one cache-line-aligned shard per worker, so two workers counting calls of the same
//! route never bounce a cache line between cores. The admin endpoint sums the shards when it
//! is scraped. Nothing here is formatted per request (the seed article's `fmt.Sprintf` cost):
//! text is produced only at scrape time.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dubbo_codec::Status;

use crate::core::fd_budget::FdBudget;
use crate::core::label::escape;
use crate::memory::Trimmer;

/// Upper bounds of the latency buckets, in microseconds.
pub const BUCKETS_US: [u64; 16] = [
    50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
    1_000_000, 2_500_000, 10_000_000,
];

/// Response statuses counted separately; anything else is `other`.
const STATUS_SLOTS: usize = 13;

fn status_slot(code: u8) -> usize {
    Status::KNOWN
        .iter()
        .position(|s| s.as_u8() == code)
        .unwrap_or(STATUS_SLOTS - 1)
}

fn slot_name(slot: usize) -> &'static str {
    Status::KNOWN
        .get(slot)
        .and_then(|s| s.java_name())
        .unwrap_or("OTHER")
}

/// One worker's counters for one route or cluster.
#[repr(align(128))]
#[derive(Default)]
pub struct Shard {
    requests: AtomicU64,
    responses: [AtomicU64; STATUS_SLOTS],
    local: [AtomicU64; STATUS_SLOTS],
    buckets: [AtomicU64; BUCKETS_US.len() + 1],
    latency_sum_us: AtomicU64,
}

/// Counters of a route or a cluster, sharded by worker.
pub struct Stats {
    shards: Box<[Shard]>,
}

impl Stats {
    fn new(workers: usize) -> Stats {
        Stats {
            shards: (0..workers.max(1)).map(|_| Shard::default()).collect(),
        }
    }

    #[inline]
    fn shard(&self, worker: usize) -> &Shard {
        &self.shards[worker % self.shards.len()]
    }

    /// A call arrived.
    #[inline]
    pub fn request(&self, worker: usize) {
        self.shard(worker).requests.fetch_add(1, Relaxed);
    }

    /// A response went back: from the provider (`latency` known) or made by the proxy.
    #[inline]
    pub fn response(&self, worker: usize, status: u8, latency: Duration, local: bool) {
        let s = self.shard(worker);
        let slot = status_slot(status);
        if local {
            s.local[slot].fetch_add(1, Relaxed);
        }
        s.responses[slot].fetch_add(1, Relaxed);
        let us = latency.as_micros().min(u64::MAX as u128) as u64;
        let b = BUCKETS_US
            .iter()
            .position(|&le| us <= le)
            .unwrap_or(BUCKETS_US.len());
        s.buckets[b].fetch_add(1, Relaxed);
        s.latency_sum_us.fetch_add(us, Relaxed);
    }

    fn sum(&self, f: impl Fn(&Shard) -> &AtomicU64) -> u64 {
        self.shards.iter().map(|s| f(s).load(Relaxed)).sum()
    }

    /// Calls counted so far (all workers).
    pub fn requests(&self) -> u64 {
        self.sum(|s| &s.requests)
    }

    /// Responses with this status so far (all workers).
    pub fn responses(&self, status: Status) -> u64 {
        let slot = status_slot(status.as_u8());
        self.sum(|s| &s.responses[slot])
    }

    /// Responses so far, whatever their status (all workers).
    pub fn responses_total(&self) -> u64 {
        (0..STATUS_SLOTS)
            .map(|slot| self.sum(|s| &s.responses[slot]))
            .sum()
    }

    /// The upper bound, in microseconds, of the latency bucket that holds the `q` quantile
    /// (0 < `q` <= 1) of the responses so far; `u64::MAX` when it is past the last bound,
    /// `None` before the first response. Bucket bounds only: the histogram keeps no more.
    pub fn quantile_us(&self, q: f64) -> Option<u64> {
        let counts: Vec<u64> = (0..=BUCKETS_US.len())
            .map(|b| self.sum(|s| &s.buckets[b]))
            .collect();
        let total: u64 = counts.iter().sum();
        if total == 0 {
            return None;
        }
        let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
        let mut seen = 0;
        for (b, n) in counts.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return Some(BUCKETS_US.get(b).copied().unwrap_or(u64::MAX));
            }
        }
        Some(u64::MAX)
    }
}

/// Connections of one listener.
#[derive(Debug, Default)]
pub struct ListenerStats {
    /// The listener's name.
    pub name: String,
    /// Open caller connections (all workers): what `max_connections` limits.
    pub open: AtomicI64,
    /// Connections accepted and closed at once for `max_connections` or the file
    /// descriptor budget.
    pub rejected: AtomicU64,
    /// The address the listener is bound to (its configured one with port 0 resolved), set
    /// once it is.
    pub bound: std::sync::OnceLock<std::net::SocketAddr>,
}

/// Health of one endpoint of a cluster (its state is shared by all workers: see
/// [`Health`](crate::core::health::Health)).
#[derive(Debug, Default)]
pub struct EndpointHealth {
    /// 1 while the endpoint is ejected (by all workers at once).
    pub ejected: AtomicI64,
    /// Ejections so far.
    pub ejections: AtomicU64,
    /// Probes of the ejected endpoint answered.
    pub probes_ok: AtomicU64,
    /// Probes of the ejected endpoint that failed (no answer in time, no connection).
    pub probes_failed: AtomicU64,
    /// Its connections backed up now (the provider is not reading what the proxy writes).
    pub backed_up: AtomicI64,
}

/// All metrics of a proxy process, shared by the workers and the admin endpoint.
pub struct Registry {
    workers: usize,
    routes: Mutex<BTreeMap<String, Arc<Stats>>>,
    clusters: Mutex<BTreeMap<String, Arc<Stats>>>,
    endpoints: Mutex<BTreeMap<(String, String), Arc<AtomicI64>>>,
    health: Mutex<BTreeMap<(String, String), Arc<EndpointHealth>>>,
    /// Per listener, in configuration order (see [`Registry::with_listeners`]).
    pub listeners: Box<[ListenerStats]>,
    /// Caller connections whose reads are paused now (backed-up outbox or `max_inflight`).
    pub paused_connections: AtomicI64,
    /// Bytes the callers make the proxy hold now (frames begun, answers unwritten), as the
    /// workers last published them (see `limits.max_buffered_bytes`).
    pub buffered_bytes: AtomicI64,
    /// Times a caller connection's reads were paused.
    pub read_pauses: AtomicU64,
    /// Times a caller's call had to go on a backed-up provider connection (no connection
    /// of the cluster had room) and its reads were paused for it.
    pub upstream_read_pauses: AtomicU64,
    /// Calls never written to their provider: their caller closed first.
    pub calls_dropped: AtomicU64,
    /// Caller connections closed for letting their answers pile up past the hard cap.
    pub overflow_closed: AtomicU64,
    /// Times a caller with part of a frame in was paused because `limits.max_buffered_bytes`
    /// was spent.
    pub memory_read_pauses: AtomicU64,
    /// Callers closed for unread answers while `limits.max_buffered_bytes` was spent.
    pub memory_closed: AtomicU64,
    /// Caller connections closed for being too slow, by `SlowCaller` (its `as usize`).
    pub slow_closed: [AtomicU64; SlowCaller::ALL.len()],
    /// The most bytes seen waiting on one connection's outbox (since start).
    pub outbox_high_water: AtomicU64,
    /// Provider connections backed up now (their provider is not reading).
    pub upstream_backed_up_connections: AtomicI64,
    /// Calls answered SERVER_THREADPOOL_EXHAUSTED_ERROR because every provider connection
    /// that could take them was backed up.
    pub upstream_backed_up: AtomicU64,
    /// Open downstream (caller) connections.
    pub downstream_connections: AtomicI64,
    /// The caller connections the file descriptors allow, and those holding one now
    /// (sockets accepted, whether a worker has them yet or not).
    pub fds: Arc<FdBudget>,
    /// Downstream connections accepted so far.
    pub downstream_accepted: AtomicU64,
    /// Heartbeats answered by the proxy itself.
    pub heartbeats_answered: AtomicU64,
    /// Downstream connections closed for garbage (bad magic).
    pub protocol_errors: AtomicU64,
    /// Triple (HTTP/2) caller connections and the calls and answers on them.
    pub triple: crate::core::metrics_triple::TripleMetrics,
    /// Listener TLS: handshakes, and the callers refused at the TLS door.
    pub tls: crate::core::metrics_tls::TlsMetrics,
    /// Calls refused by routes' access rules and rate limits.
    pub access: crate::core::metrics_access::AccessMetrics,
    /// Worker threads stopped by a panic (their connections closed with them).
    pub worker_panics: AtomicU64,
    /// Config reloads that succeeded / failed.
    pub reloads: AtomicU64,
    /// Config reloads refused.
    pub reload_failures: AtomicU64,
    /// What was freed since the last trim, and the trims (`malloc_trim`) so far.
    pub memory: Trimmer,
}

/// Why a caller connection was closed as too slow (the `reason` label of
/// `dubbo_proxy_downstream_slow_closed_total`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlowCaller {
    /// A frame began and did not finish within the listener's `frame_timeout_ms`.
    PartialFrame,
    /// No frame at all within the listener's `first_frame_timeout_ms`.
    NoFrame,
}

impl SlowCaller {
    /// Every reason, in the order of their counters.
    pub const ALL: [SlowCaller; 2] = [SlowCaller::PartialFrame, SlowCaller::NoFrame];

    /// The metric label.
    pub const fn label(self) -> &'static str {
        match self {
            SlowCaller::PartialFrame => "partial_frame",
            SlowCaller::NoFrame => "no_frame",
        }
    }
}

/// The route label of calls that matched no route.
pub const UNROUTED: &str = "-";

impl Registry {
    /// A registry for `workers` workers.
    pub fn new(workers: usize) -> Registry {
        Registry {
            workers,
            routes: Mutex::new(BTreeMap::new()),
            clusters: Mutex::new(BTreeMap::new()),
            endpoints: Mutex::new(BTreeMap::new()),
            health: Mutex::new(BTreeMap::new()),
            listeners: Box::new([]),
            paused_connections: AtomicI64::new(0),
            buffered_bytes: AtomicI64::new(0),
            read_pauses: AtomicU64::new(0),
            upstream_read_pauses: AtomicU64::new(0),
            calls_dropped: AtomicU64::new(0),
            overflow_closed: AtomicU64::new(0),
            memory_read_pauses: AtomicU64::new(0),
            memory_closed: AtomicU64::new(0),
            slow_closed: Default::default(),
            outbox_high_water: AtomicU64::new(0),
            upstream_backed_up: AtomicU64::new(0),
            upstream_backed_up_connections: AtomicI64::new(0),
            downstream_connections: AtomicI64::new(0),
            fds: Arc::default(),
            downstream_accepted: AtomicU64::new(0),
            heartbeats_answered: AtomicU64::new(0),
            protocol_errors: AtomicU64::new(0),
            triple: Default::default(),
            tls: Default::default(),
            access: Default::default(),
            worker_panics: AtomicU64::new(0),
            reloads: AtomicU64::new(0),
            reload_failures: AtomicU64::new(0),
            memory: Trimmer::new(),
        }
    }

    /// With a `ListenerStats` per listener name.
    pub fn with_listeners(mut self, names: &[String]) -> Registry {
        self.listeners = names
            .iter()
            .map(|n| ListenerStats {
                name: n.clone(),
                ..ListenerStats::default()
            })
            .collect();
        self
    }

    /// The health counters of an endpoint of a cluster.
    pub fn endpoint_health(&self, cluster: &str, address: &str) -> Arc<EndpointHealth> {
        let mut m = self.health.lock().unwrap_or_else(|e| e.into_inner());
        m.entry((cluster.to_owned(), address.to_owned()))
            .or_default()
            .clone()
    }

    /// Notes that an outbox holds `len` bytes (called only when a worker sees more than it
    /// saw before).
    pub fn outbox_seen(&self, len: usize) {
        self.outbox_high_water.fetch_max(len as u64, Relaxed);
    }

    fn get(&self, map: &Mutex<BTreeMap<String, Arc<Stats>>>, name: &str) -> Arc<Stats> {
        let mut m = map.lock().unwrap_or_else(|e| e.into_inner());
        m.entry(name.to_owned())
            .or_insert_with(|| Arc::new(Stats::new(self.workers)))
            .clone()
    }

    /// The stats of a route (the same object across config reloads).
    pub fn route(&self, name: &str) -> Arc<Stats> {
        self.get(&self.routes, name)
    }

    /// The stats of a cluster.
    pub fn cluster(&self, name: &str) -> Arc<Stats> {
        self.get(&self.clusters, name)
    }

    /// The open-connections gauge of an endpoint of a cluster.
    pub fn endpoint(&self, cluster: &str, address: &str) -> Arc<AtomicI64> {
        let mut m = self.endpoints.lock().unwrap_or_else(|e| e.into_inner());
        m.entry((cluster.to_owned(), address.to_owned()))
            .or_default()
            .clone()
    }

    /// A caller connection of listener `listener` that left the workers (handed to the
    /// Triple pipeline) closed: it is uncounted as a worker's is in `Worker::closed`.
    pub fn caller_gone(&self, listener: usize) {
        self.downstream_connections.fetch_sub(1, Relaxed);
        if let Some(ls) = self.listeners.get(listener) {
            ls.open.fetch_sub(1, Relaxed);
        }
    }

    /// The stats of every route counted so far, by name (a copy of the table: the admin
    /// endpoint reads it without holding the lock).
    pub fn routes(&self) -> BTreeMap<String, Arc<Stats>> {
        self.routes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The stats of every cluster counted so far, by name.
    pub fn clusters(&self) -> BTreeMap<String, Arc<Stats>> {
        self.clusters
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The open-connections gauge of every endpoint, by (cluster, address).
    pub fn endpoints(&self) -> BTreeMap<(String, String), Arc<AtomicI64>> {
        self.endpoints
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The health counters of every endpoint, by (cluster, address).
    pub fn endpoint_healths(&self) -> BTreeMap<(String, String), Arc<EndpointHealth>> {
        self.health
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The Prometheus text exposition of everything.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(8192);
        let g = |out: &mut String, name: &str, help: &str, kind: &str| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        };
        g(
            &mut out,
            "dubbo_proxy_downstream_connections",
            "Open caller connections.",
            "gauge",
        );
        let _ = writeln!(
            out,
            "dubbo_proxy_downstream_connections {}",
            self.downstream_connections.load(Relaxed)
        );
        if self.fds.limit() != usize::MAX {
            g(
                &mut out,
                "dubbo_proxy_caller_fd_budget",
                "Caller connections the file descriptors allow (RLIMIT_NOFILE less those open at start less limits.fd_reserve).",
                "gauge",
            );
            let _ = writeln!(out, "dubbo_proxy_caller_fd_budget {}", self.fds.limit());
        }
        for (name, help, v) in [
            (
                "dubbo_proxy_paused_connections",
                "Caller connections whose requests are not being read now (answers backed up, or max_inflight).",
                self.paused_connections.load(Relaxed),
            ),
            (
                "dubbo_proxy_buffered_bytes",
                "Bytes callers make the proxy hold now: frames begun and not finished, answers not yet written (limits.max_buffered_bytes bounds it).",
                self.buffered_bytes.load(Relaxed),
            ),
            (
                "dubbo_proxy_upstream_backed_up_connections",
                "Provider connections backed up now (more than limits.outbox_high_watermark waiting: the provider is not reading).",
                self.upstream_backed_up_connections.load(Relaxed),
            ),
            (
                "dubbo_proxy_outbox_bytes_high_water",
                "The most bytes seen waiting to be written on one connection since start.",
                self.outbox_high_water.load(Relaxed) as i64,
            ),
        ] {
            g(&mut out, name, help, "gauge");
            let _ = writeln!(out, "{name} {v}");
        }
        g(
            &mut out,
            "dubbo_proxy_listener_connections",
            "Open caller connections, per listener (what max_connections limits).",
            "gauge",
        );
        for l in self.listeners.iter() {
            let _ = writeln!(
                out,
                "dubbo_proxy_listener_connections{{listener=\"{}\"}} {}",
                escape(&l.name),
                l.open.load(Relaxed)
            );
        }
        g(
            &mut out,
            "dubbo_proxy_downstream_rejected_total",
            "Caller connections accepted and closed at once: the listener's max_connections were open, or the file descriptor budget was spent.",
            "counter",
        );
        for l in self.listeners.iter() {
            let _ = writeln!(
                out,
                "dubbo_proxy_downstream_rejected_total{{listener=\"{}\"}} {}",
                escape(&l.name),
                l.rejected.load(Relaxed)
            );
        }
        g(
            &mut out,
            "dubbo_proxy_downstream_slow_closed_total",
            "Caller connections closed as too slow: a frame not finished within frame_timeout_ms (partial_frame), or no frame within first_frame_timeout_ms (no_frame).",
            "counter",
        );
        for reason in SlowCaller::ALL {
            let _ = writeln!(
                out,
                "dubbo_proxy_downstream_slow_closed_total{{reason=\"{}\"}} {}",
                reason.label(),
                self.slow_closed[reason as usize].load(Relaxed)
            );
        }
        for (name, help, v) in [
            (
                "dubbo_proxy_downstream_accepted_total",
                "Caller connections accepted.",
                self.downstream_accepted.load(Relaxed),
            ),
            (
                "dubbo_proxy_heartbeats_answered_total",
                "Caller heartbeats answered by the proxy.",
                self.heartbeats_answered.load(Relaxed),
            ),
            (
                "dubbo_proxy_protocol_errors_total",
                "Caller connections closed for bytes that are not Dubbo frames.",
                self.protocol_errors.load(Relaxed),
            ),
            (
                "dubbo_proxy_triple_connections_total",
                "Caller connections that opened with an HTTP/2 preface or an HTTP/1.1 request line (Triple).",
                self.triple.connections.load(Relaxed),
            ),
            (
                "dubbo_proxy_triple_calls_total",
                "Triple calls (HTTP/2 streams) opened by callers.",
                self.triple.calls.load(Relaxed),
            ),
            (
                "dubbo_proxy_worker_panics_total",
                "Worker threads stopped by a panic: /healthz answers 503 from then on.",
                self.worker_panics.load(Relaxed),
            ),
            (
                "dubbo_proxy_read_pauses_total",
                "Times a caller connection's requests stopped being read.",
                self.read_pauses.load(Relaxed),
            ),
            (
                "dubbo_proxy_upstream_read_pauses_total",
                "Times a caller connection's requests stopped being read because every provider connection its call could go to was backed up.",
                self.upstream_read_pauses.load(Relaxed),
            ),
            (
                "dubbo_proxy_calls_dropped_total",
                "Calls never written to their provider because their caller closed first.",
                self.calls_dropped.load(Relaxed),
            ),
            (
                "dubbo_proxy_downstream_overflow_closed_total",
                "Caller connections closed for letting their answers pile up past limits.outbox_hard_cap.",
                self.overflow_closed.load(Relaxed),
            ),
            (
                "dubbo_proxy_memory_read_pauses_total",
                "Times a caller with part of a frame in stopped being read because limits.max_buffered_bytes was spent.",
                self.memory_read_pauses.load(Relaxed),
            ),
            (
                "dubbo_proxy_memory_closed_total",
                "Caller connections closed for unread answers while limits.max_buffered_bytes was spent.",
                self.memory_closed.load(Relaxed),
            ),
            (
                "dubbo_proxy_memory_trims_total",
                "Times freed memory was given back to the system (glibc's malloc_trim, at most once a second, after connections closed or pooled blocks were freed).",
                self.memory.trims(),
            ),
            (
                "dubbo_proxy_upstream_backed_up_total",
                "Calls answered SERVER_THREADPOOL_EXHAUSTED_ERROR: every provider connection that could take them was backed up.",
                self.upstream_backed_up.load(Relaxed),
            ),
            (
                "dubbo_proxy_config_reloads_total",
                "Configuration reloads applied.",
                self.reloads.load(Relaxed),
            ),
            (
                "dubbo_proxy_config_reload_failures_total",
                "Configuration reloads refused.",
                self.reload_failures.load(Relaxed),
            ),
        ] {
            g(&mut out, name, help, "counter");
            let _ = writeln!(out, "{name} {v}");
        }
        self.triple.render_answered(&mut out);
        self.tls.render(&mut out);
        self.access.render(&mut out);
        g(
            &mut out,
            "dubbo_proxy_memory_trim_seconds_total",
            "Time spent giving freed memory back to the system (dubbo_proxy_memory_trims_total), off the workers' threads.",
            "counter",
        );
        let _ = writeln!(
            out,
            "dubbo_proxy_memory_trim_seconds_total {:.6}",
            self.memory.trim_time().as_secs_f64()
        );
        render_family(&mut out, "route", &self.routes());
        render_family(&mut out, "cluster", &self.clusters());
        g(
            &mut out,
            "dubbo_proxy_upstream_connections",
            "Open provider connections, per cluster and endpoint.",
            "gauge",
        );
        for ((c, a), v) in self.endpoints() {
            let _ = writeln!(
                out,
                "dubbo_proxy_upstream_connections{{cluster=\"{}\",endpoint=\"{}\"}} {}",
                escape(&c),
                escape(&a),
                v.load(Relaxed)
            );
        }
        let health = self.endpoint_healths();
        type Series = (
            &'static str,
            &'static str,
            &'static str,
            fn(&EndpointHealth) -> u64,
        );
        let series: [Series; 5] = [
            (
                "dubbo_proxy_endpoint_backed_up_connections",
                "",
                "gauge Provider connections backed up now (more than limits.outbox_high_watermark waiting), per cluster and endpoint.",
                |h| h.backed_up.load(Relaxed).max(0) as u64,
            ),
            (
                "dubbo_proxy_endpoint_ejected",
                "",
                "gauge 1 while the endpoint is ejected (outlier detection, shared by all workers), per cluster and endpoint.",
                |h| h.ejected.load(Relaxed).max(0) as u64,
            ),
            (
                "dubbo_proxy_endpoint_ejections_total",
                "",
                "counter Ejections, per cluster and endpoint.",
                |h| h.ejections.load(Relaxed),
            ),
            (
                "dubbo_proxy_endpoint_probes_total",
                ",result=\"ok\"",
                "counter Active health probes of ejected endpoints, per cluster, endpoint and result.",
                |h| h.probes_ok.load(Relaxed),
            ),
            (
                "dubbo_proxy_endpoint_probes_total",
                ",result=\"failed\"",
                "",
                |h| h.probes_failed.load(Relaxed),
            ),
        ];
        for (name, label, kind_help, value) in series {
            if let Some((kind, help)) = kind_help.split_once(' ') {
                g(&mut out, name, help, kind);
            }
            for ((c, a), h) in &health {
                let _ = writeln!(
                    out,
                    "{name}{{cluster=\"{}\",endpoint=\"{}\"{label}}} {}",
                    escape(c),
                    escape(a),
                    value(h)
                );
            }
        }
        out
    }
}

fn render_family(out: &mut String, label: &str, map: &BTreeMap<String, Arc<Stats>>) {
    let p = format!("dubbo_proxy_{label}");
    let _ = writeln!(
        out,
        "# HELP {p}_requests_total Calls received, per {label}.\n# TYPE {p}_requests_total counter"
    );
    for (name, s) in map {
        let _ = writeln!(
            out,
            "{p}_requests_total{{{label}=\"{}\"}} {}",
            escape(name),
            s.requests()
        );
    }
    let _ = writeln!(
        out,
        "# HELP {p}_responses_total Responses sent to callers, per {label}, status and origin (proxy: made by the proxy).\n# TYPE {p}_responses_total counter"
    );
    for (name, s) in map {
        for slot in 0..STATUS_SLOTS {
            let total = s.sum(|sh| &sh.responses[slot]);
            if total == 0 {
                continue;
            }
            let local = s.sum(|sh| &sh.local[slot]);
            let n = escape(name);
            let st = slot_name(slot);
            if total > local {
                let _ = writeln!(
                    out,
                    "{p}_responses_total{{{label}=\"{n}\",status=\"{st}\",origin=\"upstream\"}} {}",
                    total - local
                );
            }
            if local > 0 {
                let _ = writeln!(
                    out,
                    "{p}_responses_total{{{label}=\"{n}\",status=\"{st}\",origin=\"proxy\"}} {local}"
                );
            }
        }
    }
    let _ = writeln!(
        out,
        "# HELP {p}_latency_seconds Time from a call's arrival to its response, per {label}.\n# TYPE {p}_latency_seconds histogram"
    );
    for (name, s) in map {
        let n = escape(name);
        let mut cum = 0;
        for (i, le) in BUCKETS_US.iter().enumerate() {
            cum += s.sum(|sh| &sh.buckets[i]);
            let _ = writeln!(
                out,
                "{p}_latency_seconds_bucket{{{label}=\"{n}\",le=\"{}\"}} {cum}",
                *le as f64 / 1e6
            );
        }
        cum += s.sum(|sh| &sh.buckets[BUCKETS_US.len()]);
        let _ = writeln!(
            out,
            "{p}_latency_seconds_bucket{{{label}=\"{n}\",le=\"+Inf\"}} {cum}"
        );
        let _ = writeln!(
            out,
            "{p}_latency_seconds_sum{{{label}=\"{n}\"}} {}",
            s.sum(|sh| &sh.latency_sum_us) as f64 / 1e6
        );
        let _ = writeln!(out, "{p}_latency_seconds_count{{{label}=\"{n}\"}} {cum}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_renders() {
        let r = Registry::new(2);
        let s = r.route("demo");
        s.request(0);
        s.request(1);
        s.response(0, 20, Duration::from_micros(70), false);
        s.response(1, 60, Duration::ZERO, true);
        assert_eq!(s.requests(), 2);
        assert_eq!(s.responses(Status::Ok), 1);
        assert_eq!(s.responses_total(), 2);
        // One response in the first bucket (0 µs), one in the second (70 µs).
        assert_eq!(s.quantile_us(0.5), Some(50));
        assert_eq!(s.quantile_us(0.99), Some(100));
        assert_eq!(r.route("none").quantile_us(0.99), None);
        r.route("slow")
            .response(0, 20, Duration::from_secs(60), false);
        assert_eq!(r.route("slow").quantile_us(0.99), Some(u64::MAX));
        assert!(Arc::ptr_eq(&s, &r.route("demo")));
        r.endpoint("c", "127.0.0.1:1").fetch_add(1, Relaxed);
        let text = r.render();
        assert!(text.contains("dubbo_proxy_route_requests_total{route=\"demo\"} 2"));
        assert!(text.contains(
            "dubbo_proxy_route_responses_total{route=\"demo\",status=\"SERVICE_NOT_FOUND\",origin=\"proxy\"} 1"
        ));
        assert!(text
            .contains("dubbo_proxy_route_latency_seconds_bucket{route=\"demo\",le=\"0.0001\"} 2"));
        assert!(text.contains(
            "dubbo_proxy_upstream_connections{cluster=\"c\",endpoint=\"127.0.0.1:1\"} 1"
        ));
    }
}
