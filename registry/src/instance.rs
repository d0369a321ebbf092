//! Dubbo 3 application-level discovery: service instances and their metadata.
//!
//! A Dubbo 3 provider with `register-mode=instance` (or `all`, the default) registers its
//! application once per process, not each interface: a [`ServiceInstance`] (address, port and
//! a few metadata keys, `dubbo.metadata.revision` above all). Which interfaces it serves, and
//! with which URL parameters, is its [`MetadataInfo`] of that revision, which a consumer asks
//! the instance's own `org.apache.dubbo.metadata.MetadataService` for (`metadata-type=local`,
//! the default) or reads from a metadata report (`remote`). [`provider_urls`] turns the two
//! into the provider URLs interface-level discovery yields, so callers cannot tell them apart.
//!
//! The call to the MetadataService needs the Dubbo protocol (or Triple), which this crate does
//! not speak: a [`MetadataSource`] does it (`dubbo-rpc`'s
//! `instance_metadata::MetadataServiceSource` is one).

use std::collections::BTreeMap;
use std::fmt;
use std::net::IpAddr;

use serde::Deserialize;

use crate::error::RegistryError;
use crate::future::RegistryFuture;
use crate::url::{ServiceUrl, UrlBuilder};

/// The instance metadata key naming the revision of its [`MetadataInfo`].
pub const REVISION_KEY: &str = "dubbo.metadata.revision";
/// The key holding the instance's protocol ports (`[{"port":20880,"protocol":"dubbo"}]`).
pub const ENDPOINTS_KEY: &str = "dubbo.endpoints";
/// The key holding how to call its MetadataService (`port`, `protocol`, `serialization`...).
pub const METADATA_SERVICE_PARAMS_KEY: &str = "dubbo.metadata-service.url-params";
/// The key saying where its metadata is (`local`: its MetadataService; `remote`: the report).
pub const STORAGE_TYPE_KEY: &str = "dubbo.metadata.storage-type";

/// One protocol port of an instance.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Endpoint {
    /// The port.
    pub port: u16,
    /// The protocol served on it (`dubbo`, `tri`).
    pub protocol: String,
}

/// An application instance as Dubbo 3 registers it (in ZooKeeper: the Curator x-discovery
/// JSON of `/services/<app>/<ip:port>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceInstance {
    /// The application name.
    pub app: String,
    /// Its address (an IP as Dubbo writes it).
    pub address: String,
    /// Its main port.
    pub port: u16,
    /// Its metadata (`dubbo.metadata.revision`, `dubbo.endpoints`, ...), values as written.
    pub metadata: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct CuratorInstance {
    name: String,
    address: String,
    port: Option<u16>,
    payload: Option<CuratorPayload>,
}

#[derive(Deserialize)]
struct CuratorPayload {
    #[serde(default)]
    metadata: BTreeMap<String, String>,
}

impl ServiceInstance {
    /// Reads an instance from the JSON Curator's x-discovery writes (what Dubbo 3's
    /// `ZookeeperServiceDiscovery` stores).
    ///
    /// # Errors
    ///
    /// [`RegistryError::Instance`] when it is not such JSON (its source, the JSON error, names the line and column).
    pub fn from_curator_json(json: &[u8]) -> Result<Self, RegistryError> {
        let c: CuratorInstance =
            serde_json::from_slice(json).map_err(|source| RegistryError::Instance {
                what: "service instance",
                source,
            })?;
        Ok(ServiceInstance {
            app: c.name,
            address: c.address,
            port: c.port.unwrap_or(0),
            metadata: c.payload.map(|p| p.metadata).unwrap_or_default(),
        })
    }

