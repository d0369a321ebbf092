//! Accepting connections, and each connection's read loop (its writer is a task fed by a
//! channel, shared with the calls running for it).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use super::dispatch::{answer_format, on_frame};
use super::{lock, ConnHandle, State};
use crate::conn::{write_loop, FrameReader, Read, ReadError};
use crate::error::DecodeError;
use crate::format::BodyFormat;
use crate::frame::Frame;
use crate::response::error_frame_in;
use crate::serialization::Serialization;
use crate::status::Status;

pub(super) async fn accept_loop(listener: TcpListener, state: Arc<State>) {
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                tokio::spawn(serve_conn(stream, peer, state.clone()));
            }
            Err(_) => {
                // Out of file descriptors and the like: back off instead of spinning.
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

async fn serve_conn(stream: TcpStream, peer: SocketAddr, state: Arc<State>) {
    let _ = stream.set_nodelay(true);
    let (r, w) = stream.into_split();
    let (tx, rx) = mpsc::channel::<Frame>(1024);
    let writer = tokio::spawn(write_loop(w, rx, state.max_payload));
    let id = state.next_conn.fetch_add(1, Ordering::Relaxed);
    let serialization = Arc::new(AtomicU8::new(Serialization::Hessian2.id()));
    lock(&state.conns).insert(
        id,
        ConnHandle {
            tx: tx.clone(),
            serialization: serialization.clone(),
        },
    );
    let mut frames = FrameReader::new(r, state.max_payload);
    let mut closing = state.closing.clone();
    loop {
        let item = tokio::select! {
            item = tokio::time::timeout(state.idle_timeout, frames.next()) => item,
            _ = closing.wait_for(|c| *c) => break,
        };
        match item {
            Err(_) => break, // idle
            Ok(Ok(Read::Frame(frame))) => {
                if let Some(format) = BodyFormat::of(frame.header().serialization()) {
                    serialization.store(format.serialization().id(), Ordering::Relaxed);
                }
                on_frame(frame, peer, &state, &tx).await
            }
            Ok(Ok(Read::TooLarge(e))) => {
                if let DecodeError::PayloadTooLarge { header, .. } = &e {
                    if header.is_request() && header.is_two_way() && !header.is_event() {
                        let _ = tx
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
            Ok(Ok(Read::Eof)) => break,
            // Bad magic or a stream cut inside a frame: nothing can be answered.
            Ok(Err(ReadError::Decode(_))) | Ok(Err(ReadError::Io(_))) => break,
        }
    }
    lock(&state.conns).remove(&id);
    drop(tx);
    // The writer ends when the last sender (held by calls still running) is gone.
    let _ = writer.await;
}
