//! The request-id map of the upstream multiplexer, with call timeouts.
//!
//! Many callers' calls share one provider connection, and callers choose their request ids
//! freely (every Java consumer counts from 0), so ids are rewritten on the way up and restored
//! on the way back. The id sent upstream **is** the key of the call's entry here: the slab
//! index in the low 32 bits and a generation in the high 32. Finding a response's caller is
//! an array index and a compare; a late or forged response whose generation does not match
//! is dropped. Ids are unique per worker, so they are unique on every connection.
//!
//! Timeouts: calls with the same timeout expire in arrival order, so each distinct timeout
//! has a FIFO of (deadline, id) and only the front of each is ever looked at. Answered calls
//! are not removed from the FIFO (that would be a search); their stale entries are skipped
//! when they reach the front. Nothing here allocates once the slab and the FIFOs have grown
//! to the peak number of calls in flight; [`InFlightTable::shrink`], once a second, gives
//! back the room a stall left (a stopped provider's calls pile up in the FIFOs until they
//! time out) once far less of it is used.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use slab::Slab;

use crate::core::key::Key;
use crate::memory;

/// The room a timeout's FIFO starts with and keeps.
const QUEUE_ROOM: usize = 1024;
/// The slab's room kept when it shrinks.
const SLAB_ROOM: usize = 64;

/// One call waiting for its response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InFlight {
    /// The caller's connection.
    pub down: Key,
    /// The caller's request id, restored on the response.
    pub down_id: u64,
    /// The provider connection the call went out on.
    pub up: Key,
    /// The worker's route-stats index.
    pub route: u32,
    /// The frame's length (header and body) in the provider connection's outbox.
    pub len: u32,
    /// The frame's offset in the provider connection's stream
    /// ([`Outbox::end`](crate::core::outbox::Outbox::end) when it was pushed): not written
    /// yet while the outbox starts at or before it.
    pub at: u64,
    /// When the call arrived.
    pub start: Instant,
    /// The call's serialization id, which the proxy's own answer to it is written in.
    pub serialization: u8,
}

/// The map; see the [module docs](self).
#[derive(Default)]
pub struct InFlightTable {
    slab: Slab<(u32, InFlight)>,
    generation: u32,
    queues: Vec<(Duration, VecDeque<(Instant, u64)>)>,
}

/// The slab slot of upstream id `id` (its low 32 bits), if the call there is still the one
/// the id was given to (the high 32 bits are the generation it was inserted with).
#[inline]
fn slot(slab: &Slab<(u32, InFlight)>, id: u64) -> Option<usize> {
    let idx = (id & 0xffff_ffff) as usize;
    match slab.get(idx) {
        Some((g, _)) if *g == (id >> 32) as u32 => Some(idx),
        _ => None,
    }
}

