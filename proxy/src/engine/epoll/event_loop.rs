//! One event loop: a mio `Poll`, a [`Worker`], its connections, its block pool and its
//! timer wheel. See the [engine docs](super).

use std::io::{self, Write};
use std::net::SocketAddr;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token};
use slab::Slab;

use super::conn::{write_outbox, ConnIo, Read};
use super::tls;
use super::wheel::Wheel;
use super::{Cmd, Options, Remote, WAKER};
use crate::buffer::read::read_into;
use crate::buffer::BlockPool;
use crate::core::fd_budget::CallerSlot;
use crate::core::{Conn, Effect, Key, Shared, Worker};
use crate::engine::tls::{Doors, Welcome};
use crate::triple::Pipeline;

/// Reads per connection per turn before it waits for the next turn (its edge will not come
/// again: it goes on the ready list).
const READS_PER_TURN: usize = 16;
/// The most one read takes, also into the room reserved for a large frame: the core weighs
/// every read against `limits.max_buffered_bytes` before the next.
const READ_MAX: usize = 256 * 1024;
/// After an accept error (EMFILE...), try again after this long.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);
/// How often the block pool frees the blocks it did not lend since the last time: a block
/// idle for a second is given back (see [`BlockPool::trim`]).
const POOL_TRIM: Duration = Duration::from_secs(1);

/// Listener `i`'s token.
fn listener_token(i: usize) -> Token {
    Token(usize::MAX - 1 - i)
}

enum Timer {
    /// The core's deadline, armed with this generation (older ones are stale).
    Core(u64),
    /// A provider connection still connecting by then has failed.
    Connect(Key),
    /// Try accepting again.
    Accept,
    /// The drain after SIGTERM took too long: exit anyway.
    Drain,
    /// A TLS connection whose handshake has not finished by then is closed (after this
    /// limit).
    Handshake(Conn, Duration),
}

pub(super) struct Loop {
    id: usize,
    poll: Poll,
    events: Events,
    /// (token, readable, writable, read side closed or error) of the events of this turn:
    /// callers, listeners and the waker in `batch`, provider connections in `batch_up`.
    batch: Vec<(Token, bool, bool, bool)>,
    batch_up: Vec<(Token, bool, bool, bool)>,
    worker: Worker,
    conns: Slab<ConnIo>,
    /// Core key index -> connection token + 1 (0: none), per side.
    down_tok: Vec<u32>,
    up_tok: Vec<u32>,
    pool: BlockPool,
    /// When the pool next gives back the blocks it did not lend since the last trim.
    next_trim: Instant,
    wheel: Wheel<Timer>,
    fired: Vec<Timer>,
    core_gen: u64,
    dirty: Vec<usize>,
    ready: Vec<usize>,
    ready_next: Vec<usize>,
    /// Connections read this turn: their blocks go back to the pool after the turn's
    /// writes, when the bodies forwarded by reference have usually been written and the
    /// blocks are whole again.
    read_conns: Vec<usize>,
    listeners: Vec<TcpListener>,
    remotes: Arc<[Remote]>,
    rr: usize,
    woken: Vec<bool>,
    rx: Receiver<Cmd>,
    options: Options,
    drain_timeout: Duration,
    now: Instant,
    shutting_down: bool,
    exit: bool,
    /// Where HTTP/2 callers go.
    triple: Pipeline,
    /// When the drain must be over (once shutting down).
    drain_until: Option<Instant>,
    /// The listeners' doors (plain or TLS) and the TLS clusters', read again after reloads.
    doors: Doors,
}

