//! The instance metadata of Dubbo 3 application-level discovery, fetched from the instance's
//! own `org.apache.dubbo.metadata.MetadataService` over the Dubbo protocol (or over Triple,
//! with feature `triple`, where the instance serves it so: Dubbo 3.3 exports it in its
//! application's first protocol): the
//! [`MetadataSource`] that [`cluster::ClusterClient`](crate::cluster::ClusterClient) hands to
//! [`Registry::subscribe_with_instances`](dubbo_registry::Registry::subscribe_with_instances).
//!
//! A Dubbo 3 provider (`metadata-type=local`, the default) exports that service on the port,
//! protocol and version its instance names in `dubbo.metadata-service.url-params`, in the
//! Dubbo group of its application name; `getMetadataInfo(revision)` answers a
//! `org.apache.dubbo.metadata.MetadataInfo` (Hessian 2).
//!
//! [`metadata_infos`] and [`service_definition`] ask a MetadataService directly (what
//! `dubbo-call HOST:PORT --describe` does): every service the application exports, and the
//! definition (methods with Java types) of one, which only a 2.7 MetadataService answers (3.x
//! answers an empty string: its definitions are in the metadata report).

use std::collections::BTreeMap;

use dubbo_registry::instance::{MetadataInfo, MetadataSource, ServiceInfo, ServiceInstance};
use dubbo_registry::{RegistryError, RegistryFuture};
use serde::Deserialize;

use crate::client::{CallError, Client};
use dubbo_codec::request::Request;

/// The interface every Dubbo 3 application exports its metadata with.
pub const METADATA_SERVICE: &str = "org.apache.dubbo.metadata.MetadataService";
/// The version it is exported with (Java's `MetadataService.VERSION`).
pub const METADATA_SERVICE_VERSION: &str = "1.0.0";

/// A connection a MetadataService is asked over: the Dubbo protocol, or (feature `triple`)
/// Triple, in which Dubbo 3.3 serves it when its application's first protocol is Triple.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum MetadataClient<'a> {
    /// The Dubbo protocol.
    Dubbo(&'a Client),
    /// Triple.
    #[cfg(feature = "triple")]
    Triple(&'a crate::triple_client::Client),
}

/// Why a MetadataService gave no answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MetadataError {
    /// Over the Dubbo protocol (`Status` with `SERVICE_NOT_FOUND` for a provider without a
    /// MetadataService, or for another application's name).
    #[error(transparent)]
    Dubbo(#[from] CallError),
    /// Over Triple.
    #[cfg(feature = "triple")]
    #[error(transparent)]
    Triple(#[from] crate::triple_client::TripleError),
}

impl MetadataClient<'_> {
    /// Calls `req` and reads the answer into `T`.
    async fn call<T: serde::de::DeserializeOwned>(
        &self,
        req: &Request,
    ) -> Result<T, MetadataError> {
        match self {
            MetadataClient::Dubbo(client) => Ok(client.call(req).await?),
            #[cfg(feature = "triple")]
            MetadataClient::Triple(client) => {
                use crate::triple_client::{TripleCall, TripleError, DEFAULT_TIMEOUT};
                let call =
                    TripleCall::from_request(req, DEFAULT_TIMEOUT).map_err(TripleError::from)?;
                Ok(client.call(&call).await?)
            }
        }
    }
}

/// Asks an instance's MetadataService for its metadata: one connection per fetch (a
/// consumer fetches once per application revision).
#[derive(Debug, Default, Clone, Copy)]
pub struct MetadataServiceSource;

/// `org.apache.dubbo.metadata.MetadataInfo` as Java's hessian-lite writes it.
#[derive(Deserialize)]
#[serde(rename = "org.apache.dubbo.metadata.MetadataInfo")]
struct JavaMetadataInfo {
    app: Option<String>,
    revision: Option<String>,
    services: Option<BTreeMap<String, JavaServiceInfo>>,
}

/// `MetadataInfo$ServiceInfo`.
#[derive(Deserialize)]
#[serde(rename = "org.apache.dubbo.metadata.MetadataInfo$ServiceInfo")]
struct JavaServiceInfo {
    name: Option<String>,
    group: Option<String>,
    version: Option<String>,
    protocol: Option<String>,
    port: Option<i32>,
    path: Option<String>,
    params: Option<BTreeMap<String, String>>,
}

impl From<JavaMetadataInfo> for MetadataInfo {
    fn from(info: JavaMetadataInfo) -> Self {
        MetadataInfo {
            app: info.app.unwrap_or_default(),
            revision: info.revision.unwrap_or_default(),
            services: info
                .services
                .unwrap_or_default()
                .into_iter()
                .map(|(k, s)| (k, s.into()))
                .collect(),
        }
    }
}

impl From<JavaServiceInfo> for ServiceInfo {
    fn from(s: JavaServiceInfo) -> Self {
        ServiceInfo {
            name: s.name.unwrap_or_default(),
            group: s.group.unwrap_or_default(),
            version: s.version.unwrap_or_default(),
            protocol: s.protocol.unwrap_or_default(),
            port: s.port.and_then(|p| u16::try_from(p).ok()).unwrap_or(0),
            path: s.path.unwrap_or_default(),
            params: s.params.unwrap_or_default(),
        }
    }
}

/// Why the MetadataService of `instance` gave no metadata.
fn fetch_error(
    instance: &ServiceInstance,
    why: impl Into<Box<dyn std::error::Error + Send + Sync>>,
) -> RegistryError {
    RegistryError::Metadata {
        instance: format!("{instance} ({METADATA_SERVICE})"),
        source: why.into(),
    }
}

impl MetadataSource for MetadataServiceSource {
    fn metadata<'a>(
        &'a self,
        instance: &'a ServiceInstance,
        revision: &'a str,
    ) -> RegistryFuture<'a, MetadataInfo> {
        Box::pin(async move {
            let params = instance.metadata_service_params();
            let protocol = params.get("protocol").map_or("dubbo", String::as_str);
            if protocol != "dubbo" && !(cfg!(feature = "triple") && protocol == "tri") {
                return Err(fetch_error(
                    instance,
                    format!("MetadataService over {protocol}, not dubbo or tri"),
                ));
            }
            let port = params
                .get("port")
                .and_then(|p| p.parse::<u16>().ok())
                .ok_or_else(|| fetch_error(instance, "no MetadataService port"))?;
            let version = params
                .get("version")
                .map_or(METADATA_SERVICE_VERSION, String::as_str);
            let addr = if instance.address.contains(':') {
                format!("[{}]:{port}", instance.address)
            } else {
                format!("{}:{port}", instance.address)
            };
            let req = Request::builder(METADATA_SERVICE, "getMetadataInfo")
                .version(version)
                .group(instance.app.as_str())
                .arg("java.lang.String", revision)
                .build()
                .map_err(|e| fetch_error(instance, e))?;
            let answer = fetch(protocol, addr, &req).await;
            answer
                .map_err(|e| fetch_error(instance, e))?
                .map(MetadataInfo::from)
                .ok_or_else(|| fetch_error(instance, format!("no metadata of revision {revision}")))
        })
    }
}

