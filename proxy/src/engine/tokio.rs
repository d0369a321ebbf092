//! The tokio engine: one current-thread runtime per worker thread, each owning one
//! [`Worker`] (`workers` threads, by default one per core; no work stealing: a
//! connection and its calls stay on the thread that accepted it, and the core needs no
//! locks).
//!
//! Worker 0 accepts for all: it hands each accepted connection to the workers in turn (its
//! own included) over a channel, as the epoll engine does. With every worker accepting from
//! the shared listener, whichever thread woke first took the connection: `perf stat
//! --per-thread` under 16 callers showed one worker with 1.8 times the other's CPU time,
//! and the 16x1 throughput capped by the busier thread (0.82 of direct where the epoll
//! engine, which hands off in turn, made 0.97; 0.91 with the hand-off, in
//! `benches/proxy-compare`). Dubbo connections are few and long-lived, so the hand-off (one
//! channel send and one wake per connection) is paid at connect time only.
//!
//! Per connection there is a reader task and a writer task sharing the socket. The reader
//! waits for readability, reads what is there into its buffer and hands it to the worker;
//! then the effects are applied: an outbox that just became non-empty is queued for the
//! flusher task, which runs once the tasks that are ready now have run and writes each queued
//! outbox with `try_write` (so the calls of many callers read in one turn of the event loop
//! go to a provider in one `write`); only what the socket does not take is left to the
//! connection's writer task, which waits for writability. The timer task sleeps until the
//! worker's next deadline.
//!
//! Backpressure: [`Effect::PauseRead`] parks the connection's reader task (it stops polling
//! the socket, so the kernel's buffers fill and TCP pushes back on the caller) until
//! [`Effect::ResumeRead`] wakes it; it then hands the core the bytes it had read but the core
//! had not taken yet, and goes on reading. A paused caller that closes is reported gone at
//! once (its calls still waiting upstream are dropped), not when it would be read again.
//! Every write is reported with [`Worker::written`], which is what releases a paused
//! connection.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::rc::{Rc, Weak};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use bytes::{Buf, BufMut, BytesMut};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch, Notify};
use tokio::task::{AbortHandle, LocalSet};
use tokio::time::Instant as TokioInstant;

use std::time::Instant;

use crate::core::fd_budget::CallerSlot;
use crate::core::metrics_tls::TlsRefusal;
use crate::core::{Conn, Effect, Key, Shared, Worker};
use crate::memory::{self, Peak};
use crate::triple::Pipeline;

use super::tls::{Doors, Got, Session, Upstream, Welcome};

/// Read buffer size: reads up to this much at a time.
const READ_CHUNK: usize = 64 * 1024;
/// How often a paused connection with bytes waiting in its socket is looked at for the
/// peer's close.
const CLOSE_CHECK: Duration = Duration::from_millis(100);

struct ConnIo {
    stream: TcpStream,
    wake_writer: Notify,
    /// Close requested: the writer flushes, then closes.
    closing: Cell<bool>,
    /// `Worker::closed` was reported: every task of this connection stops.
    finished: Cell<bool>,
    /// Reads paused by the core.
    paused: Cell<bool>,
    /// Reads resumed since the reader last looked: the core may have left whole frames in
    /// its buffer when it paused.
    resumed: Cell<bool>,
    resume: Notify,
    reader: RefCell<Option<AbortHandle>>,
    /// The core said Triple ([`Effect::HandOff`]): the reader gives the socket, from this
    /// listener, to the Triple pipeline.
    handoff: Cell<Option<usize>>,
    /// A caller's TLS session (its listener has `[listeners.tls]`).
    tls: Option<Session>,
    /// A caller's place in the file descriptor budget, held as long as the socket (or
    /// handed to the Triple pipeline with it).
    caller: Cell<Option<CallerSlot>>,
}

