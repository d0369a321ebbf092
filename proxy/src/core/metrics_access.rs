//! Counters of the calls a route's `[routes.access]` refused and its `[routes.rate_limit]`
//! turned away, per route (the same objects across reloads, as the route's stats).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// One route's counters.
#[derive(Debug, Default)]
pub struct Refusals {
    /// Calls its access rules refused.
    pub denied: AtomicU64,
    /// Calls its rate limit turned away.
    pub rate_limited: AtomicU64,
}

/// Every route's [`Refusals`], by route name.
#[derive(Debug, Default)]
pub struct AccessMetrics {
    routes: Mutex<BTreeMap<String, Arc<Refusals>>>,
}

impl AccessMetrics {
    /// The counters of route `name`.
    pub fn route(&self, name: &str) -> Arc<Refusals> {
        let mut m = self.routes.lock().unwrap_or_else(|e| e.into_inner());
        m.entry(name.to_owned()).or_default().clone()
    }

    /// Appends the Prometheus text of the counters.
    pub fn render(&self, out: &mut String) {
        let m = self.routes.lock().unwrap_or_else(|e| e.into_inner());
        for (name, help, get) in [
            (
                "dubbo_proxy_access_denied_total",
                "Calls refused by their route's access rules (never sent to a provider), per route.",
                (|r: &Refusals| r.denied.load(Relaxed)) as fn(&Refusals) -> u64,
            ),
            (
                "dubbo_proxy_rate_limited_total",
                "Calls turned away by their route's rate limit (never sent to a provider), per route.",
                |r: &Refusals| r.rate_limited.load(Relaxed),
            ),
        ] {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter");
            for (route, r) in m.iter() {
                let route = crate::core::label::escape(route);
                let _ = writeln!(out, "{name}{{route=\"{route}\"}} {}", get(r));
            }
        }
    }
}
