//! TLS handshakes under way per caller address, over all workers. A handshake costs the
//! proxy a key exchange and a connection slot for as long as it lasts, so a listener's
//! `max_handshakes_per_ip` caps how many one address may have at once: a flood from one
//! address is turned away at accept, counted and logged, while other callers are served.
//! Finished handshakes free their place, so an address may keep any number of connections.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// The handshakes under way, by caller address.
#[derive(Debug, Default)]
pub struct Handshakes {
    under_way: Mutex<HashMap<IpAddr, usize>>,
}

/// One handshake's place, given back when dropped (the handshake finished, failed or its
/// connection closed).
#[derive(Debug)]
pub struct Permit {
    table: Arc<Handshakes>,
    ip: IpAddr,
}

impl Handshakes {
    /// A place for a handshake from `ip`, unless it has `max` under way already.
    pub fn begin(self: &Arc<Self>, ip: IpAddr, max: usize) -> Option<Permit> {
        let mut under_way = self.under_way.lock().unwrap_or_else(|e| e.into_inner());
        let n = under_way.entry(ip).or_default();
        if *n >= max {
            return None;
        }
        *n += 1;
        Some(Permit {
            table: self.clone(),
            ip,
        })
    }

    /// Handshakes under way from `ip`.
    #[cfg(test)]
    fn under_way(&self, ip: IpAddr) -> usize {
        let under_way = self.under_way.lock().unwrap_or_else(|e| e.into_inner());
        under_way.get(&ip).copied().unwrap_or(0)
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut under_way = self
            .table
            .under_way
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(n) = under_way.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                under_way.remove(&self.ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_gets_max_places_and_each_comes_back() {
        let table = Arc::new(Handshakes::default());
        let (a, b): (IpAddr, IpAddr) = ("127.0.0.1".parse().unwrap(), "127.0.0.2".parse().unwrap());
        let mut held: Vec<Permit> = (0..3).map(|_| table.begin(a, 3).unwrap()).collect();
        assert!(
            table.begin(a, 3).is_none(),
            "a fourth from the same address"
        );
        let other = table.begin(b, 3).expect("another address is not held back");
        held.pop();
        assert_eq!(table.under_way(a), 2);
        assert!(table.begin(a, 3).is_some(), "a place came back");
        drop(other);
        assert_eq!(table.under_way(b), 0);
        assert!(
            table.under_way.lock().unwrap().get(&b).is_none(),
            "no entry kept for an idle address"
        );
    }
}
