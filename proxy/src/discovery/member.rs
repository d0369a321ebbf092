//! The proxy as a member of a registry (`[registry]`): its listeners registered as providers
//! of the interfaces its routes name, kept in line with the configuration, removed before
//! the drain.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use dubbo_registry::zookeeper::{ZookeeperOptions, ZookeeperRegistry};
use dubbo_registry::{Registry, ServiceUrl};

use crate::config::{Config, Membership};

/// What one registered URL says, without its `timestamp` (so that an unchanged entry is not
/// registered again on every reload).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Offer {
    /// The advertised listener address.
    pub addr: SocketAddr,
    /// The interface (a route's exact `interface`).
    pub interface: String,
    /// The route's version (`""`: none).
    pub version: String,
    /// The route's group (`""`: none).
    pub group: String,
    /// The methods written: the route's, when it names one, else those of the discovered
    /// providers of its cluster (none when unknown).
    pub methods: Vec<String>,
}

/// The registered listeners (`bound`: listener names and their actual addresses) with the
/// address each advertises; a listener on the unspecified address without
/// `registry.advertise` is left out.
fn registered<'a>(m: &Membership, bound: &'a [(String, SocketAddr)]) -> Vec<(&'a str, SocketAddr)> {
    let advertise: Option<IpAddr> = m.advertise.as_deref().and_then(|a| a.parse().ok());
    bound
        .iter()
        .filter(|(name, _)| m.listeners.is_empty() || m.listeners.contains(name))
        .filter_map(|(name, addr)| {
            let mut a = *addr;
            if a.ip().is_unspecified() {
                a.set_ip(advertise?);
            }
            Some((name.as_str(), a))
        })
        .collect()
}

/// The address each registered listener advertises: what the proxy's own discovery must
/// never take as a provider.
pub fn own_addrs(config: &Config, bound: &[(String, SocketAddr)]) -> Vec<SocketAddr> {
    config
        .registry
        .as_ref()
        .map(|m| registered(m, bound).into_iter().map(|(_, a)| a).collect())
        .unwrap_or_default()
}

