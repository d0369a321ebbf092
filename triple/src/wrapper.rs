//! The wrappers of interface-style calls: how a Java method call without an IDL travels as
//! one protobuf message.
//!
//! A Dubbo service defined by a Java interface has no protobuf types, so Triple wraps each
//! call in a fixed message ([`RequestWrapper`]): the name of the serialization, each
//! argument serialized *on its own* (a complete stream per argument: Hessian2 class
//! definitions and references do not carry from one argument to the next), and each
//! argument's Java type. The answer is a [`ResponseWrapper`]: the serialization, the value
//! (or, for a business exception, the exception object), and its Java type. The request's
//! `content-type` is `application/grpc+proto`, like any protobuf call.
//!
//! Java Dubbo names the serializations as its SPI does (`hessian2`, `fastjson2`), except
//! that Hessian2 is announced as `hessian4` on the wire ([`HESSIAN2_ON_WIRE`]); readers take
//! both ([`serialization_of_wire_name`]).

use bytes::{Bytes, BytesMut};

/// What Java Dubbo writes in `serializeType` for Hessian2.
pub const HESSIAN2_ON_WIRE: &str = "hessian4";

/// A call of an interface-style method (Java Dubbo's `TripleRequestWrapper`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct RequestWrapper {
    /// The serialization of every argument (`hessian4` for Hessian2, `fastjson2`, ...).
    #[prost(string, tag = "1")]
    pub serialize_type: String,
    /// The arguments, each a complete serialization of its own.
    #[prost(bytes = "bytes", repeated, tag = "2")]
    pub args: Vec<Bytes>,
    /// Each argument's declared Java type (`java.lang.String`, `int`, ...).
    #[prost(string, repeated, tag = "3")]
    pub arg_types: Vec<String>,
}

/// The answer of an interface-style method (Java Dubbo's `TripleResponseWrapper`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ResponseWrapper {
    /// The serialization of `data`.
    #[prost(string, tag = "1")]
    pub serialize_type: String,
    /// The result (or the exception object), serialized.
    #[prost(bytes = "bytes", tag = "2")]
    pub data: Bytes,
    /// The declared Java type of the result.
    #[prost(string, tag = "3")]
    pub r#type: String,
}

/// Why a wrapper cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the {what} is not a valid protobuf message: {reason}")]
pub struct WrapperError {
    /// Which wrapper (`"request wrapper"` / `"response wrapper"`).
    pub what: &'static str,
    /// What the protobuf reader found.
    pub reason: String,
}

/// Reads a wrapper `M` (named `what` in errors) from a message's bytes; its bytes fields are
/// slices of them, not copies.
fn decode_wrapper<M: prost::Message + Default>(
    what: &'static str,
    data: Bytes,
) -> Result<M, WrapperError> {
    M::decode(data).map_err(|e| WrapperError {
        what,
        reason: e.to_string(),
    })
}

/// Appends a wrapper to `buf` (without a message prefix).
fn encode_wrapper<M: prost::Message>(m: &M, buf: &mut BytesMut) {
    buf.reserve(m.encoded_len());
    // Infallible: the room was reserved above.
    let _ = m.encode(buf);
}

impl RequestWrapper {
    /// Reads a wrapper from a message's bytes (arguments are slices of them, not copies).
    pub fn decode_bytes(data: Bytes) -> Result<RequestWrapper, WrapperError> {
        decode_wrapper("request wrapper", data)
    }

    /// Appends the wrapper to `buf` (without a message prefix).
    pub fn encode_into(&self, buf: &mut BytesMut) {
        encode_wrapper(self, buf)
    }
}

impl ResponseWrapper {
    /// Reads a wrapper from a message's bytes (`data` is a slice of them, not a copy).
    pub fn decode_bytes(data: Bytes) -> Result<ResponseWrapper, WrapperError> {
        decode_wrapper("response wrapper", data)
    }

    /// Appends the wrapper to `buf` (without a message prefix).
    pub fn encode_into(&self, buf: &mut BytesMut) {
        encode_wrapper(self, buf)
    }
}

/// The Dubbo serialization name (`hessian2`, `fastjson2`) of a wrapper's `serializeType`.
pub fn serialization_of_wire_name(wire: &str) -> &str {
    if wire == HESSIAN2_ON_WIRE {
        "hessian2"
    } else {
        wire
    }
}

/// The `serializeType` Java Dubbo writes for a Dubbo serialization name.
pub fn wire_name_of_serialization(name: &str) -> &str {
    if name == "hessian2" {
        HESSIAN2_ON_WIRE
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_wrapper_has_protobufs_layout() {
        let w = RequestWrapper {
            serialize_type: "hessian4".into(),
            args: vec![Bytes::from_static(b"\x05world")],
            arg_types: vec!["java.lang.String".into()],
        };
        let mut buf = BytesMut::new();
        w.encode_into(&mut buf);
        // field 1 (string), field 2 (bytes), field 3 (string): tag, length, bytes.
        let mut expected = vec![0x0a, 8];
        expected.extend_from_slice(b"hessian4");
        expected.extend_from_slice(&[0x12, 6, 5]);
        expected.extend_from_slice(b"world");
        expected.extend_from_slice(&[0x1a, 16]);
        expected.extend_from_slice(b"java.lang.String");
        assert_eq!(&buf[..], &expected[..]);
        assert_eq!(RequestWrapper::decode_bytes(buf.freeze()).unwrap(), w);
    }

    #[test]
    fn a_corrupt_wrapper_is_an_error() {
        // field 2 claims 100 bytes, 1 follows.
        let e = RequestWrapper::decode_bytes(Bytes::from_static(&[0x12, 100, 0])).unwrap_err();
        assert_eq!(e.what, "request wrapper");
        let e = ResponseWrapper::decode_bytes(Bytes::from_static(&[0xff])).unwrap_err();
        assert_eq!(e.what, "response wrapper");
    }

    #[test]
    fn hessian2_is_hessian4_on_the_wire() {
        assert_eq!(wire_name_of_serialization("hessian2"), "hessian4");
        assert_eq!(serialization_of_wire_name("hessian4"), "hessian2");
        assert_eq!(serialization_of_wire_name("hessian2"), "hessian2");
        assert_eq!(wire_name_of_serialization("fastjson2"), "fastjson2");
    }
}
