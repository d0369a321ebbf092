//! What the load generators (`dubbo-load`, `triple-load`) count: latencies of the calls that
//! succeeded in a histogram, failures by kind.

use std::collections::BTreeMap;
use std::future::Future;
use std::time::Instant;

use hdrhistogram::Histogram;

/// The calls of a measurement.
pub struct Stats {
    /// Latency in µs of each call that succeeded.
    pub hist: Histogram<u64>,
    /// How many succeeded.
    pub ok: u64,
    /// Failures by kind (a short name, see [`short`]).
    pub errors: BTreeMap<String, u64>,
}

impl Stats {
    /// None yet.
    pub fn new() -> Stats {
        Stats {
            hist: Histogram::new_with_bounds(1, 120_000_000, 3).unwrap(),
            ok: 0,
            errors: BTreeMap::new(),
        }
    }
    /// One call: `Ok` with its latency, or the kind of its failure.
    pub fn record(&mut self, r: Result<(), String>, micros: u64) {
        match r {
            Ok(()) => {
                self.ok += 1;
                let _ = self.hist.record(micros.clamp(1, 120_000_000));
            }
            Err(k) => *self.errors.entry(k).or_default() += 1,
        }
    }
    /// Adds another caller's calls.
    pub fn merge(&mut self, o: &Stats) {
        let _ = self.hist.add(&o.hist);
        self.ok += o.ok;
        for (k, v) in &o.errors {
            *self.errors.entry(k.clone()).or_default() += v;
        }
    }
}

/// One closed-loop caller: `call` again and again from now until `end`, each call started
/// after `measure_from` and answered by `end` recorded with its latency.
pub async fn closed_loop<F, Fut>(measure_from: Instant, end: Instant, mut call: F) -> Stats
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<(), String>>,
{
    let mut stats = Stats::new();
    loop {
        let t0 = Instant::now();
        if t0 >= end {
            break;
        }
        let r = call().await;
        let t1 = Instant::now();
        if t0 >= measure_from && t1 <= end {
            stats.record(r, (t1 - t0).as_micros() as u64);
        }
    }
    stats
}

impl Default for Stats {
    fn default() -> Self {
        Stats::new()
    }
}

/// An error's text as a kind: its first 24 characters, lower-case alphanumerics, `_` for the
/// rest.
pub fn short(s: &str) -> String {
    s.chars()
        .take(24)
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}
