//! The proxy's sans-I/O core: one [`Worker`] per event loop.
//!
//! A worker owns a set of caller (downstream) connections, its own pool of provider
//! (upstream) connections, the id map of the calls in flight, and the timers. It never
//! touches a socket and never reads the clock: an engine tells it what happened (bytes
//! arrived, a connection opened or closed, time passed) with the current `Instant`, and reads
//! back what to do ([`Effect`]s, and the bytes waiting in each connection's outbox). So the
//! tokio engine and an epoll engine drive the very same behaviour, and the tests drive it
//! with no sockets at all.
//!
//! ```text
//!  engine ──bytes──▶ downstream_data ─▶ frames ─▶ route ─▶ pick endpoint ─▶ id rewrite ─▶ up outbox
//!  engine ──bytes──▶ upstream_data   ─▶ frames ─▶ id map ─▶ id restore ─────────────────▶ down outbox
//!  engine ──now───▶ tick             ─▶ timeouts, heartbeats, probes, reconnects, idle, drain
//!  engine ──wrote─▶ written          ─▶ watermarks: backed-up connections released
//!  engine ◀─────── poll_effect       ◀─ Connect / Flush / Close / PauseRead / ResumeRead
//! ```
//!
//! Backpressure ([`flow`](crate::core::flow)): a caller whose answers pile up (it is not
//! reading them) or with `max_inflight` calls in flight has its reads paused
//! ([`Effect::PauseRead`]) until it catches up, and is closed if its answers pile up past the
//! hard cap; a provider connection whose requests pile up takes new calls only when no other
//! can, none past the hard cap, and a caller whose call had to go on it anyway is paused
//! until the cluster has room again. Calls of a caller that closed which still wait to be
//! written upstream are taken out of the outboxes: the provider never gets them.
//!
//! Per call, in steady state: the frame header is parsed in place, the body is peeked only as
//! far as the routes need, the frame is copied once into the chosen connection's outbox with
//! its 8-byte id replaced, and the response comes back the same way. No allocation, no
//! formatting, no system call: the engine's reads and writes are the only ones.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicI64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use dubbo_codec::header::Header;
use dubbo_codec::{BodyFormat, DecodeError, Event, Frame, FrameCodec, Status};
use slab::Slab;

use crate::config;
use crate::core::flow::{inflight_resume_at, Change, Pause, Watermarks};
use crate::core::health::is_failure_status;
use crate::core::inflight::{InFlight, InFlightTable};
use crate::core::key::{Conn, Key};
use crate::core::metrics::{EndpointHealth, SlowCaller, Stats};
use crate::core::outbox::{self, Outbox};
use crate::core::peek::{peek, Scratch};
use crate::core::shared::{Shared, SharedEndpoint, Snapshot};
use crate::core::sniff::{sniff, Sniff};
use dubbo_registry::balance::Balancer;
use replies::Replies;

pub use bridge::{BridgeAnswer, BridgeCall, BridgeTicket};

mod backpressure;
mod bridge;
mod connections;
mod downstream;
mod memory;
#[cfg(test)]
mod memory_tests;
mod pool;
mod probes;
mod replies;
#[cfg(test)]
mod serialization_tests;
#[cfg(test)]
mod shared_tests;
#[cfg(test)]
mod slow_tests;
#[cfg(test)]
mod sniff_tests;
#[cfg(test)]
mod test_rig;
#[cfg(test)]
mod tests;
mod timers;
mod upstream;

