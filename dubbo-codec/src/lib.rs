//! The Dubbo 2 TCP protocol (`dubbo://`) without I/O: frames, request and response bodies in
//! Hessian2 or fastjson2, and cheap routing metadata, byte-identical with what real Java Dubbo
//! 2.7 and 3.x write.
//!
//! This crate is the wire layer. The client, the server, the cluster client and Triple's
//! runtime are in `dubbo-rpc`; Triple's own wire layer is `dubbo-triple`; the `dubbo-call`
//! command-line client is its own crate.
//!
//! Dubbo 2 (spoken by Apache Dubbo 2.x and, by default, 3.x) is a binary request/response
//! protocol over one long-lived TCP connection. Both sides send frames; each frame is a
//! fixed 16-byte header followed by a body:
//!
//! ```text
//!  0       1       2       3       4                              11 12            15
//! +-------+-------+-------+-------+-------------------------------+----------------+
//! |  0xda |  0xbb | flag  |status |     request id (u64, BE)      | body len (u32) |
//! +-------+-------+-------+-------+-------------------------------+----------------+
//! |                     body: `body len` bytes, serialized                          |
//! +---------------------------------------------------------------------------------+
//!
//! flag: 0x80 request | 0x40 two-way | 0x20 event | 0x1f serialization id (2 = Hessian2,
//!       23 = fastjson2)
//! ```
//!
//! * A **request** carries a method call; a **two-way** request is answered by exactly one
//!   **response** with the same request id, so many calls can be in flight on one
//!   connection and answered in any order. A one-way request is never answered.
//! * A response's **status** ([`Status`]) says whether the body is the result (`OK`, 20) or
//!   an error message (`SERVICE_NOT_FOUND`, `BAD_REQUEST`, ...).
//! * **Events** keep the connection alive (heartbeats) and announce a server's graceful
//!   shutdown (the read-only event); see [`event`].
//!
//! # Layers
//!
//! * Frames (sans-I/O): [`Header`] parses and writes the header, [`Frame`] pairs it with a
//!   body kept as [`bytes::Bytes`] (never copied), and [`FrameCodec`] splits a byte stream
//!   into frames with a payload limit checked before bodies are buffered. [`descriptor`]
//!   counts and converts the Java parameter descriptors requests carry
//!   (`Ljava/lang/String;I` = two parameters) without allocating.
//! * Bodies, in the serialization the header names ([`BodyFormat`]: Hessian2 as hessian-lite
//!   3 or 4 writes it, or fastjson2's JSONB; each is one module of [`format`](mod@format), the body layout
//!   is written once): a [`request`] body is the Dubbo version, service path,
//!   service version, method name, descriptor, the arguments and the [`attachments`] (where
//!   the group lives); a [`response`] body is a result flag (`writeByte` 0..=5), the value or
//!   the Java [`exception`], and attachments for callers that support them. Typed arguments
//!   and results go through the serde layer of the `hessian2` (or `fastjson2`) crate straight
//!   into the body, never through a `Value` (see [typed
//!   arguments](request#typed-arguments-are-written-once-never-through-value)); dynamic ones
//!   are [`hessian2::value::Value`]s.
//! * Routing: [`peek()`] reads service, version, method and group from a request body,
//!   stepping over the arguments without decoding them and borrowing the strings; with a
//!   [`MetadataCache`] ([`peek_with_cache`]) it stops right after the method name;
//!   [`peek_keys`] also reports the attachments a router names, in the same pass.
//! * Values alone: [`BodyFormat::encode_alone`], [`BodyFormat::read_alone`] and their
//!   siblings read and write one value as a stream of its own, the form Triple carries each
//!   argument and result in.
//!
//! # Example
//!
//! Build a call with a typed argument, put it in a frame, split the frame off a byte stream
//! and decode the call back, then answer it:
//!
//! ```
//! use bytes::BytesMut;
//! use dubbo_codec::response::{Outcome, RpcResult};
//! use dubbo_codec::{FrameCodec, FrameKind, Request, Response};
//! use hessian2::value::Value;
//!
//! let call = Request::builder("com.example.Greeter", "sayHello")
//!     .version("1.0.0")
//!     .group("blue")
//!     .arg("java.lang.String", "world")
//!     .build()?;
//!
//! let mut codec = FrameCodec::new();
//! let mut wire = BytesMut::new();
//! codec.encode_frame(&call.to_frame(7, true), &mut wire)?;
//!
//! // The receiving side.
//! let frame = codec.decode_frame(&mut wire)?.expect("a whole frame");
//! assert_eq!(frame.kind(), FrameKind::Request);
//! let decoded = Request::from_frame(&frame)?;
//! assert_eq!(decoded, call);
//! assert_eq!(decoded.descriptor, "Ljava/lang/String;");
//! assert_eq!(decoded.group(), Some("blue"));
//! let (name,): (String,) = Request::decode_args(frame.body())?;
//!
//! // The answer, as a Java provider writes it for a 2.0.2 caller (with attachments).
//! let result = RpcResult::for_request(
//!     Outcome::Value(Value::from(format!("Hello, {name}"))),
//!     &decoded.dubbo_version,
//! );
//! let answer = result.to_frame(frame.request_id());
//! assert_eq!(
//!     Response::from_frame(&answer)?,
//!     Response::Result(result)
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Features
//!
//! * `codec` (default): `tokio_util::codec::{Decoder, Encoder}` for [`FrameCodec`], for use
//!   with `Framed`. Needs no tokio runtime. Without it, use
//!   [`FrameCodec::decode_frame`] / [`FrameCodec::encode_frame`] on your own buffers.
//! * `json`: the [`json`] module, JSON arguments to dynamic values and results back (with
//!   `serde_json`): what `dubbo-call` and Triple's HTTP/1.1 form (curl) speak.
//!
//! # Semver
//!
//! The public API is what these docs show: the public modules and items and the fields
//! documented public, including the wire-level records ([`RequestHead`], [`Peek`]...) whose
//! fields are the protocol's and are meant to be read and built whole. Until 1.0 a breaking
//! change bumps the minor version (0.1 to 0.2), anything else the patch version.
//!
//! `#[non_exhaustive]` marks what may grow without a breaking release: a `match` on such an
//! enum needs a `_` arm, and such a struct (a configuration) cannot be written as a struct
//! literal, nor destructured without `..`, outside the crate: start from its `default()` (or
//! `new`) and use its chainable setters, or assign its public fields. Changes are listed in
//! `CHANGELOG.md`.
#![forbid(unsafe_code)]

