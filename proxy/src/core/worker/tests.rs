//! The worker's backpressure and active health checks, driven with no sockets: outboxes are
//! "written" by clearing them and telling [`Worker::written`], time is a made-up `Instant`.

use std::sync::atomic::Ordering::Relaxed;

use bytes::Buf;
use dubbo_codec::response::{Outcome, RpcResult};
use dubbo_codec::Request;
use hessian2::value::Value;

use super::*;
use crate::config::Config;

const SVC: &str = "com.example.DemoService";

struct Rig {
    w: Worker,
    shared: Arc<Shared>,
    now: Instant,
    ups: Vec<Key>,
    down: Key,
    dbuf: BytesMut,
}

fn rig(extra: &str, endpoints: usize) -> Rig {
    rig_with(extra, endpoints, 1000)
}

fn rig_with(extra: &str, endpoints: usize, max_inflight: u32) -> Rig {
    rig_opts(extra, endpoints, max_inflight, true)
}

/// `connect`: false leaves the provider connections opening.
fn rig_opts(extra: &str, endpoints: usize, max_inflight: u32, connect: bool) -> Rig {
    let eps: Vec<String> = (1..=endpoints)
        .map(|i| format!("{{ address = \"127.0.0.1:{i}\" }}"))
        .collect();
    let toml = format!(
        r#"
workers = 1
[limits]
outbox_high_watermark = 1000
outbox_low_watermark = 200
outbox_hard_cap = 6000
[[listeners]]
address = "127.0.0.1:0"
max_inflight = {max_inflight}
max_connections = 2
[[routes]]
cluster = "c"
timeout_ms = 1000
[clusters.c]
max_payload = 4096
endpoints = [{}]
{extra}
"#,
        eps.join(", "),
    );
    let shared = Shared::new(Config::from_toml(&toml).unwrap(), 1);
    let now = Instant::now();
    let mut w = Worker::new(0, shared.clone(), now);
    let mut ups = Vec::new();
    while let Some(e) = w.poll_effect() {
        if let Effect::Connect { up, .. } = e {
            if connect {
                w.upstream_connected(up, now);
            }
            ups.push(up);
        }
    }
    let down = w.open_downstream(0, now);
    Rig {
        w,
        shared,
        now,
        ups,
        down,
        dbuf: BytesMut::new(),
    }
}

fn request(id: u64, arg_len: usize) -> BytesMut {
    let mut b = BytesMut::new();
    Request::builder(SVC, "sayHello")
        .arg("java.lang.String", &"x".repeat(arg_len))
        .build()
        .unwrap()
        .to_frame(id, true)
        .encode(&mut b)
        .unwrap();
    b
}

fn frames(out: &[u8]) -> Vec<Frame> {
    let mut codec = FrameCodec::with_max_payload(u32::MAX);
    let mut b = BytesMut::from(out);
    let mut v = Vec::new();
    while let Some(f) = codec.decode_frame(&mut b).unwrap() {
        v.push(f);
    }
    v
}

impl Rig {
    /// The caller sends a call (it may stay in the caller's buffer if reads are paused).
    fn call(&mut self, id: u64, arg_len: usize) {
        self.dbuf.extend_from_slice(&request(id, arg_len));
        self.w.downstream_data(self.down, &mut self.dbuf, self.now);
    }

    fn effects(&mut self) -> Vec<Effect> {
        std::iter::from_fn(|| self.w.poll_effect()).collect()
    }

    /// Takes what waits on a provider connection: the frames "written".
    fn drain_up(&mut self, i: usize) -> Vec<Frame> {
        let out = self.w.outbox(Conn::Up(self.ups[i])).unwrap();
        let f = frames(out);
        out.clear();
        self.w.written(Conn::Up(self.ups[i]));
        f
    }

