//! The epoll engine: mio, edge-triggered, one event loop per worker thread, each owning one
//! [`Worker`](crate::core::Worker) (`workers` threads, by default one per core; no work
//! stealing: a connection is registered with one loop for its whole life, and the core needs
//! no locks).
//!
//! * **Accepting.** Worker 0's loop owns the listeners; it accepts until `WouldBlock` and
//!   hands each connection to the workers in turn (its own included) over a channel, then
//!   wakes the receiving loop with its [`mio::Waker`]. Dubbo connections are few and
//!   long-lived (a consumer multiplexes all its calls over one), so what matters is an even
//!   spread over the loops, which round robin gives exactly, while `SO_REUSEPORT` hashes the
//!   4-tuple and leaves a loop with none of a handful of connections now and then; the
//!   cost, one channel send and one wake per accepted connection, is paid at connect time
//!   only.
//! * **Reading.** Edge-triggered: on a readable event the connection is read until it is
//!   drained, into a block lent by the loop's [`BlockPool`](crate::buffer::BlockPool) (see
//!   [`crate::buffer`] for why a block and not a chain), and each read is handed to the core
//!   at once. Drained means `WouldBlock`, as mio asks, or (`[epoll] short_read`, on by
//!   default, Linux only) a read that did not fill its room: on Linux every arrival on a TCP
//!   socket raises a new edge, so a short read has emptied the receive queue and the `read`
//!   that would only say `WouldBlock` can be skipped (one system call less per arrival:
//!   `strace -c` counted one `EAGAIN` read per call on each side without it); once an event
//!   reported the peer's close, reads go on to the end of stream, whose edge will not come
//!   again. A connection that still has
//!   data after 16 reads is put on a ready list and finished on the next turn (the edge will
//!   not come again), so one busy caller cannot starve the others.
//! * **Writing.** Effects only mark a connection dirty; after every event of a turn was
//!   handled, each dirty connection is written once, so the calls of many callers read in
//!   one turn leave in one system call per provider connection. A write that does not go
//!   through whole moves what is left of the outbox into the connection's queue of chunks
//!   (an O(1) `split`, no copy; the core's outbox is free again and does not grow into a
//!   copy of the backlog); on the next writable edge the queue and the outbox go out
//!   together with one `writev`.
//! * **Order of a turn.** The events of callers (and of the listeners and the waker) are
//!   handled first, then the dirty connections are written, then the events of provider
//!   connections, then the dirty connections again. The calls read from callers thus leave
//!   before the responses that came meanwhile are read, and that write carries the ACK for
//!   those responses: a read of two or more segments the kernel has not acknowledged yet
//!   sends an ACK segment of its own (Linux's ACK for every second segment, in
//!   `tcp_cleanup_rbuf`), which on loopback runs the provider's TCP input in our time
//!   (`ss -ti` over 16x1/64: 0.13 pure ACKs per call to the provider before, 0.06 after).
//!   It costs no write more: the first phase writes what callers' events produced (calls
//!   for providers, and the proxy's own answers), the second what providers' produced
//!   (responses for callers); a caller is written in both only when it got an answer of
//!   the proxy's and a response in the same turn.
//! * **Backpressure.** [`Effect::PauseRead`](crate::core::Effect::PauseRead) marks a
//!   connection paused: its readable edges are dropped (the kernel's buffers fill and TCP
//!   pushes back on the caller). [`Effect::ResumeRead`](crate::core::Effect::ResumeRead)
//!   puts it on the ready list, so that the next turn first hands the core the bytes left
//!   in its block, then reads until `WouldBlock`: what arrived while it was paused raised its
//!   edge already and no new one may come. A paused caller whose close is reported
//!   (read side closed, or an error) is gone at once, not when it would be read again.
//!   Every write is reported with
//!   [`Worker::written`](crate::core::Worker::written) (which releases paused connections);
//!   once an outbox is backed up ([`Worker::take_pressure`](crate::core::Worker::take_pressure))
//!   the dirty connections are written before the next read, so a burst is not taken for a
//!   peer that does not read. A caller closed for not reading has its outbox dropped and is
//!   closed although its socket takes no writes.
//! * **Timers.** A [`Wheel`](wheel::Wheel) per loop with 1 ms slots holds the core's next
//!   deadline ([`Worker::next_deadline`](crate::core::Worker::next_deadline), re-armed when
//!   [`Worker::take_rearm`](crate::core::Worker::take_rearm) says so), connect timeouts and
//!   the drain limit; the poll timeout is the time to the wheel's earliest timer.
//! * **TLS** (`[listeners.tls]`, `[clusters.NAME.tls]`; see [`tls`]). A TLS connection
//!   carries rustls's sans-I/O session, the tokio engine's own: each read of the socket goes
//!   through it and its plaintext to the core as a plain read's bytes; the outbox is written
//!   through it (records it could not write yet wait for the writable edge, as a blocked
//!   `writev`'s backlog does), and a connection read is marked dirty so that what the session
//!   has to write (its handshake's answers) leaves with the turn's writes. The wheel cuts a
//!   handshake at its listener's `handshake_timeout_ms` (a provider's at its connect
//!   timeout). A Triple caller's session goes to the Triple pipeline with its socket.
//! * **Waker.** Other threads reach a loop through its channel and [`mio::Waker`]: accepted
//!   connections, and SIGTERM's shutdown. A reload (SIGHUP, `/metadata`) needs no message:
//!   the core compares the shared generation on every batch of frames and every tick
//!   (100 ms at most when idle).
//! * **Busy poll** (`[epoll] busy_poll`): after a poll that returned events, the next poll
//!   has a zero timeout; only a poll that returned nothing lets the next one block until
//!   the earliest timer (Netpoll's `msec = 0 / -1`). Off by default: `proxy_load` measures
//!   no gain from it, and it costs a system call each time the loop goes idle.
//!   `busy_poll_us` widens it into a spin: polls keep a zero timeout until nothing has come
//!   for that long. Also off by default: it keeps a core busy, which pays only where waking
//!   a blocked thread is dear (a VM whose idle vCPUs halt: there it halves the latency of a
//!   lone caller) and where a core can be spared.