struct Local {
    worker: RefCell<Worker>,
    io: RefCell<HashMap<Conn, Rc<ConnIo>>>,
    timer: Notify,
    /// Connections whose outbox became non-empty since the flusher last ran.
    dirty: RefCell<Vec<Conn>>,
    flush_scheduled: Cell<bool>,
    flusher: Notify,
    /// A write released a connection: effects wait to be applied.
    effects_pending: Cell<bool>,
    /// Where HTTP/2 callers go.
    triple: Pipeline,
    /// The listeners' doors (plain or TLS) and the TLS clusters', read again after reloads.
    doors: RefCell<Doors>,
}

/// A connection accepted by worker 0 for another worker: its listener, the socket, and its
/// place in the file descriptor budget.
type Handoff = (usize, std::net::TcpStream, CallerSlot);

/// Starts the worker threads.
pub fn start(
    shared: Arc<Shared>,
    listeners: Vec<std::net::TcpListener>,
    workers: usize,
    shutdown: watch::Receiver<bool>,
) -> io::Result<Vec<JoinHandle<()>>> {
    let workers = workers.max(1);
    let (txs, rxs): (Vec<_>, Vec<_>) = (0..workers)
        .map(|_| mpsc::unbounded_channel::<Handoff>())
        .unzip();
    let inboxes: Arc<[mpsc::UnboundedSender<Handoff>]> = txs.into();
    let mut listeners = Some(listeners);
    let mut threads = Vec::with_capacity(workers);
    for (id, inbox) in rxs.into_iter().enumerate() {
        // Worker 0 accepts for all.
        let socks = if id == 0 {
            listeners.take().unwrap_or_default()
        } else {
            Vec::new()
        };
        let inboxes = inboxes.clone();
        let shared = shared.clone();
        let shutdown = shutdown.clone();
        let (name, whose) = (format!("dubbo-proxy-{id}"), format!("worker {id}"));
        let t = crate::threads::spawn_runtime_thread(name, whose, move |rt| {
            let local = LocalSet::new();
            let supervisor = shared.clone();
            super::supervised(id, &supervisor, || {
                local.block_on(&rt, run_worker(id, shared, socks, inboxes, inbox, shutdown));
            });
        })?;
        threads.push(t);
    }
    Ok(threads)
}

