//! `[[routes]]`: which calls go to which cluster, the interface patterns they match with, and
//! the `[[metadata]]` entries that let the router skip reading the body.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::{Access, Cluster, Problems, RateLimit};

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
    /// `[routes.access]`: who may call the route; absent = anyone.
    #[serde(default)]
    pub access: Option<Access>,
    /// `[routes.rate_limit]`: how often; absent = no limit.
    #[serde(default)]
    pub rate_limit: Option<RateLimit>,
}

fn default_interface() -> String {
    "*".into()
}
fn default_timeout() -> u64 {
    5_000
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

/// Checks every route against the clusters and listener names there are.
pub(super) fn validate(
    routes: &[Route],
    clusters: &BTreeMap<String, Cluster>,
    listener_names: &BTreeSet<&str>,
    p: &mut Problems,
) {
    if routes.is_empty() {
        p.bad("routes", "at least one route is needed");
    }
    for (i, r) in routes.iter().enumerate() {
        let key = |k: &str| format!("routes[{i}].{k}");
        if let Err(e) = Pattern::parse(&r.interface) {
            p.bad(key("interface"), e);
        }
        if r.method.as_deref() == Some("") {
            p.bad(
                key("method"),
                "must not be empty (leave it out to match any)",
            );
        }
        if !clusters.contains_key(&r.cluster) {
            p.bad(key("cluster"), format!("no cluster named {:?}", r.cluster));
        }
        if r.timeout_ms == 0 {
            p.bad(key("timeout_ms"), "must be > 0");
        }
        for (j, name) in r.listeners.iter().enumerate() {
            if !listener_names.contains(name.as_str()) {
                p.bad(
                    format!("routes[{i}].listeners[{j}]"),
                    format!("no listener named {name:?}"),
                );
            }
        }
        if r.attachments.keys().any(|k| k.is_empty()) {
            p.bad(key("attachments"), "keys must not be empty");
        }
        if let Some(a) = &r.access {
            a.validate(&key("access"), p);
        }
        if let Some(l) = &r.rate_limit {
            l.validate(&key("rate_limit"), p);
        }
    }
}

/// Checks the metadata cache entries.
pub(super) fn validate_metadata(metadata: &[Metadata], p: &mut Problems) {
    for (i, m) in metadata.iter().enumerate() {
        if m.path.is_empty() {
            p.bad(format!("metadata[{i}].path"), "must not be empty");
        }
    }
}
