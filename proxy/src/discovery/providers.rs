//! From the provider nodes of a registry to the endpoints and weights of a cluster: which
//! providers a cluster takes (protocol, version, group, methods, enabled) and with what weight
//! (the URL's `weight` scaled by its data centre's factor, then Dubbo's warm-up). No I/O, no
//! clock: the time is an argument.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};

use registry_urlweight::zk::decode_node_name;
use registry_urlweight::{
    assemble_url_weight, effective_weight, get_param, get_param_decoded, warmup_weight, DubboUrl,
};

use crate::config::{Discovery, Endpoint};

/// What a cluster asks of its providers: its `discovery` settings and the methods routed to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    /// The cluster's `discovery` table.
    pub discovery: Discovery,
    /// Methods every provider must offer: `discovery.methods` and those of the routes to the
    /// cluster, sorted, without duplicates.
    pub methods: Vec<String>,
}

/// Why a provider node was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// The node name is not a Dubbo URL.
    Unparsable,
    /// Not `dubbo://` (the proxy speaks the dubbo protocol only).
    Protocol,
    /// No port, or the host is not an IP address (the proxy does not resolve names).
    Address,
    /// `enabled=false` or `disabled=true`.
    Disabled,
    /// Another version than the cluster's.
    Version,
    /// Another group than the cluster's.
    Group,
    /// A method routed to the cluster is missing from its `methods`.
    Methods,
}

impl Skip {
    /// A short reason for the logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Skip::Unparsable => "not a Dubbo URL",
            Skip::Protocol => "not dubbo://",
            Skip::Address => "no IP:port",
            Skip::Disabled => "disabled",
            Skip::Version => "other version",
            Skip::Group => "other group",
            Skip::Methods => "lacks a routed method",
        }
    }
}

/// The endpoints of a cluster, from its provider nodes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Sorted by address, one per address, every weight > 0.
    pub endpoints: Vec<Endpoint>,
    /// Some provider is still warming up: its weight grows, select again later.
    pub warming: bool,
    /// Providers left out, with the reason.
    pub skipped: Vec<(String, Skip)>,
}

fn normalize_version(v: &str) -> &str {
    if v == "0.0.0" {
        ""
    } else {
        v
    }
}

