//! From a registry's provider URLs to the endpoints and weights a caller balances over: which
//! providers it takes (protocol, version, group, methods, enabled) and with what weight (the
//! URL's `weight` scaled by its data centre's factor, then Dubbo's warm-up). No I/O, no clock:
//! the time is an argument. Shared by `dubbo-rpc`'s cluster client and `dubbo-proxy`'s
//! discovery.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use registry_urlweight::{assemble_url_weight, effective_weight, warmup_weight};

use crate::url::ServiceUrl;

/// What a caller asks of its providers.
///
/// `#[non_exhaustive]`: start from [`Selector::new`] or [`Selector::default`] and change what
/// you need, with the setters or the fields, so that a new setting breaks no caller.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Selector {
    /// Only providers of this version (`""` and `"0.0.0"` are "no version"; `None` or `"*"`:
    /// any).
    pub version: Option<String>,
    /// Only providers of this group (`""`: providers without a group; `"a,b"`: either; `None`
    /// or `"*"`: any).
    pub group: Option<String>,
    /// Methods every provider must offer (checked against its `methods` when it has one).
    pub methods: Vec<String>,
    /// The URL parameter naming the provider's data centre (`idc`).
    pub idc_key: String,
    /// Data centre -> factor applied to its providers' weights; unlisted: 1; 0: no calls.
    pub idc_weights: BTreeMap<String, u32>,
    /// Dubbo's warm-up from the URL's `timestamp` and `warmup` (on by default).
    pub warmup: bool,
    /// The URL protocols taken (default `dubbo` alone): what the caller speaks, or the
    /// consumer's own `protocol` setting (Java's `checkProtocolValid`).
    pub protocols: Vec<String>,
    /// Also take a URL whose port serves one of `protocols` beside its own (`ext.protocol`,
    /// as Java 3.3 registers a `dubbo://` port that serves `tri` too). Off by default: a Java
    /// consumer checks the URL's own protocol only; a proxy that can speak to the port in
    /// either turns it on.
    pub ext_protocols: bool,
}

impl Default for Selector {
    fn default() -> Self {
        Selector {
            version: None,
            group: None,
            methods: Vec::new(),
            idc_key: "idc".to_owned(),
            idc_weights: BTreeMap::new(),
            warmup: true,
            protocols: vec!["dubbo".to_owned()],
            ext_protocols: false,
        }
    }
}

/// Why a provider was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// A protocol not among the selector's `protocols`.
    Protocol,
    /// No port, or the host is not an IP address (names are not resolved).
    Address,
    /// `enabled=false` or `disabled=true`.
    Disabled,
    /// Another version than the selector's.
    Version,
    /// Another group than the selector's.
    Group,
    /// A method the selector needs is missing from its `methods`.
    Methods,
}

impl Skip {
    /// A short reason for the logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Skip::Protocol => "protocol not spoken",
            Skip::Address => "no IP:port",
            Skip::Disabled => "disabled",
            Skip::Version => "other version",
            Skip::Group => "other group",
            Skip::Methods => "lacks a needed method",
        }
    }
}

/// A provider taken, with its weight now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its weight (> 0).
    pub weight: u32,
    /// Its URL (the one with the largest weight when one address registered several).
    pub url: ServiceUrl,
}

/// The endpoints of a provider list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Sorted by address, one per address, every weight > 0.
    pub endpoints: Vec<Endpoint>,
    /// Some provider is still warming up: its weight grows, select again later.
    pub warming: bool,
    /// Providers left out, with the reason.
    pub skipped: Vec<(ServiceUrl, Skip)>,
}

fn normalize_version(v: &str) -> &str {
    if v == "0.0.0" {
        ""
    } else {
        v
    }
}

impl Selector {
    /// Any provider of `version` (`None`: any) in `group` (`None`: any).
    pub fn new(version: Option<&str>, group: Option<&str>) -> Self {
        Selector {
            version: version.map(str::to_owned),
            group: group.map(str::to_owned),
            ..Selector::default()
        }
    }

