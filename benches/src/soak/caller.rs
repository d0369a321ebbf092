//! The load: callers on raw framed connections to the proxy. Every call carries a unique
//! token the provider echoes, so each answer is checked against the call it claims to answer.
//! A caller keeps its own map of request ids in flight: an answer with an id it has not sent
//! (or already had answered) is a *stray*, an OK answer with another call's token is
//! *misrouted*, a call with no answer within the client timeout is *never answered*.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use dubbo_codec::{Frame, FrameCodec, Outcome, Request, Response};
use hessian2::value::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Notify;

use super::provider::INTERFACE;
use super::rng::Rng;
use super::tls::Door;

/// How many examples of failures one caller keeps, and a whole run.
const EXAMPLES: usize = 5;
const RUN_EXAMPLES: usize = 20;

/// What the callers share with the soak's driver.
pub struct Shared {
    pub proxy: SocketAddr,
    /// The proxy's TLS listener and the callers' TLS.
    pub tls: Option<(SocketAddr, Arc<Door>)>,
    pub started: Instant,
    /// Time between two calls of one caller.
    pub period: Duration,
    /// Calls one caller keeps in flight at most.
    pub window: usize,
    /// Well above the route timeout: a call the proxy gives up on comes back as a status
    /// before it, so only a call the proxy forgot reaches it.
    pub client_timeout: Duration,
    pub seed: u64,
    pub sent: AtomicU64,
    /// Set by the driver: send nothing more, wait for what is in flight, return.
    pub stop: AtomicBool,
}

/// What one caller (or, merged, all of them) saw.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub sent: u64,
    /// Of them: sent in Triple, sent in Dubbo to be bridged to Triple, sent over TLS.
    pub triple: u64,
    pub bridged: u64,
    pub tls: u64,
    pub ok: u64,
    /// Answers with a status other than OK, by status byte.
    pub statuses: BTreeMap<u8, u64>,
    pub never_answered: u64,
    pub misrouted: u64,
    pub stray: u64,
    /// OK answers that are not a string, bodies that do not decode.
    pub malformed: u64,
    /// In flight when the caller itself dropped its connection (a fault of the schedule).
    pub abandoned: u64,
    /// Connections the caller dropped, each right after sending a call.
    pub disconnects: u64,
    pub connect_errors: u64,
    pub examples: Vec<String>,
}

impl Tally {
    pub fn merge(&mut self, other: Tally) {
        self.sent += other.sent;
        self.triple += other.triple;
        self.bridged += other.bridged;
        self.tls += other.tls;
        self.ok += other.ok;
        for (status, n) in other.statuses {
            *self.statuses.entry(status).or_default() += n;
        }
        self.never_answered += other.never_answered;
        self.misrouted += other.misrouted;
        self.stray += other.stray;
        self.malformed += other.malformed;
        self.abandoned += other.abandoned;
        self.disconnects += other.disconnects;
        self.connect_errors += other.connect_errors;
        self.examples.extend(other.examples);
        self.examples.truncate(RUN_EXAMPLES);
    }

    pub(super) fn example(&mut self, shared: &Shared, what: String) {
        if self.examples.len() < EXAMPLES {
            let t = shared.started.elapsed().as_secs_f64();
            self.examples.push(format!("t={t:.3}s {what}"));
        }
    }
}

/// A call in flight: its token and when it was sent.
struct InFlight {
    token: String,
    sent: Instant,
}

/// What a caller speaks, and where its calls go: of every 8 callers, one calls in Triple
/// ([`super::triple_caller::triple_caller`]), two send Dubbo calls the route table sends to the Triple-only
/// cluster (bridged by the proxy), two (with a TLS listener, else plain) Dubbo calls over
/// mutual TLS, the others plain Dubbo calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Dubbo,
    Bridged,
    Triple,
    Tls,
}

