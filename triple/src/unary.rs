//! The request of a unary call: exactly one message, then the end of the stream, collected
//! as its DATA frames arrive (sans-I/O: the caller hands over each frame's bytes).
//!
//! What a server (or a proxy that must read the call) refuses, and the status each refusal
//! gets: a message over the limit (`RESOURCE_EXHAUSTED`, known from its prefix, nothing
//! buffered), a compressed message (`UNIMPLEMENTED`: no `grpc-encoding` is accepted), a
//! second message, none at all, or a body that ends inside one (`INTERNAL`).
//!
//! ```
//! use bytes::BytesMut;
//! use dubbo_triple::message::encode_message;
//! use dubbo_triple::unary::UnaryRequest;
//!
//! let mut wire = BytesMut::new();
//! encode_message(b"call", &mut wire);
//! let mut request = UnaryRequest::new(1024);
//! for frame in wire.chunks(3) {
//!     request.push(frame)?;
//! }
//! assert_eq!(request.finish()?, &b"call"[..]);
//! # Ok::<(), dubbo_triple::unary::UnaryError>(())
//! ```

use bytes::{Bytes, BytesMut};

use crate::message::{MessageDecoder, MessageError};
use crate::status::{Code, Status};

/// Why a unary call's request is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UnaryError {
    /// The body is not a sequence of messages within the limit.
    #[error(transparent)]
    Message(#[from] MessageError),
    /// The message is compressed.
    #[error("compressed messages are not supported (no grpc-encoding is accepted)")]
    Compressed,
    /// A second message came.
    #[error("more than one request message for a unary method")]
    MoreThanOne,
    /// The stream ended without a message.
    #[error("no request message")]
    NoMessage,
}

impl UnaryError {
    /// The status a gRPC server answers this refusal with.
    pub fn status(&self) -> Status {
        let code = match self {
            UnaryError::Message(e) if e.is_too_large() => Code::ResourceExhausted,
            UnaryError::Compressed => Code::Unimplemented,
            _ => Code::Internal,
        };
        Status::new(code, self.to_string())
    }
}

/// Collects the one message of a unary request. See the [module docs](self).
#[derive(Debug)]
pub struct UnaryRequest {
    decoder: MessageDecoder,
    buf: BytesMut,
    message: Option<Bytes>,
}

impl UnaryRequest {
    /// A collector that refuses a message longer than `max_message` bytes.
    pub fn new(max_message: u32) -> UnaryRequest {
        UnaryRequest {
            decoder: MessageDecoder::new(max_message),
            buf: BytesMut::new(),
            message: None,
        }
    }

    /// Takes the bytes of the next DATA frame.
    pub fn push(&mut self, data: &[u8]) -> Result<(), UnaryError> {
        self.buf.extend_from_slice(data);
        while let Some(m) = self.decoder.decode(&mut self.buf)? {
            if self.message.is_some() {
                return Err(UnaryError::MoreThanOne);
            }
            if m.compressed {
                return Err(UnaryError::Compressed);
            }
            self.message = Some(m.data);
        }
        Ok(())
    }

    /// The message, once the stream has ended.
    pub fn finish(self) -> Result<Bytes, UnaryError> {
        self.decoder.finish(&self.buf)?;
        self.message.ok_or(UnaryError::NoMessage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::encode_message;

    fn collect(wire: &[u8], max: u32) -> Result<Bytes, UnaryError> {
        let mut r = UnaryRequest::new(max);
        for b in wire {
            r.push(std::slice::from_ref(b))?;
        }
        r.finish()
    }

    #[test]
    fn one_message_exactly() {
        let mut one = BytesMut::new();
        encode_message(b"abc", &mut one);
        assert_eq!(collect(&one, 16).unwrap(), &b"abc"[..]);

        let mut two = one.clone();
        encode_message(b"d", &mut two);
        assert_eq!(collect(&two, 16), Err(UnaryError::MoreThanOne));
        assert_eq!(collect(&[], 16), Err(UnaryError::NoMessage));
        assert_eq!(collect(&[], 16).unwrap_err().status().code, Code::Internal);

        let err = collect(&one, 2).unwrap_err();
        assert_eq!(err.status().code, Code::ResourceExhausted);
        let err = collect(&one[..6], 16).unwrap_err();
        assert!(matches!(
            err,
            UnaryError::Message(MessageError::Truncated { .. })
        ));

        let mut packed = one.clone();
        packed[0] = 1;
        let err = collect(&packed, 16).unwrap_err();
        assert_eq!(err, UnaryError::Compressed);
        assert_eq!(err.status().code, Code::Unimplemented);
    }
}
