//! Backpressure: the watermark state machine of one outbox, and the reasons a caller
//! connection's reads are paused.
//!
//! An outbox (bytes waiting to be written on a connection) that grows past the **high**
//! watermark is *backed up*; it stays so until writes bring it down to the **low** watermark
//! (hysteresis: a connection hovering around one threshold does not flip at every frame).
//! What the worker does about it depends on the side:
//!
//! * a caller's outbox backed up: that caller is not reading its answers, so its requests
//!   stop being read ([`Pause::OUTBOX`]); only the answers to its calls already in flight can
//!   still add to it, and past the **hard cap** the connection is closed (what waits on it
//!   is dropped, its calls leave the id map). Provider connections are never paused for
//!   one caller: they are multiplexed across many.
//! * a provider connection's outbox backed up: the provider is not reading as fast as calls
//!   come, so the connection takes new calls only when no other connection or endpoint of
//!   the cluster can. When none can, the call still goes on the least backed-up one, and
//!   the caller that sent it stops being read ([`Pause::UPSTREAM`]): the push-back a TCP
//!   proxy gives, carried from the provider to the callers feeding it. Its reads resume
//!   when a connection of that cluster comes down to the low watermark, closes or is opened
//!   (then the next call finds room, or pauses it again; an endpoint whose ejection ends
//!   is no such event: they wait for their own connection). What still arrives once every
//!   connection is past the hard cap (calls read before the pause took effect, from many
//!   callers at once) gets SERVER_THREADPOOL_EXHAUSTED_ERROR.
//!
//! Pausing for a provider pauses the whole caller connection: a Dubbo connection is one
//! ordered stream, and the call behind the blocked one cannot be read without reading that
//! one. So a caller whose next calls would go to another cluster waits too (as it would
//! behind an L4 proxy); the alternative, reading on and refusing the blocked cluster's calls,
//! is what the hard cap does. A paused caller's answers are still written (pausing stops
//! reads only), so its calls in flight complete and nothing waits on itself.
//!
//! A caller connection with too many calls in flight is paused too ([`Pause::INFLIGHT`]),
//! and released when a quarter of them have been answered.

use crate::config::Limits;

/// The three thresholds, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watermarks {
    /// Backed up above this.
    pub high: usize,
    /// Released at or below this.
    pub low: usize,
    /// A caller connection is closed above this.
    pub cap: usize,
    /// `limits.max_buffered_bytes`: what all callers together may make the proxy hold.
    pub budget: usize,
}

/// What a change of an outbox's length means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Nothing new.
    Same,
    /// It just went over the high watermark.
    BackedUp,
    /// It just came down to the low watermark.
    Released,
    /// It is over the hard cap.
    Overflow,
}

impl Watermarks {
    /// From the configuration.
    pub fn from_limits(l: &Limits) -> Watermarks {
        Watermarks {
            high: l.outbox_high_watermark,
            low: l.outbox_low_watermark,
            cap: l.outbox_hard_cap,
            budget: l.max_buffered_bytes,
        }
    }

    /// Bytes were added: the outbox is now `len` long. `backed_up` is its state, updated.
    #[inline]
    pub fn pushed(&self, backed_up: &mut bool, len: usize) -> Change {
        if len > self.cap {
            *backed_up = true;
            Change::Overflow
        } else if len > self.high && !*backed_up {
            *backed_up = true;
            Change::BackedUp
        } else {
            Change::Same
        }
    }

    /// Bytes were written: the outbox is now `len` long.
    #[inline]
    pub fn written(&self, backed_up: &mut bool, len: usize) -> Change {
        if *backed_up && len <= self.low {
            *backed_up = false;
            Change::Released
        } else {
            Change::Same
        }
    }
}

/// Why a caller connection's reads are paused: a set of reasons; reads resume when none is
/// left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pause(u8);

