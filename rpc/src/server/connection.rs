//! A Dubbo protocol connection's read loop (its writer is a task fed by a channel, shared
//! with the calls running for it).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::dispatch::{answer_format, on_frame, Connection};
use super::limits::{enabled, Closed, Limits, Open};
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

/// Serves a Dubbo connection: its read loop here, its writer a task fed by a channel.
pub(super) async fn serve_conn<R, W>(
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
