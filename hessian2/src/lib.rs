//! Hessian 2.0 for Rust, byte-identical with Java's `hessian-lite` (the serialization of Apache
//! Dubbo): a serde data format, a dynamic [`Value`](value::Value), and the wire layer both are
//! built on.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! // A Java POJO: the serde name is the Java class, fields in the order hessian-lite writes
//! // them (see [`ser`] for Java's field-order rule).
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! #[serde(rename = "com.example.User")]
//! struct User {
//!     name: String,
//!     id: i64,
//! }
//!
//! let user = User { name: "Ann".into(), id: 7 };
//! let bytes = hessian2::to_vec(&user)?;
//! // 'C' class definition once per stream, then the instance (0x60 = class 0).
//! assert_eq!(bytes[0], b'C');
//! assert_eq!(hessian2::from_slice::<User>(&bytes)?, user);
//!
//! // The same bytes as a dynamic value, with Java's class and field names kept.
//! let value = hessian2::value::from_slice(&bytes)?;
//! assert_eq!(value.to_string(), r#"com.example.User {"name": "Ann", "id": 7L}"#);
//! # Ok::<(), hessian2::Error>(())
//! ```
//!
//! # Layers
//!
//! - [`marker`]: every byte code, one file per type family.
//! - [`decode::Decoder`]: a pull parser over an [`input::Input`] ([`input::SliceInput`] borrows
//!   from a slice; [`input::BufInput`] reads any `bytes::Buf`, chunked or not) that keeps the
//!   stream's class and type tables, limits nesting, never reserves room for more items than
//!   the bytes present can hold, and can [`skip`](decode::Decoder::skip) a value without
//!   building it.
//! - [`encode::Encoder`]: writes into any `bytes::BufMut` in the forms Java's `Hessian2Output`
//!   picks, for hessian-lite 3.2 or 4.x ([`encode::PeerVersion`]).
//! - [`ser`] / [`de`]: serde [`Serializer`] and [`Deserializer`] ([`to_vec`], [`to_writer`],
//!   [`from_slice`], [`from_bytes`], [`from_buf`]); [`types`] has the Java types serde has no word
//!   for (`java.time`, `java.sql` dates, `BigDecimal`, `UUID`, `Locale`, typed lists), with a
//!   table of Java type → Rust type.
//! - [`value`]: [`Value`](value::Value) keeps everything Java sent, references included.
//!
//! Every [`Error`] carries the byte offset; [`Error::is_eof`] tells truncated input from corrupt
//! input.
//!
//! The `hessian2-dump` binary prints a Hessian stream with its Java types, or re-encodes it.
//!
//! # One vocabulary with `fastjson2`
//!
//! The sibling crate `fastjson2` (Dubbo's other serialization) has the same shape and names:
//! [`to_vec`], [`to_writer`], [`from_slice`], [`from_bytes`], [`from_buf`], [`Serializer`] and
//! [`Deserializer`] (with `reset` for reuse), [`PeerVersion`] (which Java library's bytes to
//! match), `encode::Encoder::write_*` / `write_ref`, `value::{Value, from_slice, to_vec,
//! to_vec_with}` with `Value::Binary` holding `bytes::Bytes`, and an [`Error`] with a byte
//! offset and [`Error::is_eof`]. What differs is what the formats differ in: a Hessian stream
//! shares tables between its values ([`value::Stream`], [`value::ValueDecoder`]), a reference
//! is an index here and a JSONPath there.
//!
//! # Semver
//!
//! The crate follows semver from 0.2 on. Enums that may grow ([`ErrorKind`], [`PeerVersion`])
//! are `#[non_exhaustive]`: match them with a `_` arm. [`value::Value`] is exhaustive: Hessian
//! 2.0's families of values are closed (a Java type is an object, list or map of them). The byte
//! forms written for a [`PeerVersion`] are part of the contract: a change of bytes for an
//! existing version is a breaking change. Names replaced in 0.2 stay one release as
//! deprecated aliases; `CHANGELOG.md` lists every change.

pub mod de;
pub mod decode;
pub mod encode;
pub mod error;
pub mod input;
pub mod marker;
pub mod ser;
pub mod types;
pub mod value;

pub use de::{from_buf, from_bytes, from_slice, Deserializer};
pub use encode::PeerVersion;
pub use error::{Error, ErrorKind, Result};
pub use ser::{to_vec, to_writer, Serializer};

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
