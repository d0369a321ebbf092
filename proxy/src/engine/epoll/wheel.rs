//! A hashed timer wheel: 1 ms slots, 512 of them (a turn is 512 ms); a timer further out
//! waits in its slot for the turns in between.
//!
//! A loop has few timers: the core's next deadline (call timeouts and 100 ms housekeeping
//! are the core's own business, it reports the earliest), one per provider connection
//! being opened, and the drain limit on shutdown. Inserting is a push onto a slot;
//! cancelling is not needed (an entry that fires late is checked against its owner's state
//! by the loop, which drops it if stale). The earliest expiry is cached, so asking for the
//! poll timeout costs nothing per loop iteration.

use std::time::{Duration, Instant};

const SLOTS: usize = 512;
const RESOLUTION: Duration = Duration::from_millis(1);
/// Entries each slot has room for from the start. A slot allocated on its first push and
/// kept its capacity, so a loop's live heap crept up for minutes (by up to ~100 KiB, fast at
/// first, then slower) as the housekeeping timer touched one new slot after another: a
/// heap profile of an idle proxy showed it as a steady rise. Room for the usual few timers in
/// every slot up front makes that memory part of the baseline and the timer path
/// allocation-free; a slot that ever needs more grows, and keeps it, as before.
const SLOT_CAPACITY: usize = 4;

struct Entry<T> {
    at: u64,
    item: T,
}

/// See the [module docs](self).
pub struct Wheel<T> {
    origin: Instant,
    slots: Vec<Vec<Entry<T>>>,
    /// Ticks before this one have all fired.
    cur: u64,
    len: usize,
    /// The earliest tick of any entry (`u64::MAX`: none).
    next: u64,
}

impl<T> Wheel<T> {
    /// An empty wheel; ticks count from `now`.
    pub fn new(now: Instant) -> Wheel<T> {
        Wheel {
            origin: now,
            slots: (0..SLOTS)
                .map(|_| Vec::with_capacity(SLOT_CAPACITY))
                .collect(),
            cur: 0,
            len: 0,
            next: u64::MAX,
        }
    }

    /// The tick at or after `t` (timers never fire early).
    fn tick_ceil(&self, t: Instant) -> u64 {
        let d = t.saturating_duration_since(self.origin);
        let r = RESOLUTION.as_nanos();
        d.as_nanos().div_ceil(r) as u64
    }

    /// The last tick at or before `t`.
    fn tick_floor(&self, t: Instant) -> u64 {
        (t.saturating_duration_since(self.origin).as_nanos() / RESOLUTION.as_nanos()) as u64
    }

    /// Fires `item` at `deadline` (rounded up to the millisecond; a past deadline fires at
    /// the next [`Wheel::expire`]).
    pub fn insert(&mut self, deadline: Instant, item: T) {
        let at = self.tick_ceil(deadline).max(self.cur);
        self.slots[(at % SLOTS as u64) as usize].push(Entry { at, item });
        self.len += 1;
        self.next = self.next.min(at);
    }

    /// True with no timer pending.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How long until the earliest timer is due (`None`: no timer), for the poll timeout.
    pub fn timeout(&self, now: Instant) -> Option<Duration> {
        if self.next == u64::MAX {
            return None;
        }
        let due = self.origin + Duration::from_millis(self.next);
        Some(due.saturating_duration_since(now))
    }