async fn run_worker(
    id: usize,
    shared: Arc<Shared>,
    socks: Vec<std::net::TcpListener>,
    inboxes: Arc<[mpsc::UnboundedSender<Handoff>]>,
    inbox: mpsc::UnboundedReceiver<Handoff>,
    mut shutdown: watch::Receiver<bool>,
) {
    let drain_timeout = Duration::from_millis(shared.snapshot().config.shutdown.drain_timeout_ms);
    let local = Rc::new(Local {
        worker: RefCell::new(Worker::new(id, shared.clone(), Instant::now())),
        io: RefCell::new(HashMap::new()),
        timer: Notify::new(),
        dirty: RefCell::new(Vec::with_capacity(256)),
        flush_scheduled: Cell::new(false),
        flusher: Notify::new(),
        effects_pending: Cell::new(false),
        triple: Pipeline::on_caller_runtime(shared.clone()),
        doors: RefCell::new(Doors::of(&shared)),
    });
    drive(&local);
    tokio::task::spawn_local(flusher(local.clone()));
    let mut accepts = vec![tokio::task::spawn_local(handoffs(local.clone(), inbox))];
    let rr = Rc::new(Cell::new(0usize));
    for (li, sock) in socks.into_iter().enumerate() {
        match TcpListener::from_std(sock) {
            Ok(l) => accepts.push(tokio::task::spawn_local(accept_loop(
                local.clone(),
                li,
                l,
                inboxes.clone(),
                rr.clone(),
            ))),
            Err(e) => tracing::error!("worker {id}: listener {li}: {e}"),
        }
    }
    let timer = tokio::task::spawn_local(timer_loop(local.clone()));
    // Until SIGTERM.
    while !*shutdown.borrow_and_update() {
        if shutdown.changed().await.is_err() {
            break;
        }
    }
    for a in &accepts {
        a.abort();
    }
    drop(accepts);
    let began = Instant::now();
    local.triple.drain();
    local.worker.borrow_mut().begin_shutdown(began);
    drive(&local);
    local.timer.notify_one();
    let _ = tokio::time::timeout(drain_timeout, timer).await;
    // Triple callers had their GOAWAY: their calls run on this runtime, to their ends or
    // the drain timeout.
    while !local.triple.is_drained() && began.elapsed() < drain_timeout {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Worker 0's: accepts, and hands each connection to the workers in turn (`rr` is shared by
/// its listeners).
async fn accept_loop(
    local: Rc<Local>,
    listener_index: usize,
    listener: TcpListener,
    inboxes: Arc<[mpsc::UnboundedSender<Handoff>]>,
    rr: Rc<Cell<usize>>,
) {
    let me = local.worker.borrow().id();
    loop {
        let stream = match listener.accept().await {
            Ok((s, _)) => s,
            Err(e) => {
                // EMFILE and friends: wait a little instead of spinning.
                tracing::warn!("accept: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // Over the budget: closed at once (dropped), not left in the backlog.
        let Some(slot) = local
            .worker
            .borrow()
            .shared()
            .admit_caller(listener_index, Instant::now())
        else {
            continue;
        };
        let target = rr.get() % inboxes.len();
        rr.set(rr.get().wrapping_add(1));
        if target == me {
            open_down(&local, listener_index, stream, slot);
            continue;
        }
        // Out of this runtime's reactor, into the target's (`handoffs`).
        match stream.into_std() {
            Ok(s) => {
                let _ = inboxes[target].send((listener_index, s, slot));
            }
            Err(e) => tracing::warn!("accept: hand-off: {e}"),
        }
    }
}

/// Connections worker 0 accepted for this one.
async fn handoffs(local: Rc<Local>, mut inbox: mpsc::UnboundedReceiver<Handoff>) {
    while let Some((listener_index, s, slot)) = inbox.recv().await {
        match TcpStream::from_std(s) {
            Ok(stream) => open_down(&local, listener_index, stream, slot),
            Err(e) => tracing::warn!("accept: hand-off: {e}"),
        }
    }
}

/// A caller's connection, accepted: counted against its listener's `max_connections` and
/// registered (or, over the limit, closed at once: dropped).
fn open_down(local: &Rc<Local>, listener_index: usize, stream: TcpStream, slot: CallerSlot) {
    let peer = stream.peer_addr().ok();
    let welcome =
        local
            .doors
            .borrow_mut()
            .welcome(local.worker.borrow().shared(), listener_index, peer);
    let (tls, handshake_timeout) = match welcome {
        Welcome::Plain => (None, None),
        Welcome::Closed => return,
        Welcome::Tls(session, timeout) => (Some(*session), Some(timeout)),
    };
    let key = local
        .worker
        .borrow_mut()
        .try_open_downstream(listener_index, Instant::now());
    let Some(key) = key else { return };
    if let Some(peer) = peer {
        local
            .worker
            .borrow_mut()
            .set_downstream_source(key, peer.ip());
    }
    let _ = stream.set_nodelay(true);
    let io = register(local, Conn::Down(key), stream, tls);
    io.caller.set(Some(slot));
    if let Some(timeout) = handshake_timeout {
        let io = Rc::downgrade(&io);
        tokio::task::spawn_local(handshake_deadline(
            local.clone(),
            Conn::Down(key),
            io,
            timeout,
        ));
    }
    drive(local);
}

/// Closes a TLS caller whose handshake has not finished `timeout` after it was accepted
/// (holding it weakly: a caller closed before then has its socket closed at once).
async fn handshake_deadline(local: Rc<Local>, conn: Conn, io: Weak<ConnIo>, timeout: Duration) {
    tokio::time::sleep(timeout).await;
    let Some(io) = io.upgrade() else { return };
    let pending = io.tls.as_ref().is_some_and(|t| !t.handshaken());
    if pending && !io.finished.get() {
        let ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        refused(&local, conn, &io, &TlsRefusal::Timeout(ms));
        finish(&local, conn, &io);
    }
}

fn register(local: &Rc<Local>, conn: Conn, stream: TcpStream, tls: Option<Session>) -> Rc<ConnIo> {
    let io = Rc::new(ConnIo {
        stream,
        wake_writer: Notify::new(),
        closing: Cell::new(false),
        finished: Cell::new(false),
        paused: Cell::new(false),
        resumed: Cell::new(false),
        resume: Notify::new(),
        reader: RefCell::new(None),
        handoff: Cell::new(None),
        tls,
        caller: Cell::new(None),
    });
    local.io.borrow_mut().insert(conn, io.clone());
    let r = tokio::task::spawn_local(reader(local.clone(), conn, io.clone()));
    *io.reader.borrow_mut() = Some(r.abort_handle());
    tokio::task::spawn_local(writer(local.clone(), conn, io.clone()));
    io
}

/// Reports a connection gone (once) and stops its tasks.
fn finish(local: &Rc<Local>, conn: Conn, io: &ConnIo) {
    if io.finished.replace(true) {
        return;
    }
    io.closing.set(true);
    local.io.borrow_mut().remove(&conn);
    if let Some(r) = io.reader.borrow_mut().take() {
        r.abort();
    }
    io.wake_writer.notify_one();
    local.worker.borrow_mut().closed(conn, Instant::now());
    drive(local);
}

async fn reader(local: Rc<Local>, conn: Conn, io: Rc<ConnIo>) {
    let mut buf = BytesMut::with_capacity(READ_CHUNK);
    // A buffer that large frames grew goes back once a second of reads shows it is not
    // needed any more (see `Peak`): checked after a read, so an idle connection keeps it
    // until its next read.
    let mut peak = Peak::default();
    let mut period_end = Instant::now() + memory::TRIM_INTERVAL;
    loop {
        if io.finished.get() {
            return;
        }
        if io.paused.get() && !paused(&io).await {
            break;
        }
        // What was read before a pause and not taken by the core yet, once reads resume:
        // also when the pause and the resume both came while this task was away (a caller
        // paused for a provider by its own call, resumed by the flusher's write while this
        // task yielded), with no new bytes to come and wake it.
        if io.resumed.take() && !buf.is_empty() {
            feed(&local, conn, &mut buf);
            continue;
        }
        if buf.capacity() - buf.len() < READ_CHUNK / 4 {
            buf.reserve(READ_CHUNK);
        }
        if io.stream.readable().await.is_err() {
            break;
        }
        // One read takes at most READ_CHUNK, also into the room reserved for a large frame:
        // the core weighs every read against `limits.max_buffered_bytes` before the next.
        let room = (buf.capacity() - buf.len()).min(READ_CHUNK);
        let before = buf.len();
        let got = match &io.tls {
            None => io
                .stream
                .try_read_buf(&mut (&mut buf).limit(READ_CHUNK))
                .map(|n| match n {
                    0 => Got::Eof,
                    n => Got::Plain { drained: n < room },
                }),
            Some(tls) => read_tls(&local, conn, &io, tls, &mut buf),
        };
        match got {
            Ok(Got::Eof) => break,
            Ok(Got::Refused(why)) => {
                refused(&local, conn, &io, &why);
                break;
            }
            Ok(Got::Plain { drained: emptied }) => {
                // Linux only: epoll(7) promises a new edge for every arrival on a stream
                // socket; elsewhere read until `WouldBlock` as mio asks.
                if cfg!(target_os = "linux") && emptied {
                    drained(&io.stream);
                }
                if buf.len() == before {
                    // TLS records without plaintext (the handshake): nothing for the core.
                    continue;
                }
                peak.saw(buf.len());
                let now = feed(&local, conn, &mut buf);
                if let Some(listener) = io.handoff.get() {
                    hand_off(&local, &io, listener, &mut buf);
                    break;
                }
                if now >= period_end {
                    period_end = now + memory::TRIM_INTERVAL;
                    let freed = peak.release_oversized(&mut buf, READ_CHUNK);
                    local.worker.borrow().shared().metrics.memory.freed(freed);
                }
                // An outbox went over the high watermark: let the flusher write it before
                // reading more (it was woken already, so it runs first).
                if local.worker.borrow_mut().take_pressure() {
                    tokio::task::yield_now().await;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
    // The reader's own abort handle is of no use now.
    io.reader.borrow_mut().take();
    local
        .worker
        .borrow()
        .shared()
        .metrics
        .memory
        .freed(buf.capacity());
    finish(&local, conn, &io);
}

/// Reads a TLS caller's socket into `buf` (plaintext), writes what the handshake answers,
/// and counts a finished handshake.
fn read_tls(
    local: &Local,
    conn: Conn,
    io: &ConnIo,
    tls: &Session,
    buf: &mut BytesMut,
) -> io::Result<Got> {
    let mut handshake_done = false;
    let got = tls.read(&io.stream, buf, &mut handshake_done);
    if !tls.flush(&io.stream)? {
        // The socket did not take the handshake's records: the writer waits for it.
        io.wake_writer.notify_one();
    }
    if handshake_done {
        let mut worker = local.worker.borrow_mut();
        super::tls::handshake_done(&mut worker, conn, tls, || io.stream.peer_addr().ok());
    }
    got
}

/// Counts and logs a connection closed at the TLS door: a caller's, or a provider's.
fn refused(local: &Local, conn: Conn, io: &ConnIo, why: &TlsRefusal) {
    let worker = local.worker.borrow();
    let peer = io.stream.peer_addr().ok();
    super::tls::refused(&worker.shared().metrics.tls, conn, peer, why);
}

/// Gives a caller connection the core found to be Triple's to the Triple pipeline, with
/// what was read from it: a second descriptor of the socket goes there, this one closes
/// with the connection's tasks.
fn hand_off(local: &Local, io: &ConnIo, listener: usize, buf: &mut BytesMut) {
    use std::os::fd::AsFd;
    let read = buf.split().freeze();
    // A second descriptor for a moment, on the one place.
    let stream = io.stream.as_fd().try_clone_to_owned().map(From::from);
    let worker = local.worker.borrow();
    let (tls, slot) = (io.tls.as_ref(), io.caller.take());
    super::hand_off(
        &local.triple,
        worker.shared(),
        stream,
        tls,
        read,
        listener,
        slot,
    );
}

/// Waits for the core to resume reads; false if the peer closed meanwhile. A paused
/// connection is not read, so its end of stream would go unseen until then (a caller gone
/// while its calls wait on a provider that is not reading could stay forever): the socket's
/// readiness is watched for the peer's close. Bytes that wait in the socket keep it
/// readable (its readiness is not cleared: the reader reads them on resuming), so then the
/// close is looked for every [`CLOSE_CHECK`] instead.
async fn paused(io: &ConnIo) -> bool {
    while io.paused.get() {
        tokio::select! {
            _ = io.resume.notified() => {}
            r = io.stream.ready(tokio::io::Interest::READABLE) => match r {
                Ok(r) if !r.is_read_closed() => tokio::select! {
                    _ = io.resume.notified() => {}
                    _ = tokio::time::sleep(CLOSE_CHECK) => {}
                },
                _ => return false,
            },
        }
    }
    true
}

/// A read that did not fill the room it was given emptied the socket's receive queue: the
/// readiness is cleared now, without the `read` that would only return `WouldBlock`
/// (one system call per arrival saved, on both sides of every call). Sound because the
/// socket is registered edge-triggered: bytes that arrive after that read raise a new
/// edge, which the driver turns into readiness again (and readiness it recorded after the
/// one this task saw is not cleared: tokio clears by tick). A closed read side is never
/// cleared, so end of stream is still read.
fn drained(stream: &TcpStream) {
    let _ = stream.try_io(tokio::io::Interest::READABLE, || {
        Err::<(), _>(io::ErrorKind::WouldBlock.into())
    });
}

/// Hands the core what was read, and applies the effects. Returns the time it gave the
/// core.
fn feed(local: &Rc<Local>, conn: Conn, buf: &mut BytesMut) -> Instant {
    let now = Instant::now();
    {
        let mut w = local.worker.borrow_mut();
        match conn {
            Conn::Down(k) => w.downstream_data(k, buf, now),
            Conn::Up(k) => w.upstream_data(k, buf, now),
        }
    }
    drive(local);
    now
}

enum Wrote {
    Empty,
    Progress,
    Blocked,
    Failed,
}

/// Writes from the connection's outbox without waiting.
fn write_some(local: &Local, conn: Conn, io: &ConnIo) -> Wrote {
    let mut w = local.worker.borrow_mut();
    let Some(out) = w.outbox(conn) else {
        return Wrote::Failed;
    };
    let wrote = match &io.tls {
        None if out.is_empty() => return Wrote::Empty,
        None => io.stream.try_write(out),
        // Records the session holds are written first, also with an empty outbox.
        Some(tls) => match tls.write(&io.stream, &[std::io::IoSlice::new(out)]) {
            Ok(0) if out.is_empty() => return Wrote::Empty,
            wrote => wrote,
        },
    };
    match wrote {
        Ok(n) => {
            out.advance(n);
            if w.written(conn) {
                local.effects_pending.set(true);
            }
            Wrote::Progress
        }
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => Wrote::Blocked,
        Err(e) if e.kind() == io::ErrorKind::Interrupted => Wrote::Progress,
        Err(_) => Wrote::Failed,
    }
}

async fn writer(local: Rc<Local>, conn: Conn, io: Rc<ConnIo>) {
    loop {
        if io.finished.get() {
            return;
        }
        let wrote = write_some(&local, conn, &io);
        if local.effects_pending.take() {
            drive(&local);
        }
        match wrote {
            Wrote::Progress => continue,
            Wrote::Blocked => {
                // Also woken by a close: a caller closed for not reading has its outbox
                // dropped, and is closed without waiting for the socket to take writes.
                tokio::select! {
                    r = io.stream.writable() => if r.is_err() { break },
                    _ = io.wake_writer.notified() => {}
                }
            }
            Wrote::Failed => break,
            Wrote::Empty => {
                if io.closing.get() {
                    break;
                }
                io.wake_writer.notified().await;
            }
        }
    }
    finish(&local, conn, &io);
}

async fn connect(
    local: Rc<Local>,
    up: Key,
    addr: SocketAddr,
    timeout: Duration,
    tls: Option<Upstream>,
) {
    let res = tokio::time::timeout(timeout, TcpStream::connect(addr)).await;
    match res {
        Ok(Ok(stream)) => {
            let _ = stream.set_nodelay(true);
            let session = match tls.map(|t| t.session(addr)).transpose() {
                Ok(session) => session,
                Err(e) => {
                    tracing::warn!("connect {addr}: TLS: {e}");
                    local
                        .worker
                        .borrow_mut()
                        .closed(Conn::Up(up), Instant::now());
                    drive(&local);
                    return;
                }
            };
            let tls = session.is_some();
            let io = register(&local, Conn::Up(up), stream, session);
            if tls {
                // The connect timeout bounds the handshake too.
                let io = Rc::downgrade(&io);
                let deadline = handshake_deadline(local.clone(), Conn::Up(up), io, timeout);
                tokio::task::spawn_local(deadline);
            }
            local
                .worker
                .borrow_mut()
                .upstream_connected(up, Instant::now());
        }
        Ok(Err(e)) => {
            tracing::debug!("connect {addr}: {e}");
            local
                .worker
                .borrow_mut()
                .closed(Conn::Up(up), Instant::now());
        }
        Err(_) => {
            tracing::debug!("connect {addr}: timed out");
            local
                .worker
                .borrow_mut()
                .closed(Conn::Up(up), Instant::now());
        }
    }
    drive(&local);
}

/// Applies the worker's effects.
fn drive(local: &Rc<Local>) {
    loop {
        let effect = local.worker.borrow_mut().poll_effect();
        let Some(effect) = effect else { break };
        match effect {
            Effect::Flush(conn) => {
                // Written by the flusher, which runs after the tasks that are ready now: the
                // calls of many callers read in one turn of the event loop leave in one
                // `write` per provider connection.
                local.dirty.borrow_mut().push(conn);
                if !local.flush_scheduled.replace(true) {
                    local.flusher.notify_one();
                }
            }
            Effect::Close(conn) => {
                let io = local.io.borrow().get(&conn).cloned();
                match io {
                    Some(io) => {
                        io.closing.set(true);
                        io.wake_writer.notify_one();
                    }
                    // Not registered (a connection still connecting): report it gone.
                    None => local.worker.borrow_mut().closed(conn, Instant::now()),
                }
            }
            Effect::Connect { up, addr, timeout } => {
                let tls = local
                    .doors
                    .borrow_mut()
                    .upstream(&local.worker.borrow(), up);
                tokio::task::spawn_local(connect(local.clone(), up, addr, timeout, tls));
            }
            Effect::PauseRead(conn) => {
                if let Some(io) = local.io.borrow().get(&conn) {
                    io.paused.set(true);
                }
            }
            Effect::HandOff { conn, listener } => {
                if let Some(io) = local.io.borrow().get(&conn) {
                    io.handoff.set(Some(listener));
                }
            }
            Effect::Bridge => {
                let call = local.worker.borrow_mut().take_bridge();
                if let Some(call) = call {
                    let answer = local.triple.bridge(call);
                    let local = local.clone();
                    tokio::task::spawn_local(async move {
                        let (ticket, answer) = answer.await;
                        local
                            .worker
                            .borrow_mut()
                            .bridged(ticket, answer, Instant::now());
                        drive(&local);
                    });
                }
            }
            Effect::ResumeRead(conn) => {
                if let Some(io) = local.io.borrow().get(&conn) {
                    io.paused.set(false);
                    io.resumed.set(true);
                    io.resume.notify_one();
                }
            }
        }
    }
    if local.worker.borrow_mut().take_rearm() {
        local.timer.notify_one();
    }
}

async fn flusher(local: Rc<Local>) {
    let mut batch: Vec<Conn> = Vec::with_capacity(256);
    loop {
        local.flusher.notified().await;
        local.flush_scheduled.set(false);
        std::mem::swap(&mut batch, &mut *local.dirty.borrow_mut());
        for conn in batch.drain(..) {
            let io = local.io.borrow().get(&conn).cloned();
            let Some(io) = io else { continue };
            // Write now, from this task; leave what the socket does not take to the
            // connection's writer.
            loop {
                let wrote = write_some(&local, conn, &io);
                if local.effects_pending.take() {
                    drive(&local);
                }
                match wrote {
                    Wrote::Progress => continue,
                    Wrote::Empty => break,
                    Wrote::Blocked | Wrote::Failed => {
                        io.wake_writer.notify_one();
                        break;
                    }
                }
            }
        }
    }
}

async fn timer_loop(local: Rc<Local>) {
    loop {
        let deadline = local.worker.borrow_mut().next_deadline();
        // Resolution of 1 ms is plenty for call timeouts and spares busy wake-ups.
        let deadline = deadline.max(Instant::now() + Duration::from_millis(1));
        tokio::select! {
            _ = tokio::time::sleep_until(TokioInstant::from_std(deadline)) => {}
            _ = local.timer.notified() => {}
        }
        let now = Instant::now();
        local.worker.borrow_mut().tick(now);
        drive(&local);
        let drained = local.worker.borrow().is_drained();
        if drained {
            return;
        }
    }
}
