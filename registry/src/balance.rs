//! Load balancing: which endpoint of a set gets the next call.
//!
//! A [`Balancer`] only sees weights (already scaled by data centre and warm-up, see
//! [`crate::select`]), which endpoints are eligible right now (healthy, connected...), how
//! many calls each has in flight, and for consistent hashing the call's key. It keeps its own
//! small state (the smooth round-robin's current weights, a random generator, the hash ring);
//! nothing is allocated per pick. `dubbo-proxy` keeps one per cluster and worker;
//! `dubbo-rpc`'s cluster client one per client.
//!
//! The policies are Dubbo's: `random` (weighted), `roundrobin` (smooth weighted, as Dubbo's
//! `RoundRobinLoadBalance` and nginx), `leastactive` (fewest calls in flight; ties broken by
//! weighted random), `consistenthash` (a ring of 160 virtual nodes per endpoint, keyed by the
//! call's first argument, weights ignored, as Dubbo's), and the proxy's `least_request`
//! (fewest calls in flight per unit of weight).

use std::hash::{DefaultHasher, Hash, Hasher};

/// Virtual nodes per endpoint on the consistent-hash ring (Dubbo's `hash.nodes` default).
pub const HASH_NODES: u32 = 160;

/// A load-balancing policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Policy {
    /// Weighted random (Dubbo's default).
    #[default]
    Random,
    /// Smooth weighted round-robin.
    RoundRobin,
    /// Fewest calls in flight; ties broken by weighted random (Dubbo's `leastactive`).
    LeastActive,
    /// Fewest calls in flight per unit of weight; ties go round-robin.
    LeastRequest,
    /// The same key goes to the same endpoint while it is there (Dubbo's `consistenthash`).
    ConsistentHash,
}

impl Policy {
    /// Dubbo's name of a policy (`random`, `roundrobin`, `leastactive`, `consistenthash`), or
    /// `least_request`.
    pub fn from_name(name: &str) -> Option<Policy> {
        Some(match name {
            "random" => Policy::Random,
            "roundrobin" | "round_robin" => Policy::RoundRobin,
            "leastactive" | "least_active" => Policy::LeastActive,
            "least_request" => Policy::LeastRequest,
            "consistenthash" | "consistent_hash" => Policy::ConsistentHash,
            _ => return None,
        })
    }
}

/// A load balancer of one set of endpoints.
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
        /// The generator.
        rng: fastrand::Rng,
    },
    /// Fewest calls in flight, then weighted random.
    LeastActive {
        /// The generator for ties.
        rng: fastrand::Rng,
    },
    /// Fewest in-flight calls per unit of weight; ties go round-robin.
    LeastRequest {
        /// Where the tie-breaking scan starts.
        next: usize,
    },
    /// A hash ring: (point, endpoint index), sorted by point.
    ConsistentHash {
        /// The ring.
        ring: Vec<(u64, usize)>,
        /// How many endpoints it was built for.
        built_for: usize,
    },
}

fn hash_of(v: impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    v.hash(&mut h);
    h.finish()
}

/// The hash of a call key for [`Balancer::pick_keyed`] (the first argument's text, as Dubbo
/// hashes `String.valueOf(args[0])`).
pub fn key_hash(key: &[u8]) -> u64 {
    hash_of(key)
}

impl Balancer {
    /// A balancer for `n` endpoints; `seed` seeds its random generator.
    pub fn new(policy: Policy, n: usize, seed: u64) -> Balancer {
        match policy {
            Policy::RoundRobin => Balancer::RoundRobin {
                current: vec![0; n],
            },
            Policy::Random => Balancer::Random {
                rng: fastrand::Rng::with_seed(seed),
            },
            Policy::LeastActive => Balancer::LeastActive {
                rng: fastrand::Rng::with_seed(seed),
            },
            Policy::LeastRequest => Balancer::LeastRequest { next: 0 },
            Policy::ConsistentHash => Balancer::ConsistentHash {
                ring: Vec::new(),
                built_for: 0,
            },
        }
    }

    /// Builds the consistent-hash ring from one identity per endpoint (a hash of its
    /// address, say), so that an endpoint keeps its points when others come and go. Other
    /// policies ignore it. Without it the ring is built from the endpoints' indices.
    pub fn set_identities(&mut self, ids: &[u64]) {
        if let Balancer::ConsistentHash { ring, built_for } = self {
            ring.clear();
            for (i, id) in ids.iter().enumerate() {
                for v in 0..HASH_NODES {
                    ring.push((hash_of((id, v)), i));
                }
            }
            ring.sort_unstable();
            *built_for = ids.len();
        }
    }

    /// Picks an endpoint among those for which `eligible(i)` holds (`active(i)`: its calls in
    /// flight); `None` if there is none. Consistent hashing without a key picks as random.
    pub fn pick(
        &mut self,
        weights: &[u32],
        eligible: impl Fn(usize) -> bool,
        active: impl Fn(usize) -> u32,
    ) -> Option<usize> {
        self.pick_keyed(weights, eligible, active, None)
    }

