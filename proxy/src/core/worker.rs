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
//!  engine ──now───▶ tick             ─▶ timeouts, heartbeats, reconnects, idle and drain
//!  engine ◀─────── poll_effect       ◀─ Connect / Flush / Close
//! ```
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
use dubbo_codec::event::READ_ONLY_BODY;
use dubbo_codec::header::Header;
use dubbo_codec::response::error_body;
use dubbo_codec::{DecodeError, Event, Frame, FrameCodec, Serialization, Status};
use slab::Slab;

use crate::config;
use crate::core::balance::Balancer;
use crate::core::health::{is_failure_status, Health};
use crate::core::inflight::{InFlight, InFlightTable};
use crate::core::key::{Conn, Key};
use crate::core::metrics::Stats;
use crate::core::peek::{peek, Scratch};
use crate::core::shared::{Shared, Snapshot};

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
    /// [`Worker::closed`].
    Close(Conn),
}

/// How often timers other than call timeouts are looked at.
const HOUSEKEEPING: Duration = Duration::from_millis(100);
/// After the read-only event, a caller connection with nothing in flight and no frame for
/// this long is closed (calls sent before the caller saw the event still get through).
const DRAIN_QUIET: Duration = Duration::from_millis(200);
/// Cluster index of a provider connection that no longer belongs to any cluster (reload).
const ORPHAN: u32 = u32::MAX;

/// Why the proxy answers a call itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub enum Reason {
    /// No route matched: SERVICE_NOT_FOUND.
    NoRoute,
    /// The cluster has no endpoint that can take the call: SERVICE_ERROR.
    NoUpstream,
    /// The connection to the chosen provider could not be opened: SERVICE_ERROR.
    ConnectFailed,
    /// The provider's connection closed with the call in flight: CHANNEL_INACTIVE.
    UpstreamLost,
    /// No response within the route's timeout: SERVER_TIMEOUT.
    Timeout,
    /// The request body is over the listener's `max_payload`: BAD_REQUEST.
    Oversize,
    /// The request body cannot be read far enough to route it: BAD_REQUEST.
    BadBody,
    /// The provider's response is over the cluster's `max_payload`: BAD_RESPONSE.
    OversizeResponse,
}

impl Reason {
    const ALL: [Reason; 8] = [
        Reason::NoRoute,
        Reason::NoUpstream,
        Reason::ConnectFailed,
        Reason::UpstreamLost,
        Reason::Timeout,
        Reason::Oversize,
        Reason::BadBody,
        Reason::OversizeResponse,
    ];

    /// The status sent to the caller.
    ///
    /// No provider / connect refused: SERVICE_ERROR (70), what a Java provider answers when
    /// it cannot hand a call to a service: `DubboProtocol.getInvoker` throws
    /// `RemotingException("Not found exported service ...")` and
    /// `HeaderExchangeHandler.handleRequest` turns any exception of dispatch into
    /// `res.setStatus(Response.SERVICE_ERROR)` (apache/dubbo,
    /// dubbo-remoting-api/.../exchange/support/header/HeaderExchangeHandler.java). Java never
    /// puts SERVICE_NOT_FOUND on the wire; the proxy uses it for "no route" only, as the
    /// issue asks (MOSN's Dubbo proxy maps both no-route and no-healthy-upstream to it). A
    /// Java consumer's `DefaultFuture.doReceived` turns every status but OK and the two
    /// timeouts into a `RemotingException` carrying the message, so the consumer sees the
    /// same exception type either way; only SERVER_TIMEOUT becomes a `TimeoutException`.
    ///
    /// A provider connection lost with calls in flight: CHANNEL_INACTIVE (35), what Java's
    /// own client gives its pending calls in `DefaultFuture.closeChannel` ("Channel ... is
    /// inactive. Directly return the unFinished request").
    pub const fn status(self) -> Status {
        match self {
            Reason::NoRoute => Status::ServiceNotFound,
            Reason::NoUpstream | Reason::ConnectFailed => Status::ServiceError,
            Reason::UpstreamLost => Status::ChannelInactive,
            Reason::Timeout => Status::ServerTimeout,
            Reason::Oversize | Reason::BadBody => Status::BadRequest,
            Reason::OversizeResponse => Status::BadResponse,
        }
    }

    /// The error message sent (encoded once per worker, never formatted per call).
    pub const fn message(self) -> &'static str {
        match self {
            Reason::NoRoute => "dubbo-proxy: no route matches this call",
            Reason::NoUpstream => "dubbo-proxy: no healthy provider for this call",
            Reason::ConnectFailed => "dubbo-proxy: cannot connect to the provider",
            Reason::UpstreamLost => {
                "dubbo-proxy: the connection to the provider closed with this call in flight"
            }
            Reason::Timeout => "dubbo-proxy: the provider did not answer in time",
            Reason::Oversize => "dubbo-proxy: request body exceeds the listener's max_payload",
            Reason::BadBody => "dubbo-proxy: cannot read the request body",
            Reason::OversizeResponse => {
                "dubbo-proxy: response body exceeds the cluster's max_payload"
            }
        }
    }
}

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
    out: BytesMut,
    inflight: u32,
    last_read: Instant,
    heartbeat_sent: Option<Instant>,
    stats: Arc<Stats>,
    gauge: Arc<AtomicI64>,
    connected: bool,
    /// Already counted as a failure of its endpoint (heartbeat timeout).
    blamed: bool,
}

