//! The proxy's sans-I/O core (`Worker`, through the `internals` feature) driven by an arbitrary
//! interleaving of what its engines report: callers connecting, sending whole calls, heartbeats or any
//! bytes, and closing; provider connections opening (at once), answering the calls they were
//! sent (in any order, with any status), sending any bytes, closing; time passing; outboxes written;
//! configuration reloads that move the endpoints.
//!
//! After every step:
//! * every frame the proxy wrote to a caller is a response to a two-way request **that
//!   caller** sent and that was not answered yet (never to another caller's id, never twice),
//!   or an event the proxy sends itself (the read-only event);
//! * what waits for a caller stays under `limits.outbox_hard_cap` (a caller over it is closed);
//! * the calls in flight are never more than the two-way requests callers sent and that are
//!   still unanswered.
//!
//! At the end every connection closes and time runs past every timeout: no call stays in
//! flight, no caller is left open, the caller-connection gauge is back to 0.
#![no_main]

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arbitrary::Arbitrary;
use bytes::BytesMut;
use dubbo_codec::response::{Outcome, RpcResult};
use dubbo_codec::{Frame, FrameCodec, FrameKind, Header, Request, Serialization, Status};
use dubbo_proxy::config::Config;
use dubbo_proxy::internals::{Conn, Effect, Key, Shared, Worker};
use hessian2::value::Value;
use libfuzzer_sys::fuzz_target;

const HARD_CAP: usize = 6_000;
const MAX_PAYLOAD: u32 = 2_048;

fn config(endpoints: &[u16]) -> Config {
    let eps: Vec<String> = endpoints
        .iter()
        .map(|p| format!("{{ address = \"127.0.0.1:{p}\" }}"))
        .collect();
    Config::from_toml(&format!(
        r#"
workers = 1
[limits]
outbox_high_watermark = 1000
outbox_low_watermark = 200
outbox_hard_cap = {HARD_CAP}
[[listeners]]
address = "127.0.0.1:0"
max_payload = {MAX_PAYLOAD}
max_inflight = 8
frame_timeout_ms = 3000
[[routes]]
method = "slow"
cluster = "c"
timeout_ms = 200
[[routes]]
cluster = "c"
timeout_ms = 2000
[clusters.c]
max_payload = {MAX_PAYLOAD}
endpoints = [{}]
[clusters.c.health_check]
interval_ms = 500
timeout_ms = 300
probe_interval_ms = 100
"#,
        eps.join(", ")
    ))
    .expect("the fuzz configuration is valid")
}

#[derive(Arbitrary, Debug)]
enum Op {
    /// A caller connects.
    Connect,
    /// Caller `caller` sends a whole call.
    Call {
        caller: u8,
        id: u16,
        two_way: bool,
        slow: bool,
        arg_len: u8,
    },
    /// Caller `caller` sends a heartbeat.
    Heartbeat { caller: u8, id: u16 },
    /// Caller `caller` sends these bytes (a piece of anything).
    CallerBytes { caller: u8, bytes: Vec<u8> },
    /// The caller closes.
    CallerClose { caller: u8 },
    /// The engine writes out what waits for the caller connection (provider connections
    /// are written at once, after every step).
    Write { index: u8 },
    /// A provider answers one call it was sent (`which` of those waiting), with a status.
    ProviderAnswer { index: u8, which: u8, status: u8 },
    /// A provider sends these bytes.
    ProviderBytes { index: u8, bytes: Vec<u8> },
    /// A provider connection closes (or fails to open).
    ProviderClose { index: u8 },
    /// Time passes.
    Tick { ms: u16 },
    /// SIGHUP with these endpoint ports.
    Reload { ports: Vec<u8> },
}

/// One caller connection as its peer sees it.
struct Caller {
    key: Key,
    /// The caller's bytes not yet taken by the core (reads paused).
    pending: BytesMut,
    /// The requests it sent, read by the core's own rules (a mirror of its frame decoder).
    sent: FrameCodec,
    sent_buf: BytesMut,
    /// Two-way request ids sent and not answered yet, with how many times each (a caller
    /// may reuse an id; each request is answered).
    unanswered: HashMap<u64, u32>,
    /// Reading what the proxy wrote to it.
    received: FrameCodec,
    received_buf: BytesMut,
}

