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
            w.upstream_connected(up, now);
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
    // The second stops reading too: both backed up, calls still go (a burst to providers
    // that are merely behind), until both are past the hard cap (6000): then the caller is
    // told the provider cannot take it now.
    let mut answers = Vec::new();
    for id in 100..200 {
        r.call(id, 300);
        let out = r.w.outbox(Conn::Down(r.down)).unwrap();
        answers.extend(frames(out));
        out.clear();
        r.w.written(Conn::Down(r.down));
    }
    r.effects();
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