struct Down {
    gen: u32,
    listener: u32,
    codec: FrameCodec,
    out: BytesMut,
    inflight: u32,
    last_frame: Instant,
    idle_timeout: Option<Duration>,
    closing: bool,
}

#[derive(Debug, Clone, Default)]
struct Slot {
    up: Option<Key>,
    retry_at: Option<Instant>,
    backoff: Duration,
}

struct EndpointState {
    addr: SocketAddr,
    slots: Vec<Slot>,
    rr: usize,
    health: Health,
    active: u32,
    gauge: Arc<AtomicI64>,
}

struct ClusterState {
    name: String,
    spec: config::Cluster,
    stats: Arc<Stats>,
    lb: Balancer,
    weights: Vec<u32>,
    endpoints: Vec<EndpointState>,
}

/// The per-event-loop state machine. See the [module docs](self).
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
    replies: Vec<Bytes>,
    draining: bool,
    next_housekeeping: Instant,
    housekeeping_round: u32,
    ids: Vec<u64>,
    /// The deadline last reported by `next_deadline`, and whether an earlier one appeared
    /// since (the engine's timer must be re-armed).
    armed: Instant,
    rearm: bool,
}

fn push_frame(
    effects: &mut VecDeque<Effect>,
    conn: Conn,
    out: &mut BytesMut,
    flush: bool,
    header: &[u8; 16],
    body: &[u8],
) {
    let was_empty = out.is_empty();
    out.extend_from_slice(header);
    out.extend_from_slice(body);
    if was_empty && flush {
        effects.push_back(Effect::Flush(conn));
    }
}

