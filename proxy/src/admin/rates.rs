//! Calls per second for the status page, from the call counters the page reads anyway.
//!
//! The counters only grow; a rate needs two readings. Rather than a timer that samples
//! whether anyone looks or not, each page view leaves its reading here and the rate is taken
//! against the oldest reading of the last [`WINDOW`]: the first view shows no rate, and a page
//! that refreshes itself shows one from its second view on.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How far back a rate looks.
pub const WINDOW: Duration = Duration::from_secs(10);
/// The shortest interval a rate is taken over (two views in the same instant say nothing).
const MIN_SPAN: Duration = Duration::from_millis(500);

/// What a counter counts: `("route", name)` or `("cluster", name)`.
pub type Key = (&'static str, String);

/// Readings of the call counters, oldest first.
#[derive(Default)]
pub struct Rates {
    readings: Mutex<VecDeque<(Instant, BTreeMap<Key, u64>)>>,
}

impl Rates {
    /// Keeps `totals` as read at `now` and returns each counter's calls per second since the
    /// oldest reading of the last [`WINDOW`] (a counter absent then counts from 0), with the
    /// interval they were taken over; `None` when there is no reading old enough.
    pub fn observe(
        &self,
        now: Instant,
        totals: BTreeMap<Key, u64>,
    ) -> Option<(BTreeMap<Key, f64>, Duration)> {
        let mut readings = self.readings.lock().unwrap_or_else(|e| e.into_inner());
        while readings
            .front()
            .is_some_and(|(t, _)| now.saturating_duration_since(*t) > WINDOW)
        {
            readings.pop_front();
        }
        let rates = readings.front().and_then(|(then, old)| {
            let span = now.saturating_duration_since(*then);
            (span >= MIN_SPAN).then(|| {
                let per_s = totals
                    .iter()
                    .map(|(k, &n)| {
                        let before = old.get(k).copied().unwrap_or(0);
                        (
                            k.clone(),
                            n.saturating_sub(before) as f64 / span.as_secs_f64(),
                        )
                    })
                    .collect();
                (per_s, span)
            })
        });
        readings.push_back((now, totals));
        rates
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn totals(n: u64) -> BTreeMap<Key, u64> {
        BTreeMap::from([(("route", "r".to_owned()), n)])
    }

    #[test]
    fn rates_over_the_window() {
        let rates = Rates::default();
        let t0 = Instant::now();
        assert!(rates.observe(t0, totals(100)).is_none(), "one reading");
        assert!(rates.observe(t0 + MIN_SPAN / 2, totals(100)).is_none());
        let (r, span) = rates
            .observe(t0 + Duration::from_secs(2), totals(300))
            .unwrap();
        assert_eq!(span, Duration::from_secs(2));
        assert_eq!(r[&("route", "r".to_owned())], 100.0);
        // Readings older than the window are forgotten: 11 s on, the rate is over 9 s.
        let (r, span) = rates
            .observe(t0 + Duration::from_secs(11), totals(1200))
            .unwrap();
        assert_eq!(span, Duration::from_secs(9));
        assert_eq!(r[&("route", "r".to_owned())], 100.0);
    }
}
