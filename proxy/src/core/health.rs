//! Passive health of one endpoint: outlier ejection after consecutive failures.
//!
//! A failure is something the endpoint is to blame for: a call that timed out, a connection
//! lost with calls in flight or that would not open, a heartbeat left unanswered, or a
//! response with SERVER_TIMEOUT, SERVER_ERROR or SERVER_THREADPOOL_EXHAUSTED_ERROR. Any
//! other answer (including business exceptions, which travel as OK responses) is a success
//! and resets the count. After `consecutive_failures` in a row the endpoint is ejected for
//! `base_ejection × n` (n-th ejection, at most 10×); when the time is up it takes calls
//! again, and one more failure ejects it at once (it must earn its way back with a success).
//!
//! Active health comes from the proxy's heartbeats (see the worker): an unanswered
//! heartbeat closes the connection and counts here as a failure; a connection that cannot be
//! reopened keeps the endpoint out until it can.
//!
//! With probes (`health_check.probe_interval_ms` > 0) an ejection is *held*: the ejection
//! time no longer brings the endpoint back; the worker probes it (a heartbeat, on an open
//! connection or a fresh one) and it comes back after `healthy_threshold` probes answered in
//! a row ([`Health::probe`]). A failed probe starts the count again. So a dead endpoint
//! stays out however long it is dead, and a recovered one comes back within a few probe
//! intervals instead of waiting out an ejection that grows with each one.
//!
//! The state is shared by all workers (one [`Health`] per endpoint, in the
//! [snapshot](crate::core::shared::Snapshot)): failures seen by any worker count towards one
//! ejection, an ejection or a return is seen by every worker at its next pick, and one
//! worker at a time probes (the one that [claims](Health::claim_probe) the interval). It is
//! all relaxed atomics: a call that succeeds only reads it (a store happens only when a
//! failure count is to be reset), and decisions that two workers could take at once (eject,
//! bring back, probe) are a compare-and-swap that one of them wins.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use dubbo_codec::Status;

use crate::config::Outlier;

/// [`Health::state`]: taking calls.
const IN: u64 = 0;
/// [`Health::state`]: ejected until probes bring it back.
const HELD: u64 = u64::MAX;

/// Health state of one endpoint, shared by all workers.
#[derive(Debug)]
pub struct Health {
    /// Times are kept as nanoseconds since this instant (atomics hold no `Instant`).
    epoch: Instant,
    /// [`IN`], [`HELD`], or ejected until this time (it takes calls again after it).
    state: AtomicU64,
    consecutive: AtomicU32,
    ejections: AtomicU32,
    /// Probes answered in a row while held.
    probes_ok: AtomicU32,
    /// No probe starts before this time (a claim pushes it forward).
    next_probe: AtomicU64,
}

/// True for a status that is the provider's fault.
pub fn is_failure_status(status: u8) -> bool {
    matches!(
        Status::from_u8(status),
        Status::ServerTimeout | Status::ServerError | Status::ServerThreadpoolExhaustedError
    )
}

impl Health {
    /// A healthy endpoint; times are measured from `epoch` (any instant shared by the
    /// workers; one before theirs keeps the arithmetic exact).
    pub fn new(epoch: Instant) -> Health {
        Health {
            epoch,
            state: AtomicU64::new(IN),
            consecutive: AtomicU32::new(0),
            ejections: AtomicU32::new(0),
            probes_ok: AtomicU32::new(0),
            next_probe: AtomicU64::new(0),
        }
    }

    /// `t` in nanoseconds since the epoch, never 0 (0 is [`IN`]) nor [`HELD`].
    fn ticks(&self, t: Instant) -> u64 {
        let ns = t.saturating_duration_since(self.epoch).as_nanos();
        u64::try_from(ns).unwrap_or(HELD - 1).clamp(1, HELD - 1)
    }

    /// Ejected at `now`. One relaxed load while the endpoint is in; an ejection whose time
    /// is up is cleared by the first worker that sees it.
    #[inline]
    pub fn ejected_at(&self, now: Instant) -> bool {
        match self.state.load(Relaxed) {
            IN => false,
            HELD => true,
            until => self.ejected_until(until, now),
        }
    }

