//! The instance metadata of Dubbo 3 application-level discovery, fetched from the instance's
//! own `org.apache.dubbo.metadata.MetadataService` over the Dubbo protocol: the
//! [`MetadataSource`] that [`cluster::ClusterClient`](crate::cluster::ClusterClient) hands to
//! [`Registry::subscribe_with_instances`](dubbo_registry::Registry::subscribe_with_instances).
//!
//! A Dubbo 3 provider (`metadata-type=local`, the default) exports that service on the port,
//! protocol and version its instance names in `dubbo.metadata-service.url-params`, in the
//! Dubbo group of its application name; `getMetadataInfo(revision)` answers a
//! `org.apache.dubbo.metadata.MetadataInfo` (Hessian 2).

use std::collections::BTreeMap;

use dubbo_registry::instance::{MetadataInfo, MetadataSource, ServiceInfo, ServiceInstance};
use dubbo_registry::{RegistryError, RegistryFuture};
use serde::Deserialize;

use crate::client::Client;
use crate::request::Request;

/// The interface every Dubbo 3 application exports its metadata with.
pub const METADATA_SERVICE: &str = "org.apache.dubbo.metadata.MetadataService";

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

fn fetch_error(instance: &ServiceInstance, reason: impl std::fmt::Display) -> RegistryError {
    RegistryError::Operation {
        path: format!("{METADATA_SERVICE} of {instance}"),
        reason: reason.to_string(),
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
            if protocol != "dubbo" {
                return Err(fetch_error(
                    instance,
                    format!("MetadataService over {protocol}, not dubbo"),
                ));
            }
            let port = params
                .get("port")
                .and_then(|p| p.parse::<u16>().ok())
                .ok_or_else(|| fetch_error(instance, "no MetadataService port"))?;
            let version = params.get("version").map_or("1.0.0", String::as_str);
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
            let client = Client::connect(addr)
                .await
                .map_err(|e| fetch_error(instance, e))?;
            let answer = client.call::<Option<JavaMetadataInfo>>(&req).await;
            client.close().await;
            let info = answer
                .map_err(|e| fetch_error(instance, e))?
                .ok_or_else(|| {
                    fetch_error(instance, format!("no metadata of revision {revision}"))
                })?;
            Ok(MetadataInfo {
                app: info.app.unwrap_or_default(),
                revision: info.revision.unwrap_or_default(),
                services: info
                    .services
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(k, s)| (k, s.into()))
                    .collect(),
            })
        })
    }
}
