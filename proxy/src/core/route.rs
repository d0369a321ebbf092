//! The route table: which cluster a call goes to, from its service, method, version, group and
//! attachments.
//!
//! Compiled once per configuration: patterns parsed, versions normalised, the attachment keys
//! any route names collected into slots (so the peek keeps only those), and [`Needs`] computed
//! so that a table without group or attachment conditions never reads past the method name.
//! Matching is a scan in file order, first match wins, comparing borrowed strings: nothing is
//! allocated or formatted per call (the seed article's dataID string building and map
//! rehashing).
//!
//! # Routing on what the provider dispatches on
//!
//! A Java provider does not dispatch on the head's path and version: its
//! `DecodeableRpcInvocation.decode` stores them as the `path` and `version` attachments, then
//! adds the body's attachment map over them, and `DubboProtocol.getInvoker` looks the
//! exporter up by `serviceKey(port, path, version, group)` from those attachments (the same in
//! Dubbo 2.7, 3.2 and 3.3; `interface` plays no part). A caller could thus show the router
//! service A in the head and make the provider run B with a `path` attachment, or show A in
//! an `interface` attachment (which routes match) and B in the path. So whenever some route
//! tells services apart (by interface, version, group or attachment), the peek reads the
//! attachments of every call and a call is refused ([`Reason::Disagrees`], BAD_REQUEST) when
//! * its `path` attachment is not its head's path, or its `version` attachment (`"0.0.0"` =
//!   none) not its head's version;
//! * its `interface` attachment is neither its path nor the interface the metadata cache
//!   records for its (path, version) (a service exported under its own path);
//! * its `path`, `version` or `group` attachment is not a string (Java's cast fails).
//!
//! Refusing is as cheap as deciding on the attachments (both read them; nothing is
//! allocated for the strings Java sends) and keeps the head, which the provider also uses to
//! read the arguments, in agreement with the dispatch. Java consumers always send agreeing
//! values (`DubboCodec.encodeRequestData` writes the head from the same attachments). The
//! group is the `group` attachment, as for the provider: the metadata cache's shortcut
//! past the arguments would trust a group the provider never reads, so it is not used for
//! such tables. A table whose routes match on the method (and listener) only needs nothing
//! past the head: the method is the head's for the provider too.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::{Config, Pattern};
use crate::core::metrics::{Registry, Stats};
use dubbo_codec::metadata::{Lookup, MetadataCache};

use crate::core::access::{Access, Caller};
use crate::core::metrics_access::Refusals;
use crate::core::peek::{Call, Needs, Scratch};
use crate::core::rate_limit::Limiter;
use crate::core::reason::Reason;

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
    /// Who may call it; `None`: anyone.
    access: Option<Access>,
    /// How often; `None`: no limit. Shared by the workers, and kept across reloads that
    /// keep it (see [`RouteTable::keep_limits`]).
    limit: Option<Arc<Limiter>>,
    /// The calls `access` and `limit` turned away.
    refusals: Arc<Refusals>,
}

impl Route {
    /// True when the route tells services apart: a caller could show it one service and the
    /// provider another (see the [module docs](self)).
    fn tells_services_apart(&self) -> bool {
        !matches!(self.interface, Pattern::Any)
            || self.version.is_some()
            || self.group.is_some()
            || !self.attachments.is_empty()
    }

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
    /// The scratch slots of the attachments the provider dispatches on, when some route
    /// tells services apart.
    dispatch: Option<DispatchSlots>,
}

/// Scratch slots of the `path`, `version`, `interface` and `group` attachments.
struct DispatchSlots {
    path: usize,
    version: usize,
    interface: usize,
    group: usize,
}

