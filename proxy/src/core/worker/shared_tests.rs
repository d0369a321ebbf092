//! Two workers sharing endpoint state, driven with no sockets: failures seen by both eject
//! once, one of them probes, and least-request counts the other's calls in flight.

use std::sync::atomic::Ordering::Relaxed;

use dubbo_codec::response::{Outcome, RpcResult};
use dubbo_codec::Request;
use hessian2::value::Value;

use super::*;
use crate::config::Config;
use crate::core::metrics::EndpointHealth;

/// One worker of the pair, with its provider connections (by endpoint) and one caller.
struct Side {
    w: Worker,
    ups: Vec<Option<Key>>,
    down: Key,
}

struct Pair {
    shared: Arc<Shared>,
    now: Instant,
    sides: [Side; 2],
}

/// Two workers of a cluster `c` of two endpoints; worker `i` opens the connections for
/// which `connected(i, endpoint)` holds (the others stay connecting).
fn pair(cluster: &str, connected: impl Fn(usize, usize) -> bool) -> Pair {
    let toml = format!(
        r#"
workers = 2
[[listeners]]
address = "127.0.0.1:0"
[[routes]]
cluster = "c"
timeout_ms = 1000
[clusters.c]
endpoints = [{{ address = "127.0.0.1:1" }}, {{ address = "127.0.0.1:2" }}]
{cluster}
"#
    );
    let shared = Shared::new(Config::from_toml(&toml).unwrap(), 2);
    let now = Instant::now();
    let sides = [0, 1].map(|id| {
        let mut w = Worker::new(id, shared.clone(), now);
        let mut ups = vec![None; 2];
        while let Some(e) = w.poll_effect() {
            if let Effect::Connect { up, addr, .. } = e {
                let ei = usize::from(addr.port() - 1);
                if connected(id, ei) {
                    w.upstream_connected(up, now);
                    ups[ei] = Some(up);
                }
            }
        }
        let down = w.open_downstream(0, now);
        Side { w, ups, down }
    });
    Pair { shared, now, sides }
}

impl Side {
    fn call(&mut self, id: u64, now: Instant) {
        let mut b = BytesMut::new();
        Request::builder("com.example.DemoService", "sayHello")
            .build()
            .unwrap()
            .to_frame(id, true)
            .encode(&mut b)
            .unwrap();
        self.w.downstream_data(self.down, &mut b, now);
    }

    /// The frames written to endpoint `ei` (taken off its outbox).
    fn sent(&mut self, ei: usize) -> Vec<Frame> {
        let Some(out) = self.ups[ei].and_then(|k| self.w.outbox(Conn::Up(k))) else {
            return Vec::new();
        };
        let mut codec = FrameCodec::with_max_payload(u32::MAX);
        let mut v = Vec::new();
        while let Some(f) = codec.decode_frame(out).unwrap() {
            v.push(f);
        }
        v
    }

    /// Endpoint `ei` answers `frames`: calls with a value, heartbeats with a heartbeat.
    fn answer(&mut self, ei: usize, frames: &[Frame], now: Instant) {
        let mut b = BytesMut::new();
        for f in frames {
            let r = if f.is_heartbeat() {
                Frame::heartbeat_response(f.request_id())
            } else {
                RpcResult::new(Outcome::Value(Value::Null)).to_frame(f.request_id())
            };
            r.encode(&mut b).unwrap();
        }
        self.w.upstream_data(self.ups[ei].unwrap(), &mut b, now);
    }
}

impl Pair {
    fn tick(&mut self, ms: u64) {
        self.now += Duration::from_millis(ms);
        for s in &mut self.sides {
            s.w.tick(self.now);
            while s.w.poll_effect().is_some() {}
        }
    }

    fn health(&self, ei: usize) -> Arc<EndpointHealth> {
        let addr = format!("127.0.0.1:{}", ei + 1);
        self.shared.metrics.endpoint_health("c", &addr)
    }
}

const PROBED: &str = "[clusters.c.outlier]\nconsecutive_failures = 2\nbase_ejection_ms = 100\n\
     [clusters.c.health_check]\ninterval_ms = 0\nprobe_interval_ms = 200\n\
     healthy_threshold = 2\ntimeout_ms = 300";

/// Each worker sends one call to endpoint 0 (round-robin starts there) that times out.
fn fail_once_on_each(p: &mut Pair) {
    let now = p.now;
    for s in &mut p.sides {
        s.call(1, now);
        assert_eq!(s.sent(0).len(), 1);
    }
    p.tick(1001);
}

