//! TLS on the epoll engine: what a connection's [`Session`] adds to the event loop's reads
//! (records in, plaintext to the core, the handshake's end told to the core) and to its
//! timers (a handshake cut at its limit). Writes go through the session where the loop
//! writes (`Session::write` in place of `writev`), and the Triple hand-off takes the session
//! along (`crate::engine::hand_off`), as on the tokio engine.

use std::io;
use std::time::Duration;

use bytes::BytesMut;
use mio::net::TcpStream;

use super::conn::Read;
use crate::core::metrics_tls::TlsRefusal;
use crate::core::{Conn, Worker};
use crate::engine::tls::{self, Got, Session};

/// Reads a TLS connection: what the socket has, decrypted and appended to `buf`. The core
/// hears of a finished handshake (its count, a caller's identity) before its first bytes;
/// a refused peer (plain text on a TLS listener, a failed handshake) is counted and logged.
pub(super) fn read(
    session: &Session,
    stream: &TcpStream,
    conn: Conn,
    buf: &mut BytesMut,
    worker: &mut Worker,
) -> io::Result<Read> {
    let before = buf.len();
    let mut done = false;
    let got = session.read(stream, buf, &mut done);
    if done {
        tls::handshake_done(worker, conn, session, || stream.peer_addr().ok());
    }
    Ok(match got? {
        Got::Eof => Read::Closed,
        Got::Refused(why) => {
            let peer = stream.peer_addr().ok();
            tls::refused(&worker.shared().metrics.tls, conn, peer, &why);
            Read::Closed
        }
        Got::Plain { drained } => Read::Plain {
            n: buf.len() - before,
            short: drained,
        },
    })
}

/// True if the connection's handshake is still going on at its `limit`: counted and logged,
/// to be closed.
pub(super) fn timed_out(
    session: Option<&Session>,
    stream: &TcpStream,
    conn: Conn,
    worker: &Worker,
    limit: Duration,
) -> bool {
    let pending = session.is_some_and(|s| !s.handshaken());
    if !pending {
        return false;
    }
    let ms = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX);
    let peer = stream.peer_addr().ok();
    tls::refused(
        &worker.shared().metrics.tls,
        conn,
        peer,
        &TlsRefusal::Timeout(ms),
    );
    true
}
