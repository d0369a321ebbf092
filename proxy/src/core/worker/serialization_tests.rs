//! The worker with callers in serializations other than Hessian2, driven with no sockets:
//! fastjson2 calls are routed as Hessian2 ones are, every answer the proxy makes itself is in
//! the caller's serialization, and a body the proxy cannot read is forwarded only when the
//! route needs nothing from it.

use dubbo_codec::event::Event;
use dubbo_codec::response::Response;
use dubbo_codec::{BodyFormat, Request, Serialization};

use super::*;
use crate::config::Config;

const SVC: &str = "com.example.DemoService";

struct Rig {
    w: Worker,
    now: Instant,
    up: Key,
    down: Key,
}

/// A worker with `routes` to cluster `c` (one provider, connected) and one caller.
fn rig(routes: &str) -> Rig {
    let toml = format!(
        r#"
workers = 1
[[listeners]]
address = "127.0.0.1:0"
{routes}
[clusters.c]
endpoints = [{{ address = "127.0.0.1:1" }}]
"#
    );
    let shared = Shared::new(Config::from_toml(&toml).unwrap(), 1);
    let now = Instant::now();
    let mut w = Worker::new(0, shared, now);
    let mut up = None;
    while let Some(e) = w.poll_effect() {
        if let Effect::Connect { up: k, .. } = e {
            w.upstream_connected(k, now);
            up = Some(k);
        }
    }
    let down = w.open_downstream(0, now);
    Rig {
        w,
        now,
        up: up.unwrap(),
        down,
    }
}

fn drain(w: &mut Worker, conn: Conn) -> Vec<Frame> {
    let Some(out) = w.outbox(conn) else {
        return Vec::new();
    };
    let mut b = std::mem::take(out);
    w.written(conn);
    let mut codec = FrameCodec::with_max_payload(u32::MAX);
    std::iter::from_fn(|| codec.decode_frame(&mut b).unwrap()).collect()
}

impl Rig {
    fn send(&mut self, frame: &Frame) {
        let mut b = BytesMut::new();
        frame.encode(&mut b).unwrap();
        self.w.downstream_data(self.down, &mut b, self.now);
    }

    fn upstream(&mut self) -> Vec<Frame> {
        drain(&mut self.w, Conn::Up(self.up))
    }

    fn answers(&mut self) -> Vec<Frame> {
        drain(&mut self.w, Conn::Down(self.down))
    }
}

/// A fastjson2 call of `method`, version 1.0.0, with `attachments`.
fn fastjson2_call(id: u64, method: &str, attachments: &[(&str, &str)]) -> Frame {
    let mut b = Request::builder(SVC, method)
        .format(BodyFormat::FASTJSON2)
        .version("1.0.0")
        .arg("java.lang.String", "x");
    for (k, v) in attachments {
        b = b.attach(*k, *v);
    }
    b.build().unwrap().to_frame(id, true)
}

/// The status and message of an answer, read in the serialization its header names.
fn error_of(f: &Frame) -> (Status, String) {
    match Response::from_frame(f).unwrap() {
        Response::Error { status, message } => (status, message.unwrap_or_default()),
        other => panic!("not an error: {other:?}"),
    }
}

