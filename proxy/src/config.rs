//! The configuration file (TOML), its defaults, and its validation.
//!
//! Parsing is two steps: serde reads the TOML into the plain structs below (unknown keys are
//! refused, so a typo is an error and not a silently ignored setting), then
//! [`Config::validate`] checks what types cannot say (addresses parse, weights are positive,
//! routes name existing clusters...) and reports **every** problem with the key it is about,
//! in the form an operator can search the file for: `clusters.backend.endpoints[1].weight:
//! must be > 0`.
//!
//! The embedded default (`default.toml`) is what the binary runs with no arguments.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::net::SocketAddr;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The configuration the binary runs with when given no `--config`.
pub const DEFAULT_TOML: &str = include_str!("../default.toml");

/// Java's default payload limit (`Constants.DEFAULT_PAYLOAD`, 8 MiB).
pub const DEFAULT_MAX_PAYLOAD: u32 = dubbo_codec::DEFAULT_MAX_PAYLOAD;

/// The I/O engine that drives the proxy's core.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// tokio, one current-thread runtime per worker thread.
    #[default]
    Tokio,
    /// mio, edge-triggered epoll, one event loop per worker thread.
    Epoll,
}

/// `[epoll]`: settings of the epoll engine (ignored by the tokio engine).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EpollOptions {
    /// `epoll.busy_poll`: after a poll that returned events, poll again with a zero timeout;
    /// block only once a poll returns nothing (Netpoll's `msec = 0 / -1`). Off by default:
    /// `proxy_load` measures no gain from it, and it costs a system call whenever the loop
    /// goes idle.
    #[serde(default = "default_busy_poll")]
    pub busy_poll: bool,
    /// `epoll.busy_poll_us`: with `busy_poll`, keep polling with a zero timeout until nothing
    /// has come for this many microseconds (a spin that spares the wake-up from a blocked
    /// poll, at the price of a core kept busy); 0: one zero-timeout poll only.
    #[serde(default)]
    pub busy_poll_us: u64,
    /// `epoll.forward_by_reference`: a call or response body at least this long is written
    /// from the buffer it was read into (`writev` of the rewritten header and the body)
    /// instead of being copied into the outbox; 0 copies every body.
    #[serde(default = "default_forward_by_reference")]
    pub forward_by_reference: usize,
    /// `epoll.short_read`: a read that did not fill its buffer ends the read, without the
    /// `read` that would only return `WouldBlock` (Linux only: epoll(7) raises an edge for
    /// every arrival on a stream socket). Off by default: the engine drains every readable
    /// socket until `WouldBlock`, as mio asks of edge-triggered sources; on, it saves one
    /// system call per arrival (`strace -c`: 2 instead of 4 reads per call at one caller).
    #[serde(default)]
    pub short_read: bool,
}

impl EpollOptions {
    /// The defaults.
    pub const DEFAULT: EpollOptions = EpollOptions {
        busy_poll: false,
        busy_poll_us: 0,
        forward_by_reference: 16 * 1024,
        short_read: false,
    };
}

impl Default for EpollOptions {
    fn default() -> Self {
        EpollOptions::DEFAULT
    }
}

fn default_busy_poll() -> bool {
    EpollOptions::DEFAULT.busy_poll
}

fn default_forward_by_reference() -> usize {
    EpollOptions::DEFAULT.forward_by_reference
}

/// The whole file.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// `engine`: which I/O engine runs the core.
    #[serde(default)]
    pub engine: EngineKind,
    /// `[epoll]`: the epoll engine's settings.
    #[serde(default)]
    pub epoll: EpollOptions,
    /// `workers`: event-loop threads; 0 = one per core.
    #[serde(default)]
    pub workers: usize,
    /// `[admin]`
    #[serde(default)]
    pub admin: Admin,
    /// `[log]`
    #[serde(default)]
    pub log: Log,
    /// `[shutdown]`
    #[serde(default)]
    pub shutdown: Shutdown,
    /// `[limits]`: backpressure on every connection's outbox.
    #[serde(default)]
    pub limits: Limits,
    /// `[[listeners]]`
    #[serde(default)]
    pub listeners: Vec<Listener>,
    /// `[[routes]]`, tried in order; the first match wins.
    #[serde(default)]
    pub routes: Vec<Route>,
    /// `[clusters.NAME]`
    #[serde(default)]
    pub clusters: BTreeMap<String, Cluster>,
    /// `[[metadata]]`: (path, version) -> (interface, group) entries loaded at start.
    #[serde(default)]
    pub metadata: Vec<Metadata>,
}

/// `[admin]`: the loopback HTTP endpoint.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Admin {
    /// `admin.address`: a loopback `IP:PORT`; `""` turns the admin endpoint off.
    #[serde(default = "default_admin_address")]
    pub address: String,
}

impl Default for Admin {
    fn default() -> Self {
        Admin {
            address: default_admin_address(),
        }
    }
}

