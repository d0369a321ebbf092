//! IDL calls of any shape on a Triple stream (feature `triple`): the handler, the reading of
//! request messages and the writing of response messages, all driven by the stream's own
//! task.
//!
//! A streaming handler talks to the stream through two bounded channels: request messages
//! come from [`read_messages`]' reader, response messages go out through the
//! [`Responder`]. The handler's future is polled here, beside them, rather than in a task of
//! its own, so that the messages a handler sends back to back are written together: those
//! waiting in the channel, then those the handler sends into the room they left, as long as
//! it sends without waiting for anything else, go out as one DATA frame (up to
//! [`BATCH_BYTES`]). A fast stream costs one wake-up of the connection and one `writev` per
//! batch, not per message.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::task::Poll;

use bytes::{Bytes, BytesMut};
use dubbo_triple::message::{prefix, MessageDecoder};
use dubbo_triple::Status;
use h2::server::SendResponse;
use h2::{RecvStream, SendStream};
use http::HeaderMap;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::grpc::{GrpcCall, GrpcHandler, Responder, BUFFERED_MESSAGES};
use super::panic::catch_panic;
use super::triple_reply::{
    compressed, deadline_passed, grpc_response, handler_panicked, message_status, trailers_only,
    until,
};

/// The most response bytes gathered into one DATA frame: a batch is written once the
/// caller's window takes it, so this also bounds what one write waits for.
const BATCH_BYTES: usize = 64 * 1024;

/// Runs an IDL method's handler: its request messages read by `reader`, its response
/// messages written as the caller takes them, then its status.
pub(super) async fn serve_grpc(
    handler: GrpcHandler,
    call: GrpcCall,
    reader: impl Future<Output = ()>,
    mut respond: SendResponse<Bytes>,
    deadline: Option<Instant>,
) {
    tokio::pin!(reader);
    let mut read_all = false;
    let (tx, mut out) = mpsc::channel::<Bytes>(BUFFERED_MESSAGES);
    let headers = Arc::new(Mutex::new(HeaderMap::new()));
    let responder = Responder {
        tx,
        headers: headers.clone(),
    };
    let mut running = catch_panic(handler(call, responder));
    // The handler's result once it returned (its future is not polled again).
    let mut returned: Option<Result<(), Status>> = None;
    let mut sender: Option<SendStream<Bytes>> = None;
    let timer = until(deadline);
    tokio::pin!(timer);
    let status = loop {
        let reset = std::future::poll_fn(|cx| match sender.as_mut() {
            Some(s) => s.poll_reset(cx),
            None => respond.poll_reset(cx),
        });
        tokio::select! {
            message = out.recv() => match message {
                Some(first) => {
                    let mut batch = BytesMut::new();
                    append(&mut batch, &first);
                    // What else the handler has ready goes in the same write: the messages
                    // waiting in the channel, then those it sends into the room they leave,
                    // until it has to wait for something else (or returns).
                    loop {
                        while batch.len() < BATCH_BYTES {
                            let Ok(next) = out.try_recv() else { break };
                            append(&mut batch, &next);
                        }
                        if batch.len() >= BATCH_BYTES || returned.is_some() {
                            break;
                        }
                        let polled = std::future::poll_fn(|cx| {
                            Poll::Ready(std::pin::Pin::new(&mut running).poll(cx))
                        })
                        .await;
                        if let Poll::Ready(result) = polled {
                            returned = Some(result.unwrap_or_else(|_| Err(handler_panicked())));
                            out.close();
                        } else if out.is_empty() {
                            break;
                        }
                    }
                    let batch = batch.freeze();
                    let write = write_batch(&mut respond, &mut sender, &headers, batch);
                    // Requests keep being read while the caller's window is awaited: a
                    // caller that sends everything before it reads is not deadlocked.
                    tokio::pin!(write);
                    let written = loop {
                        tokio::select! {
                            r = &mut write => break r,
                            () = &mut reader, if !read_all => read_all = true,
                        }
                    };
                    if written.is_err() {
                        return;
                    }
                }
                // Every responder is gone, so nothing more to write: the handler's result.
                None => break match returned.take() {
                    Some(result) => result,
                    None => (&mut running).await.unwrap_or_else(|_| Err(handler_panicked())),
                },
            },
            result = &mut running, if returned.is_none() => {
                // The messages it sent before it returned go first (the loop drains them).
                returned = Some(result.unwrap_or_else(|_| Err(handler_panicked())));
                out.close();
            }
            _ = reset => return,
            _ = &mut timer => break Err(deadline_passed()),
            () = &mut reader, if !read_all => read_all = true,
        }
    };
    let status = status.err().unwrap_or_else(Status::ok);
    match sender {
        Some(mut send) => {
            let mut trailers = HeaderMap::new();
            status.write_headers(&mut trailers);
            let _ = send.send_trailers(trailers);
        }
        // With the headers the handler set.
        None => trailers_only(
            &mut respond,
            std::mem::take(&mut *super::lock(&headers)),
            &status,
        ),
    }
}

/// Appends `message` with its 5-byte prefix.
fn append(batch: &mut BytesMut, message: &[u8]) {
    batch.extend_from_slice(&prefix(message.len()));
    batch.extend_from_slice(message);
}

/// Writes whole response messages (`batch`, prefixes included), sending the response
/// headers first if they are not sent yet; waits for the caller's window, so a caller that
/// does not read holds back only its own stream.
async fn write_batch(
    respond: &mut SendResponse<Bytes>,
    sender: &mut Option<SendStream<Bytes>>,
    headers: &Mutex<HeaderMap>,
    batch: Bytes,
) -> Result<(), h2::Error> {
    let send = match sender {
        Some(send) => send,
        None => {
            let response = grpc_response(std::mem::take(&mut *super::lock(headers)));
            sender.insert(respond.send_response(response, false)?)
        }
    };
    crate::h2_send::send_framed(send, batch).await
}

/// Reads a stream's request messages into a channel as the handler takes them (the future
/// does the reading): the window is given back only once the messages of a chunk are in the
/// channel, so a handler that does not read holds back its caller.
pub(super) fn read_messages(
    mut body: RecvStream,
    max: u32,
) -> (
    mpsc::Receiver<Result<Bytes, Status>>,
    impl Future<Output = ()>,
) {
    let (tx, rx) = mpsc::channel(BUFFERED_MESSAGES);
    let reader = async move {
        let mut decoder = MessageDecoder::new(max);
        let mut buf = BytesMut::new();
        loop {
            let chunk = tokio::select! {
                chunk = body.data() => chunk,
                // The handler is done with the request.
                _ = tx.closed() => return,
            };
            let Some(Ok(chunk)) = chunk else { break };
            let n = chunk.len();
            buf.extend_from_slice(&chunk);
            loop {
                match decoder.decode(&mut buf) {
                    Ok(Some(m)) if m.compressed => {
                        let _ = tx.send(Err(compressed())).await;
                        return;
                    }
                    Ok(Some(m)) => {
                        if tx.send(Ok(m.data)).await.is_err() {
                            return;
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        let _ = tx.send(Err(message_status(&e))).await;
                        return;
                    }
                }
            }
            let _ = body.flow_control().release_capacity(n);
        }
        if let Err(e) = decoder.finish(&buf) {
            let _ = tx.send(Err(message_status(&e))).await;
        }
    };
    (rx, reader)
}