impl InFlightTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of calls in flight.
    #[cfg(any(test, feature = "internals"))]
    pub fn len(&self) -> usize {
        self.slab.len()
    }

    /// True when no call is in flight.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.slab.is_empty()
    }

    /// Records a call; returns the id to send upstream.
    pub fn insert(&mut self, call: InFlight, timeout: Duration) -> u64 {
        self.generation = self.generation.wrapping_add(1);
        let idx = self.slab.insert((self.generation, call));
        let id = (u64::from(self.generation) << 32) | idx as u64;
        let deadline = call.start + timeout;
        let slab = &self.slab;
        match self.queues.iter_mut().find(|(t, _)| *t == timeout) {
            Some((_, q)) => {
                // Calls mostly end in the order they started: dropping the answered ones
                // from the front here keeps the FIFO about as long as the calls in flight
                // (instead of the calls of a whole timeout period), so it stops growing.
                while let Some(&(_, old)) = q.front() {
                    if slot(slab, old).is_some() {
                        break;
                    }
                    q.pop_front();
                }
                q.push_back((deadline, id))
            }
            None => {
                let mut q = VecDeque::with_capacity(QUEUE_ROOM);
                q.push_back((deadline, id));
                self.queues.push((timeout, q));
            }
        }
        id
    }

    fn index(&self, id: u64) -> Option<usize> {
        slot(&self.slab, id)
    }

    /// The call with upstream id `id`, if still in flight.
    pub fn get(&self, id: u64) -> Option<&InFlight> {
        self.index(id).map(|i| &self.slab[i].1)
    }

    /// Removes and returns the call with upstream id `id`.
    pub fn remove(&mut self, id: u64) -> Option<InFlight> {
        self.index(id).map(|i| self.slab.remove(i).1)
    }

    /// The earliest deadline that may still be live.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.queues
            .iter()
            .filter_map(|(_, q)| q.front().map(|(d, _)| *d))
            .min()
    }

    /// Removes and returns one call whose deadline is at or before `now`.
    pub fn pop_expired(&mut self, now: Instant) -> Option<(u64, InFlight)> {
        for qi in 0..self.queues.len() {
            while let Some(&(deadline, id)) = self.queues[qi].1.front() {
                if self.index(id).is_none() {
                    // Answered already.
                    self.queues[qi].1.pop_front();
                    continue;
                }
                if deadline > now {
                    break;
                }
                self.queues[qi].1.pop_front();
                if let Some(call) = self.remove(id) {
                    return Some((id, call));
                }
            }
        }
        None
    }

    /// Gives back the room of the slab and the FIFOs when far less of it is used (see
    /// [`memory::shrink_idle`]); a FIFO grown past its first room drops its answered entries
    /// first (in order). Once a second, not per call. Returns the bytes given back.
    pub fn shrink(&mut self) -> usize {
        let mut freed = 0;
        let slab = &self.slab;
        for (_, q) in &mut self.queues {
            if q.capacity() > QUEUE_ROOM {
                q.retain(|&(_, id)| slot(slab, id).is_some());
                freed += memory::shrink_idle(q, QUEUE_ROOM);
            }
        }
        freed + memory::shrink_idle(&mut self.slab, SLAB_ROOM)
    }

    /// Every call in flight, to change.
    pub fn for_each_mut(&mut self, mut f: impl FnMut(&mut InFlight)) {
        for (_, (_, call)) in self.slab.iter_mut() {
            f(call);
        }
    }

    /// Ids of the calls for which `f` holds, into `out` (cleared first).
    pub fn ids_where(&self, out: &mut Vec<u64>, f: impl Fn(&InFlight) -> bool) {
        out.clear();
        for (idx, (gen, call)) in self.slab.iter() {
            if f(call) {
                out.push((u64::from(*gen) << 32) | idx as u64);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(now: Instant, down_id: u64) -> InFlight {
        InFlight {
            serialization: 2,
            down: Key::new(1, 1),
            down_id,
            up: Key::new(2, 1),
            route: 0,
            len: 0,
            at: 0,
            start: now,
        }
    }

    #[test]
    fn ids_are_keys_with_generations() {
        let now = Instant::now();
        let mut t = InFlightTable::new();
        let a = t.insert(call(now, 7), Duration::from_secs(1));
        assert_eq!(t.get(a).unwrap().down_id, 7);
        assert_eq!(t.remove(a).unwrap().down_id, 7);
        assert!(t.remove(a).is_none());
        // The slot is reused with another generation: the old id stays dead.
        let b = t.insert(call(now, 8), Duration::from_secs(1));
        assert_eq!(a & 0xffff_ffff, b & 0xffff_ffff);
        assert_ne!(a, b);
        assert!(t.get(a).is_none());
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn room_a_stall_grew_is_given_back_and_ids_stay_valid() {
        let now = Instant::now();
        let mut t = InFlightTable::new();
        let second = Duration::from_secs(1);
        // A stalled provider: 5,000 calls wait, then are answered, but for one.
        let ids: Vec<u64> = (0..5000).map(|i| t.insert(call(now, i), second)).collect();
        let queue_room = |t: &InFlightTable| t.queues[0].1.capacity();
        assert!(queue_room(&t) >= 5000);
        for &id in &ids[1..] {
            t.remove(id);
        }
        assert!(t.shrink() > 0);
        assert!(t.slab.capacity() < 1024, "slab room {}", t.slab.capacity());
        assert!(
            queue_room(&t) < 2 * QUEUE_ROOM,
            "FIFO room {}",
            queue_room(&t)
        );
        // The call still in flight is found, and times out in order with new ones.
        assert_eq!(t.get(ids[0]).unwrap().down_id, 0);
        let later = t.insert(call(now + second, 9), second);
        assert_eq!(t.pop_expired(now + second).unwrap().0, ids[0]);
        assert_eq!(t.pop_expired(now + 2 * second).unwrap().0, later);
        assert!(t.is_empty());
        assert_eq!(t.shrink(), 0, "at its least room");
    }

    #[test]
    fn timeouts_in_order_skipping_answered() {
        let t0 = Instant::now();
        let mut t = InFlightTable::new();
        let ms = Duration::from_millis;
        let a = t.insert(call(t0, 1), ms(100));
        let b = t.insert(call(t0 + ms(10), 2), ms(100));
        let c = t.insert(call(t0, 3), ms(50));
        assert_eq!(t.next_deadline(), Some(t0 + ms(50)));
        assert!(t.pop_expired(t0 + ms(49)).is_none());
        assert_eq!(t.pop_expired(t0 + ms(50)).unwrap().0, c);
        t.remove(a);
        assert!(t.pop_expired(t0 + ms(100)).is_none());
        assert_eq!(t.next_deadline(), Some(t0 + ms(110)));
        assert_eq!(t.pop_expired(t0 + ms(110)).unwrap().0, b);
        assert!(t.is_empty());
        let mut ids = Vec::new();
        let d = t.insert(call(t0, 4), ms(1));
        t.ids_where(&mut ids, |c| c.down_id == 4);
        assert_eq!(ids, [d]);
    }
}