/// `[log]`
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Log {
    /// `log.level`: a `tracing` filter (`info`, `debug`, `dubbo_proxy=trace`...).
    #[serde(default = "default_log_level")]
    pub level: String,
    /// `log.access_log`: one line per call (at `info`); off by default, and switched off
    /// at run time by `/api/v1/downgrade/on`.
    #[serde(default)]
    pub access_log: bool,
}

impl Default for Log {
    fn default() -> Self {
        Log {
            level: default_log_level(),
            access_log: false,
        }
    }
}

/// `[shutdown]`
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Shutdown {
    /// `shutdown.drain_timeout_ms`: after SIGTERM, how long in-flight calls may take before
    /// the proxy exits anyway.
    #[serde(default = "default_drain_timeout")]
    pub drain_timeout_ms: u64,
}

impl Default for Shutdown {
    fn default() -> Self {
        Shutdown {
            drain_timeout_ms: default_drain_timeout(),
        }
    }
}

/// `[limits]`: how much may wait to be written on one connection (caller or provider) before
/// the proxy pushes back. See [`crate::core::flow`].
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// `limits.outbox_high_watermark`: bytes waiting on a connection above which it is
    /// "backed up": a caller connection's requests stop being read (it is not reading its
    /// answers); a provider connection gets new calls only when no other connection or
    /// endpoint of the cluster can take them.
    #[serde(default = "default_outbox_high")]
    pub outbox_high_watermark: usize,
    /// `limits.outbox_low_watermark`: a backed-up connection is released once what waits on
    /// it has been written down to this many bytes.
    #[serde(default = "default_outbox_low")]
    pub outbox_low_watermark: usize,
    /// `limits.outbox_hard_cap`: a caller connection whose answers pile up past this many
    /// bytes (its requests already paused: only the answers to its calls in flight can add
    /// to it) is closed, what waits on it dropped; a provider connection past it takes no
    /// calls at all (with no other connection, callers get
    /// SERVER_THREADPOOL_EXHAUSTED_ERROR). Must be at least the high watermark plus every
    /// cluster's `max_payload`, so one answer to a caller below the high watermark never
    /// trips it.
    #[serde(default = "default_outbox_cap")]
    pub outbox_hard_cap: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            outbox_high_watermark: default_outbox_high(),
            outbox_low_watermark: default_outbox_low(),
            outbox_hard_cap: default_outbox_cap(),
        }
    }
}

/// `[[listeners]]`: an address downstream callers connect to.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Listener {
    /// `listeners[i].name`: referred to by `routes[j].listeners`.
    #[serde(default = "default_listener_name")]
    pub name: String,
    /// `listeners[i].address`: `IP:PORT` (port 0: any free port, printed on start).
    pub address: String,
    /// `listeners[i].max_payload`: largest request body accepted, in bytes; a bigger one is
    /// answered with BAD_REQUEST and skipped.
    #[serde(default = "default_max_payload")]
    pub max_payload: u32,
    /// `listeners[i].idle_timeout_ms`: a caller connection with no frame for this long is
    /// closed (Java's server closes idle channels after 3 heartbeats, 180 s); 0 = never.
    #[serde(default = "default_idle_timeout")]
    pub idle_timeout_ms: u64,
    /// `listeners[i].frame_timeout_ms`: a frame that has started arriving (a header or body
    /// in part, or an oversize body being skipped) must finish within this long, or its
    /// connection is closed: a caller cannot hold a connection slot by trickling bytes. 0 =
    /// never.
    #[serde(default = "default_frame_timeout")]
    pub frame_timeout_ms: u64,
    /// `listeners[i].first_frame_timeout_ms`: a caller connection that has sent no frame at
    /// all for this long is closed. Above Dubbo's 60 s heartbeat interval, so a consumer that
    /// connects and waits (it sends its first heartbeat after 60 s) is never cut off; under
    /// the idle timeout. 0 = never.
    #[serde(default = "default_first_frame_timeout")]
    pub first_frame_timeout_ms: u64,
    /// `listeners[i].max_connections`: open caller connections on this listener (all
    /// workers together); one more is accepted and closed at once (and counted).
    #[serde(default = "default_max_connections")]
    pub max_connections: usize,
    /// `listeners[i].max_inflight`: calls in flight on one caller connection at which its
    /// requests stop being read (TCP pushes back on the caller); reading resumes when a
    /// quarter of them have been answered.
    #[serde(default = "default_max_inflight")]
    pub max_inflight: u32,
}

/// `[[routes]]`: which calls go to which cluster.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Route {
    /// `routes[i].name`: the `route` label of the metrics (default `routes[i]`).
    #[serde(default)]
    pub name: Option<String>,
    /// `routes[i].listeners`: listener names this route applies to; empty = all.
    #[serde(default)]
    pub listeners: Vec<String>,
    /// `routes[i].interface`: `*`, an exact name, `prefix.*` or `*.suffix`.
    #[serde(default = "default_interface")]
    pub interface: String,
    /// `routes[i].method`: exact method name; absent = any.
    #[serde(default)]
    pub method: Option<String>,
    /// `routes[i].version`: exact service version; absent = any (`""` and `"0.0.0"` are
    /// the same version, as in Java).
    #[serde(default)]
    pub version: Option<String>,
    /// `routes[i].group`: exact group; `""` = calls without a group; absent = any.
    #[serde(default)]
    pub group: Option<String>,
    /// `routes[i].attachments`: attachment values that must all be equal.
    #[serde(default)]
    pub attachments: BTreeMap<String, String>,
    /// `routes[i].cluster`: where matching calls go.
    pub cluster: String,
    /// `routes[i].timeout_ms`: a call not answered in this time gets SERVER_TIMEOUT.
    #[serde(default = "default_timeout")]
    pub timeout_ms: u64,
}

