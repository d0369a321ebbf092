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

use std::time::{Duration, Instant};

use dubbo_codec::Status;

use crate::config::Outlier;

/// Health state of one endpoint on one worker.
#[derive(Debug, Clone, Default)]
pub struct Health {
    consecutive: u32,
    ejections: u32,
    ejected_until: Option<Instant>,
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
        self.ejected_until.is_some_and(|t| now < t)
    }

    /// A call succeeded.
    #[inline]
    pub fn success(&mut self) {
        self.consecutive = 0;
    }

    /// A failure. Returns true when it ejects the endpoint (`may_eject`: the cluster's
    /// ejection budget allows it).
    pub fn failure(&mut self, now: Instant, policy: &Outlier, may_eject: bool) -> bool {
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
        assert!(!h.failure(t0, &p, true));
        h.success();
        assert!(!h.failure(t0, &p, true));
        assert!(!h.failure(t0, &p, true));
        assert!(h.failure(t0, &p, true));
        assert!(h.is_ejected(t0 + Duration::from_millis(99)));
        assert!(!h.is_ejected(t0 + Duration::from_millis(100)));
        // Back, and one more failure ejects it for twice as long.
        let t1 = t0 + Duration::from_millis(100);
        assert!(h.failure(t1, &p, true));
        assert!(h.is_ejected(t1 + Duration::from_millis(199)));
        assert!(!h.is_ejected(t1 + Duration::from_millis(200)));
        // The budget can forbid it.
        let mut h = Health::default();
        for _ in 0..5 {
            assert!(!h.failure(t0, &p, false));
        }
        assert!(is_failure_status(31) && !is_failure_status(20) && !is_failure_status(70));
    }
}
