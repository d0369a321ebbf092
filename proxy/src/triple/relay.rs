//! Moving one direction of a stream's body from one HTTP/2 connection to the other, DATA and
//! trailers untouched, with flow control end to end.
//!
//! HTTP/2 flow control is per hop: a receiver grants its sender window (WINDOW_UPDATE) as it
//! consumes. The relay consumes a DATA frame only once the other side has taken it: it asks
//! the outgoing stream for capacity (the window the next hop granted), sends what it got, and
//! only then releases the same amount on the incoming stream. So a slow reader at either end
//! stops its own stream's writer after one window (64 KiB by default), holds back no other
//! stream, and the proxy holds at most a window per stream direction.

use std::future::poll_fn;
use std::task::Poll;

use bytes::Bytes;
use dubbo_triple::metadata::GRPC_STATUS;
use h2::{RecvStream, SendStream};
use http::HeaderValue;

/// Why a relay stopped before its end of stream.
#[derive(Debug)]
pub enum RelayError {
    /// The side being read reset its stream (or its connection failed).
    From(h2::Error),
    /// The side being written reset its stream (`Reason`), or its connection failed.
    To(Option<h2::Reason>),
}

/// What came first: data to forward, or the writer's side reset.
enum Next {
    Data(Option<Result<Bytes, h2::Error>>),
    Reset(Option<h2::Reason>),
}

/// Forwards `from`'s DATA and trailers to `to` until `from` ends its stream. Returns the
/// trailers' `grpc-status`, if they had one.
pub async fn relay(
    from: &mut RecvStream,
    to: &mut SendStream<Bytes>,
) -> Result<Option<HeaderValue>, RelayError> {
    loop {
        // A caller that resets while its provider has nothing to send yet is noticed here,
        // not only at the next send.
        let next = poll_fn(|cx| {
            if let Poll::Ready(r) = to.poll_reset(cx) {
                return Poll::Ready(Next::Reset(r.ok()));
            }
            from.poll_data(cx).map(Next::Data)
        })
        .await;
        match next {
            Next::Reset(reason) => return Err(RelayError::To(reason)),
            Next::Data(None) => break,
            Next::Data(Some(Err(e))) => return Err(RelayError::From(e)),
            Next::Data(Some(Ok(chunk))) => {
                let n = chunk.len();
                send(to, chunk).await?;
                // Taken by the next hop: now the sender may send as much again.
                let _ = from.flow_control().release_capacity(n);
            }
        }
    }
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

/// Sends `chunk` on `to` as its window allows (no END_STREAM).
async fn send(to: &mut SendStream<Bytes>, mut chunk: Bytes) -> Result<(), RelayError> {
    while !chunk.is_empty() {
        to.reserve_capacity(chunk.len());
        let granted = match poll_fn(|cx| to.poll_capacity(cx)).await {
            Some(Ok(n)) => n,
            Some(Err(e)) => return Err(to_error(e)),
            None => return Err(RelayError::To(None)),
        };
        if granted == 0 {
            continue;
        }
        let part = chunk.split_to(granted.min(chunk.len()));
        to.send_data(part, false).map_err(to_error)?;
    }
    Ok(())
}

fn to_error(e: h2::Error) -> RelayError {
    RelayError::To(e.reason())
}
