//! A stream whose first bytes were already read (to tell its protocol) and are given back
//! first.

use std::io::IoSlice;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// `inner`, read after `prefix`.
pub(super) struct Prefixed<S> {
    prefix: Vec<u8>,
    /// How much of `prefix` was read.
    at: usize,
    inner: S,
}

impl<S> Prefixed<S> {
    pub(super) fn new(prefix: Vec<u8>, inner: S) -> Self {
        Prefixed {
            prefix,
            at: 0,
            inner,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Prefixed<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        let left = &this.prefix[this.at..];
        if left.is_empty() {
            return Pin::new(&mut this.inner).poll_read(cx, buf);
        }
        let n = left.len().min(buf.remaining());
        buf.put_slice(&left[..n]);
        this.at += n;
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Prefixed<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::Prefixed;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn the_prefix_comes_first() {
        let mut s = Prefixed::new(b"PR".to_vec(), &b"I * HTTP/2.0"[..]);
        let mut all = String::new();
        s.read_to_string(&mut all).await.unwrap();
        assert_eq!(all, "PRI * HTTP/2.0");
    }
}
