//! The registry trait, and what a subscription to an interface's providers hands out.
//!
//! A [`Registry`] keeps URLs registered (a provider's or a consumer's) for as long as it lives
//! or until they are unregistered, whatever happens to its connection, and follows the
//! providers of interfaces: [`Registry::subscribe`] returns a [`Subscription`], a stream of
//! provider lists (the whole list each time it changes). ZooKeeper is one implementation
//! ([`crate::zookeeper`]); Nacos or etcd would be others, behind the same trait.

use std::fmt;
use std::sync::Arc;

use tokio::sync::watch;
use tokio::task::AbortHandle;

use crate::definition::{DefinitionKey, ServiceDefinition};
use crate::error::RegistryError;
use crate::future::RegistryFuture;
use crate::instance::{MetadataSource, ServiceInstance};
use crate::url::ServiceUrl;

/// A provider list as a subscription hands it out: every provider URL of the interface, in
/// the registry's order.
pub type Providers = Arc<[ServiceUrl]>;

/// A Dubbo registry.
pub trait Registry: Send + Sync + fmt::Debug {
    /// The registry's address, as given (`zookeeper://127.0.0.1:2181`).
    fn address(&self) -> &str;

    /// Registers `url` under its interface and category (`providers` for `side=provider`,
    /// `consumers` for a consumer URL) until [`unregister`](Registry::unregister)ed or the
    /// registry is dropped, also across a lost session (written again in the next one).
    fn register<'a>(&'a self, url: &'a ServiceUrl) -> RegistryFuture<'a, ()>;

    /// Removes a URL [`register`](Registry::register)ed before (not an error if it is gone).
    fn unregister<'a>(&'a self, url: &'a ServiceUrl) -> RegistryFuture<'a, ()>;

    /// Follows the providers of `interface`: the subscription yields the whole list now and
    /// after every change, until it is dropped.
    fn subscribe(&self, interface: &str) -> Subscription;

    /// Follows the providers of `interface` as a Dubbo 3 consumer does by default
    /// (`register-mode=all`): the URLs of the application instances that serve it (Dubbo 3's
    /// application-level registration, their metadata fetched through `metadata` unless the
    /// registry holds it) when there are any, else the interface-level URLs of
    /// [`subscribe`](Registry::subscribe). A registry without application-level discovery
    /// (the default) hands out the interface-level URLs only.
    fn subscribe_with_instances(
        &self,
        interface: &str,
        metadata: Arc<dyn MetadataSource>,
    ) -> Subscription {
        let _ = metadata;
        self.subscribe(interface)
    }

    /// The providers of `interface` now (one read, no watch).
    fn providers<'a>(&'a self, interface: &'a str) -> RegistryFuture<'a, Vec<ServiceUrl>>;

    /// Every interface that has a providers category in the registry, or (Dubbo 3) an
    /// application mapping, sorted.
    fn services(&self) -> RegistryFuture<'_, Vec<String>>;

    /// The service definition (methods with their Java types) the provider `key` names
    /// published in the registry's metadata report, `None` when it published none. A registry
    /// that is no metadata report (the default) has none.
    fn service_definition<'a>(
        &'a self,
        key: &'a DefinitionKey,
    ) -> RegistryFuture<'a, Option<ServiceDefinition>> {
        let _ = key;
        Box::pin(async { Ok(None) })
    }

    /// Registers a Dubbo 3 application instance (`register-mode` `instance` or `all`), until
    /// [`unregister_instance`](Registry::unregister_instance) (for ZooKeeper an ephemeral
    /// `/services/<app>/<address:port>`, written again in each new session). A registry
    /// without application-level discovery ignores it.
    fn register_instance<'a>(&'a self, instance: &'a ServiceInstance) -> RegistryFuture<'a, ()> {
        let _ = instance;
        Box::pin(async { Ok(()) })
    }

    /// Removes an instance [`register_instance`](Registry::register_instance) wrote.
    fn unregister_instance<'a>(&'a self, instance: &'a ServiceInstance) -> RegistryFuture<'a, ()> {
        let _ = instance;
        Box::pin(async { Ok(()) })
    }

    /// Says that application `app` serves `interface` (Dubbo 3's service-name mapping, for
    /// ZooKeeper `/dubbo/mapping/<interface>`: the applications, comma-separated), as a Java
    /// provider does at export, so that consumers of the interface find the application's
    /// instances; it stays after the provider goes, as Java's does. A registry without
    /// application-level discovery ignores it.
    fn map_service<'a>(&'a self, interface: &'a str, app: &'a str) -> RegistryFuture<'a, ()> {
        let _ = (interface, app);
        Box::pin(async { Ok(()) })
    }

    /// Publishes `definition` as the service definition of provider `key` in the registry's
    /// metadata report (where [`service_definition`](Registry::service_definition) reads it),
    /// as a Java provider does at export; it stays after the provider goes, as Java's does. A
    /// registry that is no metadata report (the default) ignores it.
    fn publish_definition<'a>(
        &'a self,
        key: &'a DefinitionKey,
        definition: &'a ServiceDefinition,
    ) -> RegistryFuture<'a, ()> {
        let _ = (key, definition);
        Box::pin(async { Ok(()) })
    }
}

/// The providers of one interface, followed: a stream of whole lists. Dropping it stops the
/// watch behind it.
#[derive(Debug)]
pub struct Subscription {
    rx: watch::Receiver<Option<Providers>>,
    task: Option<AbortHandle>,
    initial_unread: bool,
}

impl Subscription {
    /// A subscription reading `rx` (`None` until the first list), whose watch task `task` is
    /// aborted when it drops: for [`Registry`] implementations.
    pub fn new(rx: watch::Receiver<Option<Providers>>, task: Option<AbortHandle>) -> Self {
        Subscription {
            rx,
            task,
            initial_unread: true,
        }
    }

    /// The last list, `None` before the first.
    pub fn current(&self) -> Option<Providers> {
        self.rx.borrow().clone()
    }

    /// The list not seen yet: the first one as soon as there is one, then each change.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Closed`] when the registry behind it is gone.
    pub async fn next(&mut self) -> Result<Providers, RegistryError> {
        loop {
            if std::mem::take(&mut self.initial_unread) {
                if let Some(list) = self.rx.borrow_and_update().clone() {
                    return Ok(list);
                }
            }
            self.rx.changed().await.map_err(|_| RegistryError::Closed)?;
            if let Some(list) = self.rx.borrow_and_update().clone() {
                return Ok(list);
            }
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(t) = self.task.take() {
            t.abort();
        }
    }
}
