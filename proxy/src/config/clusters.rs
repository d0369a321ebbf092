//! `[clusters.NAME]`: provider endpoints (or their discovery), load balancing, connections,
//! and passive (`outlier`) and active (`health_check`) health.

use std::collections::BTreeSet;
use std::net::SocketAddr;

use serde::{Deserialize, Serialize};

use super::{ClusterTls, Discovery, Problems};

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

impl From<LbPolicy> for dubbo_registry::balance::Policy {
    fn from(p: LbPolicy) -> Self {
        match p {
            LbPolicy::RoundRobin => Self::RoundRobin,
            LbPolicy::Random => Self::Random,
            LbPolicy::LeastRequest => Self::LeastRequest,
        }
    }
}

/// `clusters.NAME.protocol`: what the cluster's providers speak, and so which calls the proxy
/// carries across protocols.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ProviderProtocol {
    /// Whatever each call came in: Dubbo frames go on as Dubbo frames, Triple streams as
    /// Triple streams (providers that serve both on one port, as Dubbo 3 does with
    /// `ext-protocol`, or that only ever get one kind of caller).
    #[default]
    AsCalled,
    /// The Dubbo protocol only (Java 2.7, or Dubbo 3 exporting `dubbo://`): Dubbo frames go
    /// on as they are, and Triple callers' interface-style unary calls are bridged into
    /// Dubbo frames (and their answers back).
    Dubbo,
    /// Triple only (a Dubbo 3 provider exporting `tri://` alone): Triple streams go on as
    /// they are, and Dubbo callers' calls are bridged into Triple calls (interface style,
    /// unary) and their answers back. The endpoints get no health probes (they are Dubbo
    /// heartbeats): an ejected endpoint comes back when its ejection time is up.
    Tri,
}

/// `[clusters.NAME]`: a set of provider endpoints.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Cluster {
    /// `clusters.NAME.protocol`: `as_called` (the default), `dubbo` or `tri`.
    #[serde(default)]
    pub protocol: ProviderProtocol,
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
    #[serde(default = "super::default_max_payload")]
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
    /// `[clusters.NAME.tls]`: TLS to the providers; either engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<ClusterTls>,
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

impl Endpoint {
    /// An endpoint at `address` with the default weight.
    pub fn new(address: impl Into<String>) -> Endpoint {
        Endpoint {
            address: address.into(),
            weight: default_weight(),
        }
    }
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
    /// long gets a heartbeat (30000 by default; Java's `heartbeat` is 60 s); 0 = no
    /// heartbeats.
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

impl Cluster {
    /// How often an ejected endpoint is probed, in milliseconds (0: never, it comes back by
    /// time): `health_check.probe_interval_ms`, except for a Triple-only cluster, whose
    /// providers would not answer the probes' Dubbo heartbeats.
    pub fn probe_interval_ms(&self) -> u64 {
        match self.protocol {
            ProviderProtocol::Tri => 0,
            _ => self.health_check.probe_interval_ms,
        }
    }

    /// Checks the cluster `name`.
    pub(super) fn validate(&self, name: &str, p: &mut Problems) {
        let key = |k: &str| format!("clusters.{name}.{k}");
        if let Some(tls) = &self.tls {
            tls.validate(&key, p);
        }
        match &self.discovery {
            None if self.endpoints.is_empty() => {
                p.bad(key("endpoints"), "at least one endpoint is needed");
            }
            None => {}
            Some(d) => {
                if !self.endpoints.is_empty() {
                    p.bad(
                        key("endpoints"),
                        "must be left out when the cluster has a discovery (the endpoints come from the registry)",
                    );
                }
                for (k, problem) in d.problems() {
                    p.bad(key(&format!("discovery.{k}")), problem);
                }
            }
        }
        if self.endpoints.len() > u16::MAX as usize {
            p.bad(key("endpoints"), "too many endpoints");
        }
        if self.connections == 0 || self.connections > 64 {
            p.bad(key("connections"), "must be between 1 and 64");
        }
        if self.connect_timeout_ms == 0 {
            p.bad(key("connect_timeout_ms"), "must be > 0");
        }
        if self.max_payload == 0 {
            p.bad(key("max_payload"), "must be > 0");
        }
        if self.reconnect_base_ms == 0 {
            p.bad(key("reconnect_base_ms"), "must be > 0");
        }
        if self.reconnect_max_ms < self.reconnect_base_ms {
            p.bad(key("reconnect_max_ms"), "must be >= reconnect_base_ms");
        }
        let mut seen = BTreeSet::new();
        for (j, e) in self.endpoints.iter().enumerate() {
            let ekey = |k: &str| format!("clusters.{name}.endpoints[{j}].{k}");
            match e.address.parse::<SocketAddr>() {
                Ok(a) => {
                    if !seen.insert(a) {
                        p.bad(ekey("address"), "is listed twice in this cluster");
                    }
                }
                Err(_) => p.bad(ekey("address"), "must be IP:PORT"),
            }
            if e.weight == 0 {
                p.bad(ekey("weight"), "must be > 0");
            }
        }
        if self.outlier.max_ejection_percent > 100 {
            p.bad(key("outlier.max_ejection_percent"), "must be at most 100");
        }
        if self.outlier.consecutive_failures > 0 && self.outlier.base_ejection_ms == 0 {
            p.bad(key("outlier.base_ejection_ms"), "must be > 0");
        }
        let hc = &self.health_check;
        if (hc.interval_ms > 0 || hc.probe_interval_ms > 0) && hc.timeout_ms == 0 {
            p.bad(key("health_check.timeout_ms"), "must be > 0");
        }
        if hc.probe_interval_ms > 0 && hc.healthy_threshold == 0 {
            p.bad(key("health_check.healthy_threshold"), "must be > 0");
        }
    }
}
