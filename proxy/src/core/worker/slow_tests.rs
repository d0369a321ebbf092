//! Slow callers: a frame begun and not finished within `frame_timeout_ms`, or no frame at
//! all within `first_frame_timeout_ms`, closes the caller's connection; callers that send
//! whole frames are never touched. Driven with no sockets, time made up.

use std::sync::atomic::Ordering::Relaxed;

use super::*;
use dubbo_codec::Serialization;

const FRAME_TIMEOUT_MS: u64 = 1_000;
const FIRST_FRAME_TIMEOUT_MS: u64 = 5_000;

struct Rig {
    w: Worker,
    shared: Arc<Shared>,
    now: Instant,
}

fn rig() -> Rig {
    let (w, shared, now) = super::test_rig::one_worker(
        &format!(
            "frame_timeout_ms = {FRAME_TIMEOUT_MS}\nfirst_frame_timeout_ms = {FIRST_FRAME_TIMEOUT_MS}"
        ),
        "",
    );
    let mut rig = Rig { w, shared, now };
    rig.closed();
    rig
}

impl Rig {
    fn open(&mut self) -> Key {
        self.w.open_downstream(0, self.now)
    }

    /// `bytes` arrive from `down` (what the core leaves of them would wait in the engine's
    /// buffer; these callers never send the rest).
    fn send(&mut self, down: Key, bytes: &[u8]) {
        let mut buf = BytesMut::from(bytes);
        self.w.downstream_data(down, &mut buf, self.now);
    }

    /// Lets `ms` pass in the 100 ms steps of the engine's timer.
    fn advance(&mut self, ms: u64) {
        for _ in 0..ms / 100 {
            self.now += Duration::from_millis(100);
            self.w.tick(self.now);
        }
    }

    /// The caller connections closed since the last call.
    fn closed(&mut self) -> Vec<Key> {
        let mut out = Vec::new();
        while let Some(e) = self.w.poll_effect() {
            if let Effect::Close(Conn::Down(k)) = e {
                out.push(k);
            }
        }
        out
    }

    fn slow_closed(&self, reason: SlowCaller) -> u64 {
        self.shared.metrics.slow_closed[reason as usize].load(Relaxed)
    }
}

fn heartbeat(id: u64) -> BytesMut {
    let mut b = BytesMut::new();
    Frame::heartbeat_request(id).encode(&mut b).unwrap();
    b
}

#[test]
fn a_partial_header_is_closed_after_frame_timeout_and_whole_frames_are_not() {
    let mut r = rig();
    let trickler = r.open();
    let talker = r.open();
    r.send(trickler, &heartbeat(1)[..5]);
    for i in 0..4 {
        r.send(talker, &heartbeat(i));
        r.advance(200);
    }
    assert_eq!(r.closed(), [], "nobody before {FRAME_TIMEOUT_MS} ms");
    for i in 4..10 {
        r.send(talker, &heartbeat(i));
        r.advance(200);
    }
    // 2 s passed: the trickler is gone, the talker stays.
    assert_eq!(r.closed(), [trickler]);
    assert_eq!(r.slow_closed(SlowCaller::PartialFrame), 1);
    assert_eq!(r.slow_closed(SlowCaller::NoFrame), 0);
}

#[test]
fn a_frame_finished_in_time_restarts_the_clock_for_the_next_one() {
    let mut r = rig();
    let caller = r.open();
    let frame = heartbeat(7);
    // Three frames, each sent in two halves 800 ms apart: every one finishes within 1 s.
    for _ in 0..3 {
        let mut buf = BytesMut::from(&frame[..10]);
        r.w.downstream_data(caller, &mut buf, r.now);
        assert_eq!(
            buf.len(),
            10,
            "a partial header stays in the engine's buffer"
        );
        r.advance(800);
        buf.extend_from_slice(&frame[10..]);
        r.w.downstream_data(caller, &mut buf, r.now);
        assert!(buf.is_empty());
        r.advance(800);
    }
    assert_eq!(r.closed(), []);
    assert_eq!(r.slow_closed(SlowCaller::PartialFrame), 0);
}

#[test]
fn an_oversize_body_being_skipped_counts_as_a_frame_in_progress() {
    let mut r = rig();
    let caller = r.open();
    // A request header claiming a body over the 8 MiB default limit, then a trickle of it.
    let mut header = Header::request(9, Serialization::Hessian2, true).to_bytes();
    header[12..16].copy_from_slice(&(64u32 << 20).to_be_bytes());
    r.send(caller, &header);
    for _ in 0..15 {
        r.send(caller, &[0; 100]);
        r.advance(100);
    }
    assert_eq!(r.closed(), [caller]);
    assert_eq!(r.slow_closed(SlowCaller::PartialFrame), 1);
}

#[test]
fn a_silent_caller_is_closed_after_first_frame_timeout_and_one_that_spoke_is_not() {
    let mut r = rig();
    let silent = r.open();
    let spoke = r.open();
    r.send(spoke, &heartbeat(1));
    r.advance(FIRST_FRAME_TIMEOUT_MS - 1_000);
    assert_eq!(r.closed(), []);
    r.advance(2_000);
    assert_eq!(r.closed(), [silent]);
    assert_eq!(r.slow_closed(SlowCaller::NoFrame), 1);
    assert_eq!(r.slow_closed(SlowCaller::PartialFrame), 0);
}
