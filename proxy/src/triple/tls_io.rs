//! A TLS caller's socket for the HTTP/2 server: the session the engine did the handshake
//! with (rustls's sans-I/O `ServerConnection`) goes on over the socket, records in and out.

use std::io::{self, IoSlice, Read, Write};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use bytes::{Buf, Bytes};
use rustls::ServerConnection;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// Raw bytes read at a time: one largest TLS record and its header.
const RAW_CHUNK: usize = 16 * 1024 + 512;

/// `stream` under `tls`, with `read` (plaintext the engine took already) read first.
pub struct TlsIo {
    read: Bytes,
    stream: TcpStream,
    tls: ServerConnection,
}

impl TlsIo {
    /// `read`: the plaintext already taken from `tls`.
    pub fn new(read: Bytes, stream: TcpStream, tls: ServerConnection) -> TlsIo {
        TlsIo { read, stream, tls }
    }

    /// Writes the records the session holds; `Pending` until the socket took them all.
    fn poll_flush_records(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.tls.wants_write() {
            ready!(self.stream.poll_write_ready(cx))?;
            match self.tls.write_tls(&mut Socket(&self.stream)) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for TlsIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if !this.read.is_empty() {
            let n = this.read.len().min(buf.remaining());
            buf.put_slice(&this.read[..n]);
            this.read.advance(n);
            return Poll::Ready(Ok(()));
        }
        loop {
            match this.tls.reader().read(buf.initialize_unfilled()) {
                Ok(n) => {
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
            ready!(this.stream.poll_read_ready(cx))?;
            let mut raw = [0u8; RAW_CHUNK];
            let n = match this.stream.try_read(&mut raw) {
                Ok(0) => return Poll::Ready(Ok(())),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Poll::Ready(Err(e)),
            };
            let mut records = &raw[..n];
            while !records.is_empty() {
                this.tls.read_tls(&mut records)?;
                this.tls
                    .process_new_packets()
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
            }
            // Alerts and key updates it answers go out with the next write or flush.
        }
    }
}

impl AsyncWrite for TlsIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        ready!(this.poll_flush_records(cx))?;
        let n = this.tls.writer().write(buf)?;
        // Out now if the socket takes it; else with the next write or flush.
        let _ = this.poll_flush_records(cx)?;
        Poll::Ready(Ok(n))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush_records(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.tls.send_close_notify();
        ready!(self.poll_flush_records(cx))?;
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// A non-blocking socket of either engine, as a TLS session reads records from it and writes
/// them to it: neither call waits (`WouldBlock` when there is nothing to read, or no room).
pub(crate) trait Wire {
    /// Reads what the socket has.
    fn recv(&self, buf: &mut [u8]) -> io::Result<usize>;
    /// Writes what the socket takes of `bufs`.
    fn send(&self, bufs: &[IoSlice<'_>]) -> io::Result<usize>;
}

impl Wire for TcpStream {
    fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.try_read(buf)
    }

    fn send(&self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        self.try_write_vectored(bufs)
    }
}

impl Wire for mio::net::TcpStream {
    // mio reads and writes through a shared reference (`impl Read for &TcpStream`).
    fn recv(&self, buf: &mut [u8]) -> io::Result<usize> {
        (&*self).read(buf)
    }

    fn send(&self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        (&*self).write_vectored(bufs)
    }
}

/// The socket as `std::io::Write`, without waiting (what rustls writes its records to).
pub(crate) struct Socket<'a, S>(pub(crate) &'a S);

impl<S: Wire> Write for Socket<'_, S> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.send(&[IoSlice::new(buf)])
    }

    fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        self.0.send(bufs)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
