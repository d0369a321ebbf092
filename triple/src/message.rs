//! gRPC's length-prefixed messages: how requests and responses travel inside HTTP/2 DATA
//! frames.
//!
//! A stream's body is a sequence of messages, each a 5-byte prefix and the message itself:
//!
//! ```text
//! +------------+--------------------------+-----------------------------+
//! | compressed |  length (u32, big-endian) |  message: `length` bytes    |
//! |  (1 byte)  |                          |                             |
//! +------------+--------------------------+-----------------------------+
//! ```
//!
//! `compressed` is 0, or 1 when the message is compressed with the stream's `grpc-encoding`.
//! Message boundaries have nothing to do with DATA frame boundaries: one frame may carry
//! several messages, and a message may span many frames. A unary call has exactly one message
//! each way; streaming calls have any number.
//!
//! [`MessageDecoder`] splits a body into messages as its bytes arrive, checking the length
//! against a limit *before* it buffers the message, so a prefix that claims 4 GiB costs
//! nothing. [`encode_message`] and [`MessageEncoder`] write them.

use bytes::{Buf, BufMut, Bytes, BytesMut};

/// Bytes of a message's prefix: the compressed flag and the length.
pub const PREFIX_LEN: usize = 5;

/// The default limit on one message's length: 4 MiB, gRPC's default for what it receives.
pub const DEFAULT_MAX_MESSAGE: u32 = 4 * 1024 * 1024;

/// One message of a stream's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// True when the message is compressed with the stream's `grpc-encoding`.
    pub compressed: bool,
    /// The message's bytes (still compressed when `compressed`).
    pub data: Bytes,
}

/// Why a body is not a sequence of messages.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MessageError {
    /// A prefix announces a message over the limit. Nothing of it was buffered; gRPC answers
    /// `RESOURCE_EXHAUSTED`.
    #[error("message of {len} bytes at byte {offset} is over the limit of {max} bytes")]
    TooLarge {
        /// The length the prefix claims.
        len: u32,
        /// The limit.
        max: u32,
        /// Where the prefix starts in the body.
        offset: u64,
    },
    /// The first byte of a prefix is neither 0 nor 1.
    #[error("message prefix at byte {offset} has compressed flag {flag:#04x} (0 or 1)")]
    BadFlag {
        /// The byte found.
        flag: u8,
        /// Where the prefix starts in the body.
        offset: u64,
    },
    /// The body ended inside a message (or its prefix).
    #[error("body ended at byte {offset} inside a message, {missing} bytes short")]
    Truncated {
        /// Where the body ended.
        offset: u64,
        /// Bytes the message still lacked.
        missing: u64,
    },
}

impl MessageError {
    /// True for [`MessageError::TooLarge`]: answered `RESOURCE_EXHAUSTED`, while the other
    /// errors are `INTERNAL`.
    pub fn is_too_large(&self) -> bool {
        matches!(self, MessageError::TooLarge { .. })
    }
}

/// Splits a body into [`Message`]s as it arrives (sans-I/O: the caller appends the bytes of
/// each DATA frame to a buffer and calls [`decode`](MessageDecoder::decode)).
///
/// ```
/// use bytes::BytesMut;
/// use dubbo_triple::message::{encode_message, MessageDecoder};
///
/// let mut wire = BytesMut::new();
/// encode_message(b"hello", &mut wire);
/// encode_message(b"", &mut wire);
///
/// let mut decoder = MessageDecoder::new(1024);
/// // The bytes arrive one at a time.
/// let mut buf = BytesMut::new();
/// let mut messages = Vec::new();
/// for b in wire.iter() {
///     buf.extend_from_slice(&[*b]);
///     while let Some(m) = decoder.decode(&mut buf)? {
///         messages.push(m.data);
///     }
/// }
/// decoder.finish(&buf)?;
/// assert_eq!(messages, [&b"hello"[..], &b""[..]]);
/// # Ok::<(), dubbo_triple::message::MessageError>(())
/// ```
#[derive(Debug, Clone)]
pub struct MessageDecoder {
    max: u32,
    /// The prefix of the message being read, once it has all arrived.
    pending: Option<(bool, usize)>,
    /// Bytes of the body taken off the buffer so far (for error offsets).
    consumed: u64,
}