#[test]
fn failures_on_two_workers_eject_once_for_both() {
    let mut p = pair(PROBED, |_, _| true);
    fail_once_on_each(&mut p);
    // One failure on each worker, two needed: ejected once, for both.
    let h = p.health(0);
    assert_eq!(h.ejections.load(Relaxed), 1);
    assert_eq!(h.ejected.load(Relaxed), 1, "one gauge for all workers");
    let now = p.now;
    for s in &mut p.sides {
        for id in 10..14 {
            s.call(id, now);
        }
        assert!(s.sent(0).is_empty(), "no calls to it on either worker");
        assert_eq!(s.sent(1).len(), 4);
    }
}

#[test]
fn one_worker_probes_an_ejected_endpoint_each_interval() {
    let mut p = pair(PROBED, |_, _| true);
    fail_once_on_each(&mut p);
    let h = p.health(0);
    // Unanswered probes for 3 s: one at a time over both workers, each given up after
    // 300 ms and the next 200 ms later (100 ms housekeeping rounds): about one per 600 ms.
    let mut probes = [0; 2];
    for _ in 0..30 {
        p.tick(100);
        for (i, s) in p.sides.iter_mut().enumerate() {
            probes[i] += s.sent(0).iter().filter(|f| f.is_heartbeat()).count();
        }
        let failed = h.probes_failed.load(Relaxed) as usize;
        let sent = probes[0] + probes[1];
        assert!(
            sent == failed || sent == failed + 1,
            "one in flight at most"
        );
    }
    let sent = probes[0] + probes[1];
    assert!((4..=6).contains(&sent), "{probes:?}");
    assert_eq!(h.ejected.load(Relaxed), 1);
    // Answered, by whichever worker sent them: two bring it back for both.
    for _ in 0..20 {
        p.tick(100);
        let now = p.now;
        for s in &mut p.sides {
            let hb: Vec<Frame> = s.sent(0).into_iter().filter(|f| f.is_heartbeat()).collect();
            s.answer(0, &hb, now);
        }
        if h.ejected.load(Relaxed) == 0 {
            break;
        }
    }
    assert_eq!(h.probes_ok.load(Relaxed), 2);
    assert_eq!(h.ejected.load(Relaxed), 0);
    let now = p.now;
    for s in &mut p.sides {
        s.call(20, now);
        s.call(21, now);
        assert_eq!(s.sent(0).len(), 1, "back in the rotation on both");
    }
}

#[test]
fn least_request_counts_the_other_workers_calls() {
    // Worker 0 has only endpoint 0 open: its calls all go there.
    let mut p = pair("lb = \"least_request\"", |w, e| w == 1 || e == 0);
    let now = p.now;
    let [a, b] = &mut p.sides;
    for id in 0..3 {
        a.call(id, now);
    }
    let calls = a.sent(0);
    assert_eq!(calls.len(), 3);
    // Worker 1 sees them: its calls go to the idle endpoint 1.
    b.call(10, now);
    b.call(11, now);
    assert!(b.sent(0).is_empty());
    assert_eq!(b.sent(1).len(), 2);
    // Answered: endpoint 0 is idle again, and worker 1 prefers it.
    a.answer(0, &calls, now);
    b.call(12, now);
    assert_eq!(b.sent(0).len(), 1);
}

#[test]
fn calls_in_flight_move_with_a_reload_to_and_from_least_request() {
    let mut p = pair("", |_, _| true);
    let now = p.now;
    let config = p.shared.snapshot().config.clone();
    let active = |p: &Pair, ei: usize| p.shared.snapshot().endpoints["c"][ei].active.load(Relaxed);
    for s in &mut p.sides {
        s.call(1, now);
        s.call(2, now);
    }
    assert_eq!(active(&p, 0), 0, "round-robin counts nothing shared");
    let mut least = config.clone();
    least.clusters.get_mut("c").unwrap().lb = config::LbPolicy::LeastRequest;
    p.shared.reload(least);
    p.tick(1);
    assert_eq!(
        (active(&p, 0), active(&p, 1)),
        (2, 2),
        "both workers' calls"
    );
    let now = p.now;
    let calls = p.sides[0].sent(0);
    p.sides[0].answer(0, &calls, now);
    assert_eq!((active(&p, 0), active(&p, 1)), (1, 2));
    p.shared.reload(config);
    p.tick(1);
    assert_eq!((active(&p, 0), active(&p, 1)), (0, 0));
}