    /// The instance as the JSON Curator's x-discovery writes and Dubbo 3's
    /// `ZookeeperServiceDiscovery` reads (`/services/<app>/<address:port>`), registered at
    /// `registration_ms` (ms since the Unix epoch): the fields and payload class Java writes,
    /// nothing else (Jackson refuses unknown fields).
    pub fn to_curator_json(&self, registration_ms: u64) -> String {
        let id = format!("{}:{}", self.address, self.port);
        serde_json::json!({
            "name": self.app,
            "id": id,
            "address": self.address,
            "port": self.port,
            "sslPort": null,
            "payload": {
                "@class": "org.apache.dubbo.registry.zookeeper.ZookeeperInstance",
                "id": id,
                "name": self.app,
                "metadata": self.metadata,
            },
            "registrationTimeUTC": registration_ms,
            "serviceType": "DYNAMIC",
            "uriSpec": null,
        })
        .to_string()
    }

    /// The revision of its [`MetadataInfo`], when it says.
    pub fn revision(&self) -> Option<&str> {
        self.metadata.get(REVISION_KEY).map(String::as_str)
    }

    /// Its protocol ports (`dubbo.endpoints`; none when absent or unreadable).
    pub fn endpoints(&self) -> Vec<Endpoint> {
        self.metadata
            .get(ENDPOINTS_KEY)
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or_default()
    }

    /// How to call its MetadataService (`dubbo.metadata-service.url-params`: `port`,
    /// `protocol`, `version`, `serialization`...; empty when absent or unreadable).
    pub fn metadata_service_params(&self) -> BTreeMap<String, String> {
        self.metadata
            .get(METADATA_SERVICE_PARAMS_KEY)
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or_default()
    }

    /// Whether its metadata is in a metadata report (`remote`) rather than behind its
    /// MetadataService (`local`, the default).
    pub fn metadata_is_remote(&self) -> bool {
        self.metadata.get(STORAGE_TYPE_KEY).map(String::as_str) == Some("remote")
    }

    /// The port of `protocol` (from its endpoints), else its main port.
    pub fn port_of(&self, protocol: &str) -> u16 {
        self.endpoints()
            .into_iter()
            .find(|e| e.protocol == protocol)
            .map_or(self.port, |e| e.port)
    }
}

impl fmt::Display for ServiceInstance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}:{}", self.app, self.address, self.port)
    }
}

/// One service an instance exports, as its metadata describes it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ServiceInfo {
    /// The interface.
    pub name: String,
    /// Its group (`""`: none).
    #[serde(default)]
    pub group: String,
    /// Its version (`""`: none).
    #[serde(default)]
    pub version: String,
    /// The protocol (`dubbo`).
    #[serde(default)]
    pub protocol: String,
    /// Its port (0: the instance's port of that protocol).
    #[serde(default)]
    pub port: u16,
    /// The URL path (`""`: the interface).
    #[serde(default)]
    pub path: String,
    /// The provider URL parameters (`methods`, `version`, `serialization`, `timeout`...).
    #[serde(default)]
    pub params: BTreeMap<String, String>,
}

/// What an instance of one revision exports: Dubbo's `MetadataInfo`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct MetadataInfo {
    /// The application.
    #[serde(default)]
    pub app: String,
    /// The revision (a digest of the services).
    #[serde(default)]
    pub revision: String,
    /// The services by key (`group/interface:version:protocol`).
    #[serde(default)]
    pub services: BTreeMap<String, ServiceInfo>,
}

impl MetadataInfo {
    /// Reads the JSON a metadata report stores (`/dubbo/metadata/<app>/<revision>`).
    ///
    /// # Errors
    ///
    /// [`RegistryError::Instance`] when it is not such JSON.
    pub fn from_json(json: &[u8]) -> Result<Self, RegistryError> {
        serde_json::from_slice(json).map_err(|source| RegistryError::Instance {
            what: "metadata",
            source,
        })
    }
}

