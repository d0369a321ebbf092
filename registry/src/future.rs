//! The future every registry operation returns.

use std::future::Future;
use std::pin::Pin;

use crate::error::RegistryError;

/// What a [`Registry`](crate::Registry) method returns: a boxed future, so that the trait is object-safe
/// (`Arc<dyn Registry>`).
pub type RegistryFuture<'a, T> =
    Pin<Box<dyn Future<Output = Result<T, RegistryError>> + Send + 'a>>;
