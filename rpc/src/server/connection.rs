//! Accepting connections, and each connection's read loop (its writer is a task fed by a
//! channel, shared with the calls running for it).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::dispatch::{answer_format, on_frame, Connection};
use super::limits::{enabled, Closed, Limits, TlsRefused};
use super::split::Split;
use super::{lock, ConnHandle, Phase, State};
use crate::conn::{write_loop, FrameReader, Read, WriteError};
use crate::identity::PeerIdentity;
use dubbo_codec::error::DecodeError;
use dubbo_codec::format::BodyFormat;
use dubbo_codec::frame::Frame;
use dubbo_codec::response::error_frame_in;
use dubbo_codec::serialization::Serialization;
use dubbo_codec::status::Status;

/// Frames a connection may have waiting to be written (answers, events).
const CHANNEL: usize = 1024;

pub(super) async fn accept_loop(listener: TcpListener, state: Arc<State>) {
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                let max = state.limits.max_connections;
                if state.open.load(Ordering::Acquire) >= max {
                    // Closed at once: the caller sees the end of the stream, the open
                    // connections go on.
                    state.counters.refused(peer, max);
                    drop(stream);
                    continue;
                }
                let open = Open::new(&state);
                state.counters.accepted.fetch_add(1, Ordering::Relaxed);
                tokio::spawn(serve_any(stream, peer, state.clone(), open));
            }
            Err(_) => {
                // Out of file descriptors and the like: back off instead of spinning.
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// One open connection in `State::open`, until dropped (whatever ends the connection's
/// task, a panic included).
pub(super) struct Open(Arc<State>);

impl Open {
    fn new(state: &Arc<State>) -> Open {
        state.open.fetch_add(1, Ordering::AcqRel);
        Open(state.clone())
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The first byte of a TLS handshake record (a ClientHello): never the first of a Dubbo
/// frame (magic `0xdabb`) nor of an HTTP request.
pub(super) const TLS_HANDSHAKE: u8 = 0x16;

/// Serves a connection in the protocol its first bytes speak: Dubbo frames, or (feature
/// `triple`) HTTP/2 for Triple, on the same port as Java 3's `ext-protocol: tri` does; on a
/// TLS server (feature `tls`), the same inside TLS.
async fn serve_any(stream: TcpStream, peer: SocketAddr, state: Arc<State>, open: Open) {
    let _ = stream.set_nodelay(true);
    #[cfg(feature = "tls")]
    if let Some(tls) = state.tls.clone() {
        return super::tls_accept::serve_tls(stream, peer, state, tls, open).await;
    }
    match peek_first(&stream, &state).await {
        Ok(Sniffed::Tls) => state
            .counters
            .tls_refused(peer, TlsRefused::HandshakeOnPlain),
        Ok(sniffed) => serve_sniffed(sniffed, stream, peer, None, state, open).await,
        Err(Some(why)) => state.counters.closed(why, peer, &state.limits),
        Err(None) => {}
    }
}

/// Serves a connection whose protocol was told, with the identity its TLS handshake proved.
pub(super) async fn serve_sniffed<S: Split>(
    sniffed: Sniffed,
    stream: S,
    peer: SocketAddr,
    identity: Option<PeerIdentity>,
    state: Arc<State>,
    open: Open,
) {
    match sniffed {
        #[cfg(feature = "triple")]
        Sniffed::Http2 => super::triple::serve_h2(stream, peer, identity, state).await,
        #[cfg(feature = "triple")]
        Sniffed::Http1 => super::http1::serve_http1(stream, peer, identity, state).await,
        // A TLS record inside TLS is not a Dubbo frame: the reader closes on its magic.
        Sniffed::Dubbo | Sniffed::Tls => {
            let (r, w) = stream.split();
            serve_conn(r, w, peer, identity, state, open).await
        }
    }
    // `open` (HTTP) drops here, when the connection is done.
}

/// What a connection's first bytes speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sniffed {
    /// Dubbo frames (or bytes the Dubbo reader refuses).
    Dubbo,
    /// HTTP/2: its preface, `PRI * HTTP/2.0`.
    #[cfg(feature = "triple")]
    Http2,
    /// HTTP/1.1: a request line, `POST /...`.
    #[cfg(feature = "triple")]
    Http1,
    /// A TLS handshake.
    Tls,
}

/// What `seen` (at least one byte) speaks, or `None` when more bytes are needed to tell.
pub(super) fn classify(seen: &[u8]) -> Option<Sniffed> {
    let first = *seen.first()?;
    if first == TLS_HANDSHAKE {
        return Some(Sniffed::Tls);
    }
    if !first.is_ascii_uppercase() {
        // Dubbo's magic 0xdabb, or not a protocol at all.
        return Some(Sniffed::Dubbo);
    }
    #[cfg(feature = "triple")]
    {
        use super::triple::H2_PREFACE_START;
        if !H2_PREFACE_START.starts_with(seen) {
            return Some(Sniffed::Http1);
        }
        // "P" or "PR": HTTP/2's preface or a POST / PUT.
        (seen.len() >= H2_PREFACE_START.len()).then_some(Sniffed::Http2)
    }
    #[cfg(not(feature = "triple"))]
    Some(Sniffed::Dubbo)
}

/// Peeks (does not read) the first bytes of a connection. An error when the caller sent
/// nothing in the first-frame timeout (`Some`) or closed (`None`).
async fn peek_first(stream: &TcpStream, state: &State) -> Result<Sniffed, Option<Closed>> {
    bounded_sniff(state, async {
        let mut first = [0u8; 3];
        loop {
            let n = stream.peek(&mut first).await.map_err(|_| None)?;
            if n == 0 {
                return Err(None);
            }
            if let Some(sniffed) = classify(&first[..n]) {
                return Ok(sniffed);
            }
            // Wait for more without spinning.
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    })
    .await
}

/// `sniff` bounded by the first-frame timeout, and given up for the Dubbo protocol when the
/// server shuts down meanwhile.
pub(super) async fn bounded_sniff(
    state: &State,
    sniff: impl std::future::Future<Output = Result<Sniffed, Option<Closed>>>,
) -> Result<Sniffed, Option<Closed>> {
    let sniff = async {
        match enabled(state.limits.first_frame_timeout) {
            Some(t) => tokio::time::timeout(t, sniff)
                .await
                .unwrap_or(Err(Some(Closed::NoFrame))),
            None => sniff.await,
        }
    };
    // A caller that connects and says nothing is a Dubbo consumer waiting to call (HTTP
    // clients speak first): when the server shuts down meanwhile, it is told so as one.
    let mut read_only = state.read_only.clone();
    tokio::select! {
        sniffed = sniff => sniffed,
        _ = read_only.wait_for(|r| *r) => Ok(Sniffed::Dubbo),
    }
}

async fn serve_conn<R, W>(
    r: R,
    w: W,
    peer: SocketAddr,
    identity: Option<PeerIdentity>,
    state: Arc<State>,
    open: Open,
) where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::channel::<Frame>(CHANNEL);
    let stall = enabled(state.limits.write_timeout);
    let mut writer = tokio::spawn(write_loop(w, rx, state.max_payload, stall));
    let id = state.next_conn.fetch_add(1, Ordering::Relaxed);
    let serialization = Arc::new(AtomicU8::new(Serialization::Hessian2.id()));
    lock(&state.conns).insert(
        id,
        ConnHandle {
            tx: tx.clone(),
            serialization: serialization.clone(),
            writer: writer.abort_handle(),
        },
    );
    if *state.read_only.borrow() {
        // The shutdown listed the connections before this one registered.
        let _ = tx.try_send(Frame::read_only_event_in(0, BodyFormat::default()));
    }
    let conn = Connection {
        peer,
        identity,
        tx,
        inflight: Arc::new(AtomicUsize::new(0)),
    };
    let mut frames = FrameReader::new(r, state.max_payload);
    let mut closing = state.closing.clone();
    let mut clock = Clock::new(Instant::now());
    let mut writer_done = false;
    let why = loop {
        // Whole frames already buffered first, then wait for bytes, a timeout, the writer's
        // end or the shutdown.
        let read = match frames.buffered() {
            Ok(Some(read)) => Some(read),
            Ok(None) => {
                let deadline = clock.deadline(&state.limits, frames.mid_frame());
                let timer = async {
                    match deadline {
                        Some((at, why)) => {
                            tokio::time::sleep_until(at).await;
                            why
                        }
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    filled = frames.fill() => match filled {
                        Ok(None) => {
                            clock.bytes_arrived(frames.mid_frame());
                            continue;
                        }
                        Ok(Some(read)) => Some(read),
                        Err(_) => None,
                    },
                    why = timer => break Some(why),
                    _ = closing.wait_for(|p| *p != Phase::Serving) => break None,
                    ended = &mut writer => {
                        writer_done = true;
                        let stalled = matches!(ended, Ok(Err(WriteError::Stalled(_))));
                        break stalled.then_some(Closed::WriteTimeout);
                    }
                }
            }
            Err(_) => None,
        };
        match read {
            Some(Read::Frame(frame)) => {
                clock.frame_read(frames.mid_frame());
                if let Some(format) = BodyFormat::of(frame.header().serialization()) {
                    serialization.store(format.serialization().id(), Ordering::Relaxed);
                }
                on_frame(frame, &state, &conn).await
            }
            Some(Read::TooLarge(e)) => {
                clock.frame_read(frames.mid_frame());
                if let DecodeError::PayloadTooLarge { header, .. } = &e {
                    if header.is_request() && header.is_two_way() && !header.is_event() {
                        let _ = conn
                            .tx
                            .send(error_frame_in(
                                header.request_id(),
                                answer_format(header.serialization()),
                                Status::BadRequest,
                                Some(&format!("Fail to decode request due to: {e}")),
                            ))
                            .await;
                    }
                }
            }
            // The end of the stream; or bad magic, a stream cut inside a frame, an I/O
            // error: nothing can be answered.
            Some(Read::Eof) | None => break None,
        }
    };
    if let Some(why) = why {
        state.counters.closed(why, peer, &state.limits);
    }
    lock(&state.conns).remove(&id);
    drop(conn);
    drop(frames);
    if !writer_done {
        // The writer ends when the last sender (held by calls still running) is gone and
        // it has written what waits, or when the shutdown's grace is over.
        let mut phase = state.closing.clone();
        let aborted = async {
            if phase.wait_for(|p| *p == Phase::Aborted).await.is_err() {
                // The server was dropped, not shut down: the writer finishes on its own.
                std::future::pending::<()>().await;
            }
        };
        tokio::select! {
            _ = &mut writer => {}
            () = aborted => writer.abort(),
        }
    }
    drop(open);
}

/// The read deadlines of one connection.
struct Clock {
    opened: Instant,
    /// When the last whole frame was read (`None`: none yet).
    last_frame: Option<Instant>,
    /// When the frame being read began to arrive.
    frame_began: Option<Instant>,
}

impl Clock {
    fn new(now: Instant) -> Self {
        Clock {
            opened: now,
            last_frame: None,
            frame_began: None,
        }
    }

    fn bytes_arrived(&mut self, mid_frame: bool) {
        if mid_frame && self.frame_began.is_none() {
            self.frame_began = Some(Instant::now());
        }
    }

    fn frame_read(&mut self, mid_frame: bool) {
        let now = Instant::now();
        self.last_frame = Some(now);
        // The next frame may have begun in the same read.
        self.frame_began = mid_frame.then_some(now);
    }

    /// The earliest deadline in force, and what it closes the connection for (`None`: no
    /// timeout in force).
    fn deadline(&mut self, limits: &Limits, mid_frame: bool) -> Option<(Instant, Closed)> {
        if !mid_frame {
            self.frame_began = None;
        }
        let waiting = match self.last_frame {
            None => enabled(limits.first_frame_timeout).map(|t| (self.opened + t, Closed::NoFrame)),
            Some(at) => enabled(limits.idle_timeout).map(|t| (at + t, Closed::Idle)),
        };
        let partial = self
            .frame_began
            .zip(enabled(limits.frame_timeout))
            .map(|(began, t)| (began + t, Closed::PartialFrame));
        [partial, waiting]
            .into_iter()
            .flatten()
            .min_by_key(|(at, _)| *at)
    }
}