impl MessageDecoder {
    /// A decoder that refuses messages longer than `max_message` bytes.
    pub fn new(max_message: u32) -> MessageDecoder {
        MessageDecoder {
            max: max_message,
            pending: None,
            consumed: 0,
        }
    }

    /// The next whole message at the front of `buf`, taken off it; `None` when `buf` holds
    /// less than a message (what it holds stays there for the next call).
    pub fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Message>, MessageError> {
        let (compressed, len) = match self.pending {
            Some(p) => p,
            None => {
                if buf.len() < PREFIX_LEN {
                    return Ok(None);
                }
                let flag = buf[0];
                let len = u32::from_be_bytes([buf[1], buf[2], buf[3], buf[4]]);
                if flag > 1 {
                    return Err(MessageError::BadFlag {
                        flag,
                        offset: self.consumed,
                    });
                }
                if len > self.max {
                    return Err(MessageError::TooLarge {
                        len,
                        max: self.max,
                        offset: self.consumed,
                    });
                }
                buf.advance(PREFIX_LEN);
                self.consumed += PREFIX_LEN as u64;
                let p = (flag == 1, len as usize);
                self.pending = Some(p);
                p
            }
        };
        if buf.len() < len {
            // Room for the rest at once (bounded by the limit, checked above), so a large
            // message is not copied at each doubling of the buffer.
            buf.reserve(len - buf.len());
            return Ok(None);
        }
        self.pending = None;
        self.consumed += len as u64;
        Ok(Some(Message {
            compressed,
            data: buf.split_to(len).freeze(),
        }))
    }

    /// Checks that the body ended between messages: `buf` is what is left of it after the
    /// last [`decode`](MessageDecoder::decode).
    pub fn finish(&self, buf: &BytesMut) -> Result<(), MessageError> {
        let missing = match self.pending {
            Some((_, len)) => (len - buf.len().min(len)) as u64,
            None if buf.is_empty() => return Ok(()),
            None => (PREFIX_LEN - buf.len().min(PREFIX_LEN)) as u64,
        };
        Err(MessageError::Truncated {
            offset: self.consumed + buf.len() as u64,
            missing: missing.max(1),
        })
    }

    /// True when a message (or its prefix) has begun and not ended, given what `buf` holds.
    pub fn mid_message(&self, buf: &BytesMut) -> bool {
        self.pending.is_some() || !buf.is_empty()
    }
}

/// Appends `data` as one uncompressed message to `buf`.
///
/// # Panics
///
/// If `data` is longer than `u32::MAX` bytes (gRPC cannot carry it).
pub fn encode_message(data: &[u8], buf: &mut BytesMut) {
    buf.reserve(PREFIX_LEN + data.len());
    buf.put_slice(&prefix(data.len()));
    buf.put_slice(data);
}

/// The prefix of an uncompressed message of `len` bytes (to write before bytes held
/// elsewhere, without copying them).
///
/// # Panics
///
/// If `len` is over `u32::MAX`.
pub fn prefix(len: usize) -> [u8; PREFIX_LEN] {
    let len = u32::try_from(len).expect("a gRPC message is at most u32::MAX bytes");
    let l = len.to_be_bytes();
    [0, l[0], l[1], l[2], l[3]]
}