impl Worker {
    /// Worker `id` of `shared.workers`. Provider connections are opened at once (the
    /// returned worker's first effects are `Connect`s).
    pub fn new(id: usize, shared: Arc<Shared>, now: Instant) -> Worker {
        let snap = shared.snapshot();
        let replies = Reason::ALL
            .iter()
            .map(|r| error_body(Some(r.message())))
            .collect();
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
            downs: Slab::with_capacity(64),
            ups: Slab::with_capacity(16),
            gen: 0,
            inflight: InFlightTable::new(),
            effects: VecDeque::with_capacity(64),
            event_id: 0,
            replies,
            draining: false,
            next_housekeeping: now + HOUSEKEEPING,
            housekeeping_round: 0,
            ids: Vec::new(),
            armed: now,
            rearm: false,
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

    /// The next thing for the engine to do.
    #[inline]
    pub fn poll_effect(&mut self) -> Option<Effect> {
        self.effects.pop_front()
    }

    /// The bytes waiting to be written on a connection (the engine writes from the front and
    /// advances). `None` for a connection that is gone.
    #[inline]
    pub fn outbox(&mut self, conn: Conn) -> Option<&mut BytesMut> {
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

    /// Calls in flight on this worker.
    pub fn inflight(&self) -> usize {
        self.inflight.len()
    }

    /// Open caller connections.
    pub fn downstreams(&self) -> usize {
        self.downs.len()
    }

    // ----- configuration --------------------------------------------------------------

    /// Picks up a new snapshot if one was published (SIGHUP, `/metadata`).
    #[inline]
    pub fn refresh(&mut self, now: Instant) {
        let g = self.shared.generation();
        if g != self.seen {
            self.seen = g;
            let snap = self.shared.snapshot();
            self.apply_snapshot(snap, now);
        }
    }

    fn apply_snapshot(&mut self, snap: Arc<Snapshot>, now: Instant) {
        // Route stats: worker-stable indexes, so calls in flight across a reload still count.
        self.route_slot.clear();
        for r in &snap.routes.routes {
            let pos = match self.route_stats.iter().position(|(n, _)| *n == r.name) {
                Some(p) => p,
                None => {
                    self.route_stats.push((r.name.clone(), r.stats.clone()));
                    self.route_stats.len() - 1
                }
            };
            self.route_slot.push(pos as u32);
        }
        self.scratch = snap.routes.scratch();
        self.unrouted = snap.routes.unrouted.clone();

        // Clusters: keep the state (connections, health, balancer position) of every
        // endpoint that is still there; orphan the connections of those that are not.
        let mut old = std::mem::take(&mut self.clusters);
        let mut new = Vec::with_capacity(snap.routes.clusters.len());
        for (ci, name) in snap.routes.clusters.iter().enumerate() {
            let spec = snap.config.clusters[name].clone();
            let prev = old.iter_mut().find(|c| c.name == *name);
            let lb = match &prev {
                Some(p) if p.spec.lb == spec.lb && p.spec.endpoints == spec.endpoints => {
                    p.lb.clone()
                }
                _ => Balancer::new(
                    spec.lb,
                    spec.endpoints.len(),
                    (self.id as u64) << 32 | ci as u64,
                ),
            };
            let mut prev_eps = prev.map(|p| std::mem::take(&mut p.endpoints));
            let mut endpoints = Vec::with_capacity(spec.endpoints.len());
            for e in &spec.endpoints {
                let addr: SocketAddr = e.address.parse().expect("validated address");
                let kept = prev_eps
                    .as_mut()
                    .and_then(|v| v.iter().position(|x| x.addr == addr).map(|i| v.remove(i)));
                let mut ep = kept.unwrap_or_else(|| EndpointState {
                    addr,
                    slots: Vec::new(),
                    rr: 0,
                    health: Health::default(),
                    active: 0,
                    gauge: self.shared.metrics.endpoint(name, &e.address),
                });
                while ep.slots.len() > spec.connections {
                    if let Some(k) = ep.slots.pop().and_then(|s| s.up) {
                        self.orphan(k);
                    }
                }
                ep.slots.resize(
                    spec.connections,
                    Slot {
                        up: None,
                        retry_at: Some(now),
                        backoff: Duration::from_millis(spec.reconnect_base_ms),
                    },
                );
                endpoints.push(ep);
            }
            for ep in prev_eps.into_iter().flatten() {
                for s in ep.slots {
                    if let Some(k) = s.up {
                        self.orphan(k);
                    }
                }
            }
            new.push(ClusterState {
                name: name.clone(),
                stats: self.shared.metrics.cluster(name),
                weights: spec.endpoints.iter().map(|e| e.weight).collect(),
                lb,
                spec,
                endpoints,
            });
        }
        for c in old {
            for ep in c.endpoints {
                for s in ep.slots {
                    if let Some(k) = s.up {
                        self.orphan(k);
                    }
                }
            }
        }
        self.clusters = new;
        // Re-point the connections that were kept.
        for (ci, c) in self.clusters.iter_mut().enumerate() {
            for (ei, ep) in c.endpoints.iter().enumerate() {
                for (si, s) in ep.slots.iter().enumerate() {
                    if let Some(k) = s.up {
                        if let Some(u) = self.ups.get_mut(k.idx()) {
                            u.cluster = ci as u32;
                            u.endpoint = ei as u32;
                            u.slot = si as u32;
                            u.codec.set_max_payload(c.spec.max_payload);
                        }
                    }
                }
            }
        }
        self.snap = snap;
        self.connect_due(now);
    }

    /// A provider connection that no longer belongs to a cluster: no new calls; closed once
    /// its calls in flight are done.
    fn orphan(&mut self, k: Key) {
        if let Some(u) = self.ups.get_mut(k.idx()) {
            u.cluster = ORPHAN;
            if u.inflight == 0 && u.state != UpState::Closing {
                u.state = UpState::Closing;
                self.effects.push_back(Effect::Close(Conn::Up(k)));
            }
        }
    }

    /// Opens the connections whose retry time has come.
    fn connect_due(&mut self, now: Instant) {
        if self.draining {
            return;
        }
        for ci in 0..self.clusters.len() {
            for ei in 0..self.clusters[ci].endpoints.len() {
                for si in 0..self.clusters[ci].endpoints[ei].slots.len() {
                    let s = &self.clusters[ci].endpoints[ei].slots[si];
                    if s.up.is_none() && s.retry_at.is_some_and(|t| t <= now) {
                        self.connect(ci, ei, si, now);
                    }
                }
            }
        }
    }

    fn connect(&mut self, ci: usize, ei: usize, si: usize, now: Instant) {
        let gen = self.next_gen();
        let c = &self.clusters[ci];
        let ep = &c.endpoints[ei];
        let idx = self.ups.insert(Up {
            gen,
            cluster: ci as u32,
            endpoint: ei as u32,
            slot: si as u32,
            state: UpState::Connecting,
            codec: FrameCodec::with_max_payload(c.spec.max_payload),
            out: BytesMut::with_capacity(16 * 1024),
            inflight: 0,
            last_read: now,
            heartbeat_sent: None,
            stats: c.stats.clone(),
            gauge: ep.gauge.clone(),
            connected: false,
            blamed: false,
        });
        let key = Key::new(idx, gen);
        let addr = ep.addr;
        let timeout = Duration::from_millis(c.spec.connect_timeout_ms);
        let slot = &mut self.clusters[ci].endpoints[ei].slots[si];
        slot.up = Some(key);
        slot.retry_at = None;
        self.effects.push_back(Effect::Connect {
            up: key,
            addr,
            timeout,
        });
    }

    // ----- connections ----------------------------------------------------------------

    /// A caller connected to listener `listener` (index in the configuration).
    pub fn open_downstream(&mut self, listener: usize, now: Instant) -> Key {
        let l = &self.snap.config.listeners[listener.min(self.snap.config.listeners.len() - 1)];
        let codec = FrameCodec::with_max_payload(l.max_payload);
        let idle = (l.idle_timeout_ms > 0).then(|| Duration::from_millis(l.idle_timeout_ms));
        let gen = self.next_gen();
        let idx = self.downs.insert(Down {
            gen,
            listener: listener as u32,
            codec,
            out: BytesMut::with_capacity(16 * 1024),
            inflight: 0,
            last_frame: now,
            idle_timeout: idle,
            closing: false,
        });
        self.shared
            .metrics
            .downstream_accepted
            .fetch_add(1, Relaxed);
        self.shared
            .metrics
            .downstream_connections
            .fetch_add(1, Relaxed);
        let key = Key::new(idx, gen);
        if self.draining {
            self.send_read_only(key);
        }
        key
    }

    /// A provider connection opened.
    pub fn upstream_connected(&mut self, up: Key, now: Instant) {
        let Some(u) = self.ups.get_mut(up.idx()).filter(|u| u.gen == up.gen()) else {
            return;
        };
        if u.state != UpState::Connecting {
            return;
        }
        u.state = UpState::Ready;
        u.connected = true;
        u.last_read = now;
        u.gauge.fetch_add(1, Relaxed);
        if !u.out.is_empty() {
            self.effects.push_back(Effect::Flush(Conn::Up(up)));
        }
        let (ci, ei, si) = (u.cluster as usize, u.endpoint as usize, u.slot as usize);
        if let Some(c) = self.clusters.get_mut(ci) {
            let base = Duration::from_millis(c.spec.reconnect_base_ms);
            if let Some(s) = c.endpoints.get_mut(ei).and_then(|e| e.slots.get_mut(si)) {
                s.backoff = base;
            }
        }
    }

    /// A connection is gone: the peer closed it, an I/O error, a failed connect, or after
    /// an [`Effect::Close`]. Calls in flight on a provider connection are answered with
    /// CHANNEL_INACTIVE (SERVICE_ERROR if it never opened); other connections are untouched.
    pub fn closed(&mut self, conn: Conn, now: Instant) {
        match conn {
            Conn::Down(k) => {
                if self.downs.get(k.idx()).is_some_and(|d| d.gen == k.gen()) {
                    self.downs.remove(k.idx());
                    self.shared
                        .metrics
                        .downstream_connections
                        .fetch_sub(1, Relaxed);
                }
            }
            Conn::Up(k) => {
                if self.ups.get(k.idx()).is_none_or(|u| u.gen != k.gen()) {
                    return;
                }
                let u = self.ups.remove(k.idx());
                if u.connected {
                    u.gauge.fetch_sub(1, Relaxed);
                }
                let reason = if u.connected {
                    Reason::UpstreamLost
                } else {
                    Reason::ConnectFailed
                };
                let mut ids = std::mem::take(&mut self.ids);
                self.inflight.ids_where(&mut ids, |c| c.up == k);
                for &id in &ids {
                    if let Some(call) = self.inflight.remove(id) {
                        self.finish_local(call, reason, now);
                    }
                }
                self.ids = ids;
                if u.cluster == ORPHAN {
                    return;
                }
                let (ci, ei, si) = (u.cluster as usize, u.endpoint as usize, u.slot as usize);
                // One failure for losing a connection that carried calls (a heartbeat
                // timeout was counted when it happened).
                if u.connected && u.inflight > 0 && !u.blamed {
                    self.endpoint_failure(ci, ei, now);
                }
                if let Some(c) = self.clusters.get_mut(ci) {
                    let max = Duration::from_millis(c.spec.reconnect_max_ms);
                    let base = Duration::from_millis(c.spec.reconnect_base_ms);
                    if let Some(ep) = c.endpoints.get_mut(ei) {
                        ep.active = ep.active.saturating_sub(u.inflight);
                        if let Some(s) = ep.slots.get_mut(si).filter(|s| s.up == Some(k)) {
                            s.up = None;
                            // A connection that worked is retried soon; one that never
                            // opened backs off, doubling.
                            if u.connected {
                                s.backoff = base;
                            } else {
                                s.backoff = (s.backoff * 2).clamp(base, max);
                            }
                            s.retry_at = Some(now + s.backoff);
                        }
                    }
                }
            }
        }
    }

    // ----- downstream -----------------------------------------------------------------

    /// Bytes arrived from a caller. Whole frames are taken off the front of `buf`.
    pub fn downstream_data(&mut self, down: Key, buf: &mut BytesMut, now: Instant) {
        self.refresh(now);
        loop {
            let Some(d) = self
                .downs
                .get_mut(down.idx())
                .filter(|d| d.gen == down.gen())
            else {
                buf.clear();
                return;
            };
            if d.closing {
                buf.clear();
                return;
            }
            match d.codec.decode_frame(buf) {
                Ok(Some(frame)) => {
                    d.last_frame = now;
                    self.downstream_frame(down, frame, now);
                }
                Ok(None) => return,
                Err(DecodeError::PayloadTooLarge { header, .. }) => {
                    d.last_frame = now;
                    if header.is_request() && header.is_two_way() && !header.is_event() {
                        self.unrouted.request(self.id);
                        self.reply(down, header.request_id(), Reason::Oversize);
                        self.unrouted.response(
                            self.id,
                            Reason::Oversize.status().as_u8(),
                            Duration::ZERO,
                            true,
                        );
                    }
                }
                Err(_) => {
                    // Not a Dubbo stream (or lost its place): nothing can be answered.
                    self.shared.metrics.protocol_errors.fetch_add(1, Relaxed);
                    buf.clear();
                    self.close_down(down);
                    return;
                }
            }
        }
    }

    fn close_down(&mut self, down: Key) {
        if let Some(d) = self
            .downs
            .get_mut(down.idx())
            .filter(|d| d.gen == down.gen())
        {
            if !d.closing {
                d.closing = true;
                self.effects.push_back(Effect::Close(Conn::Down(down)));
            }
        }
    }

    /// One whole frame from a caller (engines that frame themselves call this directly).
    pub fn downstream_frame(&mut self, down: Key, frame: Frame, now: Instant) {
        let h = *frame.header();
        if h.is_event() {
            if h.is_request() && h.is_two_way() && frame.is_heartbeat() {
                // Answered here, in the request's serialization, with its body (`null`),
                // as Java's HeartbeatHandler does. Never forwarded.
                let resp = Header::new(
                    h.serialization_id(),
                    Status::Ok.as_u8(),
                    h.request_id(),
                    h.body_len(),
                )
                .with_event(true);
                if let Some(d) = self.downs.get_mut(down.idx()) {
                    push_frame(
                        &mut self.effects,
                        Conn::Down(down),
                        &mut d.out,
                        true,
                        &resp.to_bytes(),
                        frame.body(),
                    );
                }
                self.shared
                    .metrics
                    .heartbeats_answered
                    .fetch_add(1, Relaxed);
            }
            return;
        }
        if !h.is_request() {
            // A response from a caller would answer a callback: not supported, dropped.
            return;
        }
        let two_way = h.is_two_way();

        // Route. Field-level borrows: the snapshot and the scratch, nothing else.
        let listener = self.downs[down.idx()].listener as usize;
        let decision = {
            let snap = &*self.snap;
            match peek(
                frame.body(),
                snap.routes.needs,
                &snap.cache,
                &mut self.scratch,
            ) {
                Err(_) => Err(Reason::BadBody),
                Ok(call) => match snap.routes.find(listener, &call, &self.scratch) {
                    None => Err(Reason::NoRoute),
                    Some(r) => Ok((
                        r,
                        snap.routes.routes[r].cluster,
                        snap.routes.routes[r].timeout,
                    )),
                },
            }
        };
        let (route, cluster, timeout) = match decision {
            Ok(d) => d,
            Err(reason) => {
                self.unrouted.request(self.id);
                if two_way {
                    self.reply(down, h.request_id(), reason);
                    self.unrouted
                        .response(self.id, reason.status().as_u8(), Duration::ZERO, true);
                }
                return;
            }
        };
        let route_stats = self.route_slot[route];
        let stats = &self.route_stats[route_stats as usize].1;
        stats.request(self.id);
        self.clusters[cluster].stats.request(self.id);

        let Some((ei, up)) = self.pick(cluster, now) else {
            if two_way {
                self.reply(down, h.request_id(), Reason::NoUpstream);
                let st = Reason::NoUpstream.status().as_u8();
                self.route_stats[route_stats as usize].1.response(
                    self.id,
                    st,
                    Duration::ZERO,
                    true,
                );
                self.clusters[cluster]
                    .stats
                    .response(self.id, st, Duration::ZERO, true);
            }
            return;
        };

        // Forward: the frame as it arrived, with only the request id replaced.
        let id = if two_way {
            let id = self.inflight.insert(
                InFlight {
                    down,
                    down_id: h.request_id(),
                    up,
                    route: route_stats,
                    start: now,
                },
                timeout,
            );
            if now + timeout < self.armed {
                self.rearm = true;
            }
            self.downs[down.idx()].inflight += 1;
            self.clusters[cluster].endpoints[ei].active += 1;
            id
        } else {
            h.request_id()
        };
        let u = &mut self.ups[up.idx()];
        if two_way {
            u.inflight += 1;
        }
        let header = Header::new(h.flag(), h.status_byte(), id, h.body_len());
        let ready = u.state == UpState::Ready;
        push_frame(
            &mut self.effects,
            Conn::Up(up),
            &mut u.out,
            ready,
            &header.to_bytes(),
            frame.body(),
        );
    }

    /// Chooses an endpoint of cluster `ci` and one of its connections.
    fn pick(&mut self, ci: usize, now: Instant) -> Option<(usize, Key)> {
        let ups = &self.ups;
        let c = &mut self.clusters[ci];
        let n = c.endpoints.len();
        let ejected = c
            .endpoints
            .iter()
            .filter(|e| e.health.ejected_at(now))
            .count();
        let has = |e: &EndpointState, state: UpState| {
            e.slots
                .iter()
                .any(|s| s.up.is_some_and(|k| ups[k.idx()].state == state))
        };
        let ClusterState {
            lb,
            weights,
            endpoints,
            ..
        } = c;
        // Prefer endpoints with an open connection; at start (or after every connection
        // dropped) queue on one that is connecting rather than fail the call.
        let mut state = UpState::Ready;
        let mut chosen = lb.pick(
            weights,
            |i| {
                (ejected == n || !endpoints[i].health.ejected_at(now))
                    && has(&endpoints[i], UpState::Ready)
            },
            |i| endpoints[i].active,
        );
        if chosen.is_none() {
            state = UpState::Connecting;
            chosen = lb.pick(
                weights,
                |i| !endpoints[i].health.ejected_at(now) && has(&endpoints[i], UpState::Connecting),
                |i| endpoints[i].active,
            );
        }
        let ei = chosen?;
        let ep = &mut endpoints[ei];
        let m = ep.slots.len();
        for k in 0..m {
            let si = (ep.rr + k) % m;
            if let Some(key) = ep.slots[si].up {
                if ups[key.idx()].state == state {
                    ep.rr = (si + 1) % m;
                    return Some((ei, key));
                }
            }
        }
        None
    }

    /// Answers a call with a status and one of the pre-encoded messages.
    fn reply(&mut self, down: Key, request_id: u64, reason: Reason) {
        let Some(d) = self
            .downs
            .get_mut(down.idx())
            .filter(|d| d.gen == down.gen() && !d.closing)
        else {
            return;
        };
        let body = &self.replies[reason as usize];
        let header = Header::response(request_id, Serialization::Hessian2, reason.status())
            .with_body_len(body.len() as u32);
        push_frame(
            &mut self.effects,
            Conn::Down(down),
            &mut d.out,
            true,
            &header.to_bytes(),
            body,
        );
    }

    /// A call ends without a provider's answer (timeout, lost or failed connection).
    fn finish_local(&mut self, call: InFlight, reason: Reason, now: Instant) {
        let status = reason.status().as_u8();
        let latency = now.saturating_duration_since(call.start);
        if let Some(u) = self
            .ups
            .get_mut(call.up.idx())
            .filter(|u| u.gen == call.up.gen())
        {
            u.inflight = u.inflight.saturating_sub(1);
            u.stats.response(self.id, status, latency, true);
            let (ci, ei) = (u.cluster as usize, u.endpoint as usize);
            if let Some(ep) = self
                .clusters
                .get_mut(ci)
                .and_then(|c| c.endpoints.get_mut(ei))
            {
                ep.active = ep.active.saturating_sub(1);
            }
            if reason == Reason::Timeout && u.cluster != ORPHAN {
                self.endpoint_failure(ci, ei, now);
            }
        }
        if let Some((_, s)) = self.route_stats.get(call.route as usize) {
            s.response(self.id, status, latency, true);
        }
        if let Some(d) = self
            .downs
            .get_mut(call.down.idx())
            .filter(|d| d.gen == call.down.gen())
        {
            d.inflight = d.inflight.saturating_sub(1);
        }
        self.reply(call.down, call.down_id, reason);
    }

    fn endpoint_failure(&mut self, ci: usize, ei: usize, now: Instant) {
        let Some(c) = self.clusters.get_mut(ci) else {
            return;
        };
        let n = c.endpoints.len();
        let ejected = c
            .endpoints
            .iter()
            .filter(|e| e.health.ejected_at(now))
            .count();
        let may = (ejected + 1) * 100 <= c.spec.outlier.max_ejection_percent as usize * n;
        if let Some(ep) = c.endpoints.get_mut(ei) {
            if ep.health.failure(now, &c.spec.outlier, may) {
                tracing::warn!(cluster = %c.name, endpoint = %ep.addr, "endpoint ejected after consecutive failures");
            }
        }
    }

    // ----- upstream -------------------------------------------------------------------

    /// Bytes arrived from a provider.
    pub fn upstream_data(&mut self, up: Key, buf: &mut BytesMut, now: Instant) {
        loop {
            let Some(u) = self.ups.get_mut(up.idx()).filter(|u| u.gen == up.gen()) else {
                buf.clear();
                return;
            };
            u.last_read = now;
            u.heartbeat_sent = None;
            match u.codec.decode_frame(buf) {
                Ok(Some(frame)) => self.upstream_frame(up, frame, now),
                Ok(None) => return,
                Err(DecodeError::PayloadTooLarge { header, .. }) => {
                    if header.is_response() && !header.is_event() {
                        if let Some(call) = self
                            .inflight
                            .get(header.request_id())
                            .copied()
                            .filter(|c| c.up == up)
                        {
                            self.inflight.remove(header.request_id());
                            self.finish_local(call, Reason::OversizeResponse, now);
                        }
                    }
                }
                Err(_) => {
                    buf.clear();
                    if u.state != UpState::Closing {
                        u.state = UpState::Closing;
                        self.effects.push_back(Effect::Close(Conn::Up(up)));
                    }
                    return;
                }
            }
        }
    }

    /// One whole frame from a provider.
    pub fn upstream_frame(&mut self, up: Key, frame: Frame, now: Instant) {
        let h = *frame.header();
        if h.is_event() {
            if h.is_request() {
                let Some(u) = self.ups.get_mut(up.idx()) else {
                    return;
                };
                match frame.event() {
                    Some(Event::Heartbeat) if h.is_two_way() => {
                        let resp = Header::new(
                            h.serialization_id(),
                            Status::Ok.as_u8(),
                            h.request_id(),
                            h.body_len(),
                        )
                        .with_event(true);
                        let ready = matches!(u.state, UpState::Ready | UpState::ReadOnly);
                        push_frame(
                            &mut self.effects,
                            Conn::Up(up),
                            &mut u.out,
                            ready,
                            &resp.to_bytes(),
                            frame.body(),
                        );
                    }
                    Some(Event::ReadOnly) if u.state == UpState::Ready => {
                        u.state = UpState::ReadOnly;
                        let ep = self
                            .clusters
                            .get(u.cluster as usize)
                            .and_then(|c| c.endpoints.get(u.endpoint as usize))
                            .map(|e| e.addr);
                        tracing::info!(endpoint = ?ep, "provider is shutting down (read-only event): no new calls to it");
                    }
                    Some(Event::Writeable) if u.state == UpState::ReadOnly => {
                        u.state = UpState::Ready;
                    }
                    _ => {}
                }
            }
            // An event response answers our heartbeat: `last_read` was updated already.
            return;
        }
        if h.is_request() {
            // A provider calling back into a consumer: not supported, dropped.
            return;
        }
        let id = h.request_id();
        let Some(call) = self.inflight.get(id).copied().filter(|c| c.up == up) else {
            // Timed out already, or not ours.
            return;
        };
        self.inflight.remove(id);
        let status = h.status_byte();
        let latency = now.saturating_duration_since(call.start);
        let u = &mut self.ups[up.idx()];
        u.inflight = u.inflight.saturating_sub(1);
        u.stats.response(self.id, status, latency, false);
        let (ci, ei) = (u.cluster as usize, u.endpoint as usize);
        if u.cluster != ORPHAN {
            if is_failure_status(status) {
                self.endpoint_failure(ci, ei, now);
            }
            if let Some(ep) = self
                .clusters
                .get_mut(ci)
                .and_then(|c| c.endpoints.get_mut(ei))
            {
                ep.active = ep.active.saturating_sub(1);
                if !is_failure_status(status) {
                    ep.health.success();
                }
            }
        } else if self.ups[up.idx()].inflight == 0 {
            self.orphan(up);
        }
        let (route_name, route_stats) = &self.route_stats[call.route as usize];
        route_stats.response(self.id, status, latency, false);
        if !self.shared.downgraded() && self.snap.config.log.access_log {
            tracing::info!(target: "dubbo_proxy::access", route = %route_name, status, latency_us = latency.as_micros() as u64, caller_id = call.down_id);
        }
        if let Some(d) = self
            .downs
            .get_mut(call.down.idx())
            .filter(|d| d.gen == call.down.gen())
        {
            d.inflight = d.inflight.saturating_sub(1);
            if !d.closing {
                let header = Header::new(h.flag(), status, call.down_id, h.body_len());
                push_frame(
                    &mut self.effects,
                    Conn::Down(call.down),
                    &mut d.out,
                    true,
                    &header.to_bytes(),
                    frame.body(),
                );
            }
        }
    }

    // ----- time -----------------------------------------------------------------------

    /// When [`Worker::tick`] next has something to do. The engine sleeps until then, or
    /// until [`Worker::take_rearm`] says an earlier deadline appeared.
    pub fn next_deadline(&mut self) -> Instant {
        let d = match self.inflight.next_deadline() {
            Some(d) => d.min(self.next_housekeeping),
            None => self.next_housekeeping,
        };
        self.armed = d;
        self.rearm = false;
        d
    }

    /// True (once) when a call with a deadline earlier than the last
    /// [`Worker::next_deadline`] arrived since.
    #[inline]
    pub fn take_rearm(&mut self) -> bool {
        std::mem::take(&mut self.rearm)
    }

    /// Time passed: call timeouts, then (every 100 ms) heartbeats, reconnects, idle
    /// connections and the shutdown drain.
    pub fn tick(&mut self, now: Instant) {
        self.refresh(now);
        while let Some((_, call)) = self.inflight.pop_expired(now) {
            self.finish_local(call, Reason::Timeout, now);
        }
        if now >= self.next_housekeeping {
            self.next_housekeeping = now + HOUSEKEEPING;
            self.housekeeping_round = self.housekeeping_round.wrapping_add(1);
            self.housekeeping(now);
        }
    }

    fn housekeeping(&mut self, now: Instant) {
        self.connect_due(now);
        // Heartbeats: the proxy's own, on provider connections with nothing read for a
        // while; one left unanswered means the connection is dead.
        let mut dead = std::mem::take(&mut self.ids);
        dead.clear();
        for (idx, u) in self.ups.iter_mut() {
            if !matches!(u.state, UpState::Ready | UpState::ReadOnly) {
                continue;
            }
            let Some(c) = self.clusters.get(u.cluster as usize) else {
                continue;
            };
            let hc = &c.spec.health_check;
            if hc.interval_ms == 0 {
                continue;
            }
            match u.heartbeat_sent {
                Some(t)
                    if now.saturating_duration_since(t) >= Duration::from_millis(hc.timeout_ms) =>
                {
                    dead.push(Key::new(idx, u.gen).to_u64());
                }
                None if now.saturating_duration_since(u.last_read)
                    >= Duration::from_millis(hc.interval_ms) =>
                {
                    self.event_id = self.event_id.wrapping_add(1);
                    let f = Frame::heartbeat_request(self.event_id);
                    push_frame(
                        &mut self.effects,
                        Conn::Up(Key::new(idx, u.gen)),
                        &mut u.out,
                        true,
                        &f.header().to_bytes(),
                        f.body(),
                    );
                    u.heartbeat_sent = Some(now);
                }
                _ => {}
            }
        }
        for &raw in &dead {
            let k = Key::new((raw & 0xffff_ffff) as usize, (raw >> 32) as u32);
            let u = &mut self.ups[k.idx()];
            u.state = UpState::Closing;
            u.blamed = true;
            let (ci, ei) = (u.cluster as usize, u.endpoint as usize);
            tracing::warn!("provider connection missed its heartbeat: closing it");
            self.effects.push_back(Effect::Close(Conn::Up(k)));
            self.endpoint_failure(ci, ei, now);
        }
        dead.clear();
        self.ids = dead;

        // Idle callers (every second), and the drain after the read-only event.
        if self.draining || self.housekeeping_round % 10 == 0 {
            let draining = self.draining;
            for (idx, d) in self.downs.iter_mut() {
                if d.closing {
                    continue;
                }
                let idle = now.saturating_duration_since(d.last_frame);
                let close = if draining {
                    d.inflight == 0 && idle >= DRAIN_QUIET
                } else {
                    d.idle_timeout.is_some_and(|t| idle >= t)
                };
                if close {
                    d.closing = true;
                    self.effects
                        .push_back(Effect::Close(Conn::Down(Key::new(idx, d.gen))));
                }
            }
        }
    }

    // ----- shutdown -------------------------------------------------------------------

    /// SIGTERM: tell every caller that this server is going away (the read-only event, as a
    /// Java provider does), keep serving what they still send, and close each caller
    /// connection once it is quiet. Stops reconnecting to providers.
    pub fn begin_shutdown(&mut self, now: Instant) {
        if self.draining {
            return;
        }
        self.draining = true;
        self.next_housekeeping = now;
        self.rearm = true;
        let keys: Vec<Key> = self
            .downs
            .iter()
            .map(|(idx, d)| Key::new(idx, d.gen))
            .collect();
        for k in keys {
            self.send_read_only(k);
        }
    }

    fn send_read_only(&mut self, down: Key) {
        self.event_id = self.event_id.wrapping_add(1);
        let h = Header::request(self.event_id, Serialization::Hessian2, false)
            .with_event(true)
            .with_body_len(READ_ONLY_BODY.len() as u32);
        if let Some(d) = self.downs.get_mut(down.idx()) {
            push_frame(
                &mut self.effects,
                Conn::Down(down),
                &mut d.out,
                true,
                &h.to_bytes(),
                READ_ONLY_BODY,
            );
        }
    }

    /// True once shutting down and every caller connection is closed.
    pub fn is_drained(&self) -> bool {
        self.draining && self.downs.is_empty()
    }

    /// True while shutting down.
    pub fn is_draining(&self) -> bool {
        self.draining
    }
}