#[test]
fn fastjson2_calls_route_by_version_method_and_attachment() {
    let mut r = rig(r#"
[[routes]]
interface = "com.example.DemoService"
version = "1.0.0"
method = "sayHello"
attachments = { lane = "canary" }
cluster = "c"
"#);
    let call = fastjson2_call(7, "sayHello", &[("lane", "canary")]);
    r.send(&call);
    let up = r.upstream();
    assert_eq!(up.len(), 1);
    // Forwarded as it arrived: same serialization and body.
    assert_eq!(up[0].header().serialization(), Serialization::Fastjson2);
    assert_eq!(up[0].body(), call.body());

    // No route (other lane, other method): SERVICE_NOT_FOUND in fastjson2.
    for (id, call) in [
        (8, fastjson2_call(8, "sayHello", &[("lane", "blue")])),
        (9, fastjson2_call(9, "other", &[("lane", "canary")])),
    ] {
        r.send(&call);
        let a = r.answers();
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].request_id(), id);
        assert_eq!(a[0].header().serialization(), Serialization::Fastjson2);
        let (status, msg) = error_of(&a[0]);
        assert_eq!(status, Status::ServiceNotFound);
        assert_eq!(msg, Reason::NoRoute.message());
    }
    assert!(r.upstream().is_empty());

    // A body cut short: BAD_REQUEST, in fastjson2.
    let (h, body) = fastjson2_call(10, "sayHello", &[]).into_parts();
    r.send(&Frame::new(h, body.slice(..body.len() / 2)));
    let a = r.answers();
    assert_eq!(a[0].header().serialization(), Serialization::Fastjson2);
    assert_eq!(error_of(&a[0]).0, Status::BadRequest);
}

#[test]
fn own_answers_are_in_the_callers_serialization() {
    let mut r = rig("[[routes]]\ncluster = \"c\"\ntimeout_ms = 1000\n");
    // A timeout.
    r.send(&fastjson2_call(1, "sayHello", &[]));
    assert_eq!(r.upstream().len(), 1);
    r.now += Duration::from_secs(2);
    r.w.tick(r.now);
    let a = r.answers();
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].header().serialization(), Serialization::Fastjson2);
    assert_eq!(error_of(&a[0]).0, Status::ServerTimeout);

    // A heartbeat: answered with its own body, in its serialization.
    let hb = Frame::heartbeat_request_in(2, BodyFormat::FASTJSON2);
    r.send(&hb);
    let a = r.answers();
    assert_eq!(a.len(), 1);
    assert!(a[0].header().is_event() && !a[0].header().is_request());
    assert_eq!(a[0].header().serialization(), Serialization::Fastjson2);
    assert_eq!(a[0].event(), Some(Event::Heartbeat));

    // The read-only event, in the serialization of the caller's last call.
    r.w.begin_shutdown(r.now);
    let a = r.answers();
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].header().serialization(), Serialization::Fastjson2);
    assert_eq!(a[0].event(), Some(Event::ReadOnly));
}

/// A call in kryo (8), which the proxy cannot read.
fn kryo_call(id: u64) -> Frame {
    Frame::request(
        id,
        Serialization::Kryo,
        true,
        Bytes::from_static(b"\x01\x02\x03"),
    )
}

#[test]
fn unreadable_serializations_are_forwarded_only_when_the_route_needs_nothing() {
    let mut r = rig("[[routes]]\ninterface = \"*\"\ncluster = \"c\"\n");
    r.send(&kryo_call(1));
    let up = r.upstream();
    assert_eq!(up.len(), 1);
    assert_eq!(up[0].header().serialization(), Serialization::Kryo);
    assert_eq!(&up[0].body()[..], b"\x01\x02\x03");
    // Its heartbeats are answered (a two-way event is a heartbeat).
    let hb = Frame::new(
        Header::request(2, Serialization::Kryo, true).with_event(true),
        Bytes::from_static(b"\x00"),
    );
    r.send(&hb);
    let a = r.answers();
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].header().serialization(), Serialization::Kryo);
    assert_eq!(a[0].body(), hb.body());

    let mut r = rig("[[routes]]\ninterface = \"com.example.*\"\ncluster = \"c\"\n");
    r.send(&kryo_call(3));
    assert!(r.upstream().is_empty());
    let a = r.answers();
    assert_eq!(a.len(), 1);
    // Answered in Hessian2, which every Java Dubbo reads, naming the serialization.
    assert_eq!(a[0].header().serialization(), Serialization::Hessian2);
    let (status, msg) = error_of(&a[0]);
    assert_eq!(status, Status::BadRequest);
    assert!(msg.contains("kryo (8)"), "{msg}");
}