/// Load-balancing policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum LbPolicy {
    /// Smooth weighted round-robin (nginx's): deterministic, spreads heavy endpoints.
    #[default]
    RoundRobin,
    /// Weighted random.
    Random,
    /// Fewest in-flight calls (over all workers) relative to weight.
    LeastRequest,
}

/// `[clusters.NAME]`: a set of provider endpoints.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Cluster {
    /// `clusters.NAME.lb`: `round_robin`, `random` or `least_request`.
    #[serde(default)]
    pub lb: LbPolicy,
    /// `clusters.NAME.connections`: multiplexed connections per endpoint and worker.
    #[serde(default = "default_connections")]
    pub connections: usize,
    /// `clusters.NAME.connect_timeout_ms`
    #[serde(default = "default_connect_timeout")]
    pub connect_timeout_ms: u64,
    /// `clusters.NAME.max_payload`: largest response body accepted, in bytes.
    #[serde(default = "default_max_payload")]
    pub max_payload: u32,
    /// `clusters.NAME.reconnect_base_ms`: first delay before reconnecting a lost connection
    /// (doubling up to `reconnect_max_ms`).
    #[serde(default = "default_reconnect_base")]
    pub reconnect_base_ms: u64,
    /// `clusters.NAME.reconnect_max_ms`
    #[serde(default = "default_reconnect_max")]
    pub reconnect_max_ms: u64,
    /// `clusters.NAME.endpoints`
    #[serde(default)]
    pub endpoints: Vec<Endpoint>,
    /// `[clusters.NAME.discovery]`: the endpoints come from a registry instead of `endpoints`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discovery: Option<Discovery>,
    /// `[clusters.NAME.outlier]`
    #[serde(default)]
    pub outlier: Outlier,
    /// `[clusters.NAME.health_check]`
    #[serde(default)]
    pub health_check: HealthCheck,
}

/// `clusters.NAME.endpoints[i]`
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Endpoint {
    /// `clusters.NAME.endpoints[i].address`: `IP:PORT`.
    pub address: String,
    /// `clusters.NAME.endpoints[i].weight`: share of the calls, > 0.
    #[serde(default = "default_weight")]
    pub weight: u32,
}

/// `[clusters.NAME.discovery]`: the cluster's endpoints are the providers Java Dubbo registers in
/// ZooKeeper (`/<root>/<interface>/providers/<URL-encoded provider URL>`), followed as they
/// come and go. See [`crate::discovery`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Discovery {
    /// `clusters.NAME.discovery.zookeeper`: the ZooKeeper connect string,
    /// `HOST:PORT[,HOST:PORT...][/chroot]`.
    pub zookeeper: String,
    /// `clusters.NAME.discovery.root`: the registry root (Dubbo's registry `group`).
    #[serde(default = "default_discovery_root")]
    pub root: String,
    /// `clusters.NAME.discovery.interface`: the service interface whose providers are followed.
    pub interface: String,
    /// `clusters.NAME.discovery.version`: only providers of this version (`""` and `"0.0.0"`
    /// are "no version"; `"*"` or absent: any).
    #[serde(default)]
    pub version: Option<String>,
    /// `clusters.NAME.discovery.group`: only providers of this group (`""`: providers without
    /// a group; `"a,b"`: either; `"*"` or absent: any).
    #[serde(default)]
    pub group: Option<String>,
    /// `clusters.NAME.discovery.methods`: only providers whose `methods` list has all of these
    /// (the methods of the routes to this cluster are added).
    #[serde(default)]
    pub methods: Vec<String>,
    /// `clusters.NAME.discovery.idc_key`: the provider URL parameter naming its data centre.
    #[serde(default = "default_idc_key")]
    pub idc_key: String,
    /// `clusters.NAME.discovery.idc_weights`: data centre -> factor applied to the weight of its
    /// providers (through `registry_urlweight::assemble_url_weight`); unlisted: 1; 0: no calls.
    #[serde(default)]
    pub idc_weights: BTreeMap<String, u32>,
    /// `clusters.NAME.discovery.warmup`: a provider's weight ramps up over its URL's `warmup`
    /// (10 minutes by default) after its `timestamp`, as Java Dubbo's load balancers do.
    #[serde(default = "default_true")]
    pub warmup: bool,
    /// `clusters.NAME.discovery.empty_protection`: an empty provider list keeps the last
    /// non-empty one (as Dubbo 3's `enable-empty-protection`).
    #[serde(default = "default_true")]
    pub empty_protection: bool,
    /// `clusters.NAME.discovery.session_timeout_ms`: the proxy's ZooKeeper session timeout (the
    /// server may lower it to its `maxSessionTimeout`).
    #[serde(default = "default_session_timeout")]
    pub session_timeout_ms: u64,
}

