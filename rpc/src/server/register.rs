//! A server's services in a registry (feature `registry`): interface-level provider URLs, and
//! (Dubbo 3's application-level registration) an application instance with the service-name
//! mappings and the MetadataService its consumers ask for the services behind it.

use std::collections::BTreeMap;
use std::sync::Arc;

use dubbo_registry::instance::{
    MetadataInfo, ServiceInstance, ENDPOINTS_KEY, METADATA_SERVICE_PARAMS_KEY, REVISION_KEY,
    STORAGE_TYPE_KEY,
};
use dubbo_registry::{Registry, RegistryError, ServiceUrl};

use super::metadata_service::metadata_service;
use super::{lock, Server};
use crate::instance_metadata::METADATA_SERVICE_VERSION;
use crate::registration::{RegisterMode, Registration};

/// What a server wrote in a registry, removed by its shutdown.
pub(super) enum Registered {
    Url(ServiceUrl),
    Instance(ServiceInstance),
}

impl Registered {
    pub(super) async fn unregister(&self, registry: &dyn Registry) -> Result<(), RegistryError> {
        match self {
            Registered::Url(url) => registry.unregister(url).await,
            Registered::Instance(instance) => registry.unregister_instance(instance).await,
        }
    }
}

impl Server {
    /// Registers every service at this server's address in `registry` (see
    /// [`Registration`] for the URL and the [`RegisterMode`]), until
    /// [`shutdown`](Server::shutdown), which unregisters them before it drains (or until the
    /// registry is dropped). Returns the provider URLs of the services (registered as such
    /// unless the mode is [`RegisterMode::Instance`]).
    ///
    /// A service with [`signature`](super::Service::signature)s declared has them published
    /// as its service definition in the registry's metadata report (for ZooKeeper:
    /// `/dubbo/metadata/<interface>[/<version>][/<group>]/provider/<application>`). At the
    /// application level the server also serves Dubbo's `MetadataService` (in the group of
    /// the application's name), which consumers ask for the services behind the instance.
    ///
    /// # Errors
    ///
    /// The registry's error; what was registered before it stays registered.
    pub async fn register(
        &self,
        registry: Arc<dyn Registry>,
        how: &Registration,
    ) -> Result<Vec<ServiceUrl>, RegistryError> {
        let mut urls = Vec::new();
        for s in self.state.services.values() {
            let methods: Vec<&str> = s.methods.keys().map(String::as_str).collect();
            let url = how.provider_url(
                self.local_addr,
                &s.interface,
                &s.version,
                s.group.as_deref(),
                &methods,
            )?;
            if how.mode() != RegisterMode::Instance {
                registry.register(&url).await?;
                lock(&self.registered).push((registry.clone(), Registered::Url(url.clone())));
            }
            if !s.signatures.is_empty() {
                let (key, definition) = s.definition(&url);
                registry.publish_definition(&key, &definition).await?;
            }
            urls.push(url);
        }
        if how.mode() != RegisterMode::Interface {
            self.register_instance(&registry, how, &urls).await?;
        }
        Ok(urls)
    }

    /// The application instance of `urls` (the services' provider URLs), its MetadataService
    /// on this server, and each interface mapped to the application.
    async fn register_instance(
        &self,
        registry: &Arc<dyn Registry>,
        how: &Registration,
        urls: &[ServiceUrl],
    ) -> Result<(), RegistryError> {
        let app = how.application();
        let info = MetadataInfo::of_urls(app, urls);
        let service = metadata_service(app, vec![info.clone()]);
        self.state
            .late_services
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(service.key(), Arc::new(service));
        let advertised = how.advertised(self.local_addr)?;
        let port = advertised.port().to_string();
        let mut endpoints =
            vec![serde_json::json!({"port": advertised.port(), "protocol": "dubbo"})];
        if how.offers_triple() {
            endpoints.push(serde_json::json!({"port": advertised.port(), "protocol": "tri"}));
        }
        let service_params = serde_json::json!({
            "version": METADATA_SERVICE_VERSION,
            "dubbo": dubbo_registry::DUBBO_PROTOCOL_VERSION,
            "side": "provider",
            "port": port,
            "protocol": "dubbo",
        });
        let metadata: BTreeMap<String, String> = [
            (
                ENDPOINTS_KEY,
                serde_json::Value::from(endpoints).to_string(),
            ),
            (METADATA_SERVICE_PARAMS_KEY, service_params.to_string()),
            (REVISION_KEY, info.revision.clone()),
            (STORAGE_TYPE_KEY, "local".to_owned()),
            ("meta-v", METADATA_SERVICE_VERSION.to_owned()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let instance = ServiceInstance {
            app: app.to_owned(),
            address: advertised.ip().to_string(),
            port: advertised.port(),
            metadata,
        };
        registry.register_instance(&instance).await?;
        lock(&self.registered).push((registry.clone(), Registered::Instance(instance)));
        let mut interfaces: Vec<&str> = urls.iter().map(|u| u.path()).collect();
        interfaces.sort_unstable();
        interfaces.dedup();
        for interface in interfaces {
            registry.map_service(interface, app).await?;
        }
        Ok(())
    }
}