    /// Moves every timer due at `now` into `out`.
    pub fn expire(&mut self, now: Instant, out: &mut Vec<T>) {
        let target = self.tick_floor(now);
        if target < self.next {
            self.cur = self.cur.max(target);
            return;
        }
        // Every entry is at or after both the hand and `next`; each slot is looked at once
        // at most (a loop that slept for turns sees every slot once).
        let from = self
            .cur
            .max(self.next)
            .max(target.saturating_sub(SLOTS as u64 - 1));
        for t in from..=target {
            let slot = &mut self.slots[(t % SLOTS as u64) as usize];
            let mut i = 0;
            while i < slot.len() {
                if slot[i].at <= target {
                    out.push(slot.swap_remove(i).item);
                    self.len -= 1;
                } else {
                    i += 1;
                }
            }
        }
        // Entries inserted from now on are at `target` or later: still fired by an
        // `expire` at this same instant.
        self.cur = target;
        self.next = u64::MAX;
        if self.len > 0 {
            // The earliest: the first slot from the hand on with an entry due in this turn;
            // else (only entries turns away) the smallest of all.
            for t in self.cur..self.cur + SLOTS as u64 {
                if self.slots[(t % SLOTS as u64) as usize]
                    .iter()
                    .any(|e| e.at == t)
                {
                    self.next = t;
                    break;
                }
            }
            if self.next == u64::MAX {
                self.next = self
                    .slots
                    .iter()
                    .flat_map(|s| s.iter().map(|e| e.at))
                    .min()
                    .unwrap_or(u64::MAX);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn fires_in_order_never_early() {
        let t0 = Instant::now();
        let mut w = Wheel::new(t0);
        w.insert(t0 + ms(5), 5);
        w.insert(t0 + ms(2), 2);
        w.insert(t0 + Duration::from_micros(2500), 3);
        assert_eq!(w.timeout(t0), Some(ms(2)));
        let mut out = Vec::new();
        w.expire(t0 + Duration::from_micros(1999), &mut out);
        assert!(out.is_empty());
        w.expire(t0 + ms(2), &mut out);
        assert_eq!(out, [2]);
        assert_eq!(w.timeout(t0 + ms(2)), Some(ms(1)));
        w.expire(t0 + ms(3), &mut out);
        assert_eq!(out, [2, 3]);
        w.expire(t0 + ms(100), &mut out);
        assert_eq!(out, [2, 3, 5]);
        assert!(w.is_empty());
        assert_eq!(w.timeout(t0), None);
    }

    #[test]
    fn timers_turns_away_and_late_expiry() {
        let t0 = Instant::now();
        let mut w = Wheel::new(t0);
        // Same slot, different turns.
        w.insert(t0 + ms(10), 'a');
        w.insert(t0 + ms(10 + SLOTS as u64), 'b');
        w.insert(t0 + ms(10 + 3 * SLOTS as u64), 'c');
        let mut out = Vec::new();
        w.expire(t0 + ms(11), &mut out);
        assert_eq!(out, ['a']);
        assert_eq!(w.timeout(t0), Some(ms(10 + SLOTS as u64)));
        // A loop that slept for several turns fires everything due, once.
        w.expire(t0 + ms(10 * SLOTS as u64), &mut out);
        out.sort();
        assert_eq!(out, ['a', 'b', 'c']);
        assert!(w.is_empty());
    }

    #[test]
    fn past_deadlines_fire_at_once() {
        let t0 = Instant::now();
        let mut w = Wheel::new(t0);
        let mut out = Vec::new();
        w.expire(t0 + ms(50), &mut out);
        w.insert(t0 + ms(10), 1);
        assert_eq!(w.timeout(t0 + ms(50)), Some(Duration::ZERO));
        w.expire(t0 + ms(50), &mut out);
        assert_eq!(out, [1]);
    }

    #[test]
    fn the_timer_path_does_not_grow_slots() {
        // The loop's pattern: one housekeeping timer re-armed 100 ms ahead at each tick, and
        // a connect timer now and then, for many turns of the wheel: no slot reallocates.
        let t0 = Instant::now();
        let mut w = Wheel::new(t0);
        let start: Vec<usize> = w.slots.iter().map(Vec::capacity).collect();
        let mut out = Vec::new();
        let turns = if cfg!(miri) { 2 } else { 40 };
        for now in (0..turns * SLOTS as u64).step_by(7) {
            w.insert(t0 + ms(now + 100), 0);
            if now % 91 == 0 {
                w.insert(t0 + ms(now + 3000), 1);
            }
            w.expire(t0 + ms(now), &mut out);
        }
        assert!(!out.is_empty());
        let end: Vec<usize> = w.slots.iter().map(Vec::capacity).collect();
        assert_eq!(start, end);
    }

    #[test]
    fn many_random_timers() {
        let t0 = Instant::now();
        let mut w = Wheel::new(t0);
        let mut rng = fastrand::Rng::with_seed(7);
        let mut due: Vec<(u64, u32)> = Vec::new();
        let mut fired = Vec::new();
        let mut now = 0u64;
        let n = if cfg!(miri) { 300 } else { 5000 };
        for i in 0..n {
            let at = now + rng.u64(0..3000);
            w.insert(t0 + ms(at), i);
            due.push((at, i));
            now += rng.u64(0..3);
            let mut out = Vec::new();
            w.expire(t0 + ms(now), &mut out);
            for x in out {
                let (at, _) = due.iter().find(|d| d.1 == x).copied().unwrap();
                assert!(at <= now, "fired early");
                fired.push(x);
            }
            // Nothing due is left behind.
            if let Some(t) = w.timeout(t0 + ms(now)) {
                assert!(t > Duration::ZERO || w.is_empty());
            }
        }
        let mut out = Vec::new();
        w.expire(t0 + ms(now + 10_000), &mut out);
        fired.extend(out);
        assert_eq!(fired.len(), n as usize);
    }
}