/// `[clusters.NAME.outlier]`: passive health, from the calls themselves.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Outlier {
    /// `clusters.NAME.outlier.consecutive_failures`: timeouts, lost connections and
    /// SERVER_ERROR / SERVER_TIMEOUT / THREADPOOL_EXHAUSTED answers in a row that eject an
    /// endpoint; 0 = never eject.
    #[serde(default = "default_consecutive_failures")]
    pub consecutive_failures: u32,
    /// `clusters.NAME.outlier.base_ejection_ms`: first ejection time; the n-th ejection
    /// lasts n times this (at most 10 times).
    #[serde(default = "default_base_ejection")]
    pub base_ejection_ms: u64,
    /// `clusters.NAME.outlier.max_ejection_percent`: never eject more than this share of
    /// the endpoints.
    #[serde(default = "default_max_ejection_percent")]
    pub max_ejection_percent: u32,
}

impl Default for Outlier {
    fn default() -> Self {
        Outlier {
            consecutive_failures: default_consecutive_failures(),
            base_ejection_ms: default_base_ejection(),
            max_ejection_percent: default_max_ejection_percent(),
        }
    }
}

/// `[clusters.NAME.health_check]`: active health, by the proxy's own heartbeats.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HealthCheck {
    /// `clusters.NAME.health_check.interval_ms`: a connection with nothing read for this
    /// long gets a heartbeat (Java's `heartbeat`, 60 s by default); 0 = no heartbeats.
    #[serde(default = "default_hc_interval")]
    pub interval_ms: u64,
    /// `clusters.NAME.health_check.timeout_ms`: a heartbeat unanswered for this long means
    /// the connection is dead: it is closed and counts as a failure of the endpoint. Also
    /// the time a probe waits for its answer.
    #[serde(default = "default_hc_timeout")]
    pub timeout_ms: u64,
    /// `clusters.NAME.health_check.probe_interval_ms`: an ejected endpoint is probed this
    /// often (a heartbeat on one of its connections, or on a fresh one if it has none open),
    /// and comes back only through probes: after `healthy_threshold` answered in a row,
    /// whatever its ejection time; while they fail it stays out. 0 = no probes: an ejected
    /// endpoint comes back when its ejection time is up.
    #[serde(default = "default_probe_interval")]
    pub probe_interval_ms: u64,
    /// `clusters.NAME.health_check.healthy_threshold`: probes answered in a row that bring
    /// an ejected endpoint back.
    #[serde(default = "default_healthy_threshold")]
    pub healthy_threshold: u32,
}

impl Default for HealthCheck {
    fn default() -> Self {
        HealthCheck {
            interval_ms: default_hc_interval(),
            timeout_ms: default_hc_timeout(),
            probe_interval_ms: default_probe_interval(),
            healthy_threshold: default_healthy_threshold(),
        }
    }
}

/// `[[metadata]]`: one (path, version) -> (interface, group) entry of the metadata cache.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Metadata {
    /// `metadata[i].path`: the request's service path.
    pub path: String,
    /// `metadata[i].version`: the request's service version (`""` = none).
    #[serde(default)]
    pub version: String,
    /// `metadata[i].interface`: default: the path.
    #[serde(default)]
    pub interface: Option<String>,
    /// `metadata[i].group`: default: no group.
    #[serde(default)]
    pub group: Option<String>,
}

fn default_admin_address() -> String {
    "127.0.0.1:20882".into()
}
fn default_log_level() -> String {
    "info".into()
}
fn default_drain_timeout() -> u64 {
    10_000
}
fn default_listener_name() -> String {
    "main".into()
}
fn default_max_payload() -> u32 {
    DEFAULT_MAX_PAYLOAD
}
fn default_idle_timeout() -> u64 {
    180_000
}
fn default_frame_timeout() -> u64 {
    10_000
}
fn default_first_frame_timeout() -> u64 {
    90_000
}
fn default_interface() -> String {
    "*".into()
}
fn default_timeout() -> u64 {
    5_000
}
fn default_connections() -> usize {
    1
}
fn default_connect_timeout() -> u64 {
    1_000
}
fn default_reconnect_base() -> u64 {
    100
}
fn default_reconnect_max() -> u64 {
    5_000
}
fn default_weight() -> u32 {
    100
}
fn default_discovery_root() -> String {
    "dubbo".into()
}
fn default_idc_key() -> String {
    "idc".into()
}
fn default_true() -> bool {
    true
}
fn default_session_timeout() -> u64 {
    30_000
}
fn default_consecutive_failures() -> u32 {
    5
}
fn default_base_ejection() -> u64 {
    30_000
}
fn default_max_ejection_percent() -> u32 {
    50
}
fn default_hc_interval() -> u64 {
    30_000
}
fn default_hc_timeout() -> u64 {
    5_000
}
fn default_probe_interval() -> u64 {
    1_000
}
fn default_healthy_threshold() -> u32 {
    2
}
fn default_max_connections() -> usize {
    10_000
}
fn default_max_inflight() -> u32 {
    4_096
}
fn default_outbox_high() -> usize {
    1024 * 1024
}
fn default_outbox_low() -> usize {
    256 * 1024
}
fn default_outbox_cap() -> usize {
    16 * 1024 * 1024
}