    /// The provider answers each call with a body of about `len` bytes.
    fn answer(&mut self, i: usize, calls: &[Frame], len: usize) {
        let mut b = BytesMut::new();
        for c in calls {
            RpcResult::new(Outcome::Value(Value::String("y".repeat(len))))
                .to_frame(c.request_id())
                .encode(&mut b)
                .unwrap();
        }
        self.w.upstream_data(self.ups[i], &mut b, self.now);
    }

    /// Another caller sends a call (taken whole unless its reads are paused).
    fn call_from(&mut self, down: Key, id: u64, arg_len: usize) -> BytesMut {
        let mut b = request(id, arg_len);
        self.w.downstream_data(down, &mut b, self.now);
        b
    }

    fn up_len(&mut self, i: usize) -> usize {
        self.w.outbox_chain(Conn::Up(self.ups[i])).unwrap().len()
    }

    fn down_len(&mut self) -> usize {
        self.w.outbox(Conn::Down(self.down)).map_or(0, |o| o.len())
    }

    fn metric(&self, f: impl Fn(&crate::core::metrics::Registry) -> i64) -> i64 {
        f(&self.shared.metrics)
    }
}

#[test]
fn a_caller_that_does_not_read_is_paused_resumed_and_closed_past_the_cap() {
    let mut r = rig("", 1);
    let pause = Effect::PauseRead(Conn::Down(r.down));
    // Two calls answered with 400 bytes each: below the high watermark (1000).
    r.call(1, 10);
    r.call(2, 10);
    let calls = r.drain_up(0);
    assert_eq!(calls.len(), 2);
    r.answer(0, &calls, 400);
    assert!(!r.effects().contains(&pause));
    // A third answer takes it over: reads pause.
    r.call(3, 10);
    let calls = r.drain_up(0);
    r.answer(0, &calls, 400);
    assert!(r.down_len() > 1000);
    assert!(r.effects().contains(&pause));
    assert_eq!(r.metric(|m| m.paused_connections.load(Relaxed)), 1);
    // A call sent now is not taken: it waits in the caller's buffer.
    r.call(4, 10);
    assert!(!r.dbuf.is_empty());
    assert!(r.drain_up(0).is_empty());
    // Written down to just above the low watermark: still paused.
    let out = r.w.outbox(Conn::Down(r.down)).unwrap();
    let keep = out.len() - 201;
    out.advance(keep);
    assert!(!r.w.written(Conn::Down(r.down)));
    // Down to the low watermark: resumed, and the call waiting is taken.
    r.w.outbox(Conn::Down(r.down)).unwrap().advance(1);
    assert!(r.w.written(Conn::Down(r.down)));
    assert_eq!(
        r.effects(),
        [Effect::ResumeRead(Conn::Down(r.down))],
        "resumed once"
    );
    assert_eq!(r.metric(|m| m.paused_connections.load(Relaxed)), 0);
    r.w.downstream_data(r.down, &mut r.dbuf, r.now);
    assert!(r.dbuf.is_empty());
    assert_eq!(r.drain_up(0).len(), 1);

    // It stops reading altogether: calls in flight go on being answered into its outbox
    // (paused at 1000), and past the hard cap (6000) it is closed with the outbox dropped.
    r.w.outbox(Conn::Down(r.down)).unwrap().clear();
    r.w.written(Conn::Down(r.down));
    let mut calls = Vec::new();
    for id in 10..30 {
        r.call(id, 10);
        calls.extend(r.drain_up(0));
    }
    assert_eq!(calls.len(), 20);
    assert_eq!(r.w.inflight(), 21);
    r.effects();
    let mut closed = false;
    for c in calls.chunks(1) {
        r.answer(0, c, 1000);
        assert!(
            r.down_len() <= 6000 + 1100,
            "bounded by the cap and one answer"
        );
        if r.effects().contains(&Effect::Close(Conn::Down(r.down))) {
            closed = true;
            break;
        }
    }
    assert!(closed, "closed past the hard cap");
    assert_eq!(r.down_len(), 0, "what waited on it is dropped");
    assert_eq!(r.metric(|m| m.overflow_closed.load(Relaxed) as i64), 1);
    assert!(r.metric(|m| m.outbox_high_water.load(Relaxed) as i64) > 6000);
    // Once closed, its calls leave the id map.
    assert!(r.w.inflight() > 0);
    r.w.closed(Conn::Down(r.down), r.now);
    assert_eq!(r.w.inflight(), 0);
    assert_eq!(r.metric(|m| m.paused_connections.load(Relaxed)), 0);
}