/// What the engine must do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Open a connection to a provider; report with [`Worker::upstream_connected`] or
    /// [`Worker::closed`].
    Connect {
        /// The connection's key.
        up: Key,
        /// Where to.
        addr: SocketAddr,
        /// Give up after this long.
        timeout: Duration,
    },
    /// The connection's outbox ([`Worker::outbox`]) went from empty to not empty: write it.
    Flush(Conn),
    /// Write what is left in the outbox, close the connection, then report
    /// [`Worker::closed`]. The outbox may be empty already while the socket still does not
    /// take writes (a caller closed for not reading its answers): then close at once.
    Close(Conn),
    /// Stop reading the connection: leave its bytes in the socket, so that TCP pushes back
    /// on the peer. Bytes already read and not yet taken by the core stay in the engine's
    /// buffer. Only caller connections are paused. The peer's close (read side closed, or
    /// an error) is still to be reported ([`Worker::closed`]) as soon as the socket says so:
    /// the caller's calls still waiting upstream are dropped then, not when it would be read
    /// again.
    PauseRead(Conn),
    /// Read the connection again: first hand the core the bytes left in the engine's buffer
    /// (it stopped taking frames when it paused), then read the socket. An edge-triggered
    /// engine must read until `WouldBlock` now: the bytes that arrived while it was paused
    /// raised their edge already, and no new one may come.
    ResumeRead(Conn),
    /// The caller's connection opened with an HTTP/2 preface or an HTTP/1.1 request line:
    /// it is Triple's, not the Dubbo pipeline's. The engine hands its socket, with the bytes it read and the core did
    /// not take (the preface among them), to the `triple` pipeline, then reports the connection
    /// [`Worker::closed`] here. The core wrote nothing to it and reads none of its bytes. It
    /// stays counted as a caller connection of its listener (`max_connections`, the gauges):
    /// the pipeline uncounts it when it closes ([`crate::core::metrics::Registry::caller_gone`]).
    HandOff {
        /// The caller's connection.
        conn: Conn,
        /// Its listener (routes may apply to some listeners only).
        listener: usize,
    },
    /// A call routed to a cluster that speaks only Triple waits in
    /// [`Worker::take_bridge`]: the engine has the Triple pipeline make it and gives the
    /// answer back with [`Worker::bridged`].
    Bridge,
}

/// How often timers other than call timeouts are looked at.
const HOUSEKEEPING: Duration = Duration::from_millis(100);
/// The room the caller and provider connection slabs and the effect queue start with, and
/// keep when they give back what a burst grew (`crate::memory::shrink_idle`).
pub use crate::core::reason::Reason;

const DOWNS_ROOM: usize = 64;
const UPS_ROOM: usize = 16;
const EFFECTS_ROOM: usize = 64;
/// After the read-only event, a caller connection with nothing in flight and no frame for
/// this long is closed (calls sent before the caller saw the event still get through).
const DRAIN_QUIET: Duration = Duration::from_millis(200);
/// Cluster index of a provider connection that no longer belongs to any cluster (reload).
const ORPHAN: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UpState {
    Connecting,
    Ready,
    /// The provider sent the read-only event: no new calls; calls in flight complete.
    ReadOnly,
    Closing,
}

struct Up {
    gen: u32,
    cluster: u32,
    endpoint: u32,
    slot: u32,
    state: UpState,
    codec: FrameCodec,
    out: Outbox,
    inflight: u32,
    last_read: Instant,
    heartbeat_sent: Option<Instant>,
    stats: Arc<Stats>,
    gauge: Arc<AtomicI64>,
    hstats: Arc<EndpointHealth>,
    connected: bool,
    /// Already counted as a failure of its endpoint (heartbeat timeout).
    blamed: bool,
    /// Its outbox went over the high watermark and has not come down to the low one: no
    /// new calls.
    backed_up: bool,
}

struct Down {
    gen: u32,
    listener: u32,
    codec: FrameCodec,
    out: Outbox,
    inflight: u32,
    last_frame: Instant,
    idle_timeout: Option<Duration>,
    /// When the incomplete frame at the head of its stream began arriving (`None` at a frame
    /// boundary): it must finish within `frame_timeout`.
    partial_since: Option<Instant>,
    frame_timeout: Option<Duration>,
    /// No frame has come yet: the connection is closed `first_frame_timeout` after it opened.
    awaiting_first_frame: bool,
    /// Its first bytes said Dubbo ([`crate::core::sniff`]): frames are read from now on.
    sniffed: bool,
    /// Handed to the Triple pipeline ([`Effect::HandOff`]): it stays counted in its
    /// listener's open connections (and `max_connections`) until the pipeline is done with
    /// it, not when the worker forgets it.
    handed_off: bool,
    first_frame_timeout: Option<Duration>,
    closing: bool,
    /// Its outbox went over the high watermark and has not come down to the low one.
    backed_up: bool,
    /// Why its reads are paused (if they are).
    pause: Pause,
    /// The bytes of the frame begun in its read buffer, as last seen.
    read_held: usize,
    /// What it counts in the worker's [`memory::Budget`] (`read_held` + its outbox).
    counted: usize,
    max_inflight: u32,
    /// The serialization id of its last call: the read-only event is written in it.
    serialization: u8,
    /// The identity of its verified TLS client certificate (the access log names it).
    identity: Option<std::sync::Arc<str>>,
    /// Its address, as the engine accepted it.
    source: Option<std::net::IpAddr>,
}