struct Provider {
    key: Key,
    /// Two-way requests written to it and not answered yet.
    calls: Vec<Frame>,
    received: FrameCodec,
    received_buf: BytesMut,
}

struct Harness {
    w: Worker,
    shared: Arc<Shared>,
    now: Instant,
    callers: Vec<Caller>,
    /// Provider connections by key (the core asks for them with `Effect::Connect`).
    providers: BTreeMap<u64, Provider>,
    /// Calls of callers that closed before their answer (they may stay in flight until the
    /// provider answers or they time out).
    orphaned: u64,
}

fn key_id(k: Key) -> u64 {
    (k.gen() as u64) << 32 | k.idx() as u64
}

impl Harness {
    fn new() -> Harness {
        let shared = Shared::new(config(&[1, 2]), 1);
        let now = Instant::now();
        let w = Worker::new(0, shared.clone(), now);
        let mut h = Harness {
            w,
            shared,
            now,
            callers: Vec::new(),
            providers: BTreeMap::new(),
            orphaned: 0,
        };
        h.effects();
        h
    }

    fn caller(&mut self, i: u8) -> Option<usize> {
        (!self.callers.is_empty()).then(|| i as usize % self.callers.len())
    }

    fn provider(&self, i: u8) -> Option<u64> {
        let n = self.providers.len();
        (n > 0).then(|| *self.providers.keys().nth(i as usize % n).unwrap())
    }

    /// Caller `i` is gone: its unanswered calls can no longer be answered to it.
    fn forget(&mut self, i: usize) {
        let c = self.callers.remove(i);
        self.orphaned += c.unanswered.values().map(|&n| n as u64).sum::<u64>();
    }

    /// Applies the core's effects as an engine would.
    fn effects(&mut self) {
        while let Some(e) = self.w.poll_effect() {
            match e {
                // Providers accept at once (a refused or lost connection is `ProviderClose`).
                Effect::Connect { up, .. } => {
                    self.providers.insert(
                        key_id(up),
                        Provider {
                            key: up,
                            calls: Vec::new(),
                            received: FrameCodec::with_max_payload(u32::MAX),
                            received_buf: BytesMut::new(),
                        },
                    );
                    self.w.upstream_connected(up, self.now);
                }
                // An engine reports each connection's close once: not for one gone already.
                Effect::Close(Conn::Down(k)) => {
                    if let Some(i) = self.callers.iter().position(|c| c.key == k) {
                        self.flush_caller(k);
                        self.forget(i);
                        self.w.closed(Conn::Down(k), self.now);
                    }
                }
                Effect::Close(Conn::Up(k)) => {
                    if self.providers.remove(&key_id(k)).is_some() {
                        self.w.closed(Conn::Up(k), self.now);
                    }
                }
                // A caller whose first bytes were an HTTP/2 preface goes to the Triple
                // pipeline, which the harness has not: the engine reports it closed here.
                Effect::HandOff {
                    conn: Conn::Down(k),
                    ..
                } => {
                    if let Some(i) = self.callers.iter().position(|c| c.key == k) {
                        self.forget(i);
                        self.w.closed(Conn::Down(k), self.now);
                    }
                }
                // The harness's clusters speak the Dubbo protocol: no call is bridged.
                Effect::Bridge => unreachable!("a call bridged to Triple"),
                Effect::HandOff { .. }
                | Effect::Flush(_)
                | Effect::PauseRead(_)
                | Effect::ResumeRead(_) => {}
            }
        }
    }