#[test]
fn max_inflight_pauses_until_a_quarter_is_answered() {
    let mut r = rig_with("", 1, 4);
    for id in 0..4 {
        r.call(id, 10);
    }
    assert!(r.effects().contains(&Effect::PauseRead(Conn::Down(r.down))));
    r.call(4, 10);
    assert!(!r.dbuf.is_empty(), "the fifth call waits");
    let calls = r.drain_up(0);
    assert_eq!(calls.len(), 4);
    // 3 in flight: not yet (resumes at 2).
    r.answer(0, &calls[..1], 10);
    assert!(!r
        .effects()
        .contains(&Effect::ResumeRead(Conn::Down(r.down))));
    r.answer(0, &calls[1..2], 10);
    assert!(r
        .effects()
        .contains(&Effect::ResumeRead(Conn::Down(r.down))));
    r.w.downstream_data(r.down, &mut r.dbuf, r.now);
    assert_eq!(r.drain_up(0).len(), 1);
}

#[test]
fn a_backed_up_provider_connection_gets_calls_only_when_no_other_can() {
    let mut r = rig("", 2);
    // The first endpoint's provider reads nothing: calls pile up on it until it is backed
    // up (over 1000 bytes), then every call goes to the second.
    let mut to_second = 0;
    for id in 0..20 {
        r.call(id, 300);
        to_second += r.drain_up(1).len();
    }
    let stuck = r.w.outbox(Conn::Up(r.ups[0])).unwrap().len();
    assert!((1000..1500).contains(&stuck), "{stuck}");
    assert!(to_second >= 16, "{to_second}");
    let shared = r.shared.clone();
    let m = &shared.metrics;
    assert_eq!(m.upstream_backed_up_connections.load(Relaxed), 1);
    let first = m.endpoint_health("c", "127.0.0.1:1");
    assert_eq!(first.backed_up.load(Relaxed), 1);
    assert_eq!(
        m.endpoint_health("c", "127.0.0.1:2")
            .backed_up
            .load(Relaxed),
        0
    );
    // The second stops reading too: both backed up. A call still goes on the least backed
    // up (a burst to providers that are merely behind) and pauses its caller; callers keep
    // coming, one call each, until both are past the hard cap (6000): then what arrives is
    // refused at once, the provider cannot take it now.
    let mut answers = Vec::new();
    for id in 100..200 {
        let caller = r.w.open_downstream(0, r.now);
        assert!(r.call_from(caller, id, 300).is_empty());
        answers.extend(frames(r.w.outbox(Conn::Down(caller)).unwrap()));
    }
    r.effects();
    let paused = r.metric(|m| m.upstream_read_pauses.load(Relaxed) as i64);
    assert!(paused >= 10, "{paused} paused");
    assert!(paused as usize + answers.len() <= 100);
    for up in [r.ups[0], r.ups[1]] {
        let len = r.w.outbox(Conn::Up(up)).unwrap().len();
        assert!((6000..6500).contains(&len), "{len}");
    }
    assert!(answers.len() > 40, "{}", answers.len());
    assert!(
        answers.iter().all(|f| f.header().status_byte() == 100),
        "SERVER_THREADPOOL_EXHAUSTED_ERROR"
    );
    assert_eq!(
        r.metric(|m| m.upstream_backed_up.load(Relaxed) as i64),
        answers.len() as i64
    );
    // The first one catches up: it takes calls again, and it is preferred.
    r.drain_up(0);
    assert_eq!(first.backed_up.load(Relaxed), 0);
    assert_eq!(m.upstream_backed_up_connections.load(Relaxed), 1);
    r.call(200, 10);
    r.call(201, 10);
    assert_eq!(r.drain_up(0).len(), 2);
}

