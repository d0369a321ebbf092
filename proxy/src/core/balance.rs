//! Load balancing: which endpoint of a cluster gets the next call.
//!
//! The balancer only sees weights, which endpoints are eligible right now (healthy, not
//! ejected, not read-only, connected) and, for least-request, how many calls each has in
//! flight over all workers (see [`SharedEndpoint`](crate::core::shared::SharedEndpoint)). It
//! keeps its own small state (the smooth round-robin's current weights, a random generator)
//! per worker; nothing is allocated per pick.

use crate::config::LbPolicy;

/// A load balancer of one cluster on one worker.
#[derive(Debug, Clone)]
pub enum Balancer {
    /// nginx's smooth weighted round-robin: each pick adds every eligible endpoint's weight to
    /// its current value, takes the largest and subtracts the total from it. Weights 5,1,1
    /// give a a b a c a a, not a a a a a b c.
    RoundRobin {
        /// Current weights, one per endpoint.
        current: Vec<i64>,
    },
    /// Weighted random.
    Random {
        /// The generator (seeded per worker).
        rng: fastrand::Rng,
    },
    /// Fewest in-flight calls per unit of weight; ties go round-robin.
    LeastRequest {
        /// Where the tie-breaking scan starts.
        next: usize,
    },
}

impl Balancer {
    /// A balancer for `n` endpoints.
    pub fn new(policy: LbPolicy, n: usize, seed: u64) -> Balancer {
        match policy {
            LbPolicy::RoundRobin => Balancer::RoundRobin {
                current: vec![0; n],
            },
            LbPolicy::Random => Balancer::Random {
                rng: fastrand::Rng::with_seed(seed),
            },
            LbPolicy::LeastRequest => Balancer::LeastRequest { next: 0 },
        }
    }

    /// Picks an endpoint among those for which `eligible(i)` holds; `None` if there is none.
    pub fn pick(
        &mut self,
        weights: &[u32],
        eligible: impl Fn(usize) -> bool,
        active: impl Fn(usize) -> u32,
    ) -> Option<usize> {
        let n = weights.len();
        match self {
            Balancer::RoundRobin { current } => {
                if current.len() != n {
                    current.resize(n, 0);
                }
                let mut total = 0i64;
                let mut best: Option<usize> = None;
                for i in 0..n {
                    if !eligible(i) {
                        continue;
                    }
                    let w = i64::from(weights[i]);
                    current[i] += w;
                    total += w;
                    if best.is_none_or(|b| current[i] > current[b]) {
                        best = Some(i);
                    }
                }
                let b = best?;
                current[b] -= total;
                Some(b)
            }
            Balancer::Random { rng } => {
                let total: u64 = (0..n)
                    .filter(|&i| eligible(i))
                    .map(|i| u64::from(weights[i]))
                    .sum();
                if total == 0 {
                    return None;
                }
                let mut r = rng.u64(0..total);
                for (i, &w) in weights.iter().enumerate() {
                    if !eligible(i) {
                        continue;
                    }
                    let w = u64::from(w);
                    if r < w {
                        return Some(i);
                    }
                    r -= w;
                }
                None
            }
            Balancer::LeastRequest { next } => {
                let mut best: Option<usize> = None;
                for k in 0..n {
                    let i = (*next + k) % n;
                    if !eligible(i) {
                        continue;
                    }
                    // (active_i + 1) / w_i < (active_b + 1) / w_b, in integers.
                    let better = best.is_none_or(|b| {
                        u64::from(active(i) + 1) * u64::from(weights[b])
                            < u64::from(active(b) + 1) * u64::from(weights[i])
                    });
                    if better {
                        best = Some(i);
                    }
                }
                *next = (*next + 1) % n.max(1);
                best
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(policy: LbPolicy, weights: &[u32], picks: usize) -> Vec<usize> {
        let mut b = Balancer::new(policy, weights.len(), 7);
        let mut counts = vec![0; weights.len()];
        for _ in 0..picks {
            counts[b.pick(weights, |_| true, |_| 0).unwrap()] += 1;
        }
        counts
    }

    #[test]
    fn smooth_round_robin_is_exact_and_interleaved() {
        let mut b = Balancer::new(LbPolicy::RoundRobin, 3, 0);
        let seq: Vec<usize> = (0..7)
            .map(|_| b.pick(&[5, 1, 1], |_| true, |_| 0).unwrap())
            .collect();
        assert_eq!(seq, [0, 0, 1, 0, 2, 0, 0]);
        assert_eq!(run(LbPolicy::RoundRobin, &[3, 1], 4000), [3000, 1000]);
    }

    #[test]
    fn random_follows_weights() {
        let c = run(LbPolicy::Random, &[3, 1], 40_000);
        assert!((c[0] as f64 / 40_000.0 - 0.75).abs() < 0.02, "{c:?}");
    }

    #[test]
    fn ineligible_endpoints_are_skipped() {
        for p in [
            LbPolicy::RoundRobin,
            LbPolicy::Random,
            LbPolicy::LeastRequest,
        ] {
            let mut b = Balancer::new(p, 3, 1);
            for _ in 0..50 {
                assert_eq!(b.pick(&[1, 1, 1], |i| i == 2, |_| 0), Some(2));
            }
            assert_eq!(b.pick(&[1, 1, 1], |_| false, |_| 0), None);
        }
    }

    #[test]
    fn least_request_prefers_idle_and_heavy() {
        let mut b = Balancer::new(LbPolicy::LeastRequest, 3, 0);
        let active = [5, 0, 2];
        assert_eq!(b.pick(&[1, 1, 1], |_| true, |i| active[i]), Some(1));
        // Twice the weight tolerates about twice the load.
        assert_eq!(b.pick(&[10, 1, 1], |_| true, |i| [3, 1, 1][i]), Some(0));
    }
}