impl Selector {
    /// The selector of a cluster with `discovery`, to which routes send `route_methods`.
    pub fn new<'a>(discovery: Discovery, route_methods: impl IntoIterator<Item = &'a str>) -> Self {
        let mut methods: Vec<String> = route_methods.into_iter().map(str::to_owned).collect();
        methods.extend(discovery.methods.iter().cloned());
        methods.sort();
        methods.dedup();
        Selector { discovery, methods }
    }

    /// The data centre factor of a provider URL: `idc_weights[<idc_key param>]`, else 1.
    pub fn idc_weight(&self, url: &str) -> u32 {
        let d = &self.discovery;
        if d.idc_weights.is_empty() {
            return 1;
        }
        get_param_decoded(url, &d.idc_key)
            .and_then(|idc| d.idc_weights.get(&*idc).copied())
            .unwrap_or(1)
    }

    /// Whether the cluster takes a provider, and where it listens.
    pub fn accept(&self, url: &str) -> Result<SocketAddr, Skip> {
        let parsed = DubboUrl::parse(url).map_err(|_| Skip::Unparsable)?;
        if parsed.protocol() != "dubbo" {
            return Err(Skip::Protocol);
        }
        let port = parsed.port().filter(|p| *p > 0).ok_or(Skip::Address)?;
        let ip: IpAddr = parsed.host().parse().map_err(|_| Skip::Address)?;
        if get_param(url, "enabled") == Some("false") || get_param(url, "disabled") == Some("true")
        {
            return Err(Skip::Disabled);
        }
        let d = &self.discovery;
        if let Some(want) = d.version.as_deref().filter(|v| *v != "*") {
            let have = get_param_decoded(url, "version").unwrap_or_default();
            if normalize_version(&have) != normalize_version(want) {
                return Err(Skip::Version);
            }
        }
        if let Some(want) = d.group.as_deref().filter(|g| *g != "*") {
            let have = get_param_decoded(url, "group").unwrap_or_default();
            if !want.split(',').any(|g| g.trim() == have) {
                return Err(Skip::Group);
            }
        }
        if !self.methods.is_empty() {
            if let Some(list) = get_param_decoded(url, "methods") {
                let has = |m: &str| list.split(',').any(|x| x == m || x == "*");
                if !self.methods.iter().all(|m| has(m)) {
                    return Err(Skip::Methods);
                }
            }
        }
        Ok(SocketAddr::new(ip, port))
    }

    /// The weight of an accepted provider at `now_ms` (ms since the Unix epoch), and whether it
    /// is still warming up. The URL's `weight` (default 100) is scaled by the data centre's
    /// factor exactly as `assemble_url_weight` rewrites it; with `warmup` on, Dubbo's warm-up
    /// (`timestamp`, `warmup`) then applies to that weight.
    pub fn weight(&self, url: &str, now_ms: u64) -> (u32, bool) {
        let idc = self.idc_weight(url);
        let full = effective_weight(url, idc);
        if !self.discovery.warmup || full == 0 {
            return (full, false);
        }
        let assembled = assemble_url_weight(url, idc);
        let w = warmup_weight(&assembled, None, now_ms);
        (w, w < full)
    }

    /// The endpoints for these provider node names (as listed under `.../providers`).
    pub fn select<S: AsRef<str>>(&self, nodes: &[S], now_ms: u64) -> Selection {
        let mut by_addr: BTreeMap<SocketAddr, u32> = BTreeMap::new();
        let mut warming = false;
        let mut skipped = Vec::new();
        for node in nodes {
            let url = decode_node_name(node.as_ref());
            match self.accept(&url) {
                Ok(addr) => {
                    let (w, warm) = self.weight(&url, now_ms);
                    warming |= warm;
                    // One provider process exporting the service twice (two versions, say):
                    // one endpoint, the larger weight.
                    let e = by_addr.entry(addr).or_insert(0);
                    *e = (*e).max(w);
                }
                Err(why) => skipped.push((url.into_owned(), why)),
            }
        }
        // Weight 0 takes no calls while another provider has a weight; if all are 0, they
        // share the calls evenly (Dubbo's balancers do the same).
        let any_positive = by_addr.values().any(|w| *w > 0);
        let endpoints = by_addr
            .into_iter()
            .filter(|(_, w)| *w > 0 || !any_positive)
            .map(|(addr, w)| Endpoint {
                address: addr.to_string(),
                weight: w.max(1),
            })
            .collect();
        Selection {
            endpoints,
            warming,
            skipped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use registry_urlweight::zk::node_name;

    fn discovery() -> Discovery {
        Discovery {
            zookeeper: "127.0.0.1:2181".into(),
            root: "dubbo".into(),
            interface: "demo.Greeter".into(),
            version: Some("1.0.0".into()),
            group: None,
            methods: vec![],
            idc_key: "idc".into(),
            idc_weights: [("hz".to_owned(), 3), ("off".to_owned(), 0)].into(),
            warmup: false,
            empty_protection: true,
            session_timeout_ms: 30_000,
        }
    }

    fn node(host_port: &str, query: &str) -> String {
        node_name(&format!("dubbo://{host_port}/demo.Greeter?{query}")).into_owned()
    }

    fn eps(s: &Selection) -> Vec<(&str, u32)> {
        s.endpoints
            .iter()
            .map(|e| (e.address.as_str(), e.weight))
            .collect()
    }

    #[test]
    fn filters_and_idc_weights() {
        let sel = Selector::new(discovery(), ["sayHello"]);
        let nodes = vec![
            node(
                "10.0.0.1:20880",
                "version=1.0.0&idc=hz&weight=50&methods=sayHello,bye",
            ),
            node("10.0.0.2:20880", "version=1.0.0&idc=sh"),
            node("10.0.0.3:20880", "version=2.0.0"),
            node("10.0.0.4:20880", "version=1.0.0&methods=bye"),
            node("10.0.0.5:20880", "version=1.0.0&enabled=false"),
            node_name("tri://10.0.0.6:50051/demo.Greeter?version=1.0.0").into_owned(),
            node("host.example:20880", "version=1.0.0"),
            node("[::1]:20880", "version=1.0.0&lidc_weight=1&idc=hz&weight=7"),
            "not a url".to_owned(),
        ];
        let s = sel.select(&nodes, 0);
        assert_eq!(
            eps(&s),
            [
                ("10.0.0.1:20880", 150),
                ("10.0.0.2:20880", 100),
                ("[::1]:20880", 7)
            ]
        );
        let why: Vec<Skip> = s.skipped.iter().map(|(_, w)| *w).collect();
        assert_eq!(
            why,
            [
                Skip::Version,
                Skip::Methods,
                Skip::Disabled,
                Skip::Protocol,
                Skip::Address,
                Skip::Unparsable
            ]
        );
        assert!(!s.warming);
    }

    #[test]
    fn versions_and_groups() {
        let mut d = discovery();
        d.version = Some("".into());
        d.group = Some("a,b".into());
        let sel = Selector::new(d, []);
        let nodes = vec![
            node("10.0.0.1:1", "version=0.0.0&group=a"),
            node("10.0.0.2:1", "group=b"),
            node("10.0.0.3:1", "version=1.0.0&group=a"),
            node("10.0.0.4:1", "group=c"),
            node("10.0.0.5:1", ""),
        ];
        let s = sel.select(&nodes, 0);
        assert_eq!(eps(&s), [("10.0.0.1:1", 100), ("10.0.0.2:1", 100)]);
        let mut d = discovery();
        d.version = Some("*".into());
        d.group = Some("".into());
        let s = Selector::new(d, []).select(&nodes, 0);
        assert_eq!(eps(&s), [("10.0.0.5:1", 100)]);
    }

    #[test]
    fn zero_weights() {
        let sel = Selector::new(discovery(), []);
        let s = sel.select(
            &[
                node("10.0.0.1:1", "version=1.0.0&idc=off"),
                node("10.0.0.2:1", "version=1.0.0&weight=0"),
                node("10.0.0.3:1", "version=1.0.0&weight=5"),
            ],
            0,
        );
        assert_eq!(eps(&s), [("10.0.0.3:1", 5)]);
        let s = sel.select(
            &[
                node("10.0.0.1:1", "version=1.0.0&idc=off"),
                node("10.0.0.2:1", "version=1.0.0&weight=0"),
            ],
            0,
        );
        assert_eq!(eps(&s), [("10.0.0.1:1", 1), ("10.0.0.2:1", 1)]);
    }

    #[test]
    fn warmup_scales_the_idc_weight() {
        let mut d = discovery();
        d.warmup = true;
        let sel = Selector::new(d, []);
        let t = 1_700_000_000_000u64;
        let nodes = vec![
            node("10.0.0.1:1", &format!("version=1.0.0&idc=hz&timestamp={t}")),
            node(
                "10.0.0.2:1",
                &format!("version=1.0.0&timestamp={t}&warmup=0"),
            ),
            node(
                "10.0.0.3:1",
                &format!("version=1.0.0&timestamp={t}&warmup=1000"),
            ),
        ];
        // A quarter of the default 10 minutes: 300 -> 75; no warm-up; warmed up.
        let s = sel.select(&nodes, t + 150_000);
        assert_eq!(
            eps(&s),
            [("10.0.0.1:1", 75), ("10.0.0.2:1", 100), ("10.0.0.3:1", 100)]
        );
        assert!(s.warming);
        let s = sel.select(&nodes, t + 600_000);
        assert_eq!(eps(&s)[0], ("10.0.0.1:1", 300));
        assert!(!s.warming);
        // Just started: never below 1.
        assert_eq!(eps(&sel.select(&nodes, t + 1))[0], ("10.0.0.1:1", 1));
    }

    #[test]
    fn duplicate_addresses_merge() {
        let mut d = discovery();
        d.version = None;
        let s = Selector::new(d, []).select(
            &[
                node("10.0.0.1:1", "version=1.0.0&weight=10"),
                node("10.0.0.1:1", "version=2.0.0&weight=20"),
            ],
            0,
        );
        assert_eq!(eps(&s), [("10.0.0.1:1", 20)]);
    }
}
