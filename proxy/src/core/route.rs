//! The route table: which cluster a call goes to, from its service, method, version, group and
//! attachments.
//!
//! Compiled once per configuration: patterns parsed, versions normalised, the attachment keys
//! any route names collected into slots (so the peek keeps only those), and [`Needs`] computed
//! so that a table without group or attachment conditions never reads past the method name.
//! Matching is a scan in file order, first match wins, comparing borrowed strings: nothing is
//! allocated or formatted per call (the seed article's dataID string building and map
//! rehashing).

use std::sync::Arc;
use std::time::Duration;

use crate::config::{Config, Pattern};
use crate::core::metrics::{Registry, Stats};
use crate::core::peek::{Call, Needs, Scratch};
use crate::core::worker::Reason;

/// One compiled route.
pub struct Route {
    /// The metrics label.
    pub name: Arc<str>,
    /// Bit i set: applies to listener i.
    listeners: u64,
    interface: Pattern,
    method: Option<String>,
    version: Option<String>,
    /// `Some("")`: only calls without a group.
    group: Option<String>,
    /// (slot in the scratch, required value)
    attachments: Vec<(usize, String)>,
    /// Index of the cluster in [`RouteTable::clusters`].
    pub cluster: usize,
    /// The call timeout.
    pub timeout: Duration,
    /// This route's counters.
    pub stats: Arc<Stats>,
}

impl Route {
    /// True when the route matches every call, whatever its body says.
    fn needs_nothing(&self) -> bool {
        matches!(self.interface, Pattern::Any)
            && self.method.is_none()
            && self.version.is_none()
            && self.group.is_none()
            && self.attachments.is_empty()
    }
}

/// The compiled routes of a configuration.
pub struct RouteTable {
    /// The routes, in file order.
    pub routes: Vec<Route>,
    /// What the peek must read for these routes.
    pub needs: Needs,
    /// Attachment keys named by routes (the scratch slots).
    pub keys: Vec<String>,
    /// Cluster names, indexed by [`Route::cluster`].
    pub clusters: Vec<String>,
    /// Counters of calls no route matched.
    pub unrouted: Arc<Stats>,
}

fn normalize_version(v: &str) -> &str {
    if v == "0.0.0" {
        ""
    } else {
        v
    }
}

impl RouteTable {
    /// Compiles the routes of a validated configuration. `listeners` are the names of the
    /// listeners actually running, in order (they do not change on reload).
    pub fn compile(config: &Config, listeners: &[String], metrics: &Registry) -> RouteTable {
        let clusters: Vec<String> = config.clusters.keys().cloned().collect();
        let mut keys: Vec<String> = Vec::new();
        let mut needs = Needs::default();
        let mut routes = Vec::with_capacity(config.routes.len());
        for (i, r) in config.routes.iter().enumerate() {
            let name: Arc<str> = config.route_name(i).into();
            let mut mask = 0u64;
            if r.listeners.is_empty() {
                mask = u64::MAX;
            } else {
                for l in &r.listeners {
                    if let Some(pos) = listeners.iter().position(|n| n == l) {
                        mask |= 1 << (pos % 64);
                    }
                }
            }
            let mut attachments = Vec::new();
            for (k, v) in &r.attachments {
                let slot = match keys.iter().position(|x| x == k) {
                    Some(s) => s,
                    None => {
                        keys.push(k.clone());
                        keys.len() - 1
                    }
                };
                attachments.push((slot, v.clone()));
            }
            needs.group |= r.group.is_some();
            needs.attachments |= !attachments.is_empty();
            routes.push(Route {
                stats: metrics.route(&name),
                name,
                listeners: mask,
                interface: Pattern::parse(&r.interface).unwrap_or(Pattern::Any),
                method: r.method.clone(),
                version: r
                    .version
                    .as_deref()
                    .map(|v| normalize_version(v).to_owned()),
                group: r.group.clone(),
                attachments,
                cluster: clusters.iter().position(|c| *c == r.cluster).unwrap_or(0),
                timeout: Duration::from_millis(r.timeout_ms),
            });
        }
        RouteTable {
            routes,
            needs,
            keys,
            clusters,
            unrouted: metrics.route(crate::core::metrics::UNROUTED),
        }
    }

    /// A scratch with this table's attachment slots.
    pub fn scratch(&self) -> Scratch {
        Scratch::with_keys(self.keys.clone())
    }

