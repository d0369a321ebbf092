//! Dubbo 3's Triple protocol on the wire, without I/O: what a Triple (or gRPC) client,
//! server or proxy reads and writes, for any HTTP/2 implementation to carry.
//!
//! Triple is gRPC: each call is one HTTP/2 stream, a `POST` to `/{service}/{method}` whose
//! body is a sequence of length-prefixed messages, answered by response headers, messages,
//! and trailers with the call's status. Dubbo adds its own headers (service version and
//! group, the caller's application, attachments) and, for services defined by a Java
//! interface rather than a protobuf IDL, a wrapper message that carries each argument in a
//! Dubbo serialization (Hessian2 or fastjson2).
//!
//! ```text
//! HEADERS  :method POST  :path /io.example.Greeter/sayHello
//!          content-type application/grpc+proto  te trailers  grpc-timeout 3000m
//!          tri-service-version 1.0.0  (attachments...)
//! DATA     [0][len u32 BE][RequestWrapper { serializeType, args[], argTypes[] }]  END_STREAM
//!                              <- request   response ->
//! HEADERS  :status 200  content-type application/grpc+proto
//! DATA     [0][len u32 BE][ResponseWrapper { serializeType, data, type }]
//! HEADERS  grpc-status 0  (grpc-message ...)  END_STREAM       (the trailers)
//! ```
//!
//! One module per wire concept:
//!
//! * [`message`]: the 5-byte prefix, split off as bytes arrive, with the size limit checked
//!   before anything is buffered;
//! * [`metadata`]: the path and headers of a call ([`RequestHead`]), attachments included;
//! * [`timeout`], the `grpc-timeout` header;
//! * [`status`]: `grpc-status` and `grpc-message` ([`Status`], [`Code`]);
//! * [`unary`]: the one message of a unary request, collected as its DATA frames arrive, and
//!   the status of each refusal;
//! * [`wrapper`]: the request and response wrappers of interface-style calls.
//!
//! # Example
//!
//! A call as a client writes it and a server reads it back:
//!
//! ```
//! use bytes::{Bytes, BytesMut};
//! use dubbo_triple::message::{MessageDecoder, MessageEncoder};
//! use dubbo_triple::metadata::{RequestHead, CONTENT_TYPE_PROTO};
//! use dubbo_triple::wrapper::RequestWrapper;
//!
//! // Client: headers and one message.
//! let mut head = RequestHead::new("io.example.Greeter", "sayHello");
//! head.version = "1.0.0".into();
//! let mut headers = http::HeaderMap::new();
//! head.write_headers(CONTENT_TYPE_PROTO, &mut headers);
//! let call = RequestWrapper {
//!     serialize_type: "hessian4".into(),
//!     args: vec![Bytes::from_static(b"\x05world")], // "world" in Hessian2
//!     arg_types: vec!["java.lang.String".into()],
//! };
//! let mut body = BytesMut::new();
//! MessageEncoder::new(&mut body).finish_with(|b| call.encode_into(b));
//!
//! // Server: the same call back.
//! let got = RequestHead::from_parts(&head.path(), &headers)?;
//! assert_eq!((got.service.as_str(), got.method.as_str()), ("io.example.Greeter", "sayHello"));
//! assert_eq!(got.version, "1.0.0");
//! let mut decoder = MessageDecoder::new(4 << 20);
//! let message = decoder.decode(&mut body)?.expect("one whole message");
//! assert_eq!(RequestWrapper::decode_bytes(message.data)?, call);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

pub mod message;
pub mod metadata;
pub mod status;
pub mod timeout;
pub mod unary;
pub mod wrapper;

/// The protobuf crate whose messages this crate's types are, re-exported so that callers use
/// the same version.
pub use prost;

pub use message::{Message, MessageDecoder, MessageError};
pub use metadata::{MetadataError, RequestHead};
pub use status::{Code, Status};
