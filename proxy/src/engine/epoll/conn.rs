//! A connection of the event loop: its socket and its I/O state, what a read of it gives,
//! and how its outbox is written (one `writev`, or through its TLS session).

use std::io::{self, IoSlice};

use mio::net::TcpStream;

use crate::buffer::ReadBuf;
use crate::core::fd_budget::CallerSlot;
use crate::core::outbox::Outbox;
use crate::core::Conn;
use crate::engine::tls::Session;

/// Chunks gathered into one `writev`.
const MAX_IOV: usize = 64;
/// Slices for the common outbox: the open buffer, behind at most one chunk.
const SMALL_IOV: usize = 2;

/// A connection's socket and what the loop knows of it.
pub(super) struct ConnIo {
    pub(super) conn: Conn,
    pub(super) stream: TcpStream,
    /// A provider connection not open yet.
    pub(super) connecting: bool,
    pub(super) rbuf: ReadBuf,
    /// A write hit `WouldBlock`: nothing is written until the writable edge.
    pub(super) blocked: bool,
    /// On the dirty list.
    pub(super) dirty: bool,
    /// On the ready list (reads left over from a turn).
    pub(super) ready: bool,
    /// On the list of connections read this turn.
    pub(super) read_this_turn: bool,
    /// Close requested: write what is left, then close.
    pub(super) closing: bool,
    /// Reads paused by the core: readable edges are not acted on, but the peer's close
    /// is: it is gone at once (its calls still waiting upstream are dropped) instead of
    /// when it would be read again.
    pub(super) paused: bool,
    /// Resumed: the bytes left in `rbuf` go to the core before the next read.
    pub(super) refeed: bool,
    /// An event said the peer closed its side (or the socket failed): read until the end
    /// of stream, not only until a short read.
    pub(super) hup: bool,
    /// The core said Triple ([`Effect::HandOff`](crate::core::Effect::HandOff)): the socket, from this listener, goes to
    /// the Triple pipeline.
    pub(super) handoff: Option<usize>,
    /// A caller's place in the file descriptor budget, held as long as the socket (or
    /// handed to the Triple pipeline with it).
    pub(super) caller: Option<CallerSlot>,
    /// The TLS session of a caller of a TLS listener or of a provider of a TLS cluster
    /// (boxed: plain connections do not carry its size).
    pub(super) tls: Option<Box<Session>>,
}

/// What one read of a connection gave.
pub(super) enum Read {
    /// The peer closed (TCP, TLS's close_notify), or was refused at the TLS door.
    Closed,
    /// `n` bytes (of plaintext, with TLS: none for a handshake message) appended to the read
    /// buffer; `short`: the read did not fill the room it had, so the receive queue is empty
    /// (see `[epoll] short_read`).
    Plain { n: usize, short: bool },
}

impl ConnIo {
    pub(super) fn new(conn: Conn, stream: TcpStream, connecting: bool) -> ConnIo {
        ConnIo {
            conn,
            stream,
            connecting,
            rbuf: ReadBuf::new(),
            blocked: false,
            dirty: false,
            ready: false,
            read_this_turn: false,
            closing: false,
            paused: false,
            refeed: false,
            hup: false,
            handoff: None,
            caller: None,
            tls: None,
        }
    }
}

/// Writes what `out` holds with one `write` (the socket's `writev`, or a TLS session's
/// write, which encrypts what it takes). An outbox is nearly always its open buffer
/// alone (chunks come from bodies forwarded by reference and from a write that blocked), so
/// it is gathered into [`SMALL_IOV`] slices unless it has more chunks: filling all
/// [`MAX_IOV`] slices before every write cost about 380 instructions (callgrind: 8% of the
/// proxy's instructions per call at 16 callers x 64 B).
pub(super) fn write_outbox(
    out: &Outbox,
    write: impl FnOnce(&[IoSlice<'_>]) -> io::Result<usize>,
) -> io::Result<usize> {
    if out.chunks() < SMALL_IOV {
        write_gathered::<SMALL_IOV>(out, write)
    } else {
        write_gathered::<MAX_IOV>(out, write)
    }
}

fn write_gathered<const N: usize>(
    out: &Outbox,
    write: impl FnOnce(&[IoSlice<'_>]) -> io::Result<usize>,
) -> io::Result<usize> {
    let mut iov = [IoSlice::new(&[]); N];
    let n = out.gather(&mut iov);
    write(&iov[..n])
}
