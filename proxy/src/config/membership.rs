//! `[registry]`: the proxy as a member of a ZooKeeper registry.

use serde::{Deserialize, Serialize};

use super::discovery::{default_discovery_root, default_session_timeout};
use super::{parse_connect_string, Listener, Problems};

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
    /// `registry.preferred_protocol`: `"tri"` or `"dubbo"`, written as the URLs'
    /// `preferred.protocol`: the protocol Dubbo 3.3 consumers then call the proxy in (absent:
    /// they keep the URL's `dubbo`). The URLs always say the port serves both
    /// (`ext.protocol=tri`).
    #[serde(default)]
    pub preferred_protocol: Option<String>,
}

fn default_application() -> String {
    "dubbo-proxy".into()
}

impl Membership {
    /// Its problems, as `registry.<key>`: the connect string, the root, the application, the
    /// advertised address (needed when a registered listener is on the unspecified address),
    /// the listeners named, the session timeout.
    pub(super) fn validate(&self, listeners: &[Listener], p: &mut Problems) {
        if let Err(e) = parse_connect_string(&self.zookeeper) {
            p.bad("registry.zookeeper", e);
        }
        if self.root.contains("//") {
            p.bad("registry.root", "must not contain an empty path segment");
        }
        if self.application.is_empty() {
            p.bad("registry.application", "must not be empty");
        }
        if let Some(ip) = &self.advertise {
            match ip.parse::<std::net::IpAddr>() {
                Ok(ip) if !ip.is_unspecified() => {}
                _ => p.bad(
                    "registry.advertise",
                    "must be an IP address, not 0.0.0.0 or ::",
                ),
            }
        }
        for l in &self.listeners {
            if !listeners.iter().any(|x| x.name == *l) {
                p.bad("registry.listeners", "names a listener that does not exist");
            }
        }
        let unspecified = listeners.iter().any(|l| {
            (self.listeners.is_empty() || self.listeners.contains(&l.name))
                && l.address
                    .parse::<std::net::SocketAddr>()
                    .is_ok_and(|a| a.ip().is_unspecified())
        });
        if unspecified && self.advertise.is_none() {
            p.bad(
                "registry.advertise",
                "needed: a registered listener listens on the unspecified address",
            );
        }
        if !(1_000..=3_600_000).contains(&self.session_timeout_ms) {
            p.bad(
                "registry.session_timeout_ms",
                "must be between 1000 and 3600000",
            );
        }
        if let Some(pp) = &self.preferred_protocol {
            if pp != "tri" && pp != "dubbo" {
                p.bad(
                    "registry.preferred_protocol",
                    "must be \"tri\" or \"dubbo\"",
                );
            }
        }
    }
}
