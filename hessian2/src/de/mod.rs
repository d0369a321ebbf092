//! The serde [`Deserializer`]: Hessian 2.0 bytes (from Java or from this crate) into Rust
//! values, borrowing strings and binaries from the input where the wire form allows.
//!
//! ```
//! use serde::Deserialize;
//!
//! #[derive(Deserialize, Debug, PartialEq)]
//! #[serde(rename = "com.example.User")]
//! struct User<'a> {
//!     name: &'a str, // borrowed from the input
//!     id: i64,
//! }
//!
//! let bytes = b"C\x10com.example.User\x92\x04name\x02id\x60\x05Alice\xe1";
//! let user: User = hessian2::from_slice(bytes)?;
//! assert_eq!(user, User { name: "Alice", id: 1 });
//! # Ok::<(), hessian2::Error>(())
//! ```
//!
//! The mapping is the [serializer's](crate::ser#mapping), read back, with the leniency Java
//! has:
//!
//! * **Structs** are read from objects (fields matched by name, in any order; fields the Rust
//!   type does not have are stepped over without building anything; missing fields follow
//!   serde's rules: `Option` is `None`, `#[serde(default)]` applies, anything else is an
//!   error), and also from maps with string keys and from lists (fields in order). The class
//!   name is not checked, so a Rust struct can read any Java class with the right fields.
//! * **Numbers**: an int, long or double reads into any integer type if its value fits exactly
//!   (a long into an `i32` when in range; `2.0` into an integer; `2.5` or an out-of-range value
//!   is an error naming the value); into `f32`/`f64` from any of the three. A
//!   `java.math.BigInteger` object reads into any integer type it fits (`u64`, `i128`, ...).
//! * **Strings**: `&'de str` borrows from a [`from_slice`] input when the string is one chunk
//!   without surrogate pairs (else `String`/`Cow<str>` are needed); `char` from a one-character
//!   string.
//! * **Binaries**: `&'de [u8]` borrows from a [`from_slice`] input when the binary is one chunk;
//!   a `Vec<u8>` (without `serde_bytes`) reads a binary too; `bytes::Bytes` with
//!   [`types::bytes`](crate::types::bytes) is a zero-copy slice of a [`from_bytes`] input.
//! * **`null`** reads as `None`, `()`, a unit struct, and as an empty sequence or map (Java
//!   collections are often null); into anything else it is an error.
//! * **Enums**: a Java enum object (field `name`) or a plain string reads as a unit variant; a
//!   map with one entry `{variant: value}` as any variant.
//! * **Dates** read as [`Date`](crate::types::Date), or as an `i64` of milliseconds
//!   (also through `deserialize_any`).
//! * **References** (`Q`) to a list, map or object read earlier give an equal value: the
//!   referenced bytes are decoded again (every input is contiguous: [`from_buf`] gathers a
//!   chunked buffer first). A reference to a container still being decoded (circular data)
//!   is an error: a Rust value cannot be its own part; decode such data with
//!   [`Value`](crate::value::Value).
//! * `deserialize_any` describes every value (objects as maps of their fields, dates as
//!   `i64`), so self-describing targets such as `serde_json::Value` work.
//!
//! Nesting is limited to [`DEFAULT_MAX_DEPTH`](crate::decode::DEFAULT_MAX_DEPTH) lists, maps
//! and objects ([`Deserializer::with_max_depth`]). Every error carries the byte offset where it
//! was found; a truncated input gives an error whose [`is_eof`](crate::Error::is_eof) is true.
//!
//! # Streams of several values
//!
//! ```
//! use hessian2::{Deserializer, Serializer};
//!
//! let mut ser = Serializer::new(Vec::new());
//! ser.serialize("echo")?;
//! ser.serialize(&vec![1, 2])?;
//! let body = ser.into_inner();
//!
//! let mut de = Deserializer::from_slice(&body);
//! let method: &str = de.next_value()?;
//! let args: Vec<i32> = de.next_value()?;
//! de.end()?;
//! assert_eq!((method, args), ("echo", vec![1, 2]));
//! # Ok::<(), hessian2::Error>(())
//! ```

mod access;
mod deserializer;
mod dispatch;
mod numbers;
mod references;
mod skip;
mod source;

use std::fmt::Display;

use bytes::{Buf, Bytes};
use serde::de::{self, Deserialize, DeserializeOwned, Unexpected};

use crate::decode::{Decoder, Header};
use crate::error::{Error, ErrorKind, Result};
use crate::input::Input;
pub use source::Source;

/// Offset of an error made by serde's `Error::custom`, to be replaced by the deserializer.
const UNSET: u64 = u64::MAX;