    /// [`Health::ejected_at`] for an ejection that ends at `until`.
    #[cold]
    fn ejected_until(&self, until: u64, now: Instant) -> bool {
        if self.ticks(now) < until {
            return true;
        }
        let _ = self.state.compare_exchange(until, IN, Relaxed, Relaxed);
        false
    }

    /// True while ejected and waiting for probes to bring it back.
    pub fn is_held(&self) -> bool {
        self.state.load(Relaxed) == HELD
    }

    /// Claims the probe of a held endpoint due at `now` for this worker, for at most `lease`
    /// (then another worker may probe). Returns the claim, for [`Health::probe_later`];
    /// `None` when it is not due or another worker claimed it first.
    pub fn claim_probe(&self, now: Instant, lease: Duration) -> Option<u64> {
        let t = self.ticks(now);
        let due = self.next_probe.load(Relaxed);
        if t < due {
            return None;
        }
        let claim = self.ticks(now + lease).max(due + 1);
        self.next_probe
            .compare_exchange(due, claim, Relaxed, Relaxed)
            .ok()
            .map(|_| claim)
    }

    /// The probe claimed with `claim` is over (or could not start): the next one is due at
    /// `at`. A claim that another worker took over since changes nothing.
    pub fn probe_later(&self, claim: u64, at: Instant) {
        let _ = self
            .next_probe
            .compare_exchange(claim, self.ticks(at), Relaxed, Relaxed);
    }

    /// The result of a probe of a held endpoint. Returns true when it brings the endpoint
    /// back (`threshold` answered in a row).
    pub fn probe(&self, ok: bool, threshold: u32) -> bool {
        if !self.is_held() {
            return false;
        }
        if !ok {
            self.probes_ok.store(0, Relaxed);
            return false;
        }
        if self.probes_ok.fetch_add(1, Relaxed) + 1 < threshold {
            return false;
        }
        self.probes_ok.store(0, Relaxed);
        self.state
            .compare_exchange(HELD, IN, Relaxed, Relaxed)
            .is_ok()
    }

    /// A call succeeded. Only a read unless failures were counted: workers answering calls
    /// of a healthy endpoint do not write to the line they share.
    #[inline]
    pub fn success(&self) {
        if self.consecutive.load(Relaxed) != 0 {
            self.consecutive.store(0, Relaxed);
        }
    }