/// Writes messages whose length is known only once they are written (a protobuf message
/// encoded in place): the prefix is reserved, the message appended, the length filled in.
///
/// ```
/// use bytes::{BufMut, BytesMut};
/// use dubbo_triple::message::{MessageDecoder, MessageEncoder};
///
/// let mut buf = BytesMut::new();
/// MessageEncoder::new(&mut buf).finish_with(|b| b.put_slice(b"abc"));
/// let m = MessageDecoder::new(16).decode(&mut buf).unwrap().unwrap();
/// assert_eq!(&m.data[..], b"abc");
/// ```
#[derive(Debug)]
pub struct MessageEncoder<'a> {
    buf: &'a mut BytesMut,
    start: usize,
}

impl<'a> MessageEncoder<'a> {
    /// Starts a message at the end of `buf`.
    pub fn new(buf: &'a mut BytesMut) -> MessageEncoder<'a> {
        let start = buf.len();
        buf.put_slice(&[0; PREFIX_LEN]);
        MessageEncoder { buf, start }
    }

    /// Lets `write` append the message, then fills in its length.
    ///
    /// # Panics
    ///
    /// If the message is longer than `u32::MAX` bytes.
    pub fn finish_with(self, write: impl FnOnce(&mut BytesMut)) {
        write(self.buf);
        let len = self.buf.len() - self.start - PREFIX_LEN;
        self.buf[self.start..self.start + PREFIX_LEN].copy_from_slice(&prefix(len));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn wire(messages: &[Vec<u8>]) -> BytesMut {
        let mut buf = BytesMut::new();
        for m in messages {
            encode_message(m, &mut buf);
        }
        buf
    }

    #[test]
    fn a_claimed_4_gib_is_refused_from_the_prefix_alone() {
        let mut buf = BytesMut::from(&[0u8, 0xff, 0xff, 0xff, 0xff][..]);
        let err = MessageDecoder::new(DEFAULT_MAX_MESSAGE)
            .decode(&mut buf)
            .unwrap_err();
        assert_eq!(
            err,
            MessageError::TooLarge {
                len: u32::MAX,
                max: DEFAULT_MAX_MESSAGE,
                offset: 0
            }
        );
        assert!(err.is_too_large());
        // Nothing was reserved for it.
        assert!(buf.capacity() < 1024);
    }

    #[test]
    fn the_second_message_reports_its_own_offset() {
        let mut buf = wire(&[b"abc".to_vec()]);
        buf.extend_from_slice(&[7, 0, 0, 0, 1, 0]);
        let mut d = MessageDecoder::new(16);
        assert!(d.decode(&mut buf).unwrap().is_some());
        assert_eq!(
            d.decode(&mut buf).unwrap_err(),
            MessageError::BadFlag { flag: 7, offset: 8 }
        );
    }

    #[test]
    fn a_body_cut_inside_a_message_is_truncated() {
        let full = wire(&[b"hello".to_vec()]);
        for cut in 1..full.len() {
            let mut buf = BytesMut::from(&full[..cut]);
            let mut d = MessageDecoder::new(16);
            assert_eq!(d.decode(&mut buf).unwrap(), None);
            let err = d.finish(&buf).unwrap_err();
            let MessageError::Truncated { offset, missing } = err else {
                panic!("{err:?}")
            };
            assert_eq!(offset, cut as u64);
            if cut >= PREFIX_LEN {
                assert_eq!(missing, (full.len() - cut) as u64);
            }
        }
    }

    proptest! {
        #[test]
        fn any_split_gives_the_messages_back(
            messages in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 0..6),
            chunk in 1usize..13,
        ) {
            let full = wire(&messages);
            let mut d = MessageDecoder::new(64);
            let mut buf = BytesMut::new();
            let mut got = Vec::new();
            for piece in full.chunks(chunk) {
                buf.extend_from_slice(piece);
                while let Some(m) = d.decode(&mut buf).unwrap() {
                    prop_assert!(!m.compressed);
                    got.push(m.data.to_vec());
                }
            }
            d.finish(&buf).unwrap();
            prop_assert!(!d.mid_message(&buf));
            prop_assert_eq!(got, messages);
        }
    }
}