/// The scratch slot of attachment `key`, added to `keys` if new.
fn slot(keys: &mut Vec<String>, key: &str) -> usize {
    match keys.iter().position(|x| x == key) {
        Some(s) => s,
        None => {
            keys.push(key.to_owned());
            keys.len() - 1
        }
    }
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
                attachments.push((slot(&mut keys, k), v.clone()));
            }
            needs.group |= r.group.is_some();
            needs.attachments |= !attachments.is_empty();
            routes.push(Route {
                stats: metrics.route(&name),
                refusals: metrics.access.route(&name),
                access: r.access.as_ref().map(Access::compile),
                limit: r
                    .rate_limit
                    .as_ref()
                    .map(|l| Arc::new(Limiter::new(l, Instant::now()))),
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
        let dispatch = routes.iter().any(Route::tells_services_apart).then(|| {
            needs.attachments = true;
            DispatchSlots {
                path: slot(&mut keys, "path"),
                version: slot(&mut keys, "version"),
                interface: slot(&mut keys, "interface"),
                group: slot(&mut keys, "group"),
            }
        });
        RouteTable {
            routes,
            needs,
            dispatch,
            keys,
            clusters,
            unrouted: metrics.route(crate::core::metrics::UNROUTED),
        }
    }

    /// Takes the rate limiters of `previous` (the table this one replaces) for the routes
    /// whose name and limit did not change, so that a reload keeps their buckets' state.
    pub fn keep_limits(&mut self, previous: &RouteTable) {
        for r in &mut self.routes {
            let Some(limit) = &mut r.limit else { continue };
            let kept = previous.routes.iter().find(|p| p.name == r.name);
            if let Some(old) = kept.and_then(|p| p.limit.as_ref()) {
                if old.spec == limit.spec {
                    *limit = old.clone();
                }
            }
        }
    }

    /// Whether route `route` lets `caller` make a call to `method` (`None`: its body could
    /// not be read) at `now`: [`Reason::Denied`] when its access rules refuse it,
    /// [`Reason::RateLimited`] when its rate limit is spent (a denied call takes no token).
    /// Counted in the route's refusals. The one admission of both protocols; a route with
    /// neither costs two `None` checks.
    pub fn admit(
        &self,
        route: usize,
        caller: &Caller<'_>,
        method: Option<&str>,
        now: Instant,
    ) -> Result<(), Reason> {
        let r = &self.routes[route];
        if let Some(access) = &r.access {
            if !access.permits(caller, method) {
                r.refusals.denied.fetch_add(1, Relaxed);
                return Err(Reason::Denied);
            }
        }
        if let Some(limit) = &r.limit {
            if !limit.admit(caller.identity, now) {
                r.refusals.rate_limited.fetch_add(1, Relaxed);
                return Err(Reason::RateLimited);
            }
        }
        Ok(())
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
    /// [`Reason::Unreadable`]: crate::core::reason::Reason::Unreadable
    pub fn find_blind(&self, listener: usize) -> Result<usize, Reason> {
        let bit = 1u64 << (listener % 64);
        let first = self.routes.iter().position(|r| r.listeners & bit != 0);
        match first {
            Some(i) if self.routes[i].needs_nothing() => Ok(i),
            Some(_) => Err(Reason::Unreadable),
            None => Err(Reason::NoRoute),
        }
    }

    /// The first route matching a call that arrived on listener `listener`:
    /// [`Reason::NoRoute`] when none does, [`Reason::Disagrees`] when its attachments name
    /// another service than its head (see the [module docs](self)).
    pub fn find(
        &self,
        listener: usize,
        call: &Call<'_>,
        scratch: &Scratch,
        cache: &MetadataCache,
    ) -> Result<usize, Reason> {
        let interface = match &self.dispatch {
            Some(slots) => dispatched_interface(slots, call, scratch, cache)?,
            None => scratch.interface.as_deref().unwrap_or(&call.path),
        };
        let group = scratch.group.as_deref().unwrap_or("");
        self.first_match(listener, interface, call, group, |slot| scratch.value(slot))
    }

    /// The first route matching a Triple call on listener `listener`: `call` from its
    /// `:path` (`/{interface}/{method}`) and `tri-service-version`, `group` from
    /// `tri-service-group` (`""`: none), and `header(key)` the value of the header named
    /// like a route's attachment key (Triple sends attachments as headers).
    ///
    /// A Triple provider dispatches on the path and those two headers, which the proxy
    /// forwards as they are, so there is nothing for the caller to disagree with: the
    /// `path`, `version` and `interface` attachment checks of Dubbo 2 calls do not apply.
    pub fn find_triple<'h>(
        &self,
        listener: usize,
        call: &Call<'_>,
        group: &str,
        header: impl Fn(&str) -> Option<&'h str>,
    ) -> Result<usize, Reason> {
        self.first_match(listener, &call.path, call, group, |slot| {
            self.keys.get(slot).and_then(|k| header(k))
        })
    }

    /// The first route of `listener` matching these fields: the one matcher of both
    /// protocols. `value(slot)` is the attachment of route key `slot`.
    fn first_match<'v>(
        &self,
        listener: usize,
        interface: &str,
        call: &Call<'_>,
        group: &str,
        value: impl Fn(usize) -> Option<&'v str>,
    ) -> Result<usize, Reason> {
        let version = normalize_version(&call.version);
        let bit = 1u64 << (listener % 64);
        let found = self.routes.iter().position(|r| {
            r.listeners & bit != 0
                && r.interface.matches(interface)
                && r.method.as_deref().is_none_or(|m| m == call.method)
                && r.version.as_deref().is_none_or(|v| v == version)
                && r.group.as_deref().is_none_or(|g| g == group)
                && r.attachments
                    .iter()
                    .all(|(slot, want)| value(*slot) == Some(want.as_str()))
        });
        found.ok_or(Reason::NoRoute)
    }
}

