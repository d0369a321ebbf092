//! A connection's stream split into its read and write halves (the Dubbo protocol reads
//! and writes from two tasks): a TCP stream's own halves, or tokio's for other streams.

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;

/// A stream a connection is served on.
pub(super) trait Split: AsyncRead + AsyncWrite + Unpin + Send + 'static {
    /// The read half.
    type Read: AsyncRead + Unpin + Send + 'static;
    /// The write half.
    type Write: AsyncWrite + Unpin + Send + 'static;
    /// The two halves.
    fn split(self) -> (Self::Read, Self::Write);
}

impl Split for TcpStream {
    type Read = OwnedReadHalf;
    type Write = OwnedWriteHalf;

    /// Without a lock between the halves.
    fn split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        self.into_split()
    }
}

#[cfg(feature = "tls")]
impl<S: AsyncRead + AsyncWrite + Unpin + Send + 'static> Split for super::prefixed::Prefixed<S> {
    type Read = tokio::io::ReadHalf<Self>;
    type Write = tokio::io::WriteHalf<Self>;

    fn split(self) -> (Self::Read, Self::Write) {
        tokio::io::split(self)
    }
}