pub mod attachments;
mod body;
pub mod codec;
pub mod descriptor;
pub mod error;
pub mod event;
pub mod exception;
pub mod format;
pub mod frame;
mod head;
pub mod header;
#[cfg(feature = "json")]
pub mod json;
pub mod metadata;
pub mod peek;
pub mod request;
pub mod response;
mod result_flag;
pub mod serialization;
pub mod status;
mod typed;

pub use codec::{FrameCodec, DEFAULT_MAX_PAYLOAD};
pub use descriptor::{arg_count, Descriptor, DescriptorError};
#[cfg(feature = "codec")]
pub use error::CodecError;
pub use error::{BodyError, DecodeError, EncodeError};
pub use event::Event;
pub use format::BodyFormat;
pub use frame::{Frame, FrameKind};
pub use header::{BadMagic, Header, HEADER_LEN, MAGIC};
pub use serialization::Serialization;
pub use status::Status;

pub use attachments::Attachments;
pub use exception::{JavaException, StackFrame};
pub use metadata::MetadataCache;
pub use peek::{peek, peek_keys, peek_with, peek_with_cache, AttachmentValue, Peek, PeekOptions};
pub use request::{Request, RequestBuilder, RequestHead};
pub use response::{Outcome, Response, ResultSpan, RpcResult, TypedResult};
