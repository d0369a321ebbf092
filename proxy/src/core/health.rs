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

use std::time::{Duration, Instant};

use dubbo_codec::Status;

use crate::config::Outlier;

/// Health state of one endpoint on one worker.
#[derive(Debug, Clone, Default)]
pub struct Health {
    consecutive: u32,
    ejections: u32,
    ejected_until: Option<Instant>,
    /// Ejected until probes bring it back (the ejection time does not).
    held: bool,
    /// Probes answered in a row while held.
    probes_ok: u32,
}

/// True for a status that is the provider's fault.
pub fn is_failure_status(status: u8) -> bool {
    matches!(
        Status::from_u8(status),
        Status::ServerTimeout | Status::ServerError | Status::ServerThreadpoolExhaustedError
    )
}

impl Health {
    /// True while ejected. Ends an ejection whose time is up.
    #[inline]
    pub fn is_ejected(&mut self, now: Instant) -> bool {
        if self.held {
            return true;
        }
        match self.ejected_until {
            Some(t) if now < t => true,
            Some(_) => {
                self.ejected_until = None;
                false
            }
            None => false,
        }
    }

    /// Ejected at `now`, without changing anything.
    pub fn ejected_at(&self, now: Instant) -> bool {
        self.held || self.ejected_until.is_some_and(|t| now < t)
    }

    /// True while ejected and waiting for probes to bring it back.
    pub fn is_held(&self) -> bool {
        self.held
    }

    /// The result of a probe of a held endpoint. Returns true when it brings the endpoint
    /// back (`threshold` answered in a row).
    pub fn probe(&mut self, ok: bool, threshold: u32) -> bool {
        if !self.held {
            return false;
        }
        if !ok {
            self.probes_ok = 0;
            return false;
        }
        self.probes_ok += 1;
        if self.probes_ok >= threshold {
            self.held = false;
            self.probes_ok = 0;
            self.ejected_until = None;
            return true;
        }
        false
    }

    /// A call succeeded.
    #[inline]
    pub fn success(&mut self) {
        self.consecutive = 0;
    }

    /// A failure. Returns true when it ejects the endpoint (`may_eject`: the cluster's
    /// ejection budget allows it; `hold`: probes, not the ejection time, bring it back).
    pub fn failure(&mut self, now: Instant, policy: &Outlier, may_eject: bool, hold: bool) -> bool {
        self.consecutive = self.consecutive.saturating_add(1);
        if policy.consecutive_failures == 0
            || self.consecutive < policy.consecutive_failures
            || self.ejected_at(now)
            || !may_eject
        {
            return false;
        }
        self.ejections = (self.ejections + 1).min(10);
        let d = Duration::from_millis(policy.base_ejection_ms) * self.ejections;
        self.ejected_until = Some(now + d);
        self.held = hold;
        self.probes_ok = 0;
        // One more failure after the ejection ends ejects again.
        self.consecutive = policy.consecutive_failures - 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ejects_after_n_and_comes_back() {
        let p = Outlier {
            consecutive_failures: 3,
            base_ejection_ms: 100,
            max_ejection_percent: 100,
        };
        let t0 = Instant::now();
        let mut h = Health::default();
        assert!(!h.failure(t0, &p, true, false));
        h.success();
        assert!(!h.failure(t0, &p, true, false));
        assert!(!h.failure(t0, &p, true, false));
        assert!(h.failure(t0, &p, true, false));
        assert!(h.is_ejected(t0 + Duration::from_millis(99)));
        assert!(!h.is_ejected(t0 + Duration::from_millis(100)));
        // Back, and one more failure ejects it for twice as long.
        let t1 = t0 + Duration::from_millis(100);
        assert!(h.failure(t1, &p, true, false));
        assert!(h.is_ejected(t1 + Duration::from_millis(199)));
        assert!(!h.is_ejected(t1 + Duration::from_millis(200)));
        // The budget can forbid it.
        let mut h = Health::default();
        for _ in 0..5 {
            assert!(!h.failure(t0, &p, false, false));
        }
        assert!(is_failure_status(31) && !is_failure_status(20) && !is_failure_status(70));
    }

    #[test]
    fn held_ejection_ends_only_through_probes() {
        let p = Outlier {
            consecutive_failures: 1,
            base_ejection_ms: 100,
            max_ejection_percent: 100,
        };
        let t0 = Instant::now();
        let mut h = Health::default();
        assert!(!h.probe(true, 2), "not held: a probe changes nothing");
        assert!(h.failure(t0, &p, true, true));
        assert!(h.is_held());
        // The ejection time passing does not bring it back.
        let later = t0 + Duration::from_secs(3600);
        assert!(h.ejected_at(later) && h.is_ejected(later));
        // Two probes in a row do; a failure in between starts the count again.
        assert!(!h.probe(true, 2));
        assert!(!h.probe(false, 2));
        assert!(!h.probe(true, 2));
        assert!(h.is_ejected(later));
        assert!(h.probe(true, 2));
        assert!(!h.is_held() && !h.ejected_at(later) && !h.is_ejected(later));
        // Back on probation: the next failure ejects it again at once.
        assert!(h.failure(later, &p, true, true));
        assert!(h.is_held());
    }
}
