//! I/O shared by the client and the server: a writer task fed by a channel, and a reader
//! that drives [`FrameCodec::decode_frame`] itself (so that a payload that is too large is
//! reported and skipped instead of ending the stream, as a `FramedRead` would).

use std::io;
use std::time::Duration;

use bytes::BytesMut;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use dubbo_codec::codec::FrameCodec;
use dubbo_codec::error::DecodeError;
use dubbo_codec::frame::Frame;

/// Frames a connection's writer task takes at once before it writes.
const WRITE_BATCH: usize = 64;

/// Writes every frame received on `rx` until the channel closes or a write fails. Frames
/// waiting together are written with one write. With `stall`, a write that makes no progress
/// for that long (the peer is not reading) ends the loop with [`WriteError::Stalled`]; what
/// waits in the channel is freed when the loop returns (the receiver is dropped).
pub(crate) async fn write_loop<W: AsyncWrite + Unpin>(
    mut w: W,
    mut rx: mpsc::Receiver<Frame>,
    max_payload: u32,
    stall: Option<Duration>,
) -> Result<(), WriteError> {
    let codec = FrameCodec::with_max_payload(max_payload);
    let mut buf = BytesMut::with_capacity(8 * 1024);
    while let Some(frame) = rx.recv().await {
        encode_or_skip(&codec, &frame, &mut buf);
        let mut n = 1;
        // Once the channel is empty, the writer lets the tasks that are ready run first (each
        // call's task may be about to queue its frame) and takes what they queued: one write
        // for the calls that finish together rather than one each.
        let mut yielded = false;
        while n < WRITE_BATCH {
            match rx.try_recv() {
                Ok(frame) => {
                    encode_or_skip(&codec, &frame, &mut buf);
                    n += 1;
                }
                Err(_) if !yielded => {
                    yielded = true;
                    tokio::task::yield_now().await;
                }
                Err(_) => break,
            }
        }
        match stall {
            None => w.write_all(&buf).await?,
            Some(stall) => write_all_unless_stalled(&mut w, &buf, stall).await?,
        }
        buf.clear();
    }
    let _ = w.shutdown().await;
    Ok(())
}

/// `write_all`, failing when one write makes no progress for `stall`.
async fn write_all_unless_stalled<W: AsyncWrite + Unpin>(
    w: &mut W,
    mut buf: &[u8],
    stall: Duration,
) -> Result<(), WriteError> {
    while !buf.is_empty() {
        let n = tokio::time::timeout(stall, w.write(buf))
            .await
            .map_err(|_| WriteError::Stalled(stall))??;
        if n == 0 {
            return Err(io::Error::from(io::ErrorKind::WriteZero).into());
        }
        buf = &buf[n..];
    }
    Ok(())
}

/// Why a connection's writer stopped.
#[derive(Debug)]
pub(crate) enum WriteError {
    Io(io::Error),
    /// No byte could be written for this long.
    Stalled(Duration),
}

impl From<io::Error> for WriteError {
    fn from(e: io::Error) -> Self {
        WriteError::Io(e)
    }
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Io(e) => e.fmt(f),
            WriteError::Stalled(d) => write!(f, "no byte could be written for {d:?}"),
        }
    }
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
            if let Some(read) = self.buffered()? {
                return Ok(read);
            }
            if let Some(read) = self.fill().await? {
                return Ok(read);
            }
        }
    }

    /// The next frame if it is whole in the buffer (or a frame over the limit, from its
    /// header).
    pub(crate) fn buffered(&mut self) -> Result<Option<Read>, ReadError> {
        match self.codec.decode_frame(&mut self.buf) {
            Ok(Some(frame)) => Ok(Some(Read::Frame(frame))),
            Ok(None) => Ok(None),
            Err(e @ DecodeError::PayloadTooLarge { .. }) => Ok(Some(Read::TooLarge(e))),
            Err(e) => Err(ReadError::Decode(e)),
        }
    }

    /// Reads once from the stream: `None` when bytes arrived (see [`FrameReader::buffered`]),
    /// else how the stream ended. Cancel-safe: bytes read are never lost.
    pub(crate) async fn fill(&mut self) -> Result<Option<Read>, ReadError> {
        if self.buf.capacity() - self.buf.len() < 4096 {
            self.buf.reserve(8 * 1024);
        }
        let n = self
            .r
            .read_buf(&mut self.buf)
            .await
            .map_err(ReadError::Io)?;
        if n > 0 {
            return Ok(None);
        }
        match self.codec.decode_frame_eof(&mut self.buf) {
            Ok(Some(frame)) => Ok(Some(Read::Frame(frame))),
            Ok(None) => Ok(Some(Read::Eof)),
            Err(e) => Err(ReadError::Decode(e)),
        }
    }

    /// True when a frame has begun and not ended: part of it is buffered, or the body of a
    /// frame over the limit is being skipped.
    pub(crate) fn mid_frame(&self) -> bool {
        !self.buf.is_empty() || self.codec.is_discarding()
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