impl MetadataInfo {
    /// The metadata of application `app` exporting the services of these provider URLs, as
    /// a Java provider's MetadataService answers it: one [`ServiceInfo`] per URL, keyed by
    /// its match key (`[group/]interface[:version]:protocol`), with the URL's parameters, and
    /// a revision that changes whenever any of it does.
    pub fn of_urls(app: impl Into<String>, urls: &[ServiceUrl]) -> MetadataInfo {
        let mut services = BTreeMap::new();
        for url in urls {
            let info = ServiceInfo {
                name: url.interface().into_owned(),
                group: url.group().into_owned(),
                version: url.version().into_owned(),
                protocol: url.protocol().to_owned(),
                port: url.port().unwrap_or(0),
                path: url.path().to_owned(),
                params: url.params(),
            };
            services.insert(info.match_key(), info);
        }
        let mut info = MetadataInfo {
            app: app.into(),
            revision: String::new(),
            services,
        };
        info.revision = info.compute_revision();
        info
    }

    /// A revision of this metadata: 32 hex digits (as long as Java's MD5 ones) from a stable
    /// hash of the application and every service's key, port, path and parameters; it is a
    /// cache key to consumers, which never recompute it.
    fn compute_revision(&self) -> String {
        use std::hash::{Hash, Hasher};
        let halves = [0u64, 1].map(|seed| {
            // `DefaultHasher::new` has fixed keys: the same revision in every process.
            let mut h = std::collections::hash_map::DefaultHasher::new();
            seed.hash(&mut h);
            self.app.hash(&mut h);
            for (key, s) in &self.services {
                (key, s.port, &s.path, &s.params).hash(&mut h);
            }
            h.finish()
        });
        format!("{:016x}{:016x}", halves[0], halves[1])
    }
}

impl ServiceInfo {
    /// The key of this service in [`MetadataInfo::services`], as Java's `getMatchKey`:
    /// `[group/]interface[:version]:protocol`.
    pub fn match_key(&self) -> String {
        let mut key = String::new();
        if !self.group.is_empty() {
            key.push_str(&self.group);
            key.push('/');
        }
        key.push_str(&self.name);
        if !self.version.is_empty() {
            key.push(':');
            key.push_str(&self.version);
        }
        key.push(':');
        key.push_str(&self.protocol);
        key
    }
}

/// Fetches the [`MetadataInfo`] of an instance's revision, by whatever means the instance
/// offers (its MetadataService over Dubbo, for `metadata-type=local`). A hook, because the
/// Dubbo protocol lives in a crate that depends on this one.
pub trait MetadataSource: Send + Sync + fmt::Debug {
    /// The metadata of `instance` at revision `revision`.
    fn metadata<'a>(
        &'a self,
        instance: &'a ServiceInstance,
        revision: &'a str,
    ) -> RegistryFuture<'a, MetadataInfo>;
}

