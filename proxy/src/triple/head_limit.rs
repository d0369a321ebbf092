//! The time limit of an HTTP/1.1 request head (the listener's `frame_timeout_ms`), apart
//! from the wait for it.
//!
//! hyper has one timer for both: its `header_read_timeout` runs from the moment it waits for
//! a request, keep-alive idle time included. The HTTP/1.1 server sets it to the listener's
//! `idle_timeout_ms`, and this socket wrapper times a head from its first byte: bytes read
//! while no request is being served begin a head, and the head ends when hyper hands it to
//! the service ([`Heads::serve`]). A head not done within the limit fails the read, which
//! closes the connection.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// What the service tells the socket: how many heads it got, and whether a request is being
/// served (its response not yet written whole).
#[derive(Debug, Default)]
pub(super) struct Heads {
    parsed: AtomicU64,
    serving: AtomicU64,
}

impl Heads {
    /// A head reached the service: its time limit ends; the request counts as served until
    /// the guard drops (with the response's body, once hyper has written it).
    pub(super) fn serve(self: &Arc<Self>) -> Serving {
        self.serving.fetch_add(1, Relaxed);
        self.parsed.fetch_add(1, Relaxed);
        Serving(self.clone())
    }
}

/// A request being served; see [`Heads::serve`].
#[derive(Debug)]
pub(super) struct Serving(Arc<Heads>);

impl Drop for Serving {
    fn drop(&mut self) {
        self.0.serving.fetch_sub(1, Relaxed);
    }
}

/// A caller's socket whose request heads must be read within `limit` (if any).
pub(super) struct HeadLimit<T> {
    io: T,
    heads: Arc<Heads>,
    limit: Option<Duration>,
    /// The head being read: the count of heads parsed when it began, and its deadline.
    pending: Option<(u64, Pin<Box<Sleep>>)>,
}

impl<T> HeadLimit<T> {
    pub(super) fn new(io: T, heads: Arc<Heads>, limit: Option<Duration>) -> HeadLimit<T> {
        HeadLimit {
            io,
            heads,
            limit,
            pending: None,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for HeadLimit<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let parsed = this.heads.parsed.load(Relaxed);
        if this.pending.as_ref().is_some_and(|(at, _)| *at != parsed) {
            // The head it timed reached the service.
            this.pending = None;
        }
        let before = buf.filled().len();
        match Pin::new(&mut this.io).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                let begun = buf.filled().len() > before && this.heads.serving.load(Relaxed) == 0;
                if let (true, None, Some(limit)) = (begun, &this.pending, this.limit) {
                    this.pending = Some((parsed, Box::pin(tokio::time::sleep(limit))));
                }
                Poll::Ready(Ok(()))
            }
            Poll::Pending => {
                let expired = match &mut this.pending {
                    Some((_, deadline)) => deadline.as_mut().poll(cx).is_ready(),
                    None => false,
                };
                if expired {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "a request head not read within frame_timeout_ms",
                    )));
                }
                Poll::Pending
            }
            other => other,
        }
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for HeadLimit<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A head's bytes start the clock; a head served stops it; bytes read while a request is
    /// served (its body) start nothing.
    #[tokio::test]
    async fn heads_are_timed_from_their_first_byte() {
        let limit = Duration::from_millis(200);
        let (mut caller, server) = tokio::io::duplex(1024);
        let heads = Arc::new(Heads::default());
        let mut io = HeadLimit::new(server, heads.clone(), Some(limit));
        let mut buf = [0u8; 64];
        let longer = Duration::from_millis(600);

        // Idle: no clock (hyper's own idle limit is the listener's).
        let idle = tokio::time::timeout(longer, io.read(&mut buf)).await;
        assert!(idle.is_err(), "an idle socket reads on");

        caller.write_all(b"POST / HTTP/1.1\r\n").await.unwrap();
        assert!(io.read(&mut buf).await.unwrap() > 0);
        let served = heads.serve();
        // A body read while served: still no clock.
        caller.write_all(b"body").await.unwrap();
        assert!(io.read(&mut buf).await.unwrap() > 0);
        let waiting = tokio::time::timeout(longer, io.read(&mut buf)).await;
        assert!(waiting.is_err(), "the served head's clock stopped");
        drop(served);

        // The next head, unfinished: the read fails after the limit.
        let t0 = std::time::Instant::now();
        caller.write_all(b"POST / HT").await.unwrap();
        assert!(io.read(&mut buf).await.unwrap() > 0);
        let e = io.read(&mut buf).await.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        let took = t0.elapsed();
        assert!(took >= limit && took < Duration::from_secs(2), "{took:?}");
    }
}
