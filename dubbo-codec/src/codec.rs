//! Splitting a byte stream into frames, and writing frames back.
//!
//! [`FrameCodec`] is a sans-I/O state machine: hand it the bytes read so far in a
//! [`BytesMut`] and it takes whole frames off the front, one per call. It never touches a
//! socket, so the same code serves a tokio `Framed` (feature `codec`, on by default), a mio
//! event loop, or a test feeding it byte by byte.
//!
//! Decoding a frame:
//!
//! 1. Fewer than 16 bytes: check what there is of the magic (a wrong first byte fails at
//!    once, as in Java), reserve room for the rest of the header, and return `Ok(None)`.
//! 2. Read the header. A body longer than the payload limit is refused **now**, before any of
//!    it is buffered: [`DecodeError::PayloadTooLarge`] carries the header (request id,
//!    request or response, two-way), and the decoder then discards that many bytes as they
//!    arrive and goes on with the next frame.
//! 3. Body incomplete: reserve room for the rest of the frame, so that it is read in place,
//!    and return `Ok(None)`. The header's length is only a claim: the room reserved is at
//!    most as much as has arrived of the frame, and at least `RESERVE_STEP` (64 KiB), so a frame up
//!    to 64 KiB is reserved whole at once and a larger one grows its buffer as its bytes
//!    come in. Whatever a header claims, the buffer stays under four times the bytes present
//!    plus 128 KiB (`BytesMut` at least doubles a buffer it grows).
//! 4. Otherwise split the frame off the buffer: the body is a frozen slice of the same
//!    allocation, no copy.
//!
//! # Errors and the connection
//!
//! Dubbo 2 frames have no delimiter: the only way to find the next frame is to trust the
//! length of the previous one, and the magic bytes can occur inside a body. So once a frame
//! does not start with `0xdabb` the stream cannot be re-synchronised. Java hands such input
//! to its telnet codec (a Dubbo port doubles as a telnet console) and otherwise closes the
//! channel; this crate has no telnet console, and after [`DecodeError::BadMagic`] (or
//! [`DecodeError::Truncated`] at end of stream) the decoder is *failed*: every later call
//! returns the same error. Close the connection.
//!
//! [`DecodeError::PayloadTooLarge`] is different: the header was valid, so the frame's extent
//! is known. A server can answer a two-way request with `BAD_REQUEST` and the request id
//! from the error, and keep reading. (Dubbo 2.7 raises `ExceedPayloadLimitException` in the
//! decoder and does not answer; Dubbo 3 checks requests only after decoding them and turns
//! oversized responses into a `CLIENT_ERROR` response on the client.) Note that a tokio
//! `FramedRead` ends its stream after any decoder error; a server that wants to carry on
//! after `PayloadTooLarge` drives [`FrameCodec::decode_frame`] itself.
//!
//! The payload limit defaults to 8 MiB, Java's `Constants.DEFAULT_PAYLOAD`
//! (`payload` URL parameter), and is applied in both directions, as Java does when it
//! encodes.

use bytes::{Buf, BytesMut};

use crate::error::{DecodeError, EncodeError};
use crate::frame::Frame;
use crate::header::{Header, HEADER_LEN};

/// The default payload limit: 8 MiB, Java's `Constants.DEFAULT_PAYLOAD`.
pub const DEFAULT_MAX_PAYLOAD: u32 = 8 * 1024 * 1024;

/// The room reserved for an incomplete frame before any of its body is in: a frame this size
/// or smaller is read in place at once; a larger one grows its buffer by what has arrived.
const RESERVE_STEP: usize = 64 * 1024;

#[derive(Debug, Clone)]
enum State {
    /// Waiting for (the rest of) a frame.
    Frame,
    /// Dropping the body of an oversized frame.
    Discard { header: Header, remaining: u32 },
    /// A fatal error happened; it is returned again on every call.
    Failed(DecodeError),
}

/// The frame decoder and encoder. See the [module documentation](self).
///
/// ```
/// use bytes::BytesMut;
/// use dubbo_codec::{Frame, FrameCodec};
///
/// let mut codec = FrameCodec::new();
/// let mut wire = BytesMut::new();
/// codec.encode_frame(&Frame::heartbeat_request(1), &mut wire).unwrap();
/// codec.encode_frame(&Frame::heartbeat_response(1), &mut wire).unwrap();
///
/// // Feed the bytes one at a time: nothing until a frame is whole.
/// let mut buf = BytesMut::new();
/// let mut frames = Vec::new();
/// for byte in wire.iter() {
///     buf.extend_from_slice(&[*byte]);
///     while let Some(frame) = codec.decode_frame(&mut buf).unwrap() {
///         frames.push(frame);
///     }
/// }
/// assert_eq!(frames, [Frame::heartbeat_request(1), Frame::heartbeat_response(1)]);
/// ```
#[derive(Debug, Clone)]
pub struct FrameCodec {
    max_payload: u32,
    /// Bytes consumed from the stream so far.
    offset: u64,
    state: State,
}

