//! Errors of the frame layer.

use crate::header::{BadMagic, Header};

/// A stream of bytes is not a valid sequence of Dubbo 2 frames.
///
/// Each variant says where in the stream it happened (`offset`: the number of bytes the
/// decoder had consumed before the frame that failed) and, when the header could be read, the
/// header itself, so that a server can answer `BAD_REQUEST` to the right request id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The frame does not start with the magic `0xdabb` (telnet text, TLS, another protocol,
    /// or a stream that lost its place). Fatal: the connection must be closed.
    #[error("{magic} at stream offset {offset}; a Dubbo 2 stream cannot be re-synchronised")]
    BadMagic {
        /// Stream offset of the bytes that should have been the magic.
        offset: u64,
        /// The bytes found.
        magic: BadMagic,
    },
    /// The header announces a body larger than the payload limit. Raised from the header
    /// alone, before any of the body is buffered. Not fatal: the decoder skips the body as
    /// it arrives and goes on with the next frame.
    #[error(
        "frame body of {} bytes exceeds the payload limit of {limit} bytes \
         (request id {}, stream offset {offset})",
        header.body_len(),
        header.request_id()
    )]
    PayloadTooLarge {
        /// Stream offset of the frame's header.
        offset: u64,
        /// The frame's header (request id, request or response, two-way, serialization).
        header: Header,
        /// The limit in force.
        limit: u32,
    },
    /// The stream ended in the middle of a frame. Fatal.
    #[error("stream ended inside a frame at offset {offset}, {missing} bytes short")]
    Truncated {
        /// Stream offset of the unfinished frame.
        offset: u64,
        /// The header, if all 16 bytes of it arrived.
        header: Option<Header>,
        /// How many more bytes the frame needed (for a partial header: the rest of the
        /// header).
        missing: u64,
    },
}

impl DecodeError {
    /// Stream offset of the frame that failed.
    pub fn offset(&self) -> u64 {
        match self {
            DecodeError::BadMagic { offset, .. }
            | DecodeError::PayloadTooLarge { offset, .. }
            | DecodeError::Truncated { offset, .. } => *offset,
        }
    }

    /// The header of the frame that failed, when it could be read.
    pub fn header(&self) -> Option<&Header> {
        match self {
            DecodeError::BadMagic { .. } => None,
            DecodeError::PayloadTooLarge { header, .. } => Some(header),
            DecodeError::Truncated { header, .. } => header.as_ref(),
        }
    }

    /// The request id of the frame that failed, when its header could be read.
    pub fn request_id(&self) -> Option<u64> {
        self.header().map(Header::request_id)
    }

    /// True when the decoder cannot go on: every later call returns the same error.
    /// [`DecodeError::PayloadTooLarge`] is the only error that is not fatal.
    pub fn is_fatal(&self) -> bool {
        !matches!(self, DecodeError::PayloadTooLarge { .. })
    }
}

/// A frame cannot be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The body is larger than the payload limit (Java's `ExceedPayloadLimitException`, which
    /// it also raises when encoding). Nothing was written.
    #[error("frame body of {len} bytes exceeds the payload limit of {limit} bytes (request id {request_id})")]
    PayloadTooLarge {
        /// The frame's request id.
        request_id: u64,
        /// The body length.
        len: usize,
        /// The limit in force.
        limit: u32,
    },
}

