//! A registry by its address.

use std::sync::Arc;

use crate::error::RegistryError;
use crate::registry::Registry;

/// Connects to the registry at `address`: `zookeeper://HOST:PORT[,HOST:PORT...][?k=v...]`
/// (see [`crate::zookeeper::ZookeeperRegistry::connect`] for the parameters), waiting for its
/// first session.
///
/// # Errors
///
/// [`RegistryError::Address`] for another scheme (or the `zookeeper` feature off),
/// [`RegistryError::Unreachable`] when no session came within the session timeout.
pub async fn connect(address: &str) -> Result<Arc<dyn Registry>, RegistryError> {
    #[cfg(feature = "zookeeper")]
    if address.starts_with("zookeeper://") {
        let r = crate::zookeeper::ZookeeperRegistry::connect(address).await?;
        return Ok(Arc::new(r));
    }
    Err(RegistryError::Address {
        address: address.to_owned(),
        reason: "only zookeeper:// registries are supported",
    })
}
