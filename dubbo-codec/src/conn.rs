//! I/O shared by the client and the server: a writer task fed by a channel, and a reader
//! that drives [`FrameCodec::decode_frame`] itself (so that a payload that is too large is
//! reported and skipped instead of ending the stream, as a `FramedRead` would).

use std::io;

use bytes::BytesMut;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use crate::codec::FrameCodec;
use crate::error::DecodeError;
use crate::frame::Frame;

/// Frames a connection's writer task takes at once before it writes.
const WRITE_BATCH: usize = 64;

/// Writes every frame received on `rx` until the channel closes or a write fails. Frames
/// waiting together are written with one `write_all`.
pub(crate) async fn write_loop<W: AsyncWrite + Unpin>(
    mut w: W,
    mut rx: mpsc::Receiver<Frame>,
    max_payload: u32,
) -> io::Result<()> {
    let codec = FrameCodec::with_max_payload(max_payload);
    let mut buf = BytesMut::with_capacity(8 * 1024);
    while let Some(frame) = rx.recv().await {
        encode_or_skip(&codec, &frame, &mut buf);
        let mut n = 1;
        while n < WRITE_BATCH {
            match rx.try_recv() {
                Ok(frame) => {
                    encode_or_skip(&codec, &frame, &mut buf);
                    n += 1;
                }
                Err(_) => break,
            }
        }
        w.write_all(&buf).await?;
        buf.clear();
    }
    let _ = w.shutdown().await;
    Ok(())
}

fn encode_or_skip(codec: &FrameCodec, frame: &Frame, buf: &mut BytesMut) {
    // Callers check the payload limit before they queue a frame; a frame that still fails is
    // dropped rather than written half.
    let _ = codec.encode_frame(frame, buf);
}

/// What the reader hands on.
pub(crate) enum Read {
    /// A whole frame.
    Frame(Frame),
    /// A frame whose body is over the limit: its header was read, its body is being skipped.
    TooLarge(DecodeError),
    /// The stream ended cleanly at a frame boundary.
    Eof,
}

/// Reads frames from a stream with a [`FrameCodec`].
pub(crate) struct FrameReader<R> {
    r: R,
    buf: BytesMut,
    codec: FrameCodec,
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    pub(crate) fn new(r: R, max_payload: u32) -> Self {
        FrameReader {
            r,
            buf: BytesMut::with_capacity(8 * 1024),
            codec: FrameCodec::with_max_payload(max_payload),
        }
    }

    /// The next frame. A fatal decode error (bad magic, truncated stream) or an I/O error
    /// ends the stream.
    pub(crate) async fn next(&mut self) -> Result<Read, ReadError> {
        loop {
            match self.codec.decode_frame(&mut self.buf) {
                Ok(Some(frame)) => return Ok(Read::Frame(frame)),
                Ok(None) => {}
                Err(e @ DecodeError::PayloadTooLarge { .. }) => return Ok(Read::TooLarge(e)),
                Err(e) => return Err(ReadError::Decode(e)),
            }
            if self.buf.capacity() - self.buf.len() < 4096 {
                self.buf.reserve(8 * 1024);
            }
            let n = self
                .r
                .read_buf(&mut self.buf)
                .await
                .map_err(ReadError::Io)?;
            if n == 0 {
                return match self.codec.decode_frame_eof(&mut self.buf) {
                    Ok(Some(frame)) => Ok(Read::Frame(frame)),
                    Ok(None) => Ok(Read::Eof),
                    Err(e) => Err(ReadError::Decode(e)),
                };
            }
        }
    }
}

/// Why a connection's reading stopped.
#[derive(Debug)]
pub(crate) enum ReadError {
    Decode(DecodeError),
    Io(io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Decode(e) => e.fmt(f),
            ReadError::Io(e) => e.fmt(f),
        }
    }
}
