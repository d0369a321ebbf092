//! What the Triple pipeline's tasks share: the proxy's state, the provider connections, and
//! the drain.

use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use super::upstream;
use crate::core::Shared;

/// What the pipeline's tasks share.
pub struct Triple {
    /// The proxy's state: snapshot (routes, clusters, endpoints) and metrics.
    pub shared: Arc<Shared>,
    /// The provider side.
    pub upstreams: upstream::Upstreams,
    /// True once the proxy drains: every caller connection is sent GOAWAY.
    pub draining: tokio::sync::watch::Sender<bool>,
    /// Caller connections still open.
    pub open: AtomicUsize,
}

impl Triple {
    /// A pipeline's state over `shared`.
    pub fn new(shared: Arc<Shared>) -> Triple {
        Triple {
            shared,
            upstreams: upstream::Upstreams::default(),
            draining: tokio::sync::watch::channel(false).0,
            open: AtomicUsize::new(0),
        }
    }
}