impl Pause {
    /// Its outbox is backed up.
    pub const OUTBOX: u8 = 1;
    /// It has `max_inflight` calls in flight.
    pub const INFLIGHT: u8 = 2;
    /// Its last call went on a backed-up provider connection: no connection of the
    /// cluster had room.
    pub const UPSTREAM: u8 = 4;
    /// Part of a frame is in while the callers together hold more than
    /// `limits.max_buffered_bytes` (see `worker::memory`).
    pub const MEMORY: u8 = 8;

    /// True while any reason holds.
    #[inline]
    pub fn is_paused(self) -> bool {
        self.0 != 0
    }

    /// True while reads are paused for something else than `reason`.
    #[inline]
    pub fn paused_but_for(self, reason: u8) -> bool {
        self.0 & !reason != 0
    }

    /// True while `reason` holds.
    #[inline]
    pub fn has(self, reason: u8) -> bool {
        self.0 & reason != 0
    }

    /// Sets or clears `reason`; `Some(true)` when reads must now stop, `Some(false)` when
    /// they may resume, `None` when that does not change.
    #[inline]
    pub fn set(&mut self, reason: u8, on: bool) -> Option<bool> {
        let was = self.is_paused();
        if on {
            self.0 |= reason;
        } else {
            self.0 &= !reason;
        }
        match (was, self.is_paused()) {
            (false, true) => Some(true),
            (true, false) => Some(false),
            _ => None,
        }
    }
}

/// In-flight count at which a connection paused for [`Pause::INFLIGHT`] resumes: three
/// quarters of the limit (so that a caller at its limit is not paused and resumed on every
/// answer: each resume costs an edge-triggered engine a read).
#[inline]
pub fn inflight_resume_at(max: u32) -> u32 {
    max - max / 4 - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: Watermarks = Watermarks {
        high: 100,
        low: 25,
        cap: 1000,
        budget: 10_000,
    };

    #[test]
    fn hysteresis_between_the_watermarks() {
        let mut b = false;
        assert_eq!(
            W.pushed(&mut b, 100),
            Change::Same,
            "at high is not over it"
        );
        assert!(!b);
        assert_eq!(W.pushed(&mut b, 101), Change::BackedUp);
        assert!(b);
        // Once: more bytes do not report it again.
        assert_eq!(W.pushed(&mut b, 500), Change::Same);
        // Writes between the watermarks keep it backed up.
        assert_eq!(W.written(&mut b, 99), Change::Same);
        assert_eq!(W.written(&mut b, 26), Change::Same);
        assert!(b);
        // Growing again between the watermarks reports nothing.
        assert_eq!(W.pushed(&mut b, 90), Change::Same);
        assert_eq!(W.written(&mut b, 25), Change::Released);
        assert!(!b);
        assert_eq!(W.written(&mut b, 0), Change::Same, "released once");
        // And it can back up again.
        assert_eq!(W.pushed(&mut b, 101), Change::BackedUp);
    }

    #[test]
    fn over_the_cap_is_an_overflow_every_time() {
        let mut b = false;
        assert_eq!(W.pushed(&mut b, 1001), Change::Overflow);
        assert!(b);
        assert_eq!(W.pushed(&mut b, 1000), Change::Same);
        assert_eq!(W.pushed(&mut b, 2000), Change::Overflow);
    }

    #[test]
    fn pause_reasons_combine() {
        let mut p = Pause::default();
        assert!(!p.is_paused());
        assert_eq!(p.set(Pause::OUTBOX, true), Some(true));
        assert_eq!(p.set(Pause::INFLIGHT, true), None, "already paused");
        assert_eq!(p.set(Pause::OUTBOX, false), None, "still in flight");
        assert!(p.has(Pause::INFLIGHT) && !p.has(Pause::OUTBOX));
        assert_eq!(p.set(Pause::OUTBOX, false), None, "clearing twice");
        assert_eq!(p.set(Pause::INFLIGHT, false), Some(false));
        assert!(!p.is_paused());
        assert_eq!(p.set(Pause::INFLIGHT, false), None);
    }

    #[test]
    fn inflight_resume_threshold() {
        assert_eq!(inflight_resume_at(4096), 3071);
        assert_eq!(inflight_resume_at(4), 2);
        assert_eq!(inflight_resume_at(1), 0);
    }
}
