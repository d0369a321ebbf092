//! fastjson2's binary JSON format, **JSONB**, for Rust: an independent implementation of the
//! wire format of Alibaba's Java library `com.alibaba.fastjson2` (not a port, and not affiliated
//! with it), byte-identical with what fastjson2 2.0.52 writes the way Apache Dubbo 3.2/3.3 uses
//! it (serialization id 23, `dubbo-serialization-fastjson2`).
//!
//! ```
//! use fastjson2::value::{self, Value};
//!
//! // Java's `Integer 7`, `Long 7L` and the String "hi" differ on the wire.
//! assert_eq!(fastjson2::value::to_vec(&Value::Int(7)), [0x07]);
//! assert_eq!(fastjson2::value::to_vec(&Value::Long(7)), [0xe7]);
//! assert_eq!(fastjson2::value::to_vec(&Value::from("hi")), [0x4b, b'h', b'i']);
//! assert_eq!(value::from_slice(&[0xe7])?, Value::Long(7));
//! # Ok::<(), fastjson2::Error>(())
//! ```
//!
//! # Layers
//!
//! - [`marker`]: every byte code, one file per type family, with the format described.
//! - [`decode::Decoder`]: a pull parser over a borrowed slice that keeps the document's symbol
//!   table, limits nesting, never trusts a length beyond the bytes present, and can
//!   [`skip`](decode::Decoder::skip) a value. Errors carry the byte offset;
//!   [`Error::is_eof`] tells a cut-short input from a corrupt one.
//! - [`encode::Encoder`]: writes into any `bytes::BufMut` in the forms Java picks: fastjson2
//!   2.0.52's (Dubbo 3.2.19) by default, 2.0.56's (Dubbo 3.3.5) with
//!   [`encode::PeerVersion::V2_0_56`].
//! - [`value::Value`]: everything Java sent, class names, symbols and references included.
//! - [`types`]: big numbers, `Date` and `java.time` values.
//! - [`frame`]: Dubbo's framing of each object (a 4-byte length, then one JSONB document).
//!
//! # How Dubbo uses fastjson2 (3.2 and 3.3)
//!
//! Dubbo's `FastJson2ObjectOutput.writeObject(obj)` writes `JSONB.toBytes(obj, features)` after
//! its length as a 4-byte big-endian int, one such frame per object (every `writeUTF`,
//! `writeInt`, ... goes through `writeObject`; `writeBytes` frames the raw bytes the same way).
//! The features are `WriteClassName` (a `0x92` class name before every object whose class is not
//! what the declared type already says, and before non-`HashMap`/`ArrayList` collections and
//! arrays), `FieldBased` (fields, not getters, in name order), `ReferenceDetection` (a repeated
//! object becomes `0x93` and its path), `WriteNulls` and `NotWriteDefaultValue` (in 2.0.52: null
//! `String`/object fields and `false`/`0` `boolean`/`int`/`long` fields are left out, while null
//! boxed fields and `0` `byte`/`short`/`char`/`float`/`double` fields are written; 2.0.56 also
//! leaves out `0` `byte`/`short` fields and most null boxed ones),
//! `NotWriteHashMapArrayListClassName`, `WriteNameAsSymbol` (field names as symbols), and, with
//! Dubbo's serialization check on, `ErrorOnNoneSerializable`. Each document has its own symbol
//! table: nothing is shared between frames. `FastJson2ObjectInput` reads each frame with
//! `JSONB.parseObject(bytes, class, filter, UseDefaultConstructorAsPossible, UseNativeObject,
//! IgnoreAutoTypeNotMatch, FieldBased[, ErrorOnNoneSerializable])`.
//!
//! # One vocabulary with `hessian2`
//!
//! The sibling crate `hessian2` (Dubbo's other serialization) has the same shape and names:
//! [`to_vec`], [`to_writer`], [`from_slice`], [`from_bytes`], [`from_buf`], [`Serializer`] and
//! [`Deserializer`] (with `reset` for reuse), [`PeerVersion`] (which Java library's bytes to
//! match), `encode::Encoder::write_*` / `write_ref`, `value::{Value, from_slice, to_vec,
//! to_vec_with}` with `Value::Binary` holding `bytes::Bytes`, and an [`Error`] with a byte
//! offset and [`Error::is_eof`]; [`types`] has the Java value carriers under hessian2's names,
//! with its fields and its serde_json text (`LocalDate`, `Duration`, `Uuid`, `sql::Date`, ...).
//! What differs is what the formats differ in: a JSONB document
//! stands alone (each Dubbo argument is one, [`frame`]), and a reference is a JSONPath here
//! and an index in Hessian.
//!
//! # Semver
//!
//! The crate follows semver from 0.2 on. Enums that Java may grow ([`ErrorKind`],
//! [`value::Value`], whose families follow JSONB's type codes, [`PeerVersion`]) are `#[non_exhaustive]`: match them with a `_` arm. The byte
//! forms written for a [`PeerVersion`] are part of the contract: a change of bytes for an
//! existing version is a breaking change. Names replaced in 0.2 stay one release as
//! deprecated aliases; `CHANGELOG.md` lists every change.

pub mod de;
pub mod decode;
pub mod encode;
pub mod error;
pub mod frame;
pub mod marker;
pub mod ser;
pub mod types;
pub mod value;

pub use de::{from_buf, from_bytes, from_slice, Deserializer};
pub use encode::PeerVersion;
pub use error::{Error, ErrorKind, Result};
pub use ser::{to_vec, to_writer, Serializer};