    /// Checks and takes what the proxy wrote to caller `k`.
    fn flush_caller(&mut self, k: Key) {
        let Some(c) = self.callers.iter_mut().find(|c| c.key == k) else {
            return;
        };
        let Some(out) = self.w.outbox(Conn::Down(k)) else {
            return;
        };
        assert!(
            out.len() <= HARD_CAP + MAX_PAYLOAD as usize + 16,
            "outbox {}",
            out.len()
        );
        c.received_buf.extend_from_slice(out);
        out.clear();
        while let Some(f) = c
            .received
            .decode_frame(&mut c.received_buf)
            .expect("the proxy writes whole Dubbo frames")
        {
            match f.kind() {
                FrameKind::Response | FrameKind::EventResponse(_) => {
                    let id = f.request_id();
                    let left = c.unanswered.get_mut(&id).unwrap_or_else(|| {
                        panic!("response {id} was not asked for on this connection (or answered twice)")
                    });
                    *left -= 1;
                    if *left == 0 {
                        c.unanswered.remove(&id);
                    }
                }
                FrameKind::EventRequest(_) => {}
                other => panic!("the proxy sent a caller a {other:?}"),
            }
        }
        self.w.written(Conn::Down(k));
    }

    fn flush_provider(&mut self, id: u64) {
        let Some(p) = self.providers.get_mut(&id) else {
            return;
        };
        let Some(out) = self.w.outbox(Conn::Up(p.key)) else {
            return;
        };
        p.received_buf.extend_from_slice(out);
        out.clear();
        while let Some(f) = p
            .received
            .decode_frame(&mut p.received_buf)
            .expect("the proxy writes whole Dubbo frames")
        {
            let h = f.header();
            if h.is_request() && h.is_two_way() {
                p.calls.push(f);
            }
        }
        self.w.written(Conn::Up(p.key));
    }

    /// Caller `i` sends `bytes`; the mirror decoder records the two-way requests among them.
    fn caller_sends(&mut self, i: usize, bytes: &[u8]) {
        let c = &mut self.callers[i];
        c.sent_buf.extend_from_slice(bytes);
        loop {
            match c.sent.decode_frame(&mut c.sent_buf) {
                Ok(Some(f)) => {
                    let h = f.header();
                    if h.is_request() && h.is_two_way() {
                        *c.unanswered.entry(h.request_id()).or_default() += 1;
                    }
                }
                Ok(None) => break,
                Err(dubbo_codec::DecodeError::PayloadTooLarge { header, .. }) => {
                    if header.is_request() && header.is_two_way() {
                        *c.unanswered.entry(header.request_id()).or_default() += 1;
                    }
                }
                Err(_) => {
                    c.sent_buf.clear();
                    break;
                }
            }
        }
        c.pending.extend_from_slice(bytes);
        let key = c.key;
        let mut pending = std::mem::take(&mut self.callers[i].pending);
        self.w.downstream_data(key, &mut pending, self.now);
        if let Some(c) = self.callers.iter_mut().find(|c| c.key == key) {
            c.pending = pending;
        }
    }

