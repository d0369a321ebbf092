//! The global memory budget, driven with no sockets: callers holding parts of large frames
//! are paused once `limits.max_buffered_bytes` is spent, their frame timeout still closes
//! them, a caller whose frames arrive whole is served throughout, and what they held is
//! given back when they go.

use std::sync::atomic::Ordering::Relaxed;

use super::*;
use dubbo_codec::Serialization;

const BUDGET: usize = 1 << 20;

fn worker() -> (Worker, Arc<Shared>, Instant) {
    super::test_rig::one_worker(
        "frame_timeout_ms = 1000",
        &format!("[limits]\nmax_buffered_bytes = {BUDGET}"),
    )
}

/// The header of a two-way call claiming `len` body bytes, and `sent` of them.
fn begun(len: u32, sent: usize) -> BytesMut {
    let mut b = BytesMut::from(
        &Header::request(1, Serialization::Hessian2, true)
            .with_body_len(len)
            .to_bytes()[..],
    );
    b.extend_from_slice(&vec![0; sent]);
    b
}

/// (callers paused, callers closed, heartbeats answered) by the effects since the last call.
fn effects(w: &mut Worker) -> (Vec<Key>, Vec<Key>, usize) {
    let (mut paused, mut closed, mut flushed) = (Vec::new(), Vec::new(), 0);
    while let Some(e) = w.poll_effect() {
        match e {
            Effect::PauseRead(Conn::Down(k)) => paused.push(k),
            Effect::Close(Conn::Down(k)) => closed.push(k),
            Effect::Flush(Conn::Down(_)) => flushed += 1,
            _ => {}
        }
    }
    (paused, closed, flushed)
}

#[test]
fn parts_of_frames_past_the_budget_are_paused_and_timed_out() {
    let (mut w, shared, mut now) = worker();
    let gauge = || shared.metrics.buffered_bytes.load(Relaxed);
    let (a, b, bystander) = (
        w.open_downstream(0, now),
        w.open_downstream(0, now),
        w.open_downstream(0, now),
    );
    // a holds 600 KiB of a 4 MiB frame: under the budget, read on.
    let mut abuf = begun(4 << 20, 600 << 10);
    w.downstream_data(a, &mut abuf, now);
    assert_eq!(effects(&mut w).0, []);
    assert_eq!(gauge(), (600 << 10) + 16);
    // b brings the total past it: paused, its bytes stay in its buffer.
    let mut bbuf = begun(4 << 20, 600 << 10);
    w.downstream_data(b, &mut bbuf, now);
    assert_eq!(effects(&mut w).0, [b]);
    assert_eq!(bbuf.len(), (600 << 10) + 16);
    assert_eq!(shared.metrics.memory_read_pauses.load(Relaxed), 1);
    // A caller whose frames come whole is served all the same.
    let mut hb = BytesMut::new();
    Frame::heartbeat_request(5).encode(&mut hb).unwrap();
    w.downstream_data(bystander, &mut hb, now);
    assert_eq!(effects(&mut w), (vec![], vec![], 1));
    // Neither finishes its frame: the frame timeout closes both, the paused one too.
    for _ in 0..11 {
        now += Duration::from_millis(100);
        w.tick(now);
    }
    let (_, mut closed, _) = effects(&mut w);
    closed.sort_by_key(|k| k.idx());
    assert_eq!(closed, [a, b]);
    for k in closed {
        w.closed(Conn::Down(k), now);
    }
    // What they held is given back: the bystander's unwritten answer is all that is left.
    let answer = w.outbox(Conn::Down(bystander)).unwrap().len();
    assert_eq!(gauge(), answer as i64);
    // Under the budget again: a new caller's large frame is read.
    let c = w.open_downstream(0, now);
    let mut cbuf = begun(4 << 20, 900 << 10);
    w.downstream_data(c, &mut cbuf, now);
    assert_eq!(effects(&mut w).0, []);
}

#[test]
fn paused_callers_read_on_once_the_budget_is_free() {
    let (mut w, _shared, mut now) = worker();
    let (a, b) = (w.open_downstream(0, now), w.open_downstream(0, now));
    let mut abuf = begun(4 << 20, 900 << 10);
    w.downstream_data(a, &mut abuf, now);
    let mut bbuf = begun(4 << 20, 300 << 10);
    w.downstream_data(b, &mut bbuf, now);
    assert_eq!(effects(&mut w).0, [b]);
    // a leaves: at the next housekeeping round b reads on.
    w.closed(Conn::Down(a), now);
    now += Duration::from_millis(200);
    w.tick(now);
    let mut resumed = Vec::new();
    while let Some(e) = w.poll_effect() {
        if let Effect::ResumeRead(Conn::Down(k)) = e {
            resumed.push(k);
        }
    }
    assert_eq!(resumed, [b]);
}