    /// A failure. Returns true when it ejects the endpoint (`may_eject`: the cluster's
    /// ejection budget allows it; `probe_every`: probes, not the ejection time, bring it
    /// back, the first one after this long). Of workers failing it at once, one ejects it.
    pub fn failure(
        &self,
        now: Instant,
        policy: &Outlier,
        may_eject: bool,
        probe_every: Option<Duration>,
    ) -> bool {
        let n = self.consecutive.fetch_add(1, Relaxed).saturating_add(1);
        if policy.consecutive_failures == 0 || n < policy.consecutive_failures || !may_eject {
            return false;
        }
        // Taking calls, or an ejection whose time is up: the state to swap out.
        let was = self.state.load(Relaxed);
        if was == HELD || (was != IN && self.ticks(now) < was) {
            return false;
        }
        let ejections = (self.ejections.load(Relaxed) + 1).min(10);
        let until = match probe_every {
            Some(every) => {
                // Before the state: no worker may see it held with an old probe time.
                self.next_probe.store(self.ticks(now + every), Relaxed);
                self.probes_ok.store(0, Relaxed);
                HELD
            }
            None => self.ticks(now + Duration::from_millis(policy.base_ejection_ms) * ejections),
        };
        if self
            .state
            .compare_exchange(was, until, Relaxed, Relaxed)
            .is_err()
        {
            return false;
        }
        self.ejections.store(ejections, Relaxed);
        // One more failure after the ejection ends ejects again.
        self.consecutive
            .store(policy.consecutive_failures - 1, Relaxed);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(consecutive_failures: u32) -> Outlier {
        Outlier {
            consecutive_failures,
            base_ejection_ms: 100,
            max_ejection_percent: 100,
        }
    }

    #[test]
    fn ejects_after_n_and_comes_back() {
        let p = policy(3);
        let t0 = Instant::now();
        let h = Health::new(t0);
        assert!(!h.failure(t0, &p, true, None));
        h.success();
        assert!(!h.failure(t0, &p, true, None));
        assert!(!h.failure(t0, &p, true, None));
        assert!(h.failure(t0, &p, true, None));
        assert!(h.ejected_at(t0 + Duration::from_millis(99)));
        assert!(!h.ejected_at(t0 + Duration::from_millis(100)));
        // Back, and one more failure ejects it for twice as long.
        let t1 = t0 + Duration::from_millis(100);
        assert!(h.failure(t1, &p, true, None));
        assert!(h.ejected_at(t1 + Duration::from_millis(199)));
        assert!(!h.ejected_at(t1 + Duration::from_millis(200)));
        // The budget can forbid it.
        let h = Health::new(t0);
        for _ in 0..5 {
            assert!(!h.failure(t0, &p, false, None));
        }
        assert!(is_failure_status(31) && !is_failure_status(20) && !is_failure_status(70));
    }

    #[test]
    fn held_ejection_ends_only_through_probes() {
        let p = policy(1);
        let t0 = Instant::now();
        let every = Some(Duration::from_millis(10));
        let h = Health::new(t0);
        assert!(!h.probe(true, 2), "not held: a probe changes nothing");
        assert!(h.failure(t0, &p, true, every));
        assert!(h.is_held());
        // The ejection time passing does not bring it back.
        let later = t0 + Duration::from_secs(3600);
        assert!(h.ejected_at(later));
        // Two probes in a row do; a failure in between starts the count again.
        assert!(!h.probe(true, 2));
        assert!(!h.probe(false, 2));
        assert!(!h.probe(true, 2));
        assert!(h.ejected_at(later));
        assert!(h.probe(true, 2));
        assert!(!h.is_held() && !h.ejected_at(later));
        // Back on probation: the next failure ejects it again at once.
        assert!(h.failure(later, &p, true, every));
        assert!(h.is_held());
    }

    #[test]
    fn failures_from_two_workers_eject_once() {
        let p = policy(4);
        let t0 = Instant::now();
        let h = std::sync::Arc::new(Health::new(t0));
        // Two threads fail it 2 + 2 times, racing: exactly one of them ejects it.
        let ejected: u32 = std::thread::scope(|s| {
            let runs: Vec<_> = (0..2)
                .map(|_| {
                    let h = h.clone();
                    let p = p.clone();
                    s.spawn(move || (0..2).filter(|_| h.failure(t0, &p, true, None)).count())
                })
                .collect();
            runs.into_iter().map(|r| r.join().unwrap() as u32).sum()
        });
        assert_eq!(ejected, 1);
        assert!(h.ejected_at(t0));
        // A success from either resets the count for both.
        let t1 = t0 + Duration::from_millis(100);
        assert!(h.failure(t1, &p, true, None), "on probation after it");
        let t2 = t1 + Duration::from_millis(200);
        h.success();
        for _ in 0..3 {
            assert!(!h.failure(t2, &p, true, None));
        }
    }

    #[test]
    fn one_probe_claim_per_interval() {
        let t0 = Instant::now();
        let every = Duration::from_millis(100);
        let lease = Duration::from_millis(500);
        let h = Health::new(t0);
        assert!(h.failure(t0, &policy(1), true, Some(every)));
        assert_eq!(h.claim_probe(t0, lease), None, "not due yet");
        let t1 = t0 + every;
        let claim = h.claim_probe(t1, lease).expect("due");
        assert_eq!(h.claim_probe(t1, lease), None, "claimed by the first");
        // Released when the probe is over: due one interval later, for one worker.
        let t2 = t1 + Duration::from_millis(30);
        h.probe_later(claim, t2 + every);
        assert_eq!(h.claim_probe(t2 + every / 2, lease), None);
        let second = h.claim_probe(t2 + every, lease).expect("due again");
        // A prober that never reports: another takes over after the lease, and the late
        // report of the first changes nothing.
        let t3 = t2 + every + lease;
        let third = h.claim_probe(t3, lease).expect("lease over");
        h.probe_later(second, t3);
        assert_eq!(h.claim_probe(t3, lease), None);
        h.probe_later(third, t3);
        assert!(h.claim_probe(t3, lease).is_some());
    }
}