/// The error of the `tokio_util::codec` implementations, which must also carry I/O errors.
#[cfg(feature = "codec")]
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CodecError {
    /// The input is not a valid frame stream.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// A frame could not be encoded.
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// Reading or writing the transport failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// A request or response body is not what Dubbo writes.
///
/// Every variant names the part of the body (`field`: `"dubbo version"`, `"path"`,
/// `"argument 2"`, `"attachments"`, `"result flag"`, ...) so that the message a server sends
/// back with `BAD_REQUEST` says where the body went wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BodyError {
    /// The Hessian2 stream is malformed or truncated.
    #[error("{field}: {source}")]
    Hessian {
        /// The part of the body being read.
        field: &'static str,
        /// The Hessian error, with its byte offset in the body.
        #[source]
        source: hessian2::Error,
    },
    /// A fastjson2 (JSONB) document of the body is malformed or truncated, or a typed value
    /// does not fit it (a serde error of the `fastjson2` crate).
    #[error("{field}: {source}")]
    Fastjson2 {
        /// The part of the body being read.
        field: &'static str,
        /// The JSONB error, with its byte offset in the body.
        #[source]
        source: fastjson2::Error,
    },
    /// A value of the wrong kind (an int where the method name should be, ...).
    #[error("{field}: expected {expected}, found {found}")]
    Unexpected {
        /// The part of the body being read.
        field: &'static str,
        /// What Dubbo writes there.
        expected: &'static str,
        /// What was found (a Hessian value kind).
        found: &'static str,
    },
    /// The body ended before a part that Dubbo always writes.
    #[error("body ends before the {field}")]
    Missing {
        /// The missing part.
        field: &'static str,
    },
    /// The parameter descriptor is malformed, so the number of arguments is unknown.
    #[error("parameter descriptor: {0}")]
    Descriptor(#[from] crate::descriptor::DescriptorError),
    /// A Java type name given to a request builder has no descriptor.
    #[error("Java type {name:?}: {source}")]
    TypeName {
        /// The type name.
        name: String,
        /// Why it is not a type.
        #[source]
        source: crate::descriptor::DescriptorError,
    },
    /// A response flag other than 0..=5.
    #[error("unknown result flag {0}, expected 0..=5")]
    UnknownResultFlag(i32),
    /// An attachment key that is not a string.
    #[error("attachment key is a {found}, not a string")]
    AttachmentKey {
        /// The kind of the key.
        found: &'static str,
    },
    /// A body in a serialization this crate cannot read or write (see
    /// [`BodyFormat::of`](crate::format::BodyFormat::of)).
    #[error("unsupported serialization {0}")]
    UnsupportedSerialization(crate::serialization::Serialization),
    /// A Rust value could not be serialized (a serde error).
    #[error("serializing {field}: {source}")]
    Serialize {
        /// The part of the body being written.
        field: &'static str,
        /// The serde error.
        #[source]
        source: hessian2::Error,
    },
    /// A typed value could not be read from the body (a serde error: the Java value does not
    /// fit the Rust type).
    #[error("deserializing {field}: {source}")]
    Deserialize {
        /// The part of the body being read.
        field: &'static str,
        /// The serde error.
        #[source]
        source: hessian2::Error,
    },
}

impl BodyError {
    /// The Hessian2 error underneath, with its [`kind`](hessian2::Error::kind) and
    /// [`offset`](hessian2::Error::offset): for [`BodyError::Hessian`] (the offset counts from
    /// the start of the body), [`BodyError::Deserialize`] and [`BodyError::Serialize`] (serde
    /// errors; the offset of a `Deserialize` error counts from the start of the arguments, or
    /// of the value, that were being read). `None` for the other variants, which are about
    /// Dubbo's layout of the body rather than Hessian2.
    ///
    /// ```
    /// use dubbo_codec::peek;
    ///
    /// // "2.0.2", then the reserved code 0x40 where the path should start.
    /// let err = peek(b"\x052.0.2\x40").unwrap_err();
    /// let hessian = err.hessian().expect("a Hessian2 error");
    /// assert_eq!(hessian.kind(), &hessian2::ErrorKind::Reserved(0x40));
    /// assert_eq!(hessian.offset(), 6);
    /// // A body cut short: the offset is where it ends.
    /// let err = peek(b"\x052.0.2\x05pa").unwrap_err();
    /// assert!(err.hessian().is_some_and(|h| h.is_eof() && h.offset() == 9));
    /// ```
    pub fn hessian(&self) -> Option<&hessian2::Error> {
        match self {
            BodyError::Hessian { source, .. }
            | BodyError::Serialize { source, .. }
            | BodyError::Deserialize { source, .. } => Some(source),
            _ => None,
        }
    }

    /// This error, said of `field` when it is a serde error of writing.
    pub(crate) fn in_field(self, field: &'static str) -> BodyError {
        match self {
            BodyError::Serialize { source, .. } => BodyError::Serialize { field, source },
            BodyError::Fastjson2 { source, .. } => BodyError::Fastjson2 { field, source },
            other => other,
        }
    }

    /// `BodyError::Hessian` in `field` from a decoder that started `base` bytes into the body:
    /// the error's offset is moved to count from the start of the body.
    pub(crate) fn hessian_at(
        field: &'static str,
        base: usize,
    ) -> impl FnOnce(hessian2::Error) -> BodyError {
        move |source| BodyError::Hessian {
            field,
            source: if base == 0 {
                source
            } else {
                hessian2::Error::new(source.kind().clone(), source.offset() + base as u64)
            },
        }
    }
}