impl Default for FrameCodec {
    fn default() -> Self {
        FrameCodec::new()
    }
}

impl FrameCodec {
    /// A codec with the default payload limit, [`DEFAULT_MAX_PAYLOAD`].
    pub const fn new() -> Self {
        FrameCodec::with_max_payload(DEFAULT_MAX_PAYLOAD)
    }

    /// A codec that refuses bodies longer than `max_payload` bytes. `u32::MAX` means no
    /// limit (Java's `payload <= 0`).
    pub const fn with_max_payload(max_payload: u32) -> Self {
        FrameCodec {
            max_payload,
            offset: 0,
            state: State::Frame,
        }
    }

    /// The payload limit.
    pub const fn max_payload(&self) -> u32 {
        self.max_payload
    }

    /// Changes the payload limit; it applies from the next frame on.
    pub fn set_max_payload(&mut self, max_payload: u32) {
        self.max_payload = max_payload;
    }

    /// How many bytes the decoder has consumed from the stream so far.
    pub const fn stream_offset(&self) -> u64 {
        self.offset
    }

    /// True while the body of a frame over the payload limit is being skipped: the frame has
    /// begun and not ended, though no byte of it is buffered.
    pub const fn is_discarding(&self) -> bool {
        matches!(self.state, State::Discard { .. })
    }

    /// True after a fatal error: the connection should be closed.
    pub const fn is_failed(&self) -> bool {
        matches!(self.state, State::Failed(_))
    }

