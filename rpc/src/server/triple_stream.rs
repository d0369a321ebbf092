//! IDL calls of any shape on a Triple stream (feature `triple`): the handler, the reading of
//! request messages and the writing of response messages, all driven by the stream's own
//! task.
//!
//! Request messages come to the handler through a bounded channel filled by
//! [`read_messages`]' reader; response messages go out through the call's [`Outbox`], which
//! the handler's [`Responder`]s encode into. The handler's future is polled here, beside
//! them, rather than in a task of its own, so that the messages it sends without waiting for
//! anything else pile up in the outbox (up to its room, 64 KiB) and go out as one DATA frame:
//! a fast stream costs one wake-up of the connection and one `writev` per batch, not per
//! message.

use std::future::Future;
use std::sync::{Arc, Mutex};

use bytes::{Bytes, BytesMut};
use dubbo_triple::message::MessageDecoder;
use dubbo_triple::Status;
use h2::server::SendResponse;
use h2::{RecvStream, SendStream};
use http::HeaderMap;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::grpc::{GrpcCall, GrpcHandler, Responder, BUFFERED_MESSAGES};
use super::outbox::Outbox;
use super::panic::catch_panic;
use super::triple_reply::{
    compressed, deadline_passed, grpc_response, handler_panicked, message_status, trailers_only,
    until,
};

/// Closes a call's outbox when the call ends, however it ends: responders that outlive it
/// (moved into tasks of their own) fail rather than wait forever.
struct CloseOnDrop(Arc<Outbox>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}

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
    let outbox = Arc::new(Outbox::default());
    let _close = CloseOnDrop(outbox.clone());
    let headers = Arc::new(Mutex::new(HeaderMap::new()));
    let responder = Responder {
        outbox: outbox.clone(),
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
            batch = std::future::poll_fn(|cx| outbox.poll_take(cx)) => match batch {
                Some(batch) => {
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
                // Closed when the handler returned (only that closes it while the call
                // runs), and every message it sent is written.
                None => break returned.take().unwrap_or(Ok(())),
            },
            result = &mut running, if returned.is_none() => {
                // The messages it sent before it returned go first (the loop takes them).
                returned = Some(result.unwrap_or_else(|_| Err(handler_panicked())));
                outbox.close();
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