/// The provider URLs of `interface` that `instance` serves according to `metadata`: one per
/// matching service (group and version are left to the caller's selection, as for
/// interface-level URLs). An instance whose address is not an IP yields none.
pub fn provider_urls(
    instance: &ServiceInstance,
    metadata: &MetadataInfo,
    interface: &str,
) -> Vec<ServiceUrl> {
    let Ok(ip) = instance.address.parse::<IpAddr>() else {
        tracing::warn!(%instance, "instance address is not an IP: skipped");
        return Vec::new();
    };
    metadata
        .services
        .values()
        .filter(|s| s.name == interface)
        .map(|s| {
            let protocol = if s.protocol.is_empty() {
                "dubbo"
            } else {
                &s.protocol
            };
            let port = if s.port != 0 {
                s.port
            } else {
                instance.port_of(protocol)
            };
            let path = if s.path.is_empty() { &s.name } else { &s.path };
            let mut b = UrlBuilder::new(protocol, ip, port, path);
            for (k, v) in &s.params {
                b = b.param(k, v.as_str());
            }
            b.param("interface", s.name.as_str())
                .version(&s.version)
                .group(&s.group)
                .build()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What Dubbo 3.2.19 wrote for interop/dubbo-java's `provider --bootstrap instance`.
    const JAVA_3_2: &[u8] = include_bytes!("../tests/data/instance-3.2.19.json");

    #[test]
    fn reads_what_java_3_2_writes() {
        let i = ServiceInstance::from_curator_json(JAVA_3_2).unwrap();
        assert_eq!(i.app, "hessianrs-interop-provider");
        assert_eq!((i.address.as_str(), i.port), ("127.0.0.1", 38903));
        assert_eq!(i.revision(), Some("cd11ab7d8ef3f78b5fbb596fbec2bdd8"));
        assert_eq!(
            i.endpoints(),
            [Endpoint {
                port: 38903,
                protocol: "dubbo".into()
            }]
        );
        let ms = i.metadata_service_params();
        assert_eq!(ms.get("port").map(String::as_str), Some("36459"));
        assert_eq!(ms.get("protocol").map(String::as_str), Some("dubbo"));
        assert_eq!(ms.get("version").map(String::as_str), Some("1.0.0"));
        assert!(!i.metadata_is_remote());
    }

    /// What Dubbo 3.3.6 wrote with `metadata-type=remote`: the instance and its report.
    const JAVA_3_3_REMOTE: &[u8] = include_bytes!("../tests/data/instance-remote-3.3.6.json");
    const JAVA_3_3_REPORT: &[u8] = include_bytes!("../tests/data/metadata-report-3.3.6.json");

    #[test]
    fn reads_a_java_3_3_metadata_report() {
        let i = ServiceInstance::from_curator_json(JAVA_3_3_REMOTE).unwrap();
        assert!(i.metadata_is_remote());
        assert!(i.metadata_service_params().is_empty());
        let m = MetadataInfo::from_json(JAVA_3_3_REPORT).unwrap();
        assert_eq!(m.app, "hessianrs-interop-provider");
        assert_eq!(Some(m.revision.as_str()), i.revision());
        let urls = provider_urls(&i, &m, "io.github.hessianrs.demo.DemoService");
        assert_eq!(urls.len(), 1);
        let u = &urls[0];
        assert_eq!(u.socket_addr(), Some(([127, 0, 0, 1], 39459).into()));
        assert_eq!(u.interface(), "io.github.hessianrs.demo.DemoService");
        assert_eq!(u.version(), "1.0.0");
        assert_eq!(u.param("serialization").as_deref(), Some("hessian2"));
        assert!(u.methods().iter().any(|m| m == "sayHello"), "{u}");
        assert!(MetadataInfo::from_json(&JAVA_3_3_REPORT[..100]).is_err());
    }

    #[test]
    fn curator_json_reads_back_and_has_javas_fields() {
        let metadata: BTreeMap<String, String> = [
            (REVISION_KEY, "abc"),
            (ENDPOINTS_KEY, r#"[{"port":20880,"protocol":"dubbo"}]"#),
            (STORAGE_TYPE_KEY, "local"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let i = ServiceInstance {
            app: "demo".into(),
            address: "127.0.0.1".into(),
            port: 20880,
            metadata,
        };
        let json = i.to_curator_json(1_700_000_000_000);
        assert_eq!(
            ServiceInstance::from_curator_json(json.as_bytes()).unwrap(),
            i
        );
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "address",
                "id",
                "name",
                "payload",
                "port",
                "registrationTimeUTC",
                "serviceType",
                "sslPort",
                "uriSpec"
            ]
        );
        assert_eq!(v["id"], "127.0.0.1:20880");
        assert_eq!(
            v["payload"]["@class"],
            "org.apache.dubbo.registry.zookeeper.ZookeeperInstance"
        );
        assert_eq!(i.port_of("dubbo"), 20880);
    }

    #[test]
    fn metadata_of_provider_urls() {
        let url = |q: &str| {
            ServiceUrl::parse(format!("dubbo://127.0.0.1:20880/demo.Greeter?{q}")).unwrap()
        };
        let urls = [
            url("interface=demo.Greeter&version=1.0.0&group=g&methods=hi"),
            url("interface=demo.Greeter&methods=hi"),
        ];
        let info = MetadataInfo::of_urls("app", &urls);
        let keys: Vec<&str> = info.services.keys().map(String::as_str).collect();
        assert_eq!(keys, ["demo.Greeter:dubbo", "g/demo.Greeter:1.0.0:dubbo"]);
        let s = &info.services["g/demo.Greeter:1.0.0:dubbo"];
        assert_eq!((s.port, s.path.as_str()), (20880, "demo.Greeter"));
        assert_eq!(s.params["methods"], "hi");
        assert_eq!(info.revision.len(), 32);
        assert_eq!(info.revision, MetadataInfo::of_urls("app", &urls).revision);
        assert_ne!(
            info.revision,
            MetadataInfo::of_urls("app", &urls[..1]).revision
        );
        // What consumers make of it is the URLs again.
        let instance = ServiceInstance {
            app: "app".into(),
            address: "127.0.0.1".into(),
            port: 20880,
            metadata: BTreeMap::new(),
        };
        let back = provider_urls(&instance, &info, "demo.Greeter");
        assert_eq!(back.len(), 2);
        assert!(back
            .iter()
            .any(|u| u.group() == "g" && u.version() == "1.0.0"));
    }

    #[test]
    fn bad_json_is_an_error_with_its_place() {
        let e = ServiceInstance::from_curator_json(&JAVA_3_2[..40]).unwrap_err();
        assert!(e.to_string().contains("column"), "{e}");
        assert!(ServiceInstance::from_curator_json(b"[]").is_err());
        assert!(ServiceInstance::from_curator_json(b"{\"name\":1}").is_err());
    }

    #[test]
    fn urls_from_instance_and_metadata() {
        let i = ServiceInstance::from_curator_json(JAVA_3_2).unwrap();
        let svc = |name: &str, group: &str, port: u16| ServiceInfo {
            name: name.into(),
            group: group.into(),
            version: "1.0.0".into(),
            protocol: "dubbo".into(),
            port,
            path: name.into(),
            params: [("methods", "a,b"), ("side", "provider")]
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        };
        let m = MetadataInfo {
            app: i.app.clone(),
            revision: "r".into(),
            services: [
                ("x.A:1.0.0:dubbo".into(), svc("x.A", "", 0)),
                ("g/x.A:1.0.0:dubbo".into(), svc("x.A", "g", 20000)),
                ("x.B:1.0.0:dubbo".into(), svc("x.B", "", 0)),
            ]
            .into_iter()
            .collect(),
        };
        let urls: Vec<String> = provider_urls(&i, &m, "x.A")
            .iter()
            .map(|u| u.as_str().to_owned())
            .collect();
        assert_eq!(
            urls,
            [
                "dubbo://127.0.0.1:20000/x.A?group=g&interface=x.A&methods=a,b&side=provider&version=1.0.0",
                "dubbo://127.0.0.1:38903/x.A?interface=x.A&methods=a,b&side=provider&version=1.0.0",
            ]
        );
        assert!(provider_urls(&i, &m, "x.C").is_empty());
        let named = ServiceInstance {
            address: "host.example".into(),
            ..i
        };
        assert!(provider_urls(&named, &m, "x.A").is_empty());
    }

    /// Unreadable JSON: the source is serde_json's error, with its line and column.
    #[test]
    fn bad_json_has_the_json_error_as_its_source() {
        use std::error::Error as _;

        let err = ServiceInstance::from_curator_json(b"{\n  \"name\": 1\n}").unwrap_err();
        assert!(matches!(
            err,
            RegistryError::Instance {
                what: "service instance",
                ..
            }
        ));
        let json = err
            .source()
            .and_then(|s| s.downcast_ref::<serde_json::Error>())
            .expect("the JSON error as the source");
        assert_eq!((json.line(), json.column()), (2, 11));
        assert!(
            err.to_string().starts_with("bad service instance: "),
            "{err}"
        );
        assert!(err.to_string().contains("line 2 column 11"), "{err}");
    }
}