    /// Only providers of this version (see [`Selector::version`](#structfield.version)).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = Some(version.into());
        self
    }

    /// Only providers of this group (see [`Selector::group`](#structfield.group)).
    pub fn group(mut self, group: impl Into<String>) -> Self {
        self.group = Some(group.into());
        self
    }

    /// Methods every provider must offer.
    pub fn methods<S: Into<String>>(mut self, methods: impl IntoIterator<Item = S>) -> Self {
        self.methods = methods.into_iter().map(Into::into).collect();
        self
    }

    /// The URL parameter naming the provider's data centre.
    pub fn idc_key(mut self, key: impl Into<String>) -> Self {
        self.idc_key = key.into();
        self
    }

    /// The factor applied to the weights of data centre `idc`'s providers (0: no calls).
    pub fn idc_factor(mut self, idc: impl Into<String>, factor: u32) -> Self {
        self.idc_weights.insert(idc.into(), factor);
        self
    }

    /// Dubbo's warm-up on or off.
    pub fn warmup(mut self, warmup: bool) -> Self {
        self.warmup = warmup;
        self
    }

    /// The URL protocols taken.
    pub fn protocols<S: Into<String>>(mut self, protocols: impl IntoIterator<Item = S>) -> Self {
        self.protocols = protocols.into_iter().map(Into::into).collect();
        self
    }

    /// Also take a URL whose port serves one of the protocols beside its own.
    pub fn ext_protocols(mut self, ext: bool) -> Self {
        self.ext_protocols = ext;
        self
    }

    /// The data centre factor of a provider URL: `idc_weights[<idc_key param>]`, else 1.
    pub fn idc_weight(&self, url: &ServiceUrl) -> u32 {
        if self.idc_weights.is_empty() {
            return 1;
        }
        url.param(&self.idc_key)
            .and_then(|idc| self.idc_weights.get(&*idc).copied())
            .unwrap_or(1)
    }

    /// Whether a provider speaks one of the selector's protocols: its URL's protocol, or (with
    /// `ext_protocols`) one of the extra protocols it serves on the same port (`ext.protocol`,
    /// comma-separated, as Java Dubbo 3.3 registers a `dubbo://` provider that also serves
    /// `tri`).
    pub fn speaks(&self, url: &ServiceUrl) -> bool {
        if self.protocols.iter().any(|p| p == url.protocol()) {
            return true;
        }
        self.ext_protocols
            && url.param("ext.protocol").is_some_and(|ext| {
                ext.split(',')
                    .map(str::trim)
                    .any(|e| self.protocols.iter().any(|p| p.eq_ignore_ascii_case(e)))
            })
    }

    /// Whether a provider is taken, and where it listens.
    pub fn accept(&self, url: &ServiceUrl) -> Result<SocketAddr, Skip> {
        if !self.speaks(url) {
            return Err(Skip::Protocol);
        }
        let addr = url.socket_addr().ok_or(Skip::Address)?;
        if url.param("enabled").as_deref() == Some("false")
            || url.param("disabled").as_deref() == Some("true")
        {
            return Err(Skip::Disabled);
        }
        if let Some(want) = self.version.as_deref().filter(|v| *v != "*") {
            if url.version() != normalize_version(want) {
                return Err(Skip::Version);
            }
        }
        if let Some(want) = self.group.as_deref().filter(|g| *g != "*") {
            let have = url.group();
            if !want.split(',').any(|g| g.trim() == have) {
                return Err(Skip::Group);
            }
        }
        if !self.methods.is_empty() {
            if let Some(list) = url.param("methods") {
                let has = |m: &str| list.split(',').any(|x| x == m || x == "*");
                if !self.methods.iter().all(|m| has(m)) {
                    return Err(Skip::Methods);
                }
            }
        }
        Ok(addr)
    }

    /// The weight of a taken provider at `now_ms` (ms since the Unix epoch), and whether it
    /// is still warming up. The URL's `weight` (default 100) is scaled by the data centre's
    /// factor exactly as `assemble_url_weight` rewrites it; with `warmup` on, Dubbo's warm-up
    /// (`timestamp`, `warmup`) then applies to that weight.
    pub fn weight(&self, url: &ServiceUrl, now_ms: u64) -> (u32, bool) {
        let idc = self.idc_weight(url);
        let full = effective_weight(url.as_str(), idc);
        if !self.warmup || full == 0 {
            return (full, false);
        }
        let assembled = assemble_url_weight(url.as_str(), idc);
        let w = warmup_weight(&assembled, None, now_ms);
        (w, w < full)
    }

    /// The endpoints of these provider URLs.
    pub fn select(&self, urls: &[ServiceUrl], now_ms: u64) -> Selection {
        let mut by_addr: BTreeMap<SocketAddr, (u32, &ServiceUrl)> = BTreeMap::new();
        let mut warming = false;
        let mut skipped = Vec::new();
        for url in urls {
            match self.accept(url) {
                Ok(addr) => {
                    let (w, warm) = self.weight(url, now_ms);
                    warming |= warm;
                    // One provider process exporting the service twice (two versions, say):
                    // one endpoint, the larger weight.
                    let e = by_addr.entry(addr).or_insert((0, url));
                    if w > e.0 {
                        *e = (w, url);
                    }
                }
                Err(why) => skipped.push((url.clone(), why)),
            }
        }
        // Weight 0 takes no calls while another provider has a weight; if all are 0, they
        // share the calls evenly (Dubbo's balancers do the same).
        let any_positive = by_addr.values().any(|(w, _)| *w > 0);
        let endpoints = by_addr
            .into_iter()
            .filter(|(_, (w, _))| *w > 0 || !any_positive)
            .map(|(addr, (w, url))| Endpoint {
                addr,
                weight: w.max(1),
                url: url.clone(),
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

    fn discovery() -> Selector {
        Selector {
            version: Some("1.0.0".into()),
            idc_weights: [("hz".to_owned(), 3), ("off".to_owned(), 0)].into(),
            warmup: false,
            ..Selector::default()
        }
    }

    fn node(host_port: &str, query: &str) -> ServiceUrl {
        ServiceUrl::parse(format!("dubbo://{host_port}/demo.Greeter?{query}")).unwrap()
    }

    /// `addr=weight` of each endpoint, space-separated.
    fn eps(s: &Selection) -> String {
        let v: Vec<String> = s
            .endpoints
            .iter()
            .map(|e| format!("{}={}", e.addr, e.weight))
            .collect();
        v.join(" ")
    }

    fn with_methods(mut s: Selector, methods: &[&str]) -> Selector {
        s.methods = methods.iter().map(|m| m.to_string()).collect();
        s
    }

    /// A Triple selector with `ext_protocols` takes `tri://` providers and `dubbo://` ones
    /// that also serve `tri` on their port (`ext.protocol`, Java 3.3's one URL for both), and
    /// no plain `dubbo://`; without it, only `tri://`.
    #[test]
    fn protocols_include_the_extra_ones_of_a_port() {
        let tri = Selector {
            protocols: vec!["tri".into()],
            ext_protocols: true,
            ..Selector::default()
        };
        let url = |u: &str| ServiceUrl::parse(u).unwrap();
        // As a Java consumer checks: the URL's own protocol only.
        let java = Selector {
            ext_protocols: false,
            ..tri.clone()
        };
        assert!(!java.speaks(&url("dubbo://10.0.0.1:20880/demo.Greeter?ext.protocol=tri")));
        assert!(tri.speaks(&url("tri://10.0.0.1:50051/demo.Greeter")));
        assert!(tri.speaks(&url("dubbo://10.0.0.1:20880/demo.Greeter?ext.protocol=tri")));
        assert!(tri.speaks(&url(
            "dubbo://10.0.0.1:20880/demo.Greeter?ext.protocol=rest,TRI"
        )));
        assert!(!tri.speaks(&url("dubbo://10.0.0.1:20880/demo.Greeter")));
        assert!(!Selector::default().speaks(&url("tri://10.0.0.1:50051/demo.Greeter")));
        assert_eq!(
            tri.accept(&url("dubbo://10.0.0.1:20880/demo.Greeter")),
            Err(Skip::Protocol)
        );
    }

    #[test]
    fn filters_and_idc_weights() {
        let sel = with_methods(discovery(), &["sayHello"]);
        let nodes = vec![
            node(
                "10.0.0.1:20880",
                "version=1.0.0&idc=hz&weight=50&methods=sayHello,bye",
            ),
            node("10.0.0.2:20880", "version=1.0.0&idc=sh"),
            node("10.0.0.3:20880", "version=2.0.0"),
            node("10.0.0.4:20880", "version=1.0.0&methods=bye"),
            node("10.0.0.5:20880", "version=1.0.0&enabled=false"),
            ServiceUrl::parse("tri://10.0.0.6:50051/demo.Greeter?version=1.0.0").unwrap(),
            node("host.example:20880", "version=1.0.0"),
            node("[::1]:20880", "version=1.0.0&lidc_weight=1&idc=hz&weight=7"),
        ];
        let s = sel.select(&nodes, 0);
        assert_eq!(
            eps(&s),
            "10.0.0.1:20880=150 10.0.0.2:20880=100 [::1]:20880=7"
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
            ]
        );
        assert!(!s.warming);
    }

    #[test]
    fn versions_and_groups() {
        let mut d = discovery();
        d.version = Some("".into());
        d.group = Some("a,b".into());
        let sel = d;
        let nodes = vec![
            node("10.0.0.1:1", "version=0.0.0&group=a"),
            node("10.0.0.2:1", "group=b"),
            node("10.0.0.3:1", "version=1.0.0&group=a"),
            node("10.0.0.4:1", "group=c"),
            node("10.0.0.5:1", ""),
        ];
        let s = sel.select(&nodes, 0);
        assert_eq!(eps(&s), "10.0.0.1:1=100 10.0.0.2:1=100");
        let mut d = discovery();
        d.version = Some("*".into());
        d.group = Some("".into());
        let s = d.select(&nodes, 0);
        assert_eq!(eps(&s), "10.0.0.5:1=100");
    }

    #[test]
    fn zero_weights() {
        let sel = discovery();
        let s = sel.select(
            &[
                node("10.0.0.1:1", "version=1.0.0&idc=off"),
                node("10.0.0.2:1", "version=1.0.0&weight=0"),
                node("10.0.0.3:1", "version=1.0.0&weight=5"),
            ],
            0,
        );
        assert_eq!(eps(&s), "10.0.0.3:1=5");
        let s = sel.select(
            &[
                node("10.0.0.1:1", "version=1.0.0&idc=off"),
                node("10.0.0.2:1", "version=1.0.0&weight=0"),
            ],
            0,
        );
        assert_eq!(eps(&s), "10.0.0.1:1=1 10.0.0.2:1=1");
    }

    #[test]
    fn warmup_scales_the_idc_weight() {
        let mut d = discovery();
        d.warmup = true;
        let sel = d;
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
        assert_eq!(eps(&s), "10.0.0.1:1=75 10.0.0.2:1=100 10.0.0.3:1=100");
        assert!(s.warming);
        let s = sel.select(&nodes, t + 600_000);
        assert!(eps(&s).starts_with("10.0.0.1:1=300 "));
        assert!(!s.warming);
        // Just started: never below 1.
        assert!(eps(&sel.select(&nodes, t + 1)).starts_with("10.0.0.1:1=1 "));
    }

    #[test]
    fn duplicate_addresses_merge() {
        let mut d = discovery();
        d.version = None;
        let s = d.select(
            &[
                node("10.0.0.1:1", "version=1.0.0&weight=10"),
                node("10.0.0.1:1", "version=2.0.0&weight=20"),
            ],
            0,
        );
        assert_eq!(eps(&s), "10.0.0.1:1=20");
    }
}