/// Everything wrong with a configuration, one `key: problem` per entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// `(key, problem)` pairs, in file order.
    pub problems: Vec<(String, String)>,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (key, problem)) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{key}: {problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

impl ConfigError {
    fn one(key: impl Into<String>, problem: impl Into<String>) -> Self {
        ConfigError {
            problems: vec![(key.into(), problem.into())],
        }
    }
}

/// An interface pattern of a route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pattern {
    /// `*`
    Any,
    /// An exact name.
    Exact(String),
    /// `prefix.*`: stored without the `*`.
    Prefix(String),
    /// `*.suffix`: stored without the `*`.
    Suffix(String),
}

impl Pattern {
    /// Parses a pattern: `*` only alone, at the end, or at the start.
    pub fn parse(s: &str) -> Result<Pattern, String> {
        let stars = s.matches('*').count();
        if s.is_empty() {
            return Err("must not be empty (use \"*\" for any interface)".into());
        }
        match stars {
            0 => Ok(Pattern::Exact(s.to_owned())),
            1 if s == "*" => Ok(Pattern::Any),
            1 if s.ends_with('*') => Ok(Pattern::Prefix(s[..s.len() - 1].to_owned())),
            1 if s.starts_with('*') => Ok(Pattern::Suffix(s[1..].to_owned())),
            _ => Err(format!(
                "{s:?}: `*` may only be the whole pattern, its end (`com.example.*`) or its start (`*.DemoService`)"
            )),
        }
    }

    /// True when `name` matches.
    #[inline]
    pub fn matches(&self, name: &str) -> bool {
        match self {
            Pattern::Any => true,
            Pattern::Exact(e) => e == name,
            Pattern::Prefix(p) => name.starts_with(p.as_str()),
            Pattern::Suffix(s) => name.ends_with(s.as_str()),
        }
    }
}

impl Discovery {
    /// What is wrong with it, as `(key, problem)` pairs.
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        let mut p = Vec::new();
        if let Err(e) = parse_connect_string(&self.zookeeper) {
            p.push(("zookeeper", e));
        }
        if self.interface.is_empty() || self.interface.contains('/') {
            p.push((
                "interface",
                "must be a service interface name (no `/`)".to_owned(),
            ));
        }
        if self.root.contains("//") {
            p.push(("root", "must not contain an empty path segment".to_owned()));
        }
        if self.methods.iter().any(|m| m.is_empty() || m.contains(',')) {
            p.push((
                "methods",
                "must be method names (no empty one, no `,`)".to_owned(),
            ));
        }
        if self.idc_key.is_empty() {
            p.push(("idc_key", "must not be empty".to_owned()));
        }
        if !(1_000..=3_600_000).contains(&self.session_timeout_ms) {
            p.push((
                "session_timeout_ms",
                "must be between 1000 and 3600000".to_owned(),
            ));
        }
        p
    }
}