#[test]
fn callers_feeding_a_backed_up_provider_are_paused_until_it_catches_up() {
    let mut r = rig("", 1);
    let pause = Effect::PauseRead(Conn::Down(r.down));
    // The only provider reads nothing: calls pile up on its connection until it is backed
    // up (1000); the first call that finds it so still goes on it, and pauses the caller.
    let mut id = 0;
    while !r.effects().contains(&pause) {
        assert!(id < 10, "never paused");
        r.call(id, 300);
        id += 1;
    }
    let stuck = r.up_len(0);
    // The high watermark and two calls at most (the one that backed it up, the one that
    // found it so).
    assert!((1000..2000).contains(&stuck), "{stuck}");
    assert_eq!(r.metric(|m| m.upstream_read_pauses.load(Relaxed) as i64), 1);
    assert_eq!(r.metric(|m| m.paused_connections.load(Relaxed)), 1);
    // What it sends now waits in its buffer: not refused, not queued upstream.
    r.call(100, 300);
    r.call(101, 300);
    assert!(!r.dbuf.is_empty());
    assert_eq!(r.down_len(), 0, "no answer of its own");
    assert_eq!(r.up_len(0), stuck);
    // Another caller's first call pauses it too.
    let other = r.w.open_downstream(0, r.now);
    assert!(r.call_from(other, 500, 300).is_empty());
    assert!(r.effects().contains(&Effect::PauseRead(Conn::Down(other))));
    assert_eq!(r.metric(|m| m.paused_connections.load(Relaxed)), 2);
    // The provider reads: both resume, the calls that waited go, all are answered.
    let mut calls = r.drain_up(0);
    let resumed = r.effects();
    assert!(resumed.contains(&Effect::ResumeRead(Conn::Down(r.down))));
    assert!(resumed.contains(&Effect::ResumeRead(Conn::Down(other))));
    r.w.downstream_data(r.down, &mut r.dbuf, r.now);
    assert!(r.dbuf.is_empty());
    calls.extend(r.drain_up(0));
    assert_eq!(calls.len(), id as usize + 3);
    r.answer(0, &calls, 10);
    assert_eq!(r.w.inflight(), 0);
    let out = r.w.outbox(Conn::Down(r.down)).unwrap();
    let answers = frames(out);
    assert_eq!(answers.len(), id as usize + 2);
    assert!(answers.iter().all(|f| f.header().status_byte() == 20));
    assert_eq!(r.metric(|m| m.upstream_backed_up.load(Relaxed) as i64), 0);
    assert_eq!(r.metric(|m| m.paused_connections.load(Relaxed)), 0);
}

#[test]
fn a_caller_paused_for_a_provider_resumes_when_its_connection_is_lost() {
    let mut r = rig("", 1);
    for id in 0..5 {
        r.call(id, 300);
    }
    assert!(r.effects().contains(&Effect::PauseRead(Conn::Down(r.down))));
    // Answers to its calls are written while it is paused (here: the connection's loss).
    r.w.closed(Conn::Up(r.ups[0]), r.now);
    assert!(r
        .effects()
        .contains(&Effect::ResumeRead(Conn::Down(r.down))));
    let answers = frames(r.w.outbox(Conn::Down(r.down)).unwrap());
    assert_eq!(answers.len(), 4);
    assert!(answers.iter().all(|f| f.header().status_byte() == 35));
    assert_eq!(r.metric(|m| m.paused_connections.load(Relaxed)), 0);
}