impl Loop {
    // Each is a different thing the loop is made of; one caller (`epoll::start`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        id: usize,
        shared: Arc<Shared>,
        poll: Poll,
        rx: Receiver<Cmd>,
        remotes: Arc<[Remote]>,
        listeners: Vec<std::net::TcpListener>,
        options: Options,
        triple: Pipeline,
    ) -> io::Result<Loop> {
        let now = Instant::now();
        let mut ls = Vec::with_capacity(listeners.len());
        for (i, l) in listeners.into_iter().enumerate() {
            l.set_nonblocking(true)?;
            let mut l = TcpListener::from_std(l);
            poll.registry()
                .register(&mut l, listener_token(i), Interest::READABLE)?;
            ls.push(l);
        }
        let n = remotes.len();
        let drain_timeout =
            Duration::from_millis(shared.snapshot().config.shutdown.drain_timeout_ms);
        let doors = Doors::of(&shared);
        let mut l = Loop {
            id,
            poll,
            events: Events::with_capacity(1024),
            batch: Vec::with_capacity(1024),
            batch_up: Vec::with_capacity(64),
            worker: {
                let mut w = Worker::new(id, shared, now);
                if options.forward_by_reference > 0 {
                    w.set_forward_by_reference(options.forward_by_reference);
                }
                w
            },
            conns: Slab::with_capacity(64),
            down_tok: Vec::new(),
            up_tok: Vec::new(),
            pool: BlockPool::new(),
            next_trim: now + POOL_TRIM,
            wheel: Wheel::new(now),
            fired: Vec::new(),
            core_gen: 0,
            dirty: Vec::with_capacity(256),
            ready: Vec::new(),
            ready_next: Vec::new(),
            read_conns: Vec::with_capacity(256),
            listeners: ls,
            remotes,
            rr: 0,
            woken: vec![false; n],
            rx,
            options,
            drain_timeout,
            now,
            shutting_down: false,
            exit: false,
            triple,
            drain_until: None,
            doors,
        };
        l.drain_effects();
        l.arm_core();
        Ok(l)
    }

    pub(super) fn run(&mut self) {
        // Busy poll: after a poll that returned events, the next one does not wait; with a
        // window, polls do not wait until nothing has come for that long.
        let window = Duration::from_micros(self.options.busy_poll_us);
        let mut busy = false;
        let mut last_event = Instant::now();
        while !self.exit {
            let timeout = if !self.ready.is_empty()
                || (self.options.busy_poll
                    && (busy || self.now.saturating_duration_since(last_event) < window))
            {
                Some(Duration::ZERO)
            } else {
                self.wheel.timeout(Instant::now())
            };
            if let Err(e) = self.poll.poll(&mut self.events, timeout) {
                if e.kind() != io::ErrorKind::Interrupted {
                    tracing::error!("worker {}: poll: {e}", self.id);
                    return;
                }
            }
            busy = !self.events.is_empty();
            self.now = Instant::now();
            if busy {
                last_event = self.now;
            }
            // Callers (and the listeners and the waker) first, then providers, with the
            // calls read from callers written upstream in between: that write carries the
            // ACK for the responses that came meanwhile, so reading them right after sends
            // no ACK segment of its own (see the engine docs, *Order of a turn*).
            self.batch.clear();
            self.batch_up.clear();
            for e in self.events.iter() {
                let event = (
                    e.token(),
                    e.is_readable() || e.is_read_closed() || e.is_error(),
                    e.is_writable() || e.is_write_closed() || e.is_error(),
                    e.is_read_closed() || e.is_error(),
                );
                match self.conns.get(e.token().0) {
                    Some(c) if matches!(c.conn, Conn::Up(_)) => self.batch_up.push(event),
                    _ => self.batch.push(event),
                }
            }
            for i in 0..self.batch.len() {
                let (token, readable, writable, hup) = self.batch[i];
                self.event(token, readable, writable, hup);
            }
            if !self.batch_up.is_empty() {
                self.flush_dirty();
            }
            for i in 0..self.batch_up.len() {
                let (token, readable, writable, hup) = self.batch_up[i];
                self.event(token, readable, writable, hup);
            }
            // Connections with reads left over from the last turn.
            if !self.ready.is_empty() {
                std::mem::swap(&mut self.ready, &mut self.ready_next);
                for i in 0..self.ready_next.len() {
                    let t = self.ready_next[i];
                    if let Some(c) = self.conns.get_mut(t) {
                        c.ready = false;
                        self.read(t);
                    }
                }
                self.ready_next.clear();
            }
            self.timers();
            self.flush_dirty();
            for t in self.read_conns.drain(..) {
                if let Some(c) = self.conns.get_mut(t) {
                    c.read_this_turn = false;
                    c.rbuf.release_if_empty(&mut self.pool);
                }
            }
            if self.worker.take_rearm() {
                self.arm_core();
            }
            if self.shutting_down && self.worker.is_drained() {
                // Callers are gone; what is left to write to providers (nothing is in
                // flight) does not matter.
                self.exit = true;
            }
        }
        // Triple callers had their GOAWAY with the drain's start: their calls may finish
        // within what is left of the drain timeout.
        if let Some(until) = self.drain_until {
            let _ = self
                .triple
                .wait_drained(until.saturating_duration_since(Instant::now()));
        }
    }

    fn event(&mut self, token: Token, readable: bool, writable: bool, hup: bool) {
        if token == WAKER {
            self.commands();
            return;
        }
        if token.0 > usize::MAX - 1 - self.listeners.len() {
            self.accept(usize::MAX - 1 - token.0);
            return;
        }
        let t = token.0;
        let Some(c) = self.conns.get_mut(t) else {
            return;
        };
        if c.connecting && (!(readable || writable) || !self.connected(t)) {
            return;
        }
        let c = &mut self.conns[t];
        c.hup |= hup;
        if c.paused && c.hup {
            self.gone(t);
            return;
        }
        if writable && c.blocked {
            c.blocked = false;
            self.mark_dirty(t);
        }
        if readable {
            self.read(t);
        }
    }

    fn commands(&mut self) {
        loop {
            match self.rx.try_recv() {
                Ok(Cmd::Accepted {
                    listener,
                    stream,
                    slot,
                }) => self.add_down(listener, stream, slot),
                Ok(Cmd::Shutdown) => self.shutdown(),
                Ok(Cmd::Bridged(ticket, answer)) => {
                    self.worker.bridged(ticket, answer, Instant::now());
                    self.drain_effects();
                }
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => return,
            }
        }
    }

    fn shutdown(&mut self) {
        if self.shutting_down {
            return;
        }
        self.shutting_down = true;
        for mut l in self.listeners.drain(..) {
            let _ = self.poll.registry().deregister(&mut l);
        }
        let drain = self.drain_timeout;
        self.wheel.insert(self.now + drain, Timer::Drain);
        self.drain_until = Some(self.now + drain);
        self.triple.drain();
        self.worker.begin_shutdown(self.now);
        self.drain_effects();
        self.arm_core();
    }

    fn accept(&mut self, li: usize) {
        loop {
            let Some(l) = self.listeners.get(li) else {
                return;
            };
            match l.accept() {
                Ok((stream, _)) => {
                    // Over the budget: closed at once (dropped), not left in the backlog.
                    let Some(slot) = self.worker.shared().admit_caller(li, self.now) else {
                        continue;
                    };
                    let _ = stream.set_nodelay(true);
                    let target = self.rr % self.remotes.len();
                    self.rr = self.rr.wrapping_add(1);
                    if target == self.id {
                        self.add_down(li, stream, slot);
                    } else if self.remotes[target]
                        .tx
                        .send(Cmd::Accepted {
                            listener: li,
                            stream,
                            slot,
                        })
                        .is_ok()
                    {
                        self.woken[target] = true;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    // EMFILE and friends: the edge will not come again for the connections
                    // already queued, so look again a little later.
                    tracing::warn!("accept: {e}");
                    self.wheel.insert(self.now + ACCEPT_RETRY, Timer::Accept);
                    break;
                }
            }
        }
        for (i, w) in self.woken.iter_mut().enumerate() {
            if std::mem::take(w) {
                let _ = self.remotes[i].waker.wake();
            }
        }
    }

    fn add_down(&mut self, listener: usize, stream: TcpStream, slot: CallerSlot) {
        let peer = stream.peer_addr().ok();
        let (tls, handshake) = match self.doors.welcome(self.worker.shared(), listener, peer) {
            Welcome::Plain => (None, None),
            Welcome::Tls(session, timeout) => (Some(session), Some(timeout)),
            Welcome::Closed => return,
        };
        // Over the listener's max_connections: closed at once (dropped).
        let Some(key) = self.worker.try_open_downstream(listener, self.now) else {
            return;
        };
        if let Some(peer) = peer {
            self.worker.set_downstream_source(key, peer.ip());
        }
        let t = match self.register(stream, Conn::Down(key), false) {
            Ok(t) => t,
            Err(e) => {
                tracing::warn!("register: {e}");
                self.worker.closed(Conn::Down(key), self.now);
                self.drain_effects();
                return;
            }
        };
        self.conns[t].caller = Some(slot);
        self.conns[t].tls = tls;
        set_tok(&mut self.down_tok, key, t);
        if let Some(timeout) = handshake {
            let timer = Timer::Handshake(Conn::Down(key), timeout);
            self.wheel.insert(self.now + timeout, timer);
        }
        // Bytes that arrived before the registration are reported by it (epoll_ctl(ADD)
        // looks at the socket's readiness), so nothing is read here.
        self.drain_effects();
    }

    fn connect(&mut self, up: Key, addr: SocketAddr, timeout: Duration) {
        let upstream = self.doors.upstream(&self.worker, up);
        let tls = match upstream.map(|t| t.session(addr)).transpose() {
            Ok(session) => session.map(Box::new),
            Err(e) => {
                tracing::warn!("connect {addr}: TLS: {e}");
                self.worker.closed(Conn::Up(up), self.now);
                return;
            }
        };
        let stream = match TcpStream::connect(addr) {
            Ok(s) => s,
            Err(e) => {
                tracing::debug!("connect {addr}: {e}");
                self.worker.closed(Conn::Up(up), self.now);
                return;
            }
        };
        let t = match self.register(stream, Conn::Up(up), true) {
            Ok(t) => t,
            Err(e) => {
                tracing::debug!("connect {addr}: register: {e}");
                self.worker.closed(Conn::Up(up), self.now);
                return;
            }
        };
        set_tok(&mut self.up_tok, up, t);
        self.wheel.insert(self.now + timeout, Timer::Connect(up));
        if tls.is_some() {
            // The connect timeout bounds the handshake too.
            self.conns[t].tls = tls;
            let timer = Timer::Handshake(Conn::Up(up), timeout);
            self.wheel.insert(self.now + timeout, timer);
        }
    }

    /// Registers a new socket (edge-triggered, both directions) and keeps it under its token.
    fn register(
        &mut self,
        mut stream: TcpStream,
        conn: Conn,
        connecting: bool,
    ) -> io::Result<usize> {
        let entry = self.conns.vacant_entry();
        let t = entry.key();
        self.poll.registry().register(
            &mut stream,
            Token(t),
            Interest::READABLE | Interest::WRITABLE,
        )?;
        entry.insert(ConnIo::new(conn, stream, connecting));
        Ok(t)
    }

    /// A connecting socket had an event: true once it is open (false: still connecting, or
    /// failed and gone).
    fn connected(&mut self, t: usize) -> bool {
        let c = &mut self.conns[t];
        let failed = match c.stream.take_error() {
            Ok(Some(e)) | Err(e) => Some(e),
            Ok(None) => match c.stream.peer_addr() {
                Ok(_) => None,
                Err(e) if e.kind() == io::ErrorKind::NotConnected => return false,
                Err(e) => Some(e),
            },
        };
        if let Some(e) = failed {
            tracing::debug!("connect: {e}");
            self.gone(t);
            return false;
        }
        c.connecting = false;
        let _ = c.stream.set_nodelay(true);
        let tls = c.tls.is_some();
        if let Conn::Up(k) = c.conn {
            self.worker.upstream_connected(k, self.now);
        }
        if tls {
            // The ClientHello waits in the session.
            self.mark_dirty(t);
        }
        self.drain_effects();
        true
    }

    /// Reads until drained (`WouldBlock` or a short read, see the [engine docs](super)), or
    /// the turn's share, handing each read to the core.
    ///
    /// A paused connection is not read: its readable edge is dropped, which is why
    /// [`Effect::ResumeRead`] puts it on the ready list: the bytes that came while it was
    /// paused raise no new edge, so it is read until drained on the next turn whatever
    /// the poll reports (the classic edge-triggered stall otherwise).
    fn read(&mut self, t: usize) {
        if let Some(c) = self.conns.get_mut(t) {
            if c.refeed && !c.paused {
                c.refeed = false;
                // What was read before the pause and not taken by the core yet.
                if let (Conn::Down(k), Some(buf)) = (c.conn, c.rbuf.bytes()) {
                    if !buf.is_empty() {
                        self.worker.downstream_data(k, buf, self.now);
                        if !c.read_this_turn {
                            c.read_this_turn = true;
                            self.read_conns.push(t);
                        }
                        self.drain_effects();
                        if self.handed_off(t) {
                            return;
                        }
                    }
                }
            }
        }
        for _ in 0..READS_PER_TURN {
            let Some(c) = self.conns.get_mut(t) else {
                return;
            };
            if c.closing || c.connecting || c.paused {
                return;
            }
            let buf = c.rbuf.block(&mut self.pool);
            let room = (buf.capacity() - buf.len()).min(READ_MAX);
            let read = match &c.tls {
                None => read_into(&c.stream, buf, READ_MAX).map(|n| match n {
                    0 => Read::Closed,
                    n => Read::Plain { n, short: n < room },
                }),
                Some(session) => tls::read(session, &c.stream, c.conn, buf, &mut self.worker),
            };
            if c.tls.is_some() {
                // What the session has to write (its handshake's answers, the calls it held
                // until the handshake finished) goes out with the turn's writes, and a block
                // a handshake message left empty goes back after the turn.
                if !c.dirty {
                    c.dirty = true;
                    self.dirty.push(t);
                }
                if !c.read_this_turn {
                    c.read_this_turn = true;
                    self.read_conns.push(t);
                }
            }
            match read {
                Ok(Read::Closed) => {
                    self.gone(t);
                    return;
                }
                Ok(Read::Plain { n: 0, short }) => {
                    // TLS records without plaintext (the handshake): nothing for the core.
                    if short && self.options.short_read && cfg!(target_os = "linux") && !c.hup {
                        return;
                    }
                }
                Ok(Read::Plain { n, short }) => {
                    c.rbuf.note_read(n, room);
                    // A read that did not fill its room emptied the receive queue: bytes
                    // that come later raise a new edge, so the read that would only return
                    // `WouldBlock` is skipped (one system call per arrival). Not once the
                    // peer closed (or the socket failed): that edge came already, and the
                    // end of stream must be read.
                    // Linux only (epoll(7)'s promise; elsewhere mio's rule holds), and
                    // can be turned off: see `EpollOptions::short_read`.
                    let drained =
                        self.options.short_read && cfg!(target_os = "linux") && short && !c.hup;
                    let buf = c.rbuf.bytes().expect("a block is held");
                    match c.conn {
                        Conn::Down(k) => self.worker.downstream_data(k, buf, self.now),
                        Conn::Up(k) => self.worker.upstream_data(k, buf, self.now),
                    }
                    if !c.read_this_turn {
                        c.read_this_turn = true;
                        self.read_conns.push(t);
                    }
                    self.drain_effects();
                    if self.handed_off(t) {
                        return;
                    }
                    // An outbox went over the high watermark: write before reading more.
                    if self.worker.take_pressure() {
                        self.flush_dirty();
                    }
                    if drained {
                        return;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => {
                    self.gone(t);
                    return;
                }
            }
        }
        // Not drained yet: finish on the next turn.
        if let Some(c) = self.conns.get_mut(t) {
            if !c.ready {
                c.ready = true;
                self.ready.push(t);
            }
        }
    }

    fn token(&self, conn: Conn) -> Option<usize> {
        let (map, k) = match conn {
            Conn::Down(k) => (&self.down_tok, k),
            Conn::Up(k) => (&self.up_tok, k),
        };
        let t = (*map.get(k.idx())? as usize).checked_sub(1)?;
        self.conns.get(t).filter(|c| c.conn == conn).map(|_| t)
    }

    fn mark_dirty(&mut self, t: usize) {
        let c = &mut self.conns[t];
        if !c.dirty {
            c.dirty = true;
            self.dirty.push(t);
        }
    }

    fn drain_effects(&mut self) {
        while let Some(effect) = self.worker.poll_effect() {
            match effect {
                Effect::Flush(conn) => {
                    if let Some(t) = self.token(conn) {
                        self.mark_dirty(t);
                    }
                }
                Effect::Close(conn) => match self.token(conn) {
                    // Still connecting: nothing to write first.
                    Some(t) if self.conns[t].connecting => self.gone(t),
                    Some(t) => {
                        self.conns[t].closing = true;
                        self.mark_dirty(t);
                    }
                    None => self.worker.closed(conn, self.now),
                },
                Effect::Connect { up, addr, timeout } => self.connect(up, addr, timeout),
                Effect::PauseRead(conn) => {
                    if let Some(t) = self.token(conn) {
                        self.conns[t].paused = true;
                        if self.conns[t].hup {
                            self.gone(t);
                        }
                    }
                }
                Effect::HandOff { conn, listener } => {
                    if let Some(t) = self.token(conn) {
                        self.conns[t].handoff = Some(listener);
                    }
                }
                Effect::Bridge => {
                    if let Some(call) = self.worker.take_bridge() {
                        // Made on the pipeline's runtime; the answer comes back through
                        // this loop's channel and waker.
                        let answer = self.triple.bridge(call);
                        let (remotes, id) = (self.remotes.clone(), self.id);
                        self.triple.spawn(async move {
                            let (ticket, answer) = answer.await;
                            remotes[id].send(Cmd::Bridged(ticket, answer));
                        });
                    }
                }
                Effect::ResumeRead(conn) => {
                    if let Some(t) = self.token(conn) {
                        let c = &mut self.conns[t];
                        c.paused = false;
                        c.refeed = true;
                        // No new edge may come for what arrived while paused: read it on
                        // the next turn (the ready list makes that poll not wait).
                        if !c.ready {
                            c.ready = true;
                            self.ready.push(t);
                        }
                    }
                }
            }
        }
    }

    /// Writes every dirty connection (connections closed on the way may make more dirty).
    fn flush_dirty(&mut self) {
        while let Some(t) = self.dirty.pop() {
            if let Some(c) = self.conns.get_mut(t) {
                c.dirty = false;
                self.write(t);
            }
        }
    }

    /// Writes the outbox (chunks and open buffer, one `writev`) until it is empty or
    /// `WouldBlock`.
    fn write(&mut self, t: usize) {
        loop {
            let Some(c) = self.conns.get_mut(t) else {
                return;
            };
            if c.connecting {
                return;
            }
            let Some(out) = self.worker.outbox_chain(c.conn) else {
                self.gone(t);
                return;
            };
            if c.blocked {
                // A caller closed for not reading its answers has its outbox dropped: it is
                // closed without waiting for the socket to take writes.
                if c.closing && out.is_empty() {
                    self.gone(t);
                }
                return;
            }
            // A TLS session may hold records to write with an empty outbox.
            let wrote = match &c.tls {
                None if out.is_empty() => Ok(0),
                None => write_outbox(out, |iov| (&c.stream).write_vectored(iov)),
                Some(session) => write_outbox(out, |iov| session.write(&c.stream, iov)),
            };
            match wrote {
                // Nothing was left to write (or, TLS, nothing can be until the handshake
                // moves on: its next read marks the connection dirty).
                Ok(0) if out.is_empty() || c.tls.is_some() => {
                    if c.closing {
                        self.gone(t);
                    }
                    return;
                }
                Ok(0) => {
                    self.gone(t);
                    return;
                }
                Ok(w) => {
                    out.advance(w);
                    let conn = c.conn;
                    if self.worker.written(conn) {
                        self.drain_effects();
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    // The backlog leaves the open buffer without a copy: the core's next
                    // frames go into fresh room, and all goes out in one `writev` on the
                    // writable edge.
                    out.seal();
                    c.blocked = true;
                    return;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => {
                    self.gone(t);
                    return;
                }
            }
        }
    }

    /// If the core found connection `t` to be Triple's: hands its socket and the bytes read
    /// from it to the Triple pipeline, and reports it gone from here. True if it did.
    fn handed_off(&mut self, t: usize) -> bool {
        let Some(listener) = self.conns.get(t).and_then(|c| c.handoff) else {
            return false;
        };
        let Some(mut c) = self.conns.try_remove(t) else {
            return false;
        };
        let _ = self.poll.registry().deregister(&mut c.stream);
        let read = c
            .rbuf
            .bytes()
            .map(|b| Bytes::copy_from_slice(b))
            .unwrap_or_default();
        c.rbuf.release(&mut self.pool);
        if let Conn::Down(k) = c.conn {
            if let Some(slot) = self.down_tok.get_mut(k.idx()) {
                *slot = 0;
            }
        }
        let conn = c.conn;
        let stream = std::net::TcpStream::from(std::os::fd::OwnedFd::from(c.stream));
        let shared = self.worker.shared();
        let (tls, slot) = (c.tls.as_deref(), c.caller);
        crate::engine::hand_off(&self.triple, shared, Ok(stream), tls, read, listener, slot);
        self.worker.closed(conn, self.now);
        self.drain_effects();
        true
    }

    /// The connection is finished: deregistered, closed, reported to the core.
    fn gone(&mut self, t: usize) {
        let Some(mut c) = self.conns.try_remove(t) else {
            return;
        };
        let _ = self.poll.registry().deregister(&mut c.stream);
        c.rbuf.release(&mut self.pool);
        let (map, k) = match c.conn {
            Conn::Down(k) => (&mut self.down_tok, k),
            Conn::Up(k) => (&mut self.up_tok, k),
        };
        if let Some(slot) = map.get_mut(k.idx()) {
            *slot = 0;
        }
        let conn = c.conn;
        drop(c);
        self.worker.closed(conn, self.now);
        self.drain_effects();
    }

    fn timers(&mut self) {
        if self.wheel.timeout(self.now) != Some(Duration::ZERO) {
            return;
        }
        let mut fired = std::mem::take(&mut self.fired);
        self.wheel.expire(self.now, &mut fired);
        for timer in fired.drain(..) {
            match timer {
                Timer::Core(g) if g == self.core_gen => {
                    self.worker.tick(self.now);
                    self.drain_effects();
                    self.arm_core();
                    if self.now >= self.next_trim {
                        let freed = self.pool.trim();
                        self.worker.shared().metrics.memory.freed(freed);
                        self.next_trim = self.now + POOL_TRIM;
                    }
                }
                Timer::Core(_) => {}
                Timer::Connect(k) => {
                    if let Some(t) = self.token(Conn::Up(k)) {
                        if self.conns[t].connecting {
                            tracing::debug!("connect: timed out");
                            self.gone(t);
                        }
                    }
                }
                Timer::Accept => {
                    for li in 0..self.listeners.len() {
                        self.accept(li);
                    }
                }
                Timer::Drain => self.exit = true,
                Timer::Handshake(conn, limit) => {
                    // A provider still connecting is its connect timer's.
                    let t = self.token(conn).filter(|&t| !self.conns[t].connecting);
                    if let Some(t) = t {
                        let c = &self.conns[t];
                        if tls::timed_out(c.tls.as_deref(), &c.stream, conn, &self.worker, limit) {
                            self.gone(t);
                        }
                    }
                }
            }
        }
        self.fired = fired;
    }

    fn arm_core(&mut self) {
        let d = self.worker.next_deadline();
        self.core_gen += 1;
        self.wheel.insert(d, Timer::Core(self.core_gen));
    }
}

fn set_tok(map: &mut Vec<u32>, k: Key, t: usize) {
    if map.len() <= k.idx() {
        map.resize(k.idx() + 1, 0);
    }
    map[k.idx()] = t as u32 + 1;
}