/// Checks a ZooKeeper connect string `HOST:PORT[,HOST:PORT...][/chroot]`; the servers.
pub fn parse_connect_string(s: &str) -> Result<Vec<(String, u16)>, String> {
    let (servers, chroot) = match s.find('/') {
        Some(i) => (&s[..i], Some(&s[i..])),
        None => (s, None),
    };
    if chroot.is_some_and(|c| c.len() > 1 && (c.ends_with('/') || c.contains("//"))) {
        return Err("the chroot must be an absolute path without a trailing `/`".into());
    }
    let mut out = Vec::new();
    for server in servers.split(',') {
        let Some((host, port)) = server.rsplit_once(':') else {
            return Err(format!("{server:?} must be HOST:PORT"));
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        match port.parse::<u16>() {
            Ok(p) if p > 0 && !host.is_empty() => out.push((host.to_owned(), p)),
            _ => return Err(format!("{server:?} must be HOST:PORT")),
        }
    }
    Ok(out)
}

impl Config {
    /// The embedded default.
    pub fn default_config() -> Config {
        // The embedded file is tested; failing here is a build defect.
        Config::from_toml(DEFAULT_TOML).expect("embedded default.toml is valid")
    }

    /// Parses and validates TOML text.
    pub fn from_toml(text: &str) -> Result<Config, ConfigError> {
        let config: Config = toml::from_str(text).map_err(|e| {
            let key = e
                .span()
                .map(|s| format!("at byte {}", s.start))
                .unwrap_or_else(|| "file".into());
            ConfigError::one(key, e.message().to_owned())
        })?;
        config.validate()?;
        Ok(config)
    }

    /// Reads, parses and validates a file.
    pub fn from_file(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError::one(path.display().to_string(), e.to_string()))?;
        Config::from_toml(&text).map_err(|mut e| {
            for (key, _) in &mut e.problems {
                *key = format!("{}: {key}", path.display());
            }
            e
        })
    }

    /// The file as TOML (for `/config`).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_else(|e| format!("# cannot render: {e}\n"))
    }

    /// `--listen`: replaces the first listener's address (adding a listener if none).
    pub fn override_listen(&mut self, address: &str) {
        match self.listeners.first_mut() {
            Some(l) => l.address = address.to_owned(),
            None => self.listeners.push(Listener {
                name: default_listener_name(),
                address: address.to_owned(),
                max_payload: default_max_payload(),
                idle_timeout_ms: default_idle_timeout(),
                frame_timeout_ms: default_frame_timeout(),
                first_frame_timeout_ms: default_first_frame_timeout(),
                max_connections: default_max_connections(),
                max_inflight: default_max_inflight(),
            }),
        }
    }

    /// `--upstream`: replaces the endpoints of the only cluster.
    pub fn override_upstream(&mut self, addresses: &[String]) -> Result<(), ConfigError> {
        if self.clusters.len() != 1 {
            return Err(ConfigError::one(
                "--upstream",
                format!(
                    "needs a configuration with exactly one cluster, this one has {}",
                    self.clusters.len()
                ),
            ));
        }
        let cluster = self.clusters.values_mut().next().expect("one cluster");
        cluster.endpoints = addresses
            .iter()
            .map(|a| Endpoint {
                address: a.clone(),
                weight: default_weight(),
            })
            .collect();
        Ok(())
    }

    /// The number of worker threads to run.
    pub fn worker_count(&self) -> usize {
        if self.workers > 0 {
            self.workers
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        }
    }

    /// The route's name: its `name`, else `routes[i]`.
    pub fn route_name(&self, i: usize) -> String {
        self.routes[i]
            .name
            .clone()
            .unwrap_or_else(|| format!("routes[{i}]"))
    }

    /// Checks everything types cannot; see the module documentation.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let mut p: Vec<(String, String)> = Vec::new();
        let mut bad = |key: String, problem: &str| p.push((key, problem.to_owned()));

        if self.workers > 1024 {
            bad("workers".into(), "must be at most 1024");
        }
        if self.epoll.busy_poll_us > 1_000_000 {
            bad("epoll.busy_poll_us".into(), "must be at most 1000000 (1 s)");
        }
        if !self.admin.address.is_empty() {
            match self.admin.address.parse::<SocketAddr>() {
                Ok(a) if !a.ip().is_loopback() => bad(
                    "admin.address".into(),
                    "must be a loopback address (127.0.0.0/8 or ::1)",
                ),
                Ok(_) => {}
                Err(_) => bad("admin.address".into(), "must be IP:PORT"),
            }
        }
        if self
            .log
            .level
            .parse::<tracing_subscriber::EnvFilter>()
            .is_err()
        {
            bad("log.level".into(), "is not a valid tracing filter");
        }
        if self.shutdown.drain_timeout_ms == 0 {
            bad("shutdown.drain_timeout_ms".into(), "must be > 0");
        }

        if self.listeners.is_empty() {
            bad("listeners".into(), "at least one listener is needed");
        }
        let mut listener_names = BTreeSet::new();
        for (i, l) in self.listeners.iter().enumerate() {
            let key = |k: &str| format!("listeners[{i}].{k}");
            if l.address.parse::<SocketAddr>().is_err() {
                bad(key("address"), "must be IP:PORT");
            }
            if !listener_names.insert(l.name.as_str()) {
                bad(key("name"), "is used by another listener");
            }
            if l.max_payload == 0 {
                bad(key("max_payload"), "must be > 0");
            }
            if l.max_connections == 0 {
                bad(key("max_connections"), "must be > 0");
            }
            if l.max_inflight == 0 {
                bad(key("max_inflight"), "must be > 0");
            }
        }

        if self.routes.is_empty() {
            bad("routes".into(), "at least one route is needed");
        }
        for (i, r) in self.routes.iter().enumerate() {
            let key = |k: &str| format!("routes[{i}].{k}");
            if let Err(e) = Pattern::parse(&r.interface) {
                bad(key("interface"), &e);
            }
            if r.method.as_deref() == Some("") {
                bad(
                    key("method"),
                    "must not be empty (leave it out to match any)",
                );
            }
            if !self.clusters.contains_key(&r.cluster) {
                bad(key("cluster"), &format!("no cluster named {:?}", r.cluster));
            }
            if r.timeout_ms == 0 {
                bad(key("timeout_ms"), "must be > 0");
            }
            for (j, name) in r.listeners.iter().enumerate() {
                if !listener_names.contains(name.as_str()) {
                    bad(
                        format!("routes[{i}].listeners[{j}]"),
                        &format!("no listener named {name:?}"),
                    );
                }
            }
            for k in r.attachments.keys() {
                if k.is_empty() {
                    bad(key("attachments"), "keys must not be empty");
                }
            }
        }

        for (name, c) in &self.clusters {
            let key = |k: &str| format!("clusters.{name}.{k}");
            match &c.discovery {
                None if c.endpoints.is_empty() => {
                    bad(key("endpoints"), "at least one endpoint is needed");
                }
                None => {}
                Some(d) => {
                    if !c.endpoints.is_empty() {
                        bad(
                            key("endpoints"),
                            "must be left out when the cluster has a discovery (the endpoints come from the registry)",
                        );
                    }
                    for (k, problem) in d.problems() {
                        bad(key(&format!("discovery.{k}")), &problem);
                    }
                }
            }
            if c.endpoints.len() > u16::MAX as usize {
                bad(key("endpoints"), "too many endpoints");
            }
            if c.connections == 0 || c.connections > 64 {
                bad(key("connections"), "must be between 1 and 64");
            }
            if c.connect_timeout_ms == 0 {
                bad(key("connect_timeout_ms"), "must be > 0");
            }
            if c.max_payload == 0 {
                bad(key("max_payload"), "must be > 0");
            }
            if c.reconnect_base_ms == 0 {
                bad(key("reconnect_base_ms"), "must be > 0");
            }
            if c.reconnect_max_ms < c.reconnect_base_ms {
                bad(key("reconnect_max_ms"), "must be >= reconnect_base_ms");
            }
            let mut seen = BTreeSet::new();
            for (j, e) in c.endpoints.iter().enumerate() {
                let ekey = |k: &str| format!("clusters.{name}.endpoints[{j}].{k}");
                match e.address.parse::<SocketAddr>() {
                    Ok(a) => {
                        if !seen.insert(a) {
                            bad(ekey("address"), "is listed twice in this cluster");
                        }
                    }
                    Err(_) => bad(ekey("address"), "must be IP:PORT"),
                }
                if e.weight == 0 {
                    bad(ekey("weight"), "must be > 0");
                }
            }
            if c.outlier.max_ejection_percent > 100 {
                bad(key("outlier.max_ejection_percent"), "must be at most 100");
            }
            if c.outlier.consecutive_failures > 0 && c.outlier.base_ejection_ms == 0 {
                bad(key("outlier.base_ejection_ms"), "must be > 0");
            }
            let hc = &c.health_check;
            if (hc.interval_ms > 0 || hc.probe_interval_ms > 0) && hc.timeout_ms == 0 {
                bad(key("health_check.timeout_ms"), "must be > 0");
            }
            if hc.probe_interval_ms > 0 && hc.healthy_threshold == 0 {
                bad(key("health_check.healthy_threshold"), "must be > 0");
            }
        }

        let lim = &self.limits;
        if lim.outbox_high_watermark == 0 {
            bad("limits.outbox_high_watermark".into(), "must be > 0");
        }
        if lim.outbox_low_watermark >= lim.outbox_high_watermark {
            bad(
                "limits.outbox_low_watermark".into(),
                "must be below limits.outbox_high_watermark",
            );
        }
        let largest = self
            .clusters
            .values()
            .map(|c| c.max_payload as usize)
            .max()
            .unwrap_or(0);
        if lim.outbox_hard_cap < lim.outbox_high_watermark.saturating_add(largest + 16) {
            bad(
                "limits.outbox_hard_cap".into(),
                &format!(
                    "must be at least limits.outbox_high_watermark + the largest clusters.*.max_payload + 16 ({}), so that one answer never trips it",
                    lim.outbox_high_watermark.saturating_add(largest + 16)
                ),
            );
        }

        for (i, m) in self.metadata.iter().enumerate() {
            if m.path.is_empty() {
                bad(format!("metadata[{i}].path"), "must not be empty");
            }
        }

        if p.is_empty() {
            Ok(())
        } else {
            Err(ConfigError { problems: p })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_default_is_the_documented_shape() {
        let c = Config::default_config();
        assert_eq!(c.listeners[0].address, "127.0.0.1:20881");
        assert_eq!(c.admin.address, "127.0.0.1:20882");
        assert_eq!(
            c.clusters["default"].endpoints[0].address,
            "127.0.0.1:20880"
        );
        assert_eq!(c.clusters["default"].endpoints[0].weight, 100);
        assert_eq!(c.engine, EngineKind::Tokio);
        assert_eq!(c.routes[0].timeout_ms, 5_000);
    }

    #[test]
    fn errors_name_the_bad_key() {
        let text = r#"
            [[listeners]]
            address = "nope"
            [[routes]]
            interface = "com.*.Foo"
            cluster = "missing"
            [clusters.backend]
            endpoints = [{ address = "127.0.0.1:1" }, { address = "127.0.0.1:2", weight = 0 }]
        "#;
        let e = Config::from_toml(text).unwrap_err();
        let s = e.to_string();
        assert!(
            s.contains("clusters.backend.endpoints[1].weight: must be > 0"),
            "{s}"
        );
        assert!(s.contains("listeners[0].address: must be IP:PORT"), "{s}");
        assert!(s.contains("routes[0].interface:"), "{s}");
        assert!(
            s.contains("routes[0].cluster: no cluster named \"missing\""),
            "{s}"
        );
    }

    #[test]
    fn unknown_keys_are_refused() {
        let text = format!("{DEFAULT_TOML}\n[clusters.default.outlier]\nconsecutive_fails = 3\n");
        let e = Config::from_toml(&text).unwrap_err().to_string();
        assert!(e.contains("consecutive_fails"), "{e}");
    }

    #[test]
    fn patterns() {
        assert!(Pattern::parse("*").unwrap().matches("x"));
        let p = Pattern::parse("com.example.*").unwrap();
        assert!(p.matches("com.example.Foo") && !p.matches("org.Foo"));
        let s = Pattern::parse("*.DemoService").unwrap();
        assert!(s.matches("a.b.DemoService") && !s.matches("a.b.Demo"));
        assert_eq!(Pattern::parse("a.b").unwrap(), Pattern::Exact("a.b".into()));
        assert!(Pattern::parse("a*b").is_err());
        assert!(Pattern::parse("*a*").is_err());
        assert!(Pattern::parse("").is_err());
    }

    #[test]
    fn overrides() {
        let mut c = Config::default_config();
        c.override_listen("127.0.0.1:1");
        c.override_upstream(&["127.0.0.1:2".into(), "127.0.0.1:3".into()])
            .unwrap();
        assert_eq!(c.listeners[0].address, "127.0.0.1:1");
        assert_eq!(c.clusters["default"].endpoints.len(), 2);
        c.validate().unwrap();
        let round = Config::from_toml(&c.to_toml()).unwrap();
        assert_eq!(round, c);
    }

    #[test]
    fn discovery_replaces_endpoints() {
        let base = "[[listeners]]\naddress = \"127.0.0.1:0\"\n[[routes]]\ncluster = \"d\"\n";
        let ok = format!(
            "{base}[clusters.d.discovery]\nzookeeper = \"127.0.0.1:2181,[::1]:2182/reg\"\ninterface = \"a.B\"\nidc_weights = {{ hz = 3 }}\n"
        );
        let c = Config::from_toml(&ok).unwrap();
        let d = c.clusters["d"].discovery.as_ref().unwrap();
        assert_eq!((d.root.as_str(), d.idc_key.as_str()), ("dubbo", "idc"));
        assert!(d.warmup && d.empty_protection && d.idc_weights["hz"] == 3);
        assert_eq!(Config::from_toml(&c.to_toml()).unwrap(), c);
        assert_eq!(
            parse_connect_string("127.0.0.1:2181,[::1]:2182/reg").unwrap(),
            [("127.0.0.1".to_owned(), 2181), ("::1".to_owned(), 2182)]
        );

        let both = ok.replace(
            "[clusters.d.discovery]",
            "[clusters.d]\nendpoints = [{ address = \"127.0.0.1:1\" }]\n[clusters.d.discovery]",
        );
        let e = Config::from_toml(&both).unwrap_err().to_string();
        assert!(e.contains("clusters.d.endpoints: must be left out"), "{e}");

        let bad = format!(
            "{base}[clusters.d.discovery]\nzookeeper = \"zk\"\ninterface = \"\"\nsession_timeout_ms = 5\n"
        );
        let e = Config::from_toml(&bad).unwrap_err().to_string();
        for k in [
            "discovery.zookeeper",
            "discovery.interface",
            "discovery.session_timeout_ms",
        ] {
            assert!(e.contains(&format!("clusters.d.{k}:")), "{k}: {e}");
        }
    }

    #[test]
    fn limits_are_checked() {
        let c = Config::default_config();
        assert_eq!(c.listeners[0].max_connections, 10_000);
        assert_eq!(c.listeners[0].max_inflight, 4_096);
        assert_eq!(c.limits, Limits::default());
        assert_eq!(c.clusters["default"].health_check.probe_interval_ms, 1_000);
        let text = format!(
            "{DEFAULT_TOML}\n[limits]\noutbox_high_watermark = 1000\noutbox_low_watermark = 1000\noutbox_hard_cap = 2000\n"
        )
        .replace("name = \"main\"", "name = \"main\"\nmax_connections = 0\nmax_inflight = 0");
        let e = Config::from_toml(&text).unwrap_err().to_string();
        for k in [
            "limits.outbox_low_watermark: must be below",
            "limits.outbox_hard_cap: must be at least",
            "listeners[0].max_connections: must be > 0",
            "listeners[0].max_inflight: must be > 0",
        ] {
            assert!(e.contains(k), "{k}: {e}");
        }
        let text = format!(
            "{DEFAULT_TOML}\n[clusters.default.health_check]\nprobe_interval_ms = 100\nhealthy_threshold = 0\n"
        );
        let e = Config::from_toml(&text).unwrap_err().to_string();
        assert!(
            e.contains("health_check.healthy_threshold: must be > 0"),
            "{e}"
        );
    }

    #[test]
    fn admin_must_be_loopback() {
        let text = DEFAULT_TOML.replace("127.0.0.1:20882", "0.0.0.0:20882");
        let e = Config::from_toml(&text).unwrap_err().to_string();
        assert!(e.contains("admin.address: must be a loopback"), "{e}");
    }
}