    /// Takes the next whole frame off the front of `src`.
    ///
    /// `Ok(None)` means more bytes are needed (and `src` has been given room for them). Call
    /// it again while it returns `Ok(Some(_))`: one read may hold many frames.
    pub fn decode_frame(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, DecodeError> {
        loop {
            match &mut self.state {
                State::Failed(err) => return Err(err.clone()),
                State::Discard { remaining, .. } => {
                    let n = src.len().min(*remaining as usize);
                    src.advance(n);
                    self.offset += n as u64;
                    *remaining -= n as u32;
                    if *remaining > 0 {
                        return Ok(None);
                    }
                    self.state = State::Frame;
                }
                State::Frame => return self.decode_one(src),
            }
        }
    }

    #[inline]
    fn decode_one(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, DecodeError> {
        let header = match Header::parse(src) {
            Ok(Some(header)) => header,
            Ok(None) => {
                src.reserve(HEADER_LEN - src.len());
                return Ok(None);
            }
            Err(magic) => {
                return Err(self.fail(DecodeError::BadMagic {
                    offset: self.offset,
                    magic,
                }))
            }
        };
        let body_len = header.body_len();
        if body_len > self.max_payload {
            let err = DecodeError::PayloadTooLarge {
                offset: self.offset,
                header,
                limit: self.max_payload,
            };
            src.advance(HEADER_LEN);
            self.offset += HEADER_LEN as u64;
            self.state = State::Discard {
                header,
                remaining: body_len,
            };
            return Err(err);
        }
        let frame_len = header.frame_len();
        if src.len() < frame_len {
            // Trust the length field only as far as the bytes that have come: reserving the
            // claimed size at once would let 16-byte headers pin megabytes per connection.
            let missing = frame_len - src.len();
            src.reserve(missing.min(src.len().max(RESERVE_STEP)));
            return Ok(None);
        }
        src.advance(HEADER_LEN);
        let body = src.split_to(body_len as usize).freeze();
        self.offset += frame_len as u64;
        Ok(Some(Frame::new(header, body)))
    }

    fn fail(&mut self, err: DecodeError) -> DecodeError {
        self.state = State::Failed(err.clone());
        err
    }

    /// Like [`FrameCodec::decode_frame`], for when the stream has ended: the remaining bytes
    /// must be whole frames. Returns `Ok(None)` once `src` is empty at a frame boundary, and
    /// [`DecodeError::Truncated`] if the stream stopped inside a frame.
    pub fn decode_frame_eof(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, DecodeError> {
        if let Some(frame) = self.decode_frame(src)? {
            return Ok(Some(frame));
        }
        let err = match self.state {
            State::Frame if src.is_empty() => return Ok(None),
            State::Frame => match Header::parse(src) {
                Ok(Some(header)) => DecodeError::Truncated {
                    offset: self.offset,
                    header: Some(header),
                    missing: (header.frame_len() - src.len()) as u64,
                },
                _ => DecodeError::Truncated {
                    offset: self.offset,
                    header: None,
                    missing: (HEADER_LEN - src.len()) as u64,
                },
            },
            State::Discard { header, remaining } => DecodeError::Truncated {
                offset: self.offset - (header.frame_len() - remaining as usize) as u64,
                header: Some(header),
                missing: u64::from(remaining),
            },
            State::Failed(ref err) => err.clone(),
        };
        Err(self.fail(err))
    }

    /// Appends `frame` to `dst`, refusing a body over the payload limit (nothing is written
    /// then).
    pub fn encode_frame(&self, frame: &Frame, dst: &mut BytesMut) -> Result<(), EncodeError> {
        let len = frame.body().len();
        if len > self.max_payload as usize {
            return Err(EncodeError::PayloadTooLarge {
                request_id: frame.request_id(),
                len,
                limit: self.max_payload,
            });
        }
        dst.reserve(HEADER_LEN + len);
        frame.encode(dst)
    }
}

#[cfg(feature = "codec")]
mod tokio_codec {
    use bytes::BytesMut;
    use tokio_util::codec::{Decoder, Encoder};

    use super::FrameCodec;
    use crate::error::CodecError;
    use crate::frame::Frame;

    /// Frames from a byte stream, for `tokio_util::codec::FramedRead` / `Framed`.
    impl Decoder for FrameCodec {
        type Item = Frame;
        type Error = CodecError;

        fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, CodecError> {
            Ok(self.decode_frame(src)?)
        }

        fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, CodecError> {
            Ok(self.decode_frame_eof(src)?)
        }
    }

    /// Frames into a byte stream, for `tokio_util::codec::FramedWrite` / `Framed`.
    impl Encoder<Frame> for FrameCodec {
        type Error = CodecError;

        fn encode(&mut self, frame: Frame, dst: &mut BytesMut) -> Result<(), CodecError> {
            Ok(self.encode_frame(&frame, dst)?)
        }
    }

    impl Encoder<&Frame> for FrameCodec {
        type Error = CodecError;

        fn encode(&mut self, frame: &Frame, dst: &mut BytesMut) -> Result<(), CodecError> {
            Ok(self.encode_frame(frame, dst)?)
        }
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::*;
    use crate::event::Event;
    use crate::frame::FrameKind;
    use crate::serialization::Serialization;
    use crate::status::Status;

    fn wire(frames: &[Frame]) -> BytesMut {
        let codec = FrameCodec::new();
        let mut dst = BytesMut::new();
        for f in frames {
            codec.encode_frame(f, &mut dst).unwrap();
        }
        dst
    }

    fn sample() -> Vec<Frame> {
        vec![
            Frame::heartbeat_request(1),
            Frame::request(
                2,
                Serialization::Hessian2,
                true,
                Bytes::from_static(b"call"),
            ),
            Frame::response(2, Serialization::Hessian2, Status::Ok, Bytes::new()),
            Frame::read_only_event(3),
            Frame::heartbeat_response(1),
        ]
    }

    #[test]
    fn many_frames_in_one_read() {
        let frames = sample();
        let mut buf = wire(&frames);
        let total = buf.len() as u64;
        let mut codec = FrameCodec::new();
        let mut out = Vec::new();
        while let Some(f) = codec.decode_frame(&mut buf).unwrap() {
            out.push(f);
        }
        assert_eq!(out, frames);
        assert!(buf.is_empty());
        assert_eq!(codec.stream_offset(), total);
        assert_eq!(codec.decode_frame_eof(&mut buf), Ok(None));
        assert_eq!(out[3].kind(), FrameKind::EventRequest(Event::ReadOnly));
    }

    #[test]
    fn every_strict_prefix_needs_more() {
        let whole = wire(&[Frame::request(
            5,
            Serialization::Hessian2,
            true,
            Bytes::from_static(b"0123456789"),
        )]);
        for n in 0..whole.len() {
            let mut codec = FrameCodec::new();
            let mut buf = BytesMut::from(&whole[..n]);
            assert_eq!(codec.decode_frame(&mut buf), Ok(None), "prefix {n}");
            assert_eq!(buf.len(), n, "nothing consumed");
            assert!(buf.capacity() >= whole.len().min(HEADER_LEN.max(n)));
            if n >= HEADER_LEN {
                assert!(buf.capacity() >= whole.len(), "reserved the whole frame");
            }
            if n == 0 {
                // An empty stream ends cleanly.
                assert_eq!(codec.decode_frame_eof(&mut buf), Ok(None));
                continue;
            }
            let err = codec.decode_frame_eof(&mut buf).unwrap_err();
            assert!(matches!(err, DecodeError::Truncated { offset: 0, .. }));
            assert_eq!(err.request_id(), (n >= HEADER_LEN).then_some(5));
            if let DecodeError::Truncated { missing, .. } = err {
                let expected = if n >= HEADER_LEN {
                    whole.len()
                } else {
                    HEADER_LEN
                };
                assert_eq!(missing, (expected - n) as u64);
            }
            assert!(codec.is_failed());
        }
    }

    #[test]
    fn body_is_a_zero_copy_slice() {
        let mut buf = wire(&[Frame::request(
            1,
            Serialization::Hessian2,
            true,
            Bytes::from_static(b"body"),
        )]);
        let start = buf.as_ptr() as usize;
        let frame = FrameCodec::new().decode_frame(&mut buf).unwrap().unwrap();
        assert_eq!(frame.body().as_ptr() as usize, start + HEADER_LEN);
    }

    #[test]
    fn bad_magic_is_fatal_and_sticky() {
        let mut codec = FrameCodec::new();
        let mut buf = BytesMut::from(&b"ls -l\r\n"[..]);
        let err = codec.decode_frame(&mut buf).unwrap_err();
        assert!(matches!(err, DecodeError::BadMagic { offset: 0, .. }));
        assert!(err.is_fatal());
        assert_eq!(err.request_id(), None);
        assert!(codec.is_failed());
        // Even a valid frame afterwards is refused: the stream has lost its place.
        let mut good = wire(&[Frame::heartbeat_request(1)]);
        assert_eq!(codec.decode_frame(&mut good), Err(err.clone()));
        assert_eq!(codec.decode_frame_eof(&mut good), Err(err));
    }

    #[test]
    fn bad_magic_after_a_good_frame_reports_its_offset() {
        let mut buf = wire(&[Frame::heartbeat_request(1)]);
        buf.extend_from_slice(b"\xda\x00garbage");
        let mut codec = FrameCodec::new();
        assert!(codec.decode_frame(&mut buf).unwrap().is_some());
        let err = codec.decode_frame(&mut buf).unwrap_err();
        assert_eq!(err.offset(), 17);
        assert!(err.to_string().contains("0xda 0x00"), "{err}");
    }

    #[test]
    fn oversize_is_refused_from_the_header_and_skipped() {
        let big = Frame::request(
            77,
            Serialization::Hessian2,
            true,
            Bytes::from(vec![b'x'; 100]),
        );
        let small = Frame::heartbeat_request(78);
        let whole = wire(&[big, small.clone()]);

        let mut codec = FrameCodec::with_max_payload(99);
        // Only the header has arrived: the error comes before any body is buffered.
        let mut buf = BytesMut::from(&whole[..HEADER_LEN]);
        let err = codec.decode_frame(&mut buf).unwrap_err();
        assert_eq!(
            err,
            DecodeError::PayloadTooLarge {
                offset: 0,
                header: Header::request(77, Serialization::Hessian2, true).with_body_len(100),
                limit: 99,
            }
        );
        assert_eq!(err.request_id(), Some(77));
        assert!(!err.is_fatal());
        assert!(!codec.is_failed());
        assert!(
            buf.capacity() < 100 + HEADER_LEN,
            "did not reserve the body"
        );
        // The body trickles in and is dropped; then the next frame decodes.
        let mut out = Vec::new();
        for chunk in whole[HEADER_LEN..].chunks(7) {
            buf.extend_from_slice(chunk);
            while let Some(f) = codec.decode_frame(&mut buf).unwrap() {
                out.push(f);
            }
        }
        assert_eq!(out, [small]);
        assert_eq!(codec.stream_offset(), whole.len() as u64);
    }

    #[test]
    fn a_large_claim_reserves_by_what_arrives() {
        let len = DEFAULT_MAX_PAYLOAD;
        let header = Header::request(3, Serialization::Hessian2, true).with_body_len(len);
        let mut codec = FrameCodec::new();
        let mut buf = BytesMut::from(&header.to_bytes()[..]);
        assert_eq!(codec.decode_frame(&mut buf), Ok(None));
        let first = buf.capacity();
        assert!(
            first >= RESERVE_STEP,
            "a frame under 64 KiB would be read in place"
        );
        assert!(
            first < 2 * RESERVE_STEP,
            "reserved {first} for a 16-byte header"
        );
        // The body comes in reads into the room the codec left (as a socket read fills spare
        // capacity): there is always room, the buffer stays within four times what is there
        // plus two steps, and the whole frame still decodes.
        let chunk = vec![b'x'; 100_000];
        let mut sent = 0usize;
        while sent < len as usize {
            let room = buf.capacity() - buf.len();
            assert!(room > 0, "the codec left no room at {}", buf.len());
            let n = chunk.len().min(len as usize - sent).min(room);
            buf.extend_from_slice(&chunk[..n]);
            sent += n;
            if let Some(frame) = codec.decode_frame(&mut buf).unwrap() {
                assert_eq!(frame.body().len(), len as usize);
                assert_eq!(sent, len as usize);
                return;
            }
            assert!(
                buf.capacity() <= 4 * buf.len() + 2 * RESERVE_STEP,
                "{} reserved for {} bytes",
                buf.capacity(),
                buf.len()
            );
        }
        panic!("the frame never decoded");
    }

    #[test]
    fn oversize_never_reserves_the_announced_length() {
        let mut codec = FrameCodec::new();
        let header = Header::request(9, Serialization::Hessian2, true).with_body_len(u32::MAX);
        let mut buf = BytesMut::from(&header.to_bytes()[..]);
        let err = codec.decode_frame(&mut buf).unwrap_err();
        assert_eq!(err.request_id(), Some(9));
        assert!(buf.capacity() < 1024);
        buf.extend_from_slice(b"abc");
        assert_eq!(codec.decode_frame(&mut buf), Ok(None));
        assert!(buf.is_empty());
        let err = codec.decode_frame_eof(&mut buf).unwrap_err();
        assert_eq!(
            err,
            DecodeError::Truncated {
                offset: 0,
                header: Some(header),
                missing: u64::from(u32::MAX) - 3,
            }
        );
    }

    #[test]
    fn body_exactly_at_the_limit_is_accepted() {
        let f = Frame::request(1, Serialization::Hessian2, true, Bytes::from(vec![0; 10]));
        let codec = FrameCodec::with_max_payload(10);
        let mut buf = BytesMut::new();
        codec.encode_frame(&f, &mut buf).unwrap();
        let mut codec = codec;
        assert_eq!(codec.decode_frame(&mut buf), Ok(Some(f)));
    }

    #[test]
    fn encode_refuses_oversize() {
        let f = Frame::response(
            4,
            Serialization::Hessian2,
            Status::Ok,
            Bytes::from(vec![0; 11]),
        );
        let mut buf = BytesMut::new();
        let err = FrameCodec::with_max_payload(10)
            .encode_frame(&f, &mut buf)
            .unwrap_err();
        assert_eq!(
            err,
            EncodeError::PayloadTooLarge {
                request_id: 4,
                len: 11,
                limit: 10
            }
        );
        assert!(buf.is_empty());
        assert_eq!(FrameCodec::new().max_payload(), 8 * 1024 * 1024);
    }

    #[cfg(feature = "codec")]
    #[test]
    fn tokio_util_traits() {
        use tokio_util::codec::{Decoder, Encoder};

        let mut codec = FrameCodec::default();
        let mut buf = BytesMut::new();
        codec.encode(Frame::heartbeat_request(1), &mut buf).unwrap();
        codec
            .encode(&Frame::heartbeat_response(1), &mut buf)
            .unwrap();
        buf.extend_from_slice(&[0xda]);
        assert_eq!(
            codec.decode(&mut buf).unwrap(),
            Some(Frame::heartbeat_request(1))
        );
        assert_eq!(
            codec.decode_eof(&mut buf).unwrap(),
            Some(Frame::heartbeat_response(1))
        );
        let err = codec.decode_eof(&mut buf).unwrap_err();
        assert!(matches!(
            err,
            crate::error::CodecError::Decode(DecodeError::Truncated { missing: 15, .. })
        ));
    }
}