    /// [`pick`](Balancer::pick) with the call's [`key_hash`], for consistent hashing.
    pub fn pick_keyed(
        &mut self,
        weights: &[u32],
        eligible: impl Fn(usize) -> bool,
        active: impl Fn(usize) -> u32,
        key: Option<u64>,
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
            Balancer::Random { rng } => weighted_random(rng, weights, &eligible),
            Balancer::LeastActive { rng } => {
                let least = (0..n).filter(|&i| eligible(i)).map(&active).min()?;
                weighted_random(rng, weights, &|i| eligible(i) && active(i) == least)
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
            Balancer::ConsistentHash { ring, built_for } => {
                if *built_for != n {
                    let ids: Vec<u64> = (0..n as u64).collect();
                    self.set_identities(&ids);
                    return self.pick_keyed(weights, eligible, active, key);
                }
                let key = key.unwrap_or_else(|| fastrand::u64(..));
                // The first point at or after the key, walking on past ineligible endpoints.
                let start = ring.partition_point(|(p, _)| *p < key);
                (0..ring.len())
                    .map(|k| ring[(start + k) % ring.len()].1)
                    .find(|&i| eligible(i))
            }
        }
    }
}

fn weighted_random(
    rng: &mut fastrand::Rng,
    weights: &[u32],
    eligible: &impl Fn(usize) -> bool,
) -> Option<usize> {
    let total: u64 = (0..weights.len())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn run(policy: Policy, weights: &[u32], picks: usize) -> Vec<usize> {
        let mut b = Balancer::new(policy, weights.len(), 7);
        let mut counts = vec![0; weights.len()];
        for _ in 0..picks {
            counts[b.pick(weights, |_| true, |_| 0).unwrap()] += 1;
        }
        counts
    }

    #[test]
    fn smooth_round_robin_is_exact_and_interleaved() {
        let mut b = Balancer::new(Policy::RoundRobin, 3, 0);
        let seq: Vec<usize> = (0..7)
            .map(|_| b.pick(&[5, 1, 1], |_| true, |_| 0).unwrap())
            .collect();
        assert_eq!(seq, [0, 0, 1, 0, 2, 0, 0]);
        assert_eq!(run(Policy::RoundRobin, &[3, 1], 4000), [3000, 1000]);
    }

    #[test]
    fn random_follows_weights() {
        let c = run(Policy::Random, &[3, 1], 40_000);
        assert!((c[0] as f64 / 40_000.0 - 0.75).abs() < 0.02, "{c:?}");
    }

    #[test]
    fn ineligible_endpoints_are_skipped() {
        for p in [
            Policy::RoundRobin,
            Policy::Random,
            Policy::LeastActive,
            Policy::LeastRequest,
            Policy::ConsistentHash,
        ] {
            let mut b = Balancer::new(p, 3, 1);
            for k in 0..50 {
                assert_eq!(
                    b.pick_keyed(&[1, 1, 1], |i| i == 2, |_| 0, Some(k)),
                    Some(2)
                );
            }
            assert_eq!(b.pick(&[1, 1, 1], |_| false, |_| 0), None);
        }
    }

    #[test]
    fn least_request_prefers_idle_and_heavy() {
        let mut b = Balancer::new(Policy::LeastRequest, 3, 0);
        let active = [5, 0, 2];
        assert_eq!(b.pick(&[1, 1, 1], |_| true, |i| active[i]), Some(1));
        // Twice the weight tolerates about twice the load.
        assert_eq!(b.pick(&[10, 1, 1], |_| true, |i| [3, 1, 1][i]), Some(0));
    }

    #[test]
    fn least_active_takes_the_idlest_then_weights() {
        let mut b = Balancer::new(Policy::LeastActive, 3, 0);
        // Weight does not buy load: the idle one wins whatever the weights.
        for _ in 0..20 {
            assert_eq!(b.pick(&[100, 1, 100], |_| true, |i| [3, 0, 1][i]), Some(1));
        }
        // Ties: weighted random among the idlest only.
        let mut c = [0; 3];
        for _ in 0..10_000 {
            c[b.pick(&[3, 1, 100], |_| true, |i| [0, 0, 1][i]).unwrap()] += 1;
        }
        assert_eq!(c[2], 0);
        assert!((c[0] as f64 / 10_000.0 - 0.75).abs() < 0.03, "{c:?}");
    }

    #[test]
    fn consistent_hash_is_sticky_and_moves_little() {
        let ids: Vec<u64> = (0..4)
            .map(|i| hash_of(format!("127.0.0.1:{}", 20880 + i)))
            .collect();
        let mut b = Balancer::new(Policy::ConsistentHash, 4, 0);
        b.set_identities(&ids);
        let keys: Vec<u64> = (0..1000)
            .map(|k| key_hash(format!("user-{k}").as_bytes()))
            .collect();
        let first: Vec<usize> = keys
            .iter()
            .map(|&k| b.pick_keyed(&[1; 4], |_| true, |_| 0, Some(k)).unwrap())
            .collect();
        let again: Vec<usize> = keys
            .iter()
            .map(|&k| b.pick_keyed(&[1; 4], |_| true, |_| 0, Some(k)).unwrap())
            .collect();
        assert_eq!(first, again);
        let mut per = [0; 4];
        first.iter().for_each(|&i| per[i] += 1);
        assert!(per.iter().all(|&c| (150..=350).contains(&c)), "{per:?}");
        // Endpoint 3 goes: only its keys move.
        let mut b3 = Balancer::new(Policy::ConsistentHash, 3, 0);
        b3.set_identities(&ids[..3]);
        for (&k, &was) in keys.iter().zip(&first) {
            let now = b3.pick_keyed(&[1; 3], |_| true, |_| 0, Some(k)).unwrap();
            if was != 3 {
                assert_eq!(now, was);
            }
        }
    }
}
