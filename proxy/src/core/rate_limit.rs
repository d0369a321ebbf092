//! A route's `[routes.rate_limit]`: token buckets of the proxy's own, shared by all workers
//! (one limit, not one per worker), as GCRA: a bucket is one atomic "theoretical arrival
//! time", so taking a token is a compare-and-swap, with no lock for a route-wide bucket.
//!
//! Per-identity buckets live in a map behind a mutex, held only for the lookup; it tracks at
//! most [`MAX_CALLERS`] identities. A bucket that has refilled is the same as a new one, so
//! those go first when the map is full; then the fullest one (its caller gets at most a
//! fresh burst back). Callers without an identity share one bucket.
//!
//! The limits reload with the configuration: a route whose name and limit stay the same
//! keeps its [`Limiter`] (and its buckets' state); a changed limit starts with full buckets.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

use crate::config::RateLimit;

/// The most caller identities one per-identity limit tracks.
pub const MAX_CALLERS: usize = 4096;

/// One bucket: the time (ns since its limiter's epoch) when it will be full again, as if
/// each call taken had arrived `interval` after the last.
#[derive(Debug, Default)]
struct Bucket {
    full_at: AtomicU64,
}

impl Bucket {
    /// Takes a token at `now` (ns), if the bucket has one.
    fn take(&self, now: u64, interval: u64, tolerance: u64) -> bool {
        let mut seen = self.full_at.load(Relaxed);
        loop {
            let next = seen.max(now).saturating_add(interval);
            if next - now > tolerance {
                return false;
            }
            match self
                .full_at
                .compare_exchange_weak(seen, next, Relaxed, Relaxed)
            {
                Ok(_) => return true,
                Err(current) => seen = current,
            }
        }
    }
}

/// The buckets of one route's limit.
#[derive(Debug)]
pub struct Limiter {
    /// The limit it was made for: a reload with the same one keeps this limiter.
    pub spec: RateLimit,
    /// Ns between two tokens.
    interval: u64,
    /// The burst, in ns: a bucket holds `tolerance / interval` tokens.
    tolerance: u64,
    epoch: Instant,
    /// The route's bucket, or that of the callers without an identity.
    shared: Bucket,
    /// Per identity, when `per_identity`.
    callers: Option<Mutex<HashMap<Box<str>, Bucket>>>,
}

impl Limiter {
    /// A limiter with full buckets for a validated limit.
    pub fn new(spec: &RateLimit, epoch: Instant) -> Limiter {
        let interval = ((1e9 / spec.calls_per_second) as u64).max(1);
        Limiter {
            interval,
            tolerance: interval.saturating_mul(u64::from(spec.burst)),
            epoch,
            shared: Bucket::default(),
            callers: spec.per_identity.then(|| Mutex::new(HashMap::new())),
            spec: spec.clone(),
        }
    }

    /// Takes a token for a call of `identity` at `now`: false when its bucket is empty.
    pub fn admit(&self, identity: Option<&str>, now: Instant) -> bool {
        let now = now.saturating_duration_since(self.epoch).as_nanos() as u64;
        let (callers, id) = match (&self.callers, identity) {
            (Some(c), Some(id)) => (c, id),
            _ => return self.shared.take(now, self.interval, self.tolerance),
        };
        let mut map = callers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = map.get(id) {
            return b.take(now, self.interval, self.tolerance);
        }
        if map.len() >= MAX_CALLERS {
            map.retain(|_, b| *b.full_at.get_mut() > now);
            if map.len() >= MAX_CALLERS {
                let fullest = map
                    .iter()
                    .min_by_key(|(_, b)| b.full_at.load(Relaxed))
                    .map(|(k, _)| k.clone());
                if let Some(k) = fullest {
                    map.remove(&k);
                }
            }
        }
        let bucket = map.entry(id.into()).or_default();
        bucket.take(now, self.interval, self.tolerance)
    }

    /// How many identities it tracks now.
    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.callers.as_ref().map_or(0, |c| c.lock().unwrap().len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn limit(rate: f64, burst: u32, per_identity: bool) -> RateLimit {
        RateLimit {
            calls_per_second: rate,
            burst,
            per_identity,
        }
    }

    #[test]
    fn a_burst_then_the_rate() {
        let t0 = Instant::now();
        let l = Limiter::new(&limit(10.0, 3, false), t0);
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        assert!((0..3).all(|_| l.admit(None, at(0))), "the burst");
        assert!(!l.admit(None, at(0)));
        assert!(!l.admit(None, at(99)), "a token every 100 ms");
        assert!(l.admit(None, at(100)));
        assert!(!l.admit(None, at(100)));
        // Idle for long: refilled to the burst, never past it.
        assert!((0..3).all(|_| l.admit(None, at(10_000))));
        assert!(!l.admit(None, at(10_000)));
        // The identity does not matter to a route-wide limit.
        assert!(!l.admit(Some("a"), at(10_000)));
    }

    #[test]
    fn one_bucket_per_identity() {
        let t0 = Instant::now();
        let l = Limiter::new(&limit(1.0, 1, true), t0);
        assert!(l.admit(Some("a"), t0));
        assert!(!l.admit(Some("a"), t0));
        assert!(l.admit(Some("b"), t0), "b has its own bucket");
        assert!(l.admit(None, t0));
        assert!(!l.admit(None, t0), "callers without an identity share one");
        assert!(l.admit(Some("a"), t0 + Duration::from_secs(1)));
    }

    #[test]
    fn identities_tracked_are_bounded() {
        let t0 = Instant::now();
        let l = Limiter::new(&limit(1.0, 1, true), t0);
        for i in 0..MAX_CALLERS + 10 {
            assert!(l.admit(Some(&format!("id{i}")), t0));
        }
        assert_eq!(l.tracked(), MAX_CALLERS);
        // Once refilled, they all make room at once.
        assert!(l.admit(Some("late"), t0 + Duration::from_secs(2)));
        assert_eq!(l.tracked(), 1);
    }

    #[test]
    fn shared_across_threads() {
        let t0 = Instant::now();
        let l = std::sync::Arc::new(Limiter::new(&limit(1.0, 100, false), t0));
        let taken: usize = (0..4)
            .map(|_| {
                let l = l.clone();
                std::thread::spawn(move || (0..100).filter(|_| l.admit(None, t0)).count())
            })
            .map(|h| h.join().unwrap())
            .sum();
        assert_eq!(taken, 100, "one burst for all threads");
    }
}