/// What the proxy offers: for each registered listener, every route that applies to it and
/// names one interface exactly (patterns cannot be registered); `methods(cluster)`: what the
/// discovered providers of a cluster offer.
pub fn offers(
    config: &Config,
    bound: &[(String, SocketAddr)],
    methods: impl Fn(&str) -> Vec<String>,
) -> Vec<Offer> {
    let Some(m) = &config.registry else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, addr) in registered(m, bound) {
        for r in &config.routes {
            let applies = r.listeners.is_empty() || r.listeners.iter().any(|l| l == name);
            if r.interface.contains('*') || !applies {
                continue;
            }
            out.push(Offer {
                addr,
                interface: r.interface.clone(),
                version: r.version.clone().unwrap_or_default(),
                group: r.group.clone().unwrap_or_default(),
                methods: match &r.method {
                    Some(m) => vec![m.clone()],
                    None => methods(&r.cluster),
                },
            });
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The provider URL of an offer: a `dubbo://` URL that also says the port serves Triple
/// (`ext.protocol=tri`, as Java 3.3 registers a port that serves both), and which protocol
/// Dubbo 3.3 consumers should take (`preferred.protocol`), if the operator says.
fn url_of(o: &Offer, m: &Membership) -> ServiceUrl {
    let mut url = ServiceUrl::provider(&o.interface, o.addr, &m.application)
        .version(&o.version)
        .group(&o.group)
        .methods(&o.methods)
        .param("ext.protocol", "tri");
    if let Some(p) = &m.preferred_protocol {
        url = url.param("preferred.protocol", p.as_str());
    }
    url.build()
}

/// The registry session and what is registered in it.
#[derive(Default)]
pub struct Member {
    registry: Option<(Membership, ZookeeperRegistry)>,
    registered: BTreeMap<Offer, ServiceUrl>,
}

impl Member {
    /// Registers what the configuration offers, unregisters what it no longer does; opens,
    /// replaces or closes the registry session when `[registry]` changes.
    pub async fn sync(
        &mut self,
        config: &Config,
        bound: &[(String, SocketAddr)],
        methods: impl Fn(&str) -> Vec<String>,
    ) {
        if self.registry.as_ref().map(|(m, _)| m) != config.registry.as_ref() {
            self.leave().await;
            if let Some(m) = &config.registry {
                let r = ZookeeperRegistry::start(
                    format!("zookeeper://{}", m.zookeeper),
                    &m.zookeeper,
                    ZookeeperOptions::default()
                        .root(m.root.clone())
                        .session_timeout(Duration::from_millis(m.session_timeout_ms))
                        .empty_protection(true),
                );
                self.registry = Some((m.clone(), r));
            }
        }
        let Some((m, r)) = &self.registry else { return };
        let wanted = offers(config, bound, methods);
        let gone: Vec<Offer> = self
            .registered
            .keys()
            .filter(|o| !wanted.contains(o))
            .cloned()
            .collect();
        for o in gone {
            if let Some(url) = self.registered.remove(&o) {
                if let Err(e) = r.unregister(&url).await {
                    tracing::warn!(url = %url, error = %e, "cannot unregister");
                }
            }
        }
        for o in wanted {
            if self.registered.contains_key(&o) {
                continue;
            }
            let url = url_of(&o, m);
            // Kept even when this fails: the registry writes it once a session is there.
            match r.register(&url).await {
                Ok(()) => tracing::info!(url = %url, "registered as a provider"),
                Err(e) => tracing::warn!(url = %url, error = %e, "registration pending"),
            }
            self.registered.insert(o, url);
        }
    }

    /// Unregisters everything and closes the session (before the drain: consumers stop
    /// choosing the proxy while its calls in flight finish).
    pub async fn leave(&mut self) {
        if let Some((_, r)) = self.registry.take() {
            for (_, url) in std::mem::take(&mut self.registered) {
                if let Err(e) = r.unregister(&url).await {
                    tracing::warn!(url = %url, error = %e, "cannot unregister");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offers_exact_interfaces_of_registered_listeners() {
        let text = "[[listeners]]\nname = \"a\"\naddress = \"0.0.0.0:0\"\n\
                    [[listeners]]\nname = \"b\"\naddress = \"127.0.0.1:0\"\n\
                    [registry]\nzookeeper = \"127.0.0.1:2181\"\nadvertise = \"127.0.0.2\"\n\
                    [[routes]]\ninterface = \"x.Y\"\nversion = \"1.0.0\"\ngroup = \"g\"\ncluster = \"c\"\n\
                    [[routes]]\ninterface = \"x.*\"\ncluster = \"c\"\n\
                    [[routes]]\nlisteners = [\"b\"]\ninterface = \"x.Z\"\nmethod = \"m\"\ncluster = \"c\"\n\
                    [clusters.c]\nendpoints = [{ address = \"127.0.0.1:1\" }]\n";
        let config = Config::from_toml(text).unwrap();
        let bound = vec![
            ("a".to_owned(), "0.0.0.0:7001".parse().unwrap()),
            ("b".to_owned(), "127.0.0.1:7002".parse().unwrap()),
        ];
        let own = own_addrs(&config, &bound);
        assert_eq!(
            own,
            [
                "127.0.0.2:7001".parse().unwrap(),
                "127.0.0.1:7002".parse().unwrap()
            ]
        );
        let o = offers(&config, &bound, |c| vec![format!("from-{c}")]);
        let short: Vec<String> = o
            .iter()
            .map(|o| {
                format!(
                    "{} {} {} {} {:?}",
                    o.addr, o.interface, o.version, o.group, o.methods
                )
            })
            .collect();
        assert_eq!(
            short,
            [
                "127.0.0.1:7002 x.Y 1.0.0 g [\"from-c\"]",
                "127.0.0.1:7002 x.Z   [\"m\"]",
                "127.0.0.2:7001 x.Y 1.0.0 g [\"from-c\"]",
            ]
        );
        let m = config.registry.clone().unwrap();
        let u = url_of(&o[1], &m);
        assert!(
            u.as_str()
                .starts_with("dubbo://127.0.0.1:7002/x.Z?application=dubbo-proxy&"),
            "{u}"
        );
        assert_eq!(u.methods(), ["m"]);
        // The port serves Triple too; which one 3.3 consumers take is the operator's call.
        assert_eq!(u.param("ext.protocol").as_deref(), Some("tri"));
        assert_eq!(u.param("preferred.protocol"), None);
        let tri = Membership {
            preferred_protocol: Some("tri".into()),
            ..m
        };
        assert_eq!(
            url_of(&o[1], &tri).param("preferred.protocol").as_deref(),
            Some("tri")
        );
        // Without `advertise`, a listener on 0.0.0.0 cannot be registered: a config error.
        let bad = Config::from_toml(&text.replace("advertise = \"127.0.0.2\"\n", ""));
        assert!(format!("{:?}", bad.unwrap_err()).contains("registry.advertise"));
    }
}
