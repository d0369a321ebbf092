//! The graceful shutdown.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::{lock, Server};
use crate::format::BodyFormat;
use crate::frame::Frame;
use crate::serialization::Serialization;

/// How long the graceful shutdown waits, with nothing in flight, for calls still on their way
/// (sent before the consumer saw the read-only event) before it closes the connections.
const DRAIN_QUIET: Duration = Duration::from_millis(200);

impl Server {
    /// Graceful shutdown: stop accepting, send the read-only event on every connection, wait
    /// up to `grace` for the calls in flight to finish, then close every connection.
    pub async fn shutdown(self, grace: Duration) {
        // Out of the registry first, so that consumers stop choosing this server.
        #[cfg(feature = "registry")]
        {
            let registered = std::mem::take(&mut *lock(&self.registered));
            for (registry, url) in registered {
                let _ = registry.unregister(&url).await;
            }
        }
        self.accept.abort();
        let conns: Vec<_> = lock(&self.state.conns)
            .values()
            .map(|c| (c.tx.clone(), c.serialization.load(Ordering::Relaxed)))
            .collect();
        for (i, (tx, id)) in conns.iter().enumerate() {
            let format = BodyFormat::of(Serialization::from_id(*id)).unwrap_or_default();
            let _ = tx.send(Frame::read_only_event_in(i as u64, format)).await;
        }
        // Drained: nothing in flight, and no call arrived for DRAIN_QUIET. A consumer may
        // have sent calls before the read-only event reached it; they are served, not cut
        // off by a close at the first moment nothing happened to be in flight.
        let drained = async {
            loop {
                let notified = self.state.idle.notified();
                if self.state.inflight.load(Ordering::Acquire) != 0 {
                    notified.await;
                    continue;
                }
                let seen = self.state.dispatched.load(Ordering::Acquire);
                tokio::time::sleep(DRAIN_QUIET).await;
                if self.state.inflight.load(Ordering::Acquire) == 0
                    && self.state.dispatched.load(Ordering::Acquire) == seen
                {
                    return;
                }
            }
        };
        let _ = tokio::time::timeout(grace, drained).await;
        let _ = self.closing.send(true);
        // Give the writers a moment to flush the last answers.
        let wait_closed = async {
            while !lock(&self.state.conns).is_empty() {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(1), wait_closed).await;
    }
}
