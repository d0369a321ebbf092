//! `[clusters.NAME.discovery]`: a cluster whose endpoints come from a ZooKeeper registry.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// `[clusters.NAME.discovery]`: the cluster's endpoints are the providers Java Dubbo registers in
/// ZooKeeper (`/<root>/<interface>/providers/<URL-encoded provider URL>`), followed as they
/// come and go. See the crate's `discovery` module.
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
    /// `clusters.NAME.discovery.initial_fetch_timeout_ms`: at start, how long the proxy waits
    /// for this cluster's first provider list before it serves calls (Envoy's cluster
    /// warming and `initial_fetch_timeout`); a reload that adds the cluster waits as long
    /// before it comes into force; 0: no wait.
    #[serde(default = "default_initial_fetch_timeout")]
    pub initial_fetch_timeout_ms: u64,
}

pub(super) fn default_discovery_root() -> String {
    "dubbo".into()
}
fn default_idc_key() -> String {
    "idc".into()
}
fn default_true() -> bool {
    true
}
pub(super) fn default_session_timeout() -> u64 {
    30_000
}
fn default_initial_fetch_timeout() -> u64 {
    15_000
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
        if self.initial_fetch_timeout_ms > 300_000 {
            p.push((
                "initial_fetch_timeout_ms",
                "must be at most 300000".to_owned(),
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