/// The interface a call's routes match on, once its attachments are known to agree with its
/// head: the `interface` attachment when it is the path or the interface the cache records
/// for (path, version), else the path.
fn dispatched_interface<'a>(
    slots: &DispatchSlots,
    call: &'a Call<'_>,
    scratch: &'a Scratch,
    cache: &MetadataCache,
) -> Result<&'a str, Reason> {
    let bad_type = [slots.path, slots.version, slots.group]
        .iter()
        .any(|&i| scratch.not_string(i));
    let path_ok = scratch.value(slots.path).is_none_or(|p| p == call.path);
    let version_ok = scratch
        .value(slots.version)
        .is_none_or(|v| normalize_version(v) == normalize_version(&call.version));
    if bad_type || !path_ok || !version_ok {
        return Err(Reason::Disagrees);
    }
    match scratch.value(slots.interface) {
        None => Ok(&call.path),
        Some(i) if i == call.path => Ok(i),
        Some(i) => match cache.lookup(&call.path, &call.version) {
            Lookup::Unique { interface, .. } if interface == i => Ok(i),
            _ => Err(Reason::Disagrees),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::peek::peek;
    use dubbo_codec::Request;
    use hessian2::value::Value;

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
        let call = peek(&body, Default::default(), t.needs, &mut s).unwrap();
        t.find(listener, &call, &s, &cache)
            .ok()
            .map(|i| &*t.routes[i].name)
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

    fn decide<'t>(
        t: &'t RouteTable,
        cache: &MetadataCache,
        req: Request,
    ) -> Result<&'t str, Reason> {
        let body = req.to_bytes();
        let mut s = t.scratch();
        let call = peek(&body, Default::default(), t.needs, &mut s).unwrap();
        t.find(0, &call, &s, cache).map(|i| &*t.routes[i].name)
    }

    #[test]
    fn attachments_that_disagree_with_the_head_are_refused() {
        let conf = r#"
            [[listeners]]
            address = "127.0.0.1:0"
            [[routes]]
            name = "public"
            interface = "com.example.Public"
            cluster = "a"
            [clusters.a]
            endpoints = [{ address = "127.0.0.1:1" }]
        "#;
        let names = vec!["default".to_owned()];
        let t = RouteTable::compile(&Config::from_toml(conf).unwrap(), &names, &Registry::new(1));
        assert!(
            t.needs.attachments,
            "an interface route reads the attachments"
        );
        let public = || Request::builder("com.example.Public", "m").version("1.0.0");
        let mut cache = MetadataCache::new();
        assert_eq!(decide(&t, &cache, public().build().unwrap()), Ok("public"));
        // The head says Public, the provider would dispatch on the `path` attachment.
        let smuggled = public().attach("path", "com.example.Admin");
        assert_eq!(
            decide(&t, &cache, smuggled.build().unwrap()),
            Err(Reason::Disagrees)
        );
        let other_version = public().attach("version", "2.0.0");
        assert_eq!(
            decide(&t, &cache, other_version.build().unwrap()),
            Err(Reason::Disagrees)
        );
        let not_string = public().attach("group", Value::Int(1));
        assert_eq!(
            decide(&t, &cache, not_string.build().unwrap()),
            Err(Reason::Disagrees)
        );
        // The head (and `path`) say Admin, the `interface` attachment the router matched
        // said Public.
        let admin = || Request::builder("com.example.Admin", "m").version("1.0.0");
        let shown = admin().attach("interface", "com.example.Public");
        assert_eq!(
            decide(&t, &cache, shown.build().unwrap()),
            Err(Reason::Disagrees)
        );
        // ... unless the operator recorded that path as Public's own.
        cache.register("com.example.Admin", "1.0.0", "com.example.Public", None);
        let shown = admin().attach("interface", "com.example.Public");
        assert_eq!(decide(&t, &cache, shown.build().unwrap()), Ok("public"));
        // "0.0.0" is no version on both sides.
        let v0 = Request::builder("com.example.Public", "m").attach("version", "0.0.0");
        assert_eq!(decide(&t, &cache, v0.build().unwrap()), Ok("public"));

        // Routes on the method only never read past the head: nothing to disagree with.
        let by_method = conf.replace("interface = \"com.example.Public\"", "method = \"m\"");
        let t = RouteTable::compile(
            &Config::from_toml(&by_method).unwrap(),
            &names,
            &Registry::new(1),
        );
        assert!(!t.needs.attachments);
        let smuggled = public().attach("path", "com.example.Admin");
        assert_eq!(decide(&t, &cache, smuggled.build().unwrap()), Ok("public"));
    }

    #[test]
    fn admission_counts_and_reload_keeps_unchanged_limits() {
        let conf = |rate: &str| {
            format!(
                r#"
                [[listeners]]
                address = "127.0.0.1:0"
                [[routes]]
                name = "pay"
                cluster = "a"
                [routes.access]
                deny_methods = ["refund"]
                [routes.rate_limit]
                calls_per_second = {rate}
                burst = 1
                [[routes]]
                name = "open"
                cluster = "a"
                [clusters.a]
                endpoints = [{{ address = "127.0.0.1:1" }}]
                "#
            )
        };
        let names = vec!["default".to_owned()];
        let metrics = Registry::new(1);
        let compile =
            |rate| RouteTable::compile(&Config::from_toml(&conf(rate)).unwrap(), &names, &metrics);
        let t = compile("0.001");
        let now = Instant::now() + Duration::from_secs(1);
        let who = Caller::default();
        assert_eq!(t.admit(0, &who, Some("refund"), now), Err(Reason::Denied));
        assert_eq!(t.admit(0, &who, Some("pay"), now), Ok(()));
        assert_eq!(t.admit(0, &who, Some("pay"), now), Err(Reason::RateLimited));
        assert_eq!(t.admit(1, &who, None, now), Ok(()), "no rules, no limit");
        let counted = metrics.access.route("pay");
        assert_eq!(counted.denied.load(Relaxed), 1);
        assert_eq!(counted.rate_limited.load(Relaxed), 1);
        // The same limit after a reload: still spent.
        let mut same = compile("0.001");
        same.keep_limits(&t);
        assert_eq!(
            same.admit(0, &who, Some("pay"), now),
            Err(Reason::RateLimited)
        );
        // A changed one starts full.
        let mut changed = compile("0.002");
        changed.keep_limits(&t);
        assert_eq!(changed.admit(0, &who, Some("pay"), now), Ok(()));
    }
}