#[derive(Debug, Clone, Default)]
struct Slot {
    up: Option<Key>,
    retry_at: Option<Instant>,
    backoff: Duration,
}

/// A probe of a held-ejected endpoint, under way.
#[derive(Debug, Clone, Copy)]
struct Probe {
    /// The connection it goes on.
    up: Key,
    /// The heartbeat's request id; 0 until the connection is open and it is sent.
    id: u64,
    started: Instant,
    /// This worker's claim on the endpoint's probe ([`Health::claim_probe`]).
    ///
    /// [`Health::claim_probe`]: crate::core::health::Health::claim_probe
    claim: u64,
}

struct EndpointState {
    addr: SocketAddr,
    slots: Vec<Slot>,
    rr: usize,
    /// What all workers know of it: health, calls in flight.
    shared: Arc<SharedEndpoint>,
    /// This worker's calls in flight to it.
    active: u32,
    /// Its cluster balances by least-request: `active` is counted in `shared.active` too.
    least: bool,
    gauge: Arc<AtomicI64>,
    probe: Option<Probe>,
}

struct ClusterState {
    name: String,
    spec: config::Cluster,
    stats: Arc<Stats>,
    lb: Balancer,
    weights: Vec<u32>,
    endpoints: Vec<EndpointState>,
}

/// The per-event-loop state machine. See the `core::worker` module docs.
pub struct Worker {
    id: usize,
    shared: Arc<Shared>,
    seen: u64,
    snap: Arc<Snapshot>,
    route_stats: Vec<(Arc<str>, Arc<Stats>)>,
    route_slot: Vec<u32>,
    unrouted: Arc<Stats>,
    clusters: Vec<ClusterState>,
    downs: Slab<Down>,
    ups: Slab<Up>,
    gen: u32,
    inflight: InFlightTable,
    scratch: Scratch,
    effects: VecDeque<Effect>,
    event_id: u64,
    replies: Replies,
    draining: bool,
    next_housekeeping: Instant,
    housekeeping_round: u32,
    ids: Vec<u64>,
    /// The deadline last reported by `next_deadline`, and whether an earlier one appeared
    /// since (the engine's timer must be re-armed).
    armed: Instant,
    rearm: bool,
    /// Bodies at least this long are forwarded by reference (`usize::MAX`: never).
    by_ref: usize,
    /// `[limits]` of the snapshot.
    marks: Watermarks,
    /// The longest outbox this worker has reported to the high-water metric.
    seen_outbox: usize,
    /// An outbox went over the high watermark since [`Worker::take_pressure`] was last
    /// asked.
    pressure: bool,
    /// Callers paused for [`Pause::UPSTREAM`], with the provider connection their last call
    /// went on (so: its cluster).
    blocked: Vec<(Key, Key)>,
    /// Frames of calls being dropped, `(provider connection, offset, length)` (kept to reuse
    /// its room).
    holes: Vec<(Key, u64, u32)>,
    /// What this worker's callers hold, against `limits.max_buffered_bytes`.
    budget: memory::Budget,
    /// Calls for the Triple pipeline, one per [`Effect::Bridge`] not yet taken.
    bridges: VecDeque<BridgeCall>,
}

fn push_frame(
    effects: &mut VecDeque<Effect>,
    conn: Conn,
    out: &mut Outbox,
    flush: bool,
    header: &[u8; 16],
    body: &[u8],
) {
    let was_empty = out.is_empty();
    out.push(header, body);
    if was_empty && flush {
        effects.push_back(Effect::Flush(conn));
    }
}