/// How `Deserializer::visit_read` hands a string or binary to a visitor.
const TEXT: u8 = 0;
const ENUM_NAME: u8 = 1;
const BYTES: u8 = 2;

impl de::Error for Error {
    fn custom<T: Display>(msg: T) -> Self {
        Error::new(ErrorKind::Message(msg.to_string()), UNSET)
    }
}

/// Gives an error made by a visitor the offset of the value it was visiting.
#[inline]
fn fix<T>(result: Result<T>, at: u64) -> Result<T> {
    match result {
        Ok(v) => Ok(v),
        Err(e) => Err(relocate(e, at)),
    }
}

#[cold]
fn relocate(e: Error, at: u64) -> Error {
    if e.offset() == UNSET {
        Error::new(e.kind().clone(), at)
    } else {
        e
    }
}

/// Reads Rust values from Hessian 2.0. See the [module docs](self).
///
/// `&mut Deserializer` implements [`serde::Deserializer`] for one value; call it (or
/// [`next_value`](Self::next_value)) again for the next value of a stream: the class, type and
/// reference tables carry over, as in Java.
pub struct Deserializer<'de, S: Source<'de>> {
    src: S,
    dec: Decoder<'de, S::Input>,
    /// Nesting of replays (decoding a referenced value again): containers met while
    /// replaying are already in `refs`.
    replaying: u32,
    /// Bytes decoded again for `Q` references so far, and the most this input may cost.
    /// References to references can double the work per level, so hostile input could ask
    /// for 2^n values from a few hundred bytes; the budget keeps the work linear in the input.
    replayed: u64,
    /// The input's length, and the replayed bytes allowed per input byte.
    input_len: u64,
    replay_per_byte: u64,
}

/// Replayed bytes allowed per byte of input by default (and at least `MIN_REPLAY_BUDGET`):
/// generous for real shared data (a 50 KB message may hold ~12 MB of repeated objects), fatal
/// to exponential reference chains. See [`Deserializer::with_reference_budget`].
pub const DEFAULT_REPLAY_PER_BYTE: u64 = 256;
/// The replay budget of small inputs.
const MIN_REPLAY_BUDGET: u64 = 64 * 1024;

impl<'de> Deserializer<'de, &'de [u8]> {
    /// Reads `data`, borrowing strings and binaries from it where possible.
    pub fn from_slice(data: &'de [u8]) -> Self {
        Deserializer::new(data)
    }
}

impl Deserializer<'static, Bytes> {
    /// Reads `data`; `Bytes` fields (see [`types::bytes`](crate::types::bytes)) are zero-copy
    /// slices of it.
    pub fn from_bytes(data: Bytes) -> Self {
        Deserializer::new(data)
    }

    /// Reads what remains of `buf`. A `Bytes` or `BytesMut` is taken without copying; a
    /// chunked buffer (e.g. a `Chain`) is first copied into one contiguous `Bytes`, since a
    /// `Q` reference is resolved by reading the referenced bytes again.
    pub fn from_buf(mut buf: impl Buf) -> Self {
        Deserializer::new(buf.copy_to_bytes(buf.remaining()))
    }
}