/// `req` to the MetadataService at `addr` over `protocol` (`dubbo` or `tri`), on a
/// connection of its own.
async fn fetch(
    protocol: &str,
    addr: String,
    req: &Request,
) -> Result<Option<JavaMetadataInfo>, MetadataError> {
    #[cfg(feature = "triple")]
    if protocol == "tri" {
        let client = crate::triple_client::Client::connect(&addr).await?;
        return MetadataClient::Triple(&client).call(req).await;
    }
    let _ = protocol;
    let client = Client::connect(addr).await?;
    let answer = MetadataClient::Dubbo(&client).call(req).await;
    client.close().await;
    answer
}

/// `getMetadataInfos()` of the MetadataService of application `app` behind `client`: the
/// metadata of every revision it serves (Dubbo 3; Dubbo exports the service in the group named
/// after the application).
///
/// # Errors
///
/// The call's [`MetadataError`].
pub async fn metadata_infos(
    client: MetadataClient<'_>,
    app: &str,
) -> Result<Vec<MetadataInfo>, MetadataError> {
    let req = Request::builder(METADATA_SERVICE, "getMetadataInfos")
        .version(METADATA_SERVICE_VERSION)
        .group(app)
        .build()
        .map_err(CallError::from)?;
    let infos: Option<Vec<Option<JavaMetadataInfo>>> = client.call(&req).await?;
    Ok(infos
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .map(MetadataInfo::from)
        .collect())
}

/// `getServiceDefinition(interface, version, group)` of the MetadataService of `app`: the
/// service definition's JSON (read it with `dubbo_registry::definition::ServiceDefinition::
/// from_json`), `None` when it has none (Dubbo 3 always answers `""`).
///
/// # Errors
///
/// The call's [`MetadataError`].
pub async fn service_definition(
    client: MetadataClient<'_>,
    app: &str,
    interface: &str,
    version: &str,
    group: &str,
) -> Result<Option<String>, MetadataError> {
    let req = Request::builder(METADATA_SERVICE, "getServiceDefinition")
        .version(METADATA_SERVICE_VERSION)
        .group(app)
        .arg("java.lang.String", interface)
        .arg("java.lang.String", version)
        .arg("java.lang.String", group)
        .build()
        .map_err(CallError::from)?;
    let json: Option<String> = client.call(&req).await?;
    Ok(json.filter(|j| !j.trim().is_empty()))
}