/// [`push_frame`] for a frame forwarded: its body may go by reference.
#[allow(clippy::too_many_arguments)]
fn forward_frame(
    effects: &mut VecDeque<Effect>,
    conn: Conn,
    out: &mut Outbox,
    flush: bool,
    header: &[u8; 16],
    body: &Bytes,
    by_ref: usize,
) {
    let was_empty = out.is_empty();
    out.push_frame(header, body, by_ref);
    if was_empty && flush {
        effects.push_back(Effect::Flush(conn));
    }
}

impl Worker {
    /// Worker `id` of `shared.workers`. Provider connections are opened at once (the
    /// returned worker's first effects are `Connect`s).
    pub fn new(id: usize, shared: Arc<Shared>, now: Instant) -> Worker {
        let snap = shared.snapshot();
        let replies = Replies::new();
        let mut w = Worker {
            id,
            seen: shared.generation(),
            unrouted: snap.routes.unrouted.clone(),
            scratch: snap.routes.scratch(),
            snap: snap.clone(),
            shared,
            route_stats: Vec::new(),
            route_slot: Vec::new(),
            clusters: Vec::new(),
            downs: Slab::with_capacity(DOWNS_ROOM),
            ups: Slab::with_capacity(UPS_ROOM),
            gen: 0,
            inflight: InFlightTable::new(),
            effects: VecDeque::with_capacity(EFFECTS_ROOM),
            event_id: 0,
            replies,
            draining: false,
            next_housekeeping: now + HOUSEKEEPING,
            housekeeping_round: 0,
            ids: Vec::new(),
            armed: now,
            rearm: false,
            by_ref: usize::MAX,
            marks: Watermarks::from_limits(&snap.config.limits),
            seen_outbox: 0,
            pressure: false,
            blocked: Vec::new(),
            holes: Vec::new(),
            budget: memory::Budget::default(),
            bridges: VecDeque::new(),
        };
        w.apply_snapshot(snap, now);
        w
    }

    fn next_gen(&mut self) -> u32 {
        self.gen = self.gen.wrapping_add(1);
        self.gen
    }

    /// This worker's index.
    pub fn id(&self) -> usize {
        self.id
    }

    /// What the workers share (configuration, metrics).
    pub fn shared(&self) -> &Shared {
        &self.shared
    }

    /// The next thing for the engine to do.
    #[inline]
    pub fn poll_effect(&mut self) -> Option<Effect> {
        self.effects.pop_front()
    }

    /// The bytes waiting to be written on a connection (the engine writes from the front and
    /// advances). `None` for a connection that is gone.
    ///
    /// This is all there is to write unless the engine asked for
    /// [forwarding by reference](Worker::set_forward_by_reference) (then see
    /// [`Worker::outbox_chain`]).
    #[inline]
    pub fn outbox(&mut self, conn: Conn) -> Option<&mut BytesMut> {
        self.outbox_chain(conn).map(|o| {
            debug_assert_eq!(o.chunks(), 0, "chunks are only made for engines that asked");
            o.buf()
        })
    }

    /// The whole outbox of a connection: chunks, then the open buffer. `None` for a
    /// connection that is gone.
    #[inline]
    pub fn outbox_chain(&mut self, conn: Conn) -> Option<&mut Outbox> {
        match conn {
            Conn::Down(k) => match self.downs.get_mut(k.idx()) {
                Some(d) if d.gen == k.gen() => Some(&mut d.out),
                _ => None,
            },
            Conn::Up(k) => match self.ups.get_mut(k.idx()) {
                Some(u) if u.gen == k.gen() => Some(&mut u.out),
                _ => None,
            },
        }
    }

    /// Forwards the body of a call or a response that is at least `min` bytes long by
    /// reference: the outbox keeps the `Bytes` the body arrived in instead of copying it
    /// (see `Outbox`). For engines that write the whole [`Worker::outbox_chain`] with
    /// `writev`; off (`usize::MAX`) by default.
    pub fn set_forward_by_reference(&mut self, min: usize) {
        self.by_ref = min;
    }

    /// Calls in flight on this worker.
    #[cfg(any(test, feature = "internals"))]
    pub fn inflight(&self) -> usize {
        self.inflight.len()
    }

    /// Open caller connections.
    #[cfg(any(test, feature = "internals"))]
    pub fn downstreams(&self) -> usize {
        self.downs.len()
    }
}