impl<'de, S: Source<'de>> Deserializer<'de, S> {
    /// Reads `src` from its start.
    pub fn new(src: S) -> Self {
        let input = src.input_at(0);
        Deserializer {
            input_len: input.remaining() as u64,
            dec: Decoder::new(input),
            src,
            replaying: 0,
            replayed: 0,
            replay_per_byte: DEFAULT_REPLAY_PER_BYTE,
        }
    }

    /// Sets how many bytes `Q` references may make this deserializer decode again, per byte
    /// of input (at least 64 KiB in all; default [`DEFAULT_REPLAY_PER_BYTE`]). Each reference
    /// to a list, map or object read earlier decodes its bytes again into a new Rust value,
    /// so this bounds what references can make a typed decode allocate beyond the values
    /// the input spells out: about this many times the input. Past it, decoding fails.
    pub fn with_reference_budget(self, per_input_byte: u64) -> Self {
        Deserializer {
            replay_per_byte: per_input_byte,
            ..self
        }
    }

    /// The replayed bytes allowed for this input.
    fn replay_budget(&self) -> u64 {
        self.input_len
            .saturating_mul(self.replay_per_byte)
            .max(MIN_REPLAY_BUDGET)
    }

    /// Sets the nesting limit of lists, maps and objects (default
    /// [`DEFAULT_MAX_DEPTH`](crate::decode::DEFAULT_MAX_DEPTH)).
    pub fn with_max_depth(self, max_depth: usize) -> Self {
        Deserializer {
            dec: self.dec.with_max_depth(max_depth),
            ..self
        }
    }

    /// Starts over on a new input with empty class, type and reference tables, keeping their
    /// memory (and the depth limit).
    pub fn reset(&mut self, src: S) {
        let input = src.input_at(0);
        self.input_len = input.remaining() as u64;
        self.replayed = 0;
        self.dec.reset(input);
        self.src = src;
        self.replaying = 0;
    }

    /// Reads the next value of the stream.
    pub fn next_value<T: Deserialize<'de>>(&mut self) -> Result<T> {
        let at = self.dec.offset();
        fix(T::deserialize(&mut *self), at)
    }

    /// Steps over the next value without building it.
    pub fn skip_value(&mut self) -> Result<()> {
        if self.dec.try_skip_scalar() {
            return Ok(());
        }
        let header = self.dec.pull()?;
        self.skip_rest(header)
    }

    /// True when the input is exhausted.
    pub fn is_end(&self) -> bool {
        self.dec.is_empty()
    }

    /// Succeeds only at the end of the input.
    pub fn end(&self) -> Result<()> {
        // Checked without `peek_u8`, whose end-of-input error would allocate.
        match self.dec.peek_byte() {
            None => Ok(()),
            Some(found) => Err(Error::new(
                ErrorKind::Unexpected {
                    found,
                    expected: "the end of the input",
                },
                self.dec.offset(),
            )),
        }
    }

    /// Byte offset of the next byte to read.
    pub fn offset(&self) -> u64 {
        self.dec.offset()
    }

    /// The wire-level decoder (for its class and type tables).
    pub fn decoder(&self) -> &Decoder<'de, S::Input> {
        &self.dec
    }
}

fn unexpected(header: Header) -> Unexpected<'static> {
    match header {
        Header::Null => Unexpected::Unit,
        Header::Bool(v) => Unexpected::Bool(v),
        Header::Int(v) => Unexpected::Signed(v.into()),
        Header::Long(v) => Unexpected::Signed(v),
        Header::Double(v) => Unexpected::Float(v),
        Header::Date(_) => Unexpected::Other("date"),
        Header::String { .. } => Unexpected::Other("string"),
        Header::Binary { .. } => Unexpected::Other("binary"),
        Header::List { .. } => Unexpected::Seq,
        Header::Map { .. } => Unexpected::Map,
        Header::Object { .. } => Unexpected::Other("object"),
        Header::Ref(_) => Unexpected::Other("reference"),
        Header::End => Unexpected::Other("end of list or map"),
    }
}

impl<'de, S: Source<'de>> Deserializer<'de, S> {
    /// A header that `exp` does not take, pulled at `at`. A `Z` is no value of any type: it is
    /// the structural error `ValueDecoder` and `Decoder::skip` give (after a class definition,
    /// the `Z` is not where `at` points; fuzz finding `definition_before_end_marker`).
    #[cold]
    fn invalid(&self, header: Header, exp: &dyn de::Expected, at: u64) -> Error {
        match header {
            Header::End => self.dec.error(ErrorKind::Unexpected {
                found: crate::marker::list::END,
                expected: "a value",
            }),
            other => relocate(de::Error::invalid_type(unexpected(other), exp), at),
        }
    }
}

/// Reads one value from `data` (which must hold exactly one), borrowing strings and binaries
/// from it where possible.
///
/// ```
/// let v: (i32, String) = hessian2::from_slice(b"\x72\x13java.util.ArrayList\x91\x02hi")?;
/// assert_eq!(v, (1, "hi".to_string()));
/// # Ok::<(), hessian2::Error>(())
/// ```
pub fn from_slice<'a, T: Deserialize<'a>>(data: &'a [u8]) -> Result<T> {
    let mut de = Deserializer::from_slice(data);
    let value = de.next_value()?;
    de.end()?;
    Ok(value)
}

/// Reads one value from `data` (which must hold exactly one); binaries read with
/// [`types::bytes`](crate::types::bytes) are zero-copy slices of `data`.
pub fn from_bytes<T: DeserializeOwned>(data: Bytes) -> Result<T> {
    let mut de = Deserializer::from_bytes(data);
    let value = de.next_value()?;
    de.end()?;
    Ok(value)
}

/// Reads one value from what remains of `buf` (which must hold exactly one); see
/// [`Deserializer::from_buf`] for when this copies.
pub fn from_buf<T: DeserializeOwned>(buf: impl Buf) -> Result<T> {
    let mut de = Deserializer::from_buf(buf);
    let value = de.next_value()?;
    de.end()?;
    Ok(value)
}
