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
use http::{HeaderName, HeaderValue};

/// `grpc-status` as a name (a lookup by `&str` parses the name each time).
pub(super) const STATUS: HeaderName = HeaderName::from_static(GRPC_STATUS);

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

/// What a relay has received and not yet sent on: at most the window granted to its sender.
/// Most messages arrive as one DATA frame and leave as one, so a lone chunk is held as h2
/// gave it and sent on without a copy (split by reference counting when the next hop's
/// window takes only part of it); only a second chunk arriving before the first left makes
/// the relay gather them into one buffer.
#[derive(Default)]
struct Held {
    /// The lone chunk, when nothing else is held.
    lone: Bytes,
    /// Chunks gathered (the lone chunk first, when more came before it was sent).
    gathered: BytesMut,
}

impl Held {
    fn len(&self) -> usize {
        self.lone.len() + self.gathered.len()
    }

    fn push(&mut self, chunk: Bytes) {
        if self.len() == 0 {
            self.lone = chunk;
            return;
        }
        if !self.lone.is_empty() {
            let lone = std::mem::take(&mut self.lone);
            self.gathered.extend_from_slice(&lone);
        }
        self.gathered.extend_from_slice(&chunk);
    }

    /// The first `n` bytes held (`n` at most [`Held::len`]).
    fn take(&mut self, n: usize) -> Bytes {
        if self.lone.is_empty() {
            self.gathered.split_to(n).freeze()
        } else {
            self.lone.split_to(n)
        }
    }
}

/// Forwards `from`'s DATA and trailers to `to` until `from` ends its stream. Returns the
/// trailers' `grpc-status`, if they had one.
pub async fn relay(
    from: &mut RecvStream,
    to: &mut SendStream<Bytes>,
) -> Result<Option<HeaderValue>, RelayError> {
    let mut held = Held::default();
    let mut ended = from.is_end_stream();
    poll_fn(|cx| loop {
        // A reader that resets while its writer has nothing to send yet is noticed here,
        // not only at the next send.
        if let Poll::Ready(reason) = to.poll_reset(cx) {
            return Poll::Ready(Err(RelayError::To(reason.ok())));
        }
        while !ended {
            match from.poll_data(cx) {
                Poll::Ready(Some(Ok(chunk))) => held.push(chunk),
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Err(RelayError::From(e))),
                Poll::Ready(None) => ended = true,
                Poll::Pending => break,
            }
        }
        let len = held.len();
        if len == 0 {
            return if ended {
                Poll::Ready(Ok(()))
            } else {
                Poll::Pending
            };
        }
        to.reserve_capacity(len);
        match to.poll_capacity(cx) {
            Poll::Ready(Some(Ok(granted))) => {
                let n = granted.min(len);
                if n > 0 {
                    to.send_data(held.take(n), false).map_err(to_error)?;
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
            let status = trailers.get(&STATUS).cloned();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_chunk_leaves_as_it_came_and_more_chunks_are_gathered_in_order() {
        let mut held = Held::default();
        let chunk = Bytes::from_static(b"abcdef");
        held.push(chunk.clone());
        // Not copied: the part sent on points into h2's own buffer.
        let part = held.take(4);
        assert_eq!(part, "abcd");
        assert_eq!(part.as_ptr(), chunk.as_ptr());
        assert_eq!(held.len(), 2);
        held.push(Bytes::from_static(b"gh"));
        held.push(Bytes::from_static(b"ij"));
        assert_eq!(held.len(), 6);
        assert_eq!(held.take(3), "efg");
        assert_eq!(held.take(3), "hij");
        assert_eq!(held.len(), 0);
        // Empty again: the next chunk is lone once more.
        held.push(chunk.clone());
        assert_eq!(held.take(6).as_ptr(), chunk.as_ptr());
    }
}