    /// The route of a call on listener `listener` whose body cannot be read: the first route
    /// of the listener, if it needs nothing from the body (any interface, method, version,
    /// group and attachments); an earlier route that needs the body might match it, so then
    /// the call cannot be routed ([`Reason::Unreadable`]).
    ///
    /// [`Reason::Unreadable`]: crate::core::worker::Reason::Unreadable
    pub fn find_blind(&self, listener: usize) -> Result<usize, Reason> {
        let bit = 1u64 << (listener % 64);
        let first = self.routes.iter().position(|r| r.listeners & bit != 0);
        match first {
            Some(i) if self.routes[i].needs_nothing() => Ok(i),
            Some(_) => Err(Reason::Unreadable),
            None => Err(Reason::NoRoute),
        }
    }

    /// The first route matching a call that arrived on listener `listener`.
    pub fn find(&self, listener: usize, call: &Call<'_>, scratch: &Scratch) -> Option<usize> {
        let interface = scratch.interface.as_deref().unwrap_or(&call.path);
        let version = normalize_version(&call.version);
        let bit = 1u64 << (listener % 64);
        self.routes.iter().position(|r| {
            r.listeners & bit != 0
                && r.interface.matches(interface)
                && r.method.as_deref().is_none_or(|m| m == call.method)
                && r.version.as_deref().is_none_or(|v| v == version)
                && r.group
                    .as_deref()
                    .is_none_or(|g| g == scratch.group.as_deref().unwrap_or(""))
                && r.attachments
                    .iter()
                    .all(|(slot, want)| scratch.value(*slot) == Some(want.as_str()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::peek::peek;
    use dubbo_codec::metadata::MetadataCache;
    use dubbo_codec::Request;

    const CONF: &str = r#"
        [[listeners]]
        name = "in"
        address = "127.0.0.1:0"
        [[listeners]]
        name = "out"
        address = "127.0.0.1:0"
        [[routes]]
        name = "canary"
        interface = "com.example.*"
        attachments = { env = "canary" }
        cluster = "b"
        [[routes]]
        name = "blue"
        interface = "*.DemoService"
        group = "blue"
        cluster = "b"
        [[routes]]
        name = "say"
        interface = "com.example.DemoService"
        method = "sayHello"
        version = "1.0.0"
        cluster = "a"
        [[routes]]
        name = "only-out"
        listeners = ["out"]
        interface = "org.*"
        cluster = "a"
        [clusters.a]
        endpoints = [{ address = "127.0.0.1:1" }]
        [clusters.b]
        endpoints = [{ address = "127.0.0.1:2" }]
    "#;

    fn route_of(t: &RouteTable, listener: usize, req: Request) -> Option<&str> {
        let body = req.to_bytes();
        let mut s = t.scratch();
        let cache = MetadataCache::new();
        let call = peek(&body, Default::default(), t.needs, &cache, &mut s).unwrap();
        t.find(listener, &call, &s).map(|i| &*t.routes[i].name)
    }

    #[test]
    fn matches_in_order() {
        let c = Config::from_toml(CONF).unwrap();
        let names = vec!["in".to_owned(), "out".to_owned()];
        let t = RouteTable::compile(&c, &names, &Registry::new(1));
        assert!(t.needs.group && t.needs.attachments);
        let demo = |m: &str| Request::builder("com.example.DemoService", m).version("1.0.0");
        assert_eq!(
            route_of(&t, 0, demo("sayHello").build().unwrap()),
            Some("say")
        );
        assert_eq!(route_of(&t, 0, demo("other").build().unwrap()), None);
        assert_eq!(
            route_of(&t, 0, demo("other").group("blue").build().unwrap()),
            Some("blue")
        );
        assert_eq!(
            route_of(
                &t,
                0,
                demo("sayHello").attach("env", "canary").build().unwrap()
            ),
            Some("canary")
        );
        let org = Request::builder("org.Foo", "x").build().unwrap();
        assert_eq!(route_of(&t, 0, org.clone()), None);
        assert_eq!(route_of(&t, 1, org), Some("only-out"));
        // "0.0.0" is "no version".
        let c2 = CONF.replace("version = \"1.0.0\"", "version = \"\"");
        let t = RouteTable::compile(&Config::from_toml(&c2).unwrap(), &names, &Registry::new(1));
        let v0 = Request::builder("com.example.DemoService", "sayHello")
            .version("0.0.0")
            .build()
            .unwrap();
        assert_eq!(route_of(&t, 0, v0), Some("say"));
    }
}