#[test]
fn calls_waiting_for_a_connection_are_dropped_when_their_caller_closes() {
    let mut r = rig_opts("", 1, 1000, false);
    let (a, b) = (r.down, r.w.open_downstream(0, r.now));
    for id in 1..=2 {
        r.call(id, 10);
        assert!(r.call_from(b, id, 10).is_empty());
    }
    assert_eq!(r.w.inflight(), 4);
    r.w.closed(Conn::Down(a), r.now);
    assert_eq!(r.w.inflight(), 2);
    assert_eq!(r.metric(|m| m.calls_dropped.load(Relaxed) as i64), 2);
    // Open at last: only the calls of the caller still there go.
    r.w.upstream_connected(r.ups[0], r.now);
    let calls = r.drain_up(0);
    assert_eq!(calls.len(), 2);
    r.answer(0, &calls, 10);
    assert_eq!(r.w.inflight(), 0);
    let ids: Vec<u64> = frames(r.w.outbox(Conn::Down(b)).unwrap())
        .iter()
        .map(|f| f.request_id())
        .collect();
    assert_eq!(ids, [1, 2]);
}

#[test]
fn a_frame_partly_written_stays_and_later_drops_find_their_frames() {
    let mut r = rig("", 1);
    // Bodies forwarded by reference: the outbox is chunks, cut again around the holes.
    r.w.set_forward_by_reference(64);
    let (a, b) = (r.down, r.w.open_downstream(0, r.now));
    r.call(1, 100);
    assert!(r.call_from(b, 1, 100).is_empty());
    r.call(2, 100);
    assert!(r.call_from(b, 2, 100).is_empty());
    r.call(3, 10);
    let up = Conn::Up(r.ups[0]);
    let wire = |r: &mut Rig| {
        let o = r.w.outbox_chain(up).unwrap();
        let mut iov = [std::io::IoSlice::new(&[]); 16];
        let n = o.gather(&mut iov);
        iov[..n]
            .iter()
            .flat_map(|s| s.iter().copied())
            .collect::<Vec<u8>>()
    };
    let all = frames(&wire(&mut r));
    assert_eq!(all.len(), 5);
    let first = 16 + all[0].body().len();
    // 10 bytes of `a`'s first call are on the wire: it must go out whole.
    let mut sent = wire(&mut r)[..10].to_vec();
    r.w.outbox_chain(up).unwrap().advance(10);
    r.w.closed(Conn::Down(a), r.now);
    assert_eq!(r.metric(|m| m.calls_dropped.load(Relaxed) as i64), 2);
    sent.extend(wire(&mut r));
    let left = frames(&sent);
    let ids: Vec<u64> = left.iter().map(|f| f.request_id()).collect();
    assert_eq!(
        ids,
        [
            all[0].request_id(),
            all[1].request_id(),
            all[3].request_id()
        ]
    );
    // `b`'s calls moved up when `a`'s were taken out: closing it finds them.
    r.w.closed(Conn::Down(b), r.now);
    assert_eq!(r.metric(|m| m.calls_dropped.load(Relaxed) as i64), 4);
    assert_eq!(wire(&mut r), sent[10..first]);
    assert_eq!(r.w.inflight(), 0);
}

#[test]
fn max_connections_per_listener() {
    let mut r = rig("", 1);
    // The rig opened one without the limit; one more fits, the third does not.
    let second = r.w.try_open_downstream(0, r.now);
    assert!(second.is_some());
    assert!(r.w.try_open_downstream(0, r.now).is_none());
    let l = &r.shared.metrics.listeners[0];
    assert_eq!(l.rejected.load(Relaxed), 1);
    assert_eq!(l.open.load(Relaxed), 2);
    r.w.closed(Conn::Down(second.unwrap()), r.now);
    assert!(r.w.try_open_downstream(0, r.now).is_some());
}

