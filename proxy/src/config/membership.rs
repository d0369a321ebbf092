//! `[registry]`: the proxy as a member of a ZooKeeper registry.

use serde::{Deserialize, Serialize};

use super::{default_discovery_root, default_session_timeout, parse_connect_string};

/// `[registry]`: the proxy registers its listeners in ZooKeeper as a provider of every
/// interface its routes name exactly (`/<root>/<interface>/providers/<URL>`, the URL a Java
/// provider writes, with the route's version and group; its methods: the route's method, else
/// those of the providers discovered for the route's cluster), so
/// that consumers that only know the registry call through it (gateway and sidecar modes). The
/// nodes go before the drain on SIGTERM (and with the proxy's session if it dies). The proxy's
/// own discovery never takes its own addresses as providers.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Membership {
    /// `registry.zookeeper`: `HOST:PORT[,HOST:PORT...][/chroot]`.
    pub zookeeper: String,
    /// `registry.root` (`"dubbo"`).
    #[serde(default = "default_discovery_root")]
    pub root: String,
    /// `registry.application`: the `application` of the URLs (`"dubbo-proxy"`).
    #[serde(default = "default_application")]
    pub application: String,
    /// `registry.listeners`: the listeners registered ([] = all).
    #[serde(default)]
    pub listeners: Vec<String>,
    /// `registry.advertise`: the IP written for listeners bound to the unspecified address
    /// (required then: consumers cannot connect to 0.0.0.0).
    #[serde(default)]
    pub advertise: Option<String>,
    /// `registry.session_timeout_ms` (30000).
    #[serde(default = "default_session_timeout")]
    pub session_timeout_ms: u64,
}

fn default_application() -> String {
    "dubbo-proxy".into()
}

impl Membership {
    /// What is wrong with it, as `(key, problem)` pairs (`listeners` are checked by
    /// [`Config::validate`](super::Config::validate)).
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        let mut p = Vec::new();
        if let Err(e) = parse_connect_string(&self.zookeeper) {
            p.push(("zookeeper", e));
        }
        if self.root.contains("//") {
            p.push(("root", "must not contain an empty path segment".to_owned()));
        }
        if self.application.is_empty() {
            p.push(("application", "must not be empty".to_owned()));
        }
        if let Some(ip) = &self.advertise {
            match ip.parse::<std::net::IpAddr>() {
                Ok(ip) if !ip.is_unspecified() => {}
                _ => p.push((
                    "advertise",
                    "must be an IP address, not 0.0.0.0 or ::".to_owned(),
                )),
            }
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
