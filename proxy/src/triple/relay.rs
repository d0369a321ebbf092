//! Moving one direction of a stream's body from one HTTP/2 connection to the other, DATA
//! bytes and trailers untouched, with flow control end to end.
//!
//! HTTP/2 flow control is per hop: a receiver grants its sender window (WINDOW_UPDATE) as it
//! consumes. The relay takes every DATA frame h2 has received at once (h2 counts the framing
//! overhead of small frames it holds, and closes a connection whose peer sends too many of
//! them, `ENHANCE_YOUR_CALM`: a gRPC stream of small messages is exactly that when the frames
//! sit unread), but releases their window on the incoming stream only once the outgoing
//! stream has sent them on, within the window the next hop granted. So a slow reader at
//! either end stops its own stream's writer after one window ([`STREAM_WINDOW`], 256 KiB, on
//! both hops; HTTP/2's default would be 64 KiB), holds back no other stream, and the relay
//! holds at most one window of bytes per stream direction.
//! Frame boundaries may change on the way (several small frames leave as one); gRPC's
//! length-prefixed messages do not depend on them.

use std::future::poll_fn;
use std::task::Poll;

use bytes::{Bytes, BytesMut};
use dubbo_triple::metadata::GRPC_STATUS;
use h2::{RecvStream, SendStream};
use http::HeaderValue;

/// The receive window of each stream, both sides: what one stream direction may hold in the
/// proxy (HTTP/2's 64 KiB default would leave a fast link idle between window updates; the
/// same as dubbo-rpc's Triple client and server).
pub const STREAM_WINDOW: u32 = 256 * 1024;

/// The receive window of a connection: a multiple of a stream's, so that streams whose
/// reader stopped do not hold back the others on the connection until 16 of them do. h2
/// also sizes its budget of small DATA frames held (half this) from it.
pub const CONNECTION_WINDOW: u32 = 16 * STREAM_WINDOW;

/// Why a relay stopped before its end of stream.
#[derive(Debug)]
pub enum RelayError {
    /// The side being read reset its stream (or its connection failed).
    From(h2::Error),
    /// The side being written reset its stream (`Reason`), or its connection failed.
    To(Option<h2::Reason>),
}

/// Forwards `from`'s DATA and trailers to `to` until `from` ends its stream. Returns the
/// trailers' `grpc-status`, if they had one.
pub async fn relay(
    from: &mut RecvStream,
    to: &mut SendStream<Bytes>,
) -> Result<Option<HeaderValue>, RelayError> {
    // Received, not yet sent on: at most the window granted to `from`'s sender.
    let mut held = BytesMut::new();
    let mut ended = from.is_end_stream();
    poll_fn(|cx| loop {
        // A reader that resets while its writer has nothing to send yet is noticed here,
        // not only at the next send.
        if let Poll::Ready(reason) = to.poll_reset(cx) {
            return Poll::Ready(Err(RelayError::To(reason.ok())));
        }
        while !ended {
            match from.poll_data(cx) {
                Poll::Ready(Some(Ok(chunk))) => held.extend_from_slice(&chunk),
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Err(RelayError::From(e))),
                Poll::Ready(None) => ended = true,
                Poll::Pending => break,
            }
        }
        if held.is_empty() {
            return if ended {
                Poll::Ready(Ok(()))
            } else {
                Poll::Pending
            };
        }
        to.reserve_capacity(held.len());
        match to.poll_capacity(cx) {
            Poll::Ready(Some(Ok(granted))) => {
                let part = held.split_to(granted.min(held.len())).freeze();
                let n = part.len();
                if n > 0 {
                    to.send_data(part, false).map_err(to_error)?;
                    // Sent on: now `from`'s sender may send as much again.
                    let _ = from.flow_control().release_capacity(n);
                }
            }
            Poll::Ready(Some(Err(e))) => return Poll::Ready(Err(to_error(e))),
            Poll::Ready(None) => return Poll::Ready(Err(RelayError::To(None))),
            Poll::Pending => return Poll::Pending,
        }
    })
    .await?;
    match poll_fn(|cx| from.poll_trailers(cx)).await {
        Ok(Some(trailers)) => {
            let status = trailers.get(GRPC_STATUS).cloned();
            to.send_trailers(trailers).map_err(to_error)?;
            Ok(status)
        }
        Ok(None) => {
            to.send_data(Bytes::new(), true).map_err(to_error)?;
            Ok(None)
        }
        Err(e) => Err(RelayError::From(e)),
    }
}

fn to_error(e: h2::Error) -> RelayError {
    RelayError::To(e.reason())
}