impl Kind {
    pub fn of(caller: u32, tls: bool) -> Kind {
        match caller % 8 {
            7 => Kind::Triple,
            1 | 4 => Kind::Bridged,
            2 | 5 if tls => Kind::Tls,
            _ => Kind::Dubbo,
        }
    }
}

/// A caller's connection, plain or TLS.
trait Conn: AsyncRead + AsyncWrite + Send + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin> Conn for T {}

/// A connection to the plain listener, or through the TLS listener's handshake.
async fn connect(shared: &Shared, tls: bool) -> std::io::Result<Box<dyn Conn>> {
    match (&shared.tls, tls) {
        (Some((addr, door)), true) => Ok(Box::new(door.connect(*addr).await?)),
        _ => {
            let s = TcpStream::connect(shared.proxy).await?;
            let _ = s.set_nodelay(true);
            Ok(Box::new(s))
        }
    }
}

/// The attachment that routes a Dubbo call to the Triple-only cluster
/// ([`super::config::proxy_config`]).
pub const BRIDGE_ATTACHMENT: (&str, &str) = ("bridge", "1");

/// One caller: sends paced calls until told to stop, and returns what it saw. When
/// `disconnect` is notified it drops its connection right after its next call went out (what
/// was in flight is abandoned) and reconnects.
pub async fn caller(id: u32, shared: Arc<Shared>, disconnect: Arc<Notify>) -> Tally {
    let mut tally = Tally::default();
    let mut rng = Rng::new(shared.seed ^ (u64::from(id) << 32));
    let mut seq = 0u64;
    let mut tick = tokio::time::interval(shared.period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut sweep = tokio::time::interval(Duration::from_millis(100));
    let mut drop_after_send = false;
    let kind = Kind::of(id, shared.tls.is_some());
    let (bridged, tls) = (kind == Kind::Bridged, kind == Kind::Tls);
    loop {
        let stream = match connect(&shared, tls).await {
            Ok(s) => s,
            Err(e) => {
                tally.connect_errors += 1;
                tally.example(&shared, format!("caller {id}: connect: {e}"));
                if shared.stop.load(Ordering::Acquire) {
                    return tally;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let (mut rd, mut wr) = tokio::io::split(stream);
        let mut pending: HashMap<u64, InFlight> = HashMap::new();
        let mut buf = BytesMut::with_capacity(16 * 1024);
        let mut codec = FrameCodec::new();
        let mut out = BytesMut::new();
        loop {
            let stopping = shared.stop.load(Ordering::Acquire);
            if stopping && pending.is_empty() {
                return tally;
            }
            tokio::select! {
                read = rd.read_buf(&mut buf) => {
                    let closed = !matches!(read, Ok(n) if n > 0);
                    loop {
                        match codec.decode_frame(&mut buf) {
                            Ok(Some(frame)) => {
                                if let Some(reply) = answer(id, &shared, &mut tally, &mut pending, frame) {
                                    out.clear();
                                    let _ = codec.encode_frame(&reply, &mut out);
                                    let _ = wr.write_all(&out).await;
                                }
                            }
                            Ok(None) => break,
                            Err(e) => {
                                tally.malformed += 1;
                                tally.example(&shared, format!("caller {id}: undecodable bytes from the proxy: {e}"));
                                break;
                            }
                        }
                    }
                    if closed {
                        forget(id, &shared, &mut tally, &mut pending, "the proxy closed the connection");
                        break;
                    }
                }
                _ = tick.tick(), if !stopping && pending.len() < shared.window => {
                    seq += 1;
                    let token = format!("c{id}-s{seq}");
                    let req = call(&token, &mut rng, bridged);
                    out.clear();
                    codec.encode_frame(&req.to_frame(seq, true), &mut out).expect("a small call encodes");
                    pending.insert(seq, InFlight { token, sent: Instant::now() });
                    tally.sent += 1;
                    tally.bridged += u64::from(bridged);
                    tally.tls += u64::from(tls);
                    shared.sent.fetch_add(1, Ordering::Relaxed);
                    if let Err(e) = wr.write_all(&out).await {
                        forget(id, &shared, &mut tally, &mut pending, &format!("write: {e}"));
                        break;
                    }
                    if drop_after_send {
                        // Dropped right after a call went out: at least that one is in flight.
                        drop_after_send = false;
                        tally.disconnects += 1;
                        tally.abandoned += pending.len() as u64;
                        break;
                    }
                }
                _ = sweep.tick() => {
                    let now = Instant::now();
                    let late: Vec<u64> = pending
                        .iter()
                        .filter(|(_, c)| now - c.sent > shared.client_timeout)
                        .map(|(id, _)| *id)
                        .collect();
                    for rid in late {
                        let c = pending.remove(&rid).expect("listed");
                        tally.never_answered += 1;
                        tally.example(&shared, format!(
                            "caller {id}: request {rid} ({}) never answered within {:?}",
                            c.token, shared.client_timeout
                        ));
                    }
                }
                _ = disconnect.notified() => drop_after_send = true,
            }
        }
    }
}

/// One call: mostly `echo(token)`, one in eight `sleep(token, 20..300 ms)` so that calls are
/// in flight across every fault; `bridged` ones carry the attachment that routes them to the
/// Triple-only cluster.
fn call(token: &str, rng: &mut Rng, bridged: bool) -> Request {
    let mut builder = if rng.below(8) == 0 {
        let ms = 20 + rng.below(281) as i32;
        Request::builder(INTERFACE, "sleep")
            .arg("java.lang.String", token)
            .arg("int", &ms)
    } else {
        Request::builder(INTERFACE, "echo").arg("java.lang.String", token)
    };
    if bridged {
        builder = builder.attach(BRIDGE_ATTACHMENT.0, BRIDGE_ATTACHMENT.1);
    }
    builder.build().expect("a string argument builds")
}

/// Checks a frame from the proxy against the call it answers; returns the answer to a
/// heartbeat the proxy sent.
fn answer(
    caller: u32,
    shared: &Shared,
    tally: &mut Tally,
    pending: &mut HashMap<u64, InFlight>,
    frame: Frame,
) -> Option<Frame> {
    let header = frame.header();
    if header.is_request() {
        return (header.is_event() && header.is_two_way())
            .then(|| Frame::heartbeat_response(frame.request_id()));
    }
    if header.is_event() {
        return None;
    }
    let rid = frame.request_id();
    let Some(call) = pending.remove(&rid) else {
        tally.stray += 1;
        tally.example(
            shared,
            format!("caller {caller}: answer to request {rid}, not in flight"),
        );
        return None;
    };
    match Response::from_frame(&frame) {
        Ok(Response::Result(r)) => match r.outcome {
            Outcome::Value(Value::String(s)) if s == call.token => tally.ok += 1,
            Outcome::Value(Value::String(s)) => {
                tally.misrouted += 1;
                tally.example(
                    shared,
                    format!(
                        "caller {caller}: request {rid} ({}) answered with {s:?}",
                        call.token
                    ),
                );
            }
            other => {
                tally.malformed += 1;
                tally.example(
                    shared,
                    format!(
                        "caller {caller}: request {rid} ({}) answered {other:?}",
                        call.token
                    ),
                );
            }
        },
        Ok(Response::Error { status, .. }) => {
            *tally.statuses.entry(status.as_u8()).or_default() += 1;
        }
        Err(e) => {
            tally.malformed += 1;
            tally.example(
                shared,
                format!("caller {caller}: request {rid}: bad body: {e}"),
            );
        }
    }
    None
}

/// The connection is gone without the caller asking: what was in flight was never answered.
fn forget(
    caller: u32,
    shared: &Shared,
    tally: &mut Tally,
    pending: &mut HashMap<u64, InFlight>,
    why: &str,
) {
    if !pending.is_empty() {
        tally.never_answered += pending.len() as u64;
        tally.example(
            shared,
            format!("caller {caller}: {} calls lost: {why}", pending.len()),
        );
    }
    pending.clear();
}