    fn step(&mut self, op: Op) {
        match op {
            Op::Connect => {
                if self.callers.len() < 6 {
                    if let Some(key) = self.w.try_open_downstream(0, self.now) {
                        self.callers.push(Caller {
                            key,
                            pending: BytesMut::new(),
                            sent: FrameCodec::with_max_payload(MAX_PAYLOAD),
                            sent_buf: BytesMut::new(),
                            unanswered: HashMap::new(),
                            received: FrameCodec::with_max_payload(u32::MAX),
                            received_buf: BytesMut::new(),
                        });
                    }
                }
            }
            Op::Call {
                caller,
                id,
                two_way,
                slow,
                arg_len,
            } => {
                if let Some(i) = self.caller(caller) {
                    let method = if slow { "slow" } else { "sayHello" };
                    let frame = Request::builder("com.example.Demo", method)
                        .arg("java.lang.String", &"x".repeat(arg_len as usize))
                        .build()
                        .unwrap()
                        .to_frame(id as u64, two_way);
                    let mut b = BytesMut::new();
                    frame.encode(&mut b).unwrap();
                    self.caller_sends(i, &b);
                }
            }
            Op::Heartbeat { caller, id } => {
                if let Some(i) = self.caller(caller) {
                    let mut b = BytesMut::new();
                    Frame::heartbeat_request(id as u64).encode(&mut b).unwrap();
                    self.caller_sends(i, &b);
                }
            }
            Op::CallerBytes { caller, bytes } => {
                if let Some(i) = self.caller(caller) {
                    self.caller_sends(i, &bytes);
                }
            }
            Op::CallerClose { caller } => {
                if let Some(i) = self.caller(caller) {
                    let key = self.callers[i].key;
                    self.forget(i);
                    self.w.closed(Conn::Down(key), self.now);
                }
            }
            Op::Write { index } => {
                if let Some(i) = self.caller(index) {
                    let k = self.callers[i].key;
                    self.flush_caller(k);
                    // A resumed caller's bytes are taken again.
                    self.caller_sends(i, &[]);
                }
            }
            Op::ProviderAnswer {
                index,
                which,
                status,
            } => {
                if let Some(id) = self.provider(index) {
                    let p = self.providers.get_mut(&id).unwrap();
                    if p.calls.is_empty() {
                        return;
                    }
                    let call = p.calls.remove(which as usize % p.calls.len());
                    let answer = if call.header().is_event() {
                        Frame::heartbeat_response(call.request_id())
                    } else if status % 4 == 0 {
                        let header = Header::new(
                            Serialization::Hessian2.id(),
                            Status::ServiceError.as_u8(),
                            call.request_id(),
                            0,
                        );
                        Frame::new(header, Default::default())
                    } else {
                        RpcResult::new(Outcome::Value(Value::Int(status as i32)))
                            .to_frame(call.request_id())
                    };
                    let mut b = BytesMut::new();
                    answer.encode(&mut b).unwrap();
                    let k = p.key;
                    self.w.upstream_data(k, &mut b, self.now);
                }
            }
            Op::ProviderBytes { index, bytes } => {
                if let Some(id) = self.provider(index) {
                    let k = self.providers[&id].key;
                    let mut b = BytesMut::from(&bytes[..]);
                    self.w.upstream_data(k, &mut b, self.now);
                }
            }
            Op::ProviderClose { index } => {
                if let Some(id) = self.provider(index) {
                    let p = self.providers.remove(&id).unwrap();
                    self.w.closed(Conn::Up(p.key), self.now);
                }
            }
            Op::Tick { ms } => {
                self.now += Duration::from_millis(ms as u64 % 3_000);
                self.w.tick(self.now);
            }
            Op::Reload { ports } => {
                let mut ports: Vec<u16> =
                    ports.iter().take(3).map(|&p| 1 + (p % 4) as u16).collect();
                ports.sort_unstable();
                ports.dedup();
                if !ports.is_empty() {
                    self.shared.reload(config(&ports));
                    self.w.refresh(self.now);
                }
            }
        }
        self.effects();
        let providers: Vec<u64> = self.providers.keys().copied().collect();
        for id in providers {
            self.flush_provider(id);
        }
        self.effects();
        let unanswered: u64 = self
            .callers
            .iter()
            .flat_map(|c| c.unanswered.values())
            .map(|&n| n as u64)
            .sum();
        assert!(
            self.w.inflight() as u64 <= unanswered + self.orphaned,
            "{} calls in flight, {unanswered} asked for (+{} of closed callers)",
            self.w.inflight(),
            self.orphaned
        );
    }

    /// Everything closes; time runs out every timeout.
    fn finish(mut self) {
        for c in std::mem::take(&mut self.callers) {
            self.w.closed(Conn::Down(c.key), self.now);
        }
        for (_, p) in std::mem::take(&mut self.providers) {
            self.w.closed(Conn::Up(p.key), self.now);
        }
        for _ in 0..100 {
            self.now += Duration::from_millis(100);
            self.w.tick(self.now);
            while let Some(e) = self.w.poll_effect() {
                if let Effect::Close(c) = e {
                    self.w.closed(c, self.now);
                }
            }
        }
        assert_eq!(self.w.inflight(), 0, "calls left in flight");
        assert_eq!(self.w.downstreams(), 0, "callers left open");
        assert_eq!(
            self.shared.metrics.downstream_connections.load(Relaxed),
            0,
            "caller gauge"
        );
    }
}

fuzz_target!(|ops: Vec<Op>| {
    let mut h = Harness::new();
    for op in ops.into_iter().take(400) {
        h.step(op);
    }
    h.finish();
});
