//! The graceful shutdown.

use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::time::Instant;

use super::{lock, Phase, Server};
use dubbo_codec::format::BodyFormat;
use dubbo_codec::frame::Frame;
use dubbo_codec::serialization::Serialization;

/// How long the graceful shutdown waits, with nothing in flight, for calls still on their way
/// (sent before the consumer saw the read-only event) before it closes the connections. A
/// Java consumer picks its provider before it sends, on another thread than the one that
/// reads the event: on a loaded machine a call picked before the event was seen arrived
/// more than 200 ms after it (one lost call in 60,000, `registry.rs`'s come-and-go test).
/// Java itself waits `dubbo.service.shutdown.wait` (10 s) after unregistering; this stays
/// within the caller's grace.
const DRAIN_QUIET: Duration = Duration::from_secs(1);

/// The most of its grace the shutdown keeps for the writers to flush the last answers.
const MAX_FLUSH: Duration = Duration::from_secs(1);

impl Server {
    /// Graceful shutdown: stop accepting, send the read-only event on every connection, wait
    /// for the calls in flight to finish, then close every connection; all within `grace`.
    ///
    /// The last quarter of the grace (at most 1 s) is for the writers to flush the last
    /// answers; when the grace is over, connections still open are cut, and what waits on
    /// them is dropped: a caller that does not read, or a handler that never returns, cannot
    /// hold the shutdown up.
    pub async fn shutdown(self, grace: Duration) {
        let deadline = Instant::now() + grace;
        let flush = (grace / 4).min(MAX_FLUSH);
        // Out of the registry first, so that consumers stop choosing this server.
        #[cfg(feature = "registry")]
        {
            let registered = std::mem::take(&mut *lock(&self.registered));
            for (registry, what) in registered {
                let _ = tokio::time::timeout_at(deadline, what.unregister(&*registry)).await;
            }
        }
        self.accept.abort();
        // Before the connections are listed: one that registers later sees it (serve_conn).
        let _ = self.read_only.send(true);
        let conns: Vec<_> = lock(&self.state.conns)
            .values()
            .map(|c| (c.tx.clone(), c.serialization.load(Ordering::Relaxed)))
            .collect();
        for (i, (tx, id)) in conns.into_iter().enumerate() {
            let format = BodyFormat::of(Serialization::from_id(id)).unwrap_or_default();
            let event = Frame::read_only_event_in(i as u64, format);
            // Each in its own task: a connection whose channel is full holds up no other.
            tokio::spawn(async move {
                let _ = tokio::time::timeout_at(deadline, tx.send(event)).await;
            });
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
        let _ = tokio::time::timeout_at(deadline - flush, drained).await;
        let _ = self.closing.send(Phase::Closing);
        // The writers flush the last answers and close.
        let flushed = async {
            while self.state.open.load(Ordering::Acquire) != 0 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        if tokio::time::timeout_at(deadline, flushed).await.is_err() {
            let _ = self.closing.send(Phase::Aborted);
            // A reader may be stuck queueing onto a full channel: aborting its writer drops
            // the channel, which frees the reader and what waited.
            for c in lock(&self.state.conns).values() {
                c.writer.abort();
            }
        }
    }
}
