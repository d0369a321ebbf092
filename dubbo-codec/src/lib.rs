//! The Dubbo 2 TCP protocol: frames, events, status codes, and parameter descriptors.
//!
//! Dubbo 2 (the `dubbo://` protocol, spoken by Apache Dubbo 2.x and, by default, 3.x) is a
//! binary request/response protocol over one long-lived TCP connection. Both sides send
//! frames; each frame is a fixed 16-byte header followed by a body:
//!
//! ```text
//!  0       1       2       3       4                              11 12            15
//! +-------+-------+-------+-------+-------------------------------+----------------+
//! |  0xda |  0xbb | flag  |status |     request id (u64, BE)      | body len (u32) |
//! +-------+-------+-------+-------+-------------------------------+----------------+
//! |                     body: `body len` bytes, serialized                          |
//! +---------------------------------------------------------------------------------+
//!
//! flag: 0x80 request | 0x40 two-way | 0x20 event | 0x1f serialization id (2 = Hessian2)
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
//! This crate is the frame layer: [`Header`] parses and writes the header, [`Frame`] pairs it
//! with a body kept as [`bytes::Bytes`] (never copied), and [`FrameCodec`] splits a byte
//! stream into frames with a payload limit checked before bodies are buffered. It is
//! sans-I/O: it never touches a socket. [`descriptor`] counts and converts the Java parameter
//! descriptors requests carry (`Ljava/lang/String;I` = two parameters). Request and response
//! bodies (Hessian2) are built on top of this layer.
//!
//! # Example
//!
//! Encode a heartbeat, as Java's `HeartbeatTimerTask` sends it, and decode it back:
//!
//! ```
//! use bytes::BytesMut;
//! use dubbo_codec::{Event, Frame, FrameCodec, FrameKind, Status};
//!
//! let mut codec = FrameCodec::new();
//! let mut wire = BytesMut::new();
//! codec.encode_frame(&Frame::heartbeat_request(42), &mut wire)?;
//! assert_eq!(
//!     &wire[..],
//!     [0xda, 0xbb, 0xe2, 0, 0, 0, 0, 0, 0, 0, 0, 42, 0, 0, 0, 1, b'N']
//! );
//!
//! let frame = codec.decode_frame(&mut wire)?.expect("a whole frame");
//! assert_eq!(frame.kind(), FrameKind::EventRequest(Event::Heartbeat));
//! assert!(frame.header().is_two_way());
//!
//! // The answer: same id, status OK.
//! let pong = Frame::heartbeat_response(frame.request_id());
//! assert_eq!(pong.header().status(), Status::Ok);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Features
//!
//! * `codec` (default): `tokio_util::codec::{Decoder, Encoder}` for [`FrameCodec`], for use
//!   with `Framed`. Needs no tokio runtime. Without it, use
//!   [`FrameCodec::decode_frame`] / [`FrameCodec::encode_frame`] on your own buffers.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod attachments;
mod body;
#[cfg(feature = "tokio")]
pub mod client;
pub mod codec;
#[cfg(feature = "tokio")]
mod conn;
pub mod descriptor;
pub mod error;
pub mod event;
pub mod exception;
pub mod frame;
pub mod header;
pub mod metadata;
pub mod peek;
pub mod request;
pub mod response;
pub mod serialization;
#[cfg(feature = "tokio")]
pub mod server;
pub mod status;

pub use codec::{FrameCodec, DEFAULT_MAX_PAYLOAD};
pub use descriptor::{arg_count, Descriptor, DescriptorError};
#[cfg(feature = "codec")]
pub use error::CodecError;
pub use error::{BodyError, DecodeError, EncodeError};
pub use event::Event;
pub use frame::{Frame, FrameKind};
pub use header::{BadMagic, Header, HEADER_LEN, MAGIC};
pub use serialization::Serialization;
pub use status::Status;

pub use attachments::Attachments;
pub use exception::JavaException;
pub use metadata::MetadataCache;
pub use peek::{peek, peek_with_cache, Peek};
pub use request::{Request, RequestBuilder, RequestHead};
pub use response::{Outcome, Response, RpcResult, TypedResult};