/// Ejects endpoint 0 of the rig with one call that times out.
fn eject_first(r: &mut Rig) {
    r.call(1, 10);
    assert_eq!(r.drain_up(0).len(), 1, "round robin starts with the first");
    r.now += Duration::from_millis(1001);
    r.w.tick(r.now);
    r.effects();
    let h = r.shared.metrics.endpoint_health("c", "127.0.0.1:1");
    assert_eq!(h.ejections.load(Relaxed), 1);
}

fn tick(r: &mut Rig, ms: u64) {
    r.now += Duration::from_millis(ms);
    r.w.tick(r.now);
}

#[test]
fn an_ejected_endpoint_comes_back_through_probes_only() {
    let mut r = rig(
        "[clusters.c.outlier]\nconsecutive_failures = 1\nbase_ejection_ms = 100\n\
         [clusters.c.health_check]\ninterval_ms = 0\nprobe_interval_ms = 200\nhealthy_threshold = 2\ntimeout_ms = 300",
        2,
    );
    eject_first(&mut r);
    let h = r.shared.metrics.endpoint_health("c", "127.0.0.1:1");
    // Probes go unanswered: long past its ejection time it stays out.
    for _ in 0..20 {
        tick(&mut r, 100);
        r.drain_up(0);
    }
    assert!(h.probes_failed.load(Relaxed) >= 2);
    assert_eq!(h.probes_ok.load(Relaxed), 0);
    assert_eq!(h.ejected.load(Relaxed), 1);
    for id in 10..14 {
        r.call(id, 10);
    }
    assert!(r.drain_up(0).is_empty(), "no calls while ejected");
    assert_eq!(r.drain_up(1).len(), 4);
    // Answered: two in a row bring it back.
    let mut answered = 0;
    for _ in 0..20 {
        tick(&mut r, 100);
        let hb: Vec<Frame> = r
            .drain_up(0)
            .into_iter()
            .filter(|f| f.is_heartbeat())
            .collect();
        let mut b = BytesMut::new();
        for f in &hb {
            Frame::heartbeat_response(f.request_id())
                .encode(&mut b)
                .unwrap();
            answered += 1;
        }
        r.w.upstream_data(r.ups[0], &mut b, r.now);
        if h.ejected.load(Relaxed) == 0 {
            break;
        }
    }
    assert_eq!(answered, 2);
    assert_eq!(h.probes_ok.load(Relaxed), 2);
    assert_eq!(h.ejected.load(Relaxed), 0);
    for id in 20..24 {
        r.call(id, 10);
    }
    assert_eq!(r.drain_up(0).len(), 2, "back in the rotation");
}

#[test]
fn a_probe_opens_a_connection_to_an_endpoint_that_has_none() {
    let mut r = rig(
        "reconnect_base_ms = 60000\nreconnect_max_ms = 60000\n\
         [clusters.c.outlier]\nconsecutive_failures = 1\n\
         [clusters.c.health_check]\ninterval_ms = 0\nprobe_interval_ms = 200\nhealthy_threshold = 1",
        2,
    );
    eject_first(&mut r);
    // Its connection drops; the reconnect backoff is a minute, but the probe connects now.
    r.w.closed(Conn::Up(r.ups[0]), r.now);
    r.effects();
    let mut connect = None;
    for _ in 0..5 {
        tick(&mut r, 100);
        for e in r.effects() {
            if let Effect::Connect { up, .. } = e {
                connect = Some(up);
            }
        }
    }
    let up = connect.expect("the probe opened a connection");
    r.w.upstream_connected(up, r.now);
    r.ups[0] = up;
    let hb = r.drain_up(0);
    assert!(
        hb.len() == 1 && hb[0].is_heartbeat(),
        "the probe is sent on it"
    );
    let mut b = BytesMut::new();
    Frame::heartbeat_response(hb[0].request_id())
        .encode(&mut b)
        .unwrap();
    r.w.upstream_data(up, &mut b, r.now);
    tick(&mut r, 100);
    let h = r.shared.metrics.endpoint_health("c", "127.0.0.1:1");
    assert_eq!(h.ejected.load(Relaxed), 0);
}
