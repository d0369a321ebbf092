//! A caller's TLS session on the tokio engine's own socket: rustls's `ServerConnection` is
//! sans-I/O, so the engine keeps reading and writing the socket itself (readiness,
//! `try_read` / `try_write`, edge-triggered wake-ups) and the session turns records into
//! plaintext for the core and the core's answers into records.

use std::cell::{Cell, RefCell};
use std::io::{self, Read, Write};
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use rustls::ServerConnection;
use tokio::net::TcpStream;

use crate::config::Listener;
use crate::core::metrics_tls::TlsRefusal;

/// The first byte of a TLS handshake record.
const HANDSHAKE_RECORD: u8 = 0x16;
/// Raw bytes read at a time: one largest TLS record and its header.
const RAW_CHUNK: usize = 16 * 1024 + 512;
/// Plaintext the session holds for the socket at most: past it the core's outbox keeps the
/// rest, and its backpressure applies as without TLS.
const SEND_BUFFER: usize = 64 * 1024;

/// What a listener's callers meet first.
#[derive(Clone)]
pub(super) enum Door {
    /// Plain TCP.
    Plain,
    /// TLS: the configuration and the handshake timeout.
    Tls(Arc<rustls::ServerConfig>, Duration),
    /// TLS whose files could not be read when the worker started: every caller is closed
    /// (serving them in plain text would be worse).
    Broken,
}

impl Door {
    /// The door of `listener`, logging why a TLS one could not be built.
    pub(super) fn of(listener: &Listener) -> Door {
        let Some(tls) = &listener.tls else {
            return Door::Plain;
        };
        match tls.build() {
            Ok(config) => Door::Tls(config, Duration::from_millis(tls.handshake_timeout_ms)),
            Err(e) => {
                tracing::error!(listener = %listener.name, "listener TLS: {e}; its callers are closed");
                Door::Broken
            }
        }
    }
}

/// What one read of the socket gave.
pub(super) enum Got {
    /// Plaintext appended to the buffer (maybe none: a handshake message); whether the read
    /// emptied the socket's receive queue.
    Plain { drained: bool },
    /// The caller closed (TCP, or TLS's close_notify).
    Eof,
    /// The caller is refused.
    Refused(TlsRefusal),
}

/// One caller's session.
pub(super) struct Session {
    conn: RefCell<ServerConnection>,
    /// No byte read yet: the first tells a TLS caller from a plain one.
    fresh: Cell<bool>,
    /// The handshake finished (and was counted).
    done: Cell<bool>,
}

impl Session {
    pub(super) fn new(config: Arc<rustls::ServerConfig>) -> Result<Session, rustls::Error> {
        let mut conn = ServerConnection::new(config)?;
        conn.set_buffer_limit(Some(SEND_BUFFER));
        Ok(Session {
            conn: RefCell::new(conn),
            fresh: Cell::new(true),
            done: Cell::new(false),
        })
    }

    /// Whether the handshake finished.
    pub(super) fn handshaken(&self) -> bool {
        self.done.get()
    }

    /// Reads what the socket has (`WouldBlock` when nothing), decrypts it and appends the
    /// plaintext to `buf`. Returns true in `handshake_done` the once the handshake finishes.
    pub(super) fn read(
        &self,
        stream: &TcpStream,
        buf: &mut BytesMut,
        handshake_done: &mut bool,
    ) -> io::Result<Got> {
        let mut raw = [0u8; RAW_CHUNK];
        let n = stream.try_read(&mut raw)?;
        if n == 0 {
            return Ok(Got::Eof);
        }
        if self.fresh.replace(false) && raw[0] != HANDSHAKE_RECORD {
            return Ok(Got::Refused(TlsRefusal::Plaintext));
        }
        let mut conn = self.conn.borrow_mut();
        let mut records = &raw[..n];
        while !records.is_empty() {
            conn.read_tls(&mut records)?;
            if let Err(e) = conn.process_new_packets() {
                // The alert that says why, if the socket takes it.
                let _ = conn.write_tls(&mut Socket(stream));
                return Ok(Got::Refused(TlsRefusal::Handshake(e.to_string())));
            }
            if !conn.is_handshaking() && !self.done.replace(true) {
                *handshake_done = true;
            }
            let mut chunk = [0u8; 4096];
            loop {
                match conn.reader().read(&mut chunk) {
                    Ok(0) => return Ok(Got::Eof),
                    Ok(k) => buf.extend_from_slice(&chunk[..k]),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(Got::Plain {
            drained: n < RAW_CHUNK,
        })
    }

    /// Writes the records the session holds; false when the socket would block first.
    pub(super) fn flush(&self, stream: &TcpStream) -> io::Result<bool> {
        let mut conn = self.conn.borrow_mut();
        while conn.wants_write() {
            match conn.write_tls(&mut Socket(stream)) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }

    /// Takes plaintext from `out` (how much: at most what the send buffer has room for) and
    /// writes its records. `WouldBlock` while records wait for the socket; `Ok(0)` for an
    /// empty `out` with nothing waiting.
    pub(super) fn write(&self, stream: &TcpStream, out: &[u8]) -> io::Result<usize> {
        if !self.flush(stream)? {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        if out.is_empty() {
            return Ok(0);
        }
        let n = self.conn.borrow_mut().writer().write(out)?;
        self.flush(stream)?;
        Ok(n)
    }

    /// The identity in the caller's verified client certificate.
    pub(super) fn peer_identity(&self) -> Option<dubbo_rpc::identity::PeerIdentity> {
        dubbo_rpc::tls::peer_identity(self.conn.borrow().peer_certificates())
    }
}

/// The socket as `std::io::Write`, without waiting.
struct Socket<'a>(&'a TcpStream);

impl Write for Socket<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.try_write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