use std::io;
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;

use mio::{Poll, Token, Waker};

use crate::core::{BridgeAnswer, BridgeTicket, Shared};

mod conn;
mod event_loop;
mod tls;
pub mod wheel;

pub use crate::config::EpollOptions as Options;

/// The waker's token (connections use their slab index).
const WAKER: Token = Token(usize::MAX);

/// What other threads ask of a loop.
enum Cmd {
    /// A connection accepted by worker 0, for this loop.
    Accepted {
        listener: usize,
        stream: mio::net::TcpStream,
        slot: crate::core::fd_budget::CallerSlot,
    },
    /// SIGTERM: stop accepting, drain, exit.
    Shutdown,
    /// The answer of a call the core bridged to the Triple pipeline.
    Bridged(BridgeTicket, BridgeAnswer),
}

/// A way into a loop from another thread.
struct Remote {
    tx: mpsc::Sender<Cmd>,
    waker: Waker,
}

impl Remote {
    fn send(&self, cmd: Cmd) {
        if self.tx.send(cmd).is_ok() {
            let _ = self.waker.wake();
        }
    }
}

/// Starts the worker threads; the returned function begins the graceful shutdown.
#[allow(clippy::type_complexity)]
pub fn start(
    shared: Arc<Shared>,
    listeners: Vec<std::net::TcpListener>,
    workers: usize,
    options: Options,
) -> io::Result<(Vec<JoinHandle<()>>, Box<dyn Fn() + Send + Sync>)> {
    let workers = workers.max(1);
    let mut polls = Vec::with_capacity(workers);
    let mut remotes = Vec::with_capacity(workers);
    let mut inboxes = Vec::with_capacity(workers);
    for _ in 0..workers {
        let poll = Poll::new()?;
        let waker = Waker::new(poll.registry(), WAKER)?;
        let (tx, rx) = mpsc::channel();
        polls.push(poll);
        remotes.push(Remote { tx, waker });
        inboxes.push(rx);
    }
    let remotes: Arc<[Remote]> = remotes.into();
    let mut listeners = Some(listeners);
    // HTTP/2 callers are served by the Triple pipeline on a runtime of its own: one thread,
    // beside the event loops (h2 is tokio's; the loops stay mio's).
    let triple = crate::triple::Pipeline::own_runtime(shared.clone(), 1)?;

    let mut threads = Vec::with_capacity(workers);
    for (id, (poll, rx)) in polls.into_iter().zip(inboxes).enumerate() {
        let shared = shared.clone();
        let remotes = remotes.clone();
        let triple = triple.clone();
        // Worker 0 accepts for all.
        let socks = if id == 0 {
            listeners.take().unwrap_or_default()
        } else {
            Vec::new()
        };
        let t = crate::threads::spawn_thread(format!("dubbo-proxy-epoll-{id}"), move || {
            let supervisor = shared.clone();
            super::supervised(id, &supervisor, || {
                match event_loop::Loop::new(id, shared, poll, rx, remotes, socks, options, triple) {
                    Ok(mut l) => l.run(),
                    Err(e) => tracing::error!("worker {id}: cannot start its event loop: {e}"),
                }
            });
        })?;
        threads.push(t);
    }
    let shutdown = move || {
        for r in remotes.iter() {
            r.send(Cmd::Shutdown);
        }
    };
    Ok((threads, Box::new(shutdown)))
}
