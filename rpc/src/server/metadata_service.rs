//! The MetadataService a server serves when it registers as a Dubbo 3 application instance
//! (feature `registry`): what consumers that discover the application ask for the services
//! behind it. [`crate::instance_metadata`] is the other side, that asks one.

use std::sync::Arc;

use dubbo_registry::instance::{MetadataInfo, ServiceInfo};
use hessian2::value::{Map, Object, Value};

use super::{Reply, Service};
use crate::instance_metadata::{METADATA_SERVICE, METADATA_SERVICE_VERSION};

/// The MetadataService a server registered as an instance of application `app` serves
/// ([`Server::register`](crate::server::Server::register) with
/// [`RegisterMode::Instance`](crate::registration::RegisterMode::Instance) or `All`):
/// `getMetadataInfo(revision)` answers the one of `infos` with that revision (`null` for
/// another), `getMetadataInfos()` all of them, as Java's `MetadataInfo` objects.
pub fn metadata_service(app: &str, infos: Vec<MetadataInfo>) -> Service {
    let values: Arc<Vec<(String, Value)>> = Arc::new(
        infos
            .iter()
            .map(|i| (i.revision.clone(), metadata_info_value(i)))
            .collect(),
    );
    let all = values.clone();
    Service::new(METADATA_SERVICE)
        .version(METADATA_SERVICE_VERSION)
        .group(app)
        .method("getMetadataInfo", move |call| {
            let values = values.clone();
            async move {
                let (revision,): (Option<String>,) = call.args()?;
                let found = values
                    .iter()
                    .find(|(r, _)| Some(r) == revision.as_ref())
                    .map(|(_, v)| v.clone());
                Ok(found.map_or(Reply::Null, Reply::Value))
            }
        })
        .method("getMetadataInfos", move |_call| {
            let all = all.clone();
            async move {
                let list = all.iter().map(|(_, v)| v.clone()).collect();
                Ok(Reply::Value(Value::typed_list("java.util.ArrayList", list)))
            }
        })
}

/// `MetadataInfo` as Java's hessian-lite writes it (its fields in Java's order, the services
/// in a `ConcurrentHashMap` keyed by match key).
fn metadata_info_value(info: &MetadataInfo) -> Value {
    let services = info
        .services
        .iter()
        .map(|(key, s)| (Value::from(key.as_str()), service_info_value(s)))
        .collect();
    Value::Object(Object::new(
        "org.apache.dubbo.metadata.MetadataInfo",
        [
            (
                "services",
                Value::Map(Map {
                    ty: Some("java.util.concurrent.ConcurrentHashMap".into()),
                    entries: services,
                }),
            ),
            ("revision", Value::from(info.revision.as_str())),
            ("app", Value::from(info.app.as_str())),
        ],
    ))
}

/// `MetadataInfo$ServiceInfo` as Java writes it (an empty group is `null`).
fn service_info_value(s: &ServiceInfo) -> Value {
    let text_or_null = |t: &str| {
        if t.is_empty() {
            Value::Null
        } else {
            Value::from(t)
        }
    };
    let params = s
        .params
        .iter()
        .map(|(k, v)| (Value::from(k.as_str()), Value::from(v.as_str())))
        .collect();
    Value::Object(Object::new(
        "org.apache.dubbo.metadata.MetadataInfo$ServiceInfo",
        [
            ("params", Value::untyped_map(params)),
            ("path", Value::from(s.path.as_str())),
            ("port", Value::Int(i32::from(s.port))),
            ("protocol", Value::from(s.protocol.as_str())),
            ("version", text_or_null(&s.version)),
            ("group", text_or_null(&s.group)),
            ("name", Value::from(s.name.as_str())),
        ],
    ))
}
