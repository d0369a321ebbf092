//! The global memory budget (`limits.max_buffered_bytes`): what all callers together may make
//! the proxy hold, over all workers.
//!
//! A caller makes the proxy hold two things: the frame it has begun and not finished (in the
//! engine's read buffer, which the worker sees at every read), and the answers waiting to be
//! written to it (its outbox). Each worker keeps the exact sum for its callers and publishes it
//! to a shared gauge (`dubbo_proxy_buffered_bytes`) when it moved by [`BATCH`], so the hot
//! path touches no shared cache line; the gauge is then off by less than `workers x BATCH`.
//!
//! Past the budget:
//! * a caller with part of a frame in is paused ([`Pause::MEMORY`]): the rest of its frame
//!   waits in the kernel (TCP pushes back on it); its `frame_timeout` still runs, so callers
//!   that hold part of a frame and never finish it cannot pin the budget. A caller whose
//!   frames arrive whole is not paused: bystanders are served.
//! * a caller with more than `outbox_low_watermark` of unread answers is closed when the next
//!   one arrives (it is not reading while memory is short).
//!
//! Every housekeeping round (100 ms) a worker under the budget resumes its callers paused for
//! it; each then reads at most one more chunk before it is looked at again.

use super::*;
use crate::core::metrics::Registry;

/// A worker publishes its total when it moved by this much.
const BATCH: usize = 64 * 1024;

/// What one worker's callers hold.
#[derive(Debug, Default)]
pub(super) struct Budget {
    /// The exact sum of its callers' [`Down::counted`].
    held: usize,
    /// What it last added to the shared gauge.
    published: usize,
    /// Callers it paused for [`Pause::MEMORY`] (some may be gone or resumed since).
    paused: Vec<Key>,
}

impl Budget {
    /// A caller that held `counted` bytes is gone.
    pub(super) fn release(&mut self, counted: usize, metrics: &Registry) {
        self.held -= counted.min(self.held);
        self.publish(metrics, true);
    }

    fn set(&mut self, old: usize, new: usize, metrics: &Registry) {
        self.held = self.held - old.min(self.held) + new;
        self.publish(metrics, false);
    }

    fn publish(&mut self, metrics: &Registry, now: bool) {
        if now || self.held.abs_diff(self.published) >= BATCH {
            let delta = self.held as i64 - self.published as i64;
            metrics.buffered_bytes.fetch_add(delta, Relaxed);
            self.published = self.held;
        }
    }
}

impl Worker {
    /// True when the callers of all workers hold more than `limits.max_buffered_bytes`.
    #[inline]
    pub(super) fn over_budget(&self) -> bool {
        let total = self.shared.metrics.buffered_bytes.load(Relaxed);
        usize::try_from(total).is_ok_and(|t| t > self.marks.budget)
    }

    /// Counts what caller `down` holds now: `read_held` bytes of a begun frame (`None`: as
    /// before) and its outbox.
    pub(super) fn account(&mut self, down: Key, read_held: Option<usize>) {
        let Some(d) = self
            .downs
            .get_mut(down.idx())
            .filter(|d| d.gen == down.gen())
        else {
            return;
        };
        if let Some(r) = read_held {
            d.read_held = r;
        }
        let old = std::mem::replace(&mut d.counted, d.read_held + d.out.len());
        if old != d.counted {
            let new = d.counted;
            self.budget.set(old, new, &self.shared.metrics);
        }
    }

    /// Part of a frame from `down` is in: pauses it while the budget is spent.
    pub(super) fn check_partial(&mut self, down: Key) {
        if self.over_budget() {
            self.set_pause(down, Pause::MEMORY, true);
            self.budget.paused.push(down);
            self.shared.metrics.memory_read_pauses.fetch_add(1, Relaxed);
        }
    }

    /// An answer was added to the outbox of `down`: closes it when the budget is spent and it
    /// has more than the low watermark unread. True when it was closed.
    pub(super) fn check_answers(&mut self, down: Key) -> bool {
        let len = self.downs[down.idx()].out.len();
        if len > self.marks.low && self.over_budget() {
            tracing::warn!(
                bytes = len,
                "caller does not read its answers while limits.max_buffered_bytes is spent: closing it"
            );
            self.shared.metrics.memory_closed.fetch_add(1, Relaxed);
            self.overflow(down);
            return true;
        }
        false
    }

    /// Housekeeping: under the budget again, the callers paused for it read on.
    pub(super) fn resume_memory_paused(&mut self) {
        if self.budget.paused.is_empty() || self.over_budget() {
            return;
        }
        for down in std::mem::take(&mut self.budget.paused) {
            self.set_pause(down, Pause::MEMORY, false);
        }
    }
}
