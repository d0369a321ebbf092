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

use std::fmt::Display;

use bytes::{Buf, Bytes};
use serde::de::{self, Deserialize, DeserializeOwned, Unexpected, Visitor};

use crate::decode::{Decoder, Header, Mark, Reference};
use crate::error::{Error, ErrorKind, Result};
use crate::input::{BufInput, Input, SliceInput};
use crate::types::token;
use access::{EnumMap, JavaEnum, ListAccess, MapAcc, ObjectAccess};

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

mod sealed {
    pub trait Sealed {}
}

/// A contiguous input the [`Deserializer`] can read from, and go back into to decode a
/// referenced value again: a byte slice (strings and binaries borrowed) or [`Bytes`]
/// (binaries as zero-copy slices).
pub trait Source<'de>: sealed::Sealed {
    /// The decoder's input type.
    type Input: Input<'de>;
    /// The input from byte `offset` to the end.
    fn input_at(&self, offset: usize) -> Self::Input;
}

impl sealed::Sealed for &[u8] {}

impl<'de> Source<'de> for &'de [u8] {
    type Input = SliceInput<'de>;
    fn input_at(&self, offset: usize) -> SliceInput<'de> {
        SliceInput::new(&self[offset..])
    }
}

impl sealed::Sealed for Bytes {}

impl Source<'static> for Bytes {
    type Input = BufInput<Bytes>;
    fn input_at(&self, offset: usize) -> BufInput<Bytes> {
        BufInput::new(self.slice(offset..))
    }
}

/// A list, map or object of the stream, which a later `Q` may refer to.
#[derive(Debug, Clone, Copy)]
struct Slot {
    mark: Mark,
    /// Fully decoded (a reference to it is not a cycle).
    done: bool,
}

/// The containers of a stream, in a buffer taken from a per-thread pool (and given back on
/// drop), so that a `Deserializer` made per message does not allocate it again.
struct Refs(Vec<Slot>);

thread_local! {
    static REFS: std::cell::Cell<Vec<Slot>> = const { std::cell::Cell::new(Vec::new()) };
}

impl Refs {
    fn take() -> Self {
        Refs(REFS.try_with(|r| r.take()).unwrap_or_default())
    }
}

impl Drop for Refs {
    fn drop(&mut self) {
        let mut refs = std::mem::take(&mut self.0);
        if refs.capacity() <= 4096 {
            refs.clear();
            let _ = REFS.try_with(|r| {
                let pooled = r.take();
                r.set(if pooled.capacity() > refs.capacity() {
                    pooled
                } else {
                    refs
                });
            });
        }
    }
}

impl std::ops::Deref for Refs {
    type Target = Vec<Slot>;
    #[inline]
    fn deref(&self) -> &Vec<Slot> {
        &self.0
    }
}

impl std::ops::DerefMut for Refs {
    #[inline]
    fn deref_mut(&mut self) -> &mut Vec<Slot> {
        &mut self.0
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
    refs: Refs,
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
            refs: Refs::take(),
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
        self.refs.clear();
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

    /// Records a list, map or object just pulled; `None` while replaying.
    #[inline]
    fn open(&mut self) -> Result<Option<usize>> {
        self.dec.enter()?;
        if self.replaying > 0 {
            return Ok(None);
        }
        self.refs.push(Slot {
            mark: self.dec.last_mark(),
            done: false,
        });
        Ok(Some(self.refs.len() - 1))
    }

    #[inline]
    fn close(&mut self, slot: Option<usize>) {
        self.dec.leave();
        if let Some(i) = slot {
            self.refs[i].done = true;
        }
    }

    /// Decodes the `n`-th container of the stream again, with `f`.
    fn replay<T>(&mut self, n: u32, at: u64, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let Some(&slot) = self.refs.get(n as usize) else {
            return Err(Error::new(
                ErrorKind::BadReference {
                    table: "value",
                    index: n.into(),
                    len: self.refs.len(),
                },
                at,
            ));
        };
        if !slot.done {
            return Err(Error::new(
                ErrorKind::Message(format!(
                    "reference {n} to a list, map or object that is still being decoded: \
                     circular data cannot be read into Rust types (decode it as a \
                     hessian2::value::Value)"
                )),
                at,
            ));
        }
        if self.replayed > self.replay_budget() {
            return Err(Error::new(
                ErrorKind::Message(format!(
                    "references expand to more than {} bytes of decoding for a {}-byte input \
                     (nested shared data; decode it as a hessian2::value::Value, or raise \
                     Deserializer::with_reference_budget)",
                    self.replay_budget(),
                    self.input_len
                )),
                at,
            ));
        }
        let Ok(offset) = usize::try_from(slot.mark.offset) else {
            unreachable!("offsets come from the input")
        };
        let saved = self.dec.replace_input(self.src.input_at(offset));
        let previous = self.dec.begin_replay(slot.mark);
        self.replaying += 1;
        // While it is decoded again, a reference to it is a cycle.
        self.refs[n as usize].done = false;
        let result = f(self);
        // The referenced container's own bytes (nested replays counted themselves).
        self.replayed = self
            .replayed
            .saturating_add(self.dec.offset().saturating_sub(slot.mark.offset));
        self.refs[n as usize].done = true;
        self.replaying -= 1;
        self.dec.end_replay(previous);
        self.dec.replace_input(saved);
        result
    }

    /// Skips the rest of a value whose header was pulled, recording its containers (a later
    /// `Q` may refer to them).
    fn skip_rest(&mut self, header: Header) -> Result<()> {
        match header {
            Header::List { len, .. } => {
                let slot = self.open()?;
                match len {
                    Some(n) => {
                        for _ in 0..n {
                            self.skip_value()?;
                        }
                    }
                    None => loop {
                        match self.dec.pull()? {
                            Header::End => break,
                            item => self.skip_rest(item)?,
                        }
                    },
                }
                self.close(slot);
                Ok(())
            }
            Header::Map { .. } => {
                let slot = self.open()?;
                loop {
                    match self.dec.pull()? {
                        Header::End => break,
                        key => {
                            self.skip_rest(key)?;
                            self.skip_value()?;
                        }
                    }
                }
                self.close(slot);
                Ok(())
            }
            Header::Object { class } => {
                let slot = self.open()?;
                for _ in 0..self.dec.class(class).fields.len() {
                    self.skip_value()?;
                }
                self.close(slot);
                Ok(())
            }
            other => self.dec.skip_rest(other),
        }
    }

    /// Skips up to and including the `Z` of a map or variable-length list.
    fn skip_to_end(&mut self, pairs: bool) -> Result<()> {
        loop {
            match self.dec.pull()? {
                Header::End => return Ok(()),
                h => {
                    self.skip_rest(h)?;
                    if pairs {
                        self.skip_value()?;
                    }
                }
            }
        }
    }

    /// Consumes a `Z` if it is next.
    #[inline]
    fn at_end_marker(&mut self) -> Result<bool> {
        if self.dec.peek_u8()? == crate::marker::list::END {
            self.dec.pull()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// The integer a header holds (reading a `BigInteger` object whole).
    fn integer(&mut self, header: Header, at: u64, exp: &dyn de::Expected) -> Result<Integer> {
        match header {
            Header::Int(v) => Ok(Integer::from_i64(v.into())),
            // A date is its milliseconds.
            Header::Long(v) | Header::Date(v) => Ok(Integer::from_i64(v)),
            Header::Double(v) => {
                if v.fract() == 0.0 && v.abs() < 1.7e38 {
                    let v = v as i128;
                    Ok(Integer {
                        negative: v < 0,
                        magnitude: v.unsigned_abs(),
                    })
                } else {
                    Err(relocate(
                        de::Error::invalid_type(Unexpected::Float(v), exp),
                        at,
                    ))
                }
            }
            Header::Object { class } if &*self.dec.class(class).name == "java.math.BigInteger" => {
                self.big_integer(class)
            }
            Header::Ref(n) => self.replay(n, at, |de| {
                let at = de.dec.offset();
                let header = de.dec.pull()?;
                de.integer(header, at, exp)
            }),
            other => Err(invalid(other, exp, at)),
        }
    }

    /// A `java.math.BigInteger` object: its `signum` and `mag` fields.
    fn big_integer(&mut self, class: usize) -> Result<Integer> {
        let fields = self.dec.class(class).fields.clone();
        let slot = self.open()?;
        let mut signum = 0i32;
        let mut magnitude = 0u128;
        for field in fields.iter() {
            match &**field {
                "signum" => signum = i32::deserialize(&mut *self)?,
                "mag" => magnitude = Magnitude::deserialize(&mut *self)?.0,
                _ => self.skip_value()?,
            }
        }
        self.close(slot);
        Ok(Integer {
            negative: signum < 0,
            magnitude,
        })
    }

    fn float(&mut self, header: Header, at: u64, exp: &dyn de::Expected) -> Result<f64> {
        match header {
            Header::Double(v) => Ok(v),
            Header::Int(v) => Ok(v.into()),
            Header::Long(v) => Ok(v as f64),
            Header::Ref(n) => self.replay(n, at, |de| {
                let at = de.dec.offset();
                let header = de.dec.pull()?;
                de.float(header, at, exp)
            }),
            other => Err(invalid(other, exp, at)),
        }
    }

    #[inline]
    fn seq_from<V: Visitor<'de>>(
        &mut self,
        header: Header,
        at: u64,
        visitor: V,
    ) -> Result<V::Value> {
        match header {
            Header::List { len, .. } => {
                let slot = self.open()?;
                let mut access = ListAccess::new(self, len);
                let value = fix(visitor.visit_seq(&mut access), at)?;
                access.finish(at)?;
                self.close(slot);
                Ok(value)
            }
            Header::Binary { len, last } => {
                let bytes = self.dec.read_binary(len, last)?;
                fix(
                    visitor.visit_seq(de::value::SeqDeserializer::<_, Error>::new(
                        bytes.iter().copied(),
                    )),
                    at,
                )
            }
            Header::Null => fix(
                visitor.visit_seq(de::value::SeqDeserializer::<_, Error>::new(
                    std::iter::empty::<()>(),
                )),
                at,
            ),
            Header::Ref(n) => self.replay(n, at, |de| {
                let header = de.dec.pull()?;
                de.seq_from(header, at, visitor)
            }),
            other => Err(invalid(other, &visitor, at)),
        }
    }

    #[inline]
    fn map_from<V: Visitor<'de>>(
        &mut self,
        header: Header,
        at: u64,
        visitor: V,
    ) -> Result<V::Value> {
        match header {
            Header::Map { .. } => {
                let slot = self.open()?;
                let mut access = MapAcc::new(self);
                let value = fix(visitor.visit_map(&mut access), at)?;
                access.finish()?;
                self.close(slot);
                Ok(value)
            }
            Header::Object { class } => {
                let slot = self.open()?;
                let mut access = ObjectAccess::new(self, class);
                let value = fix(visitor.visit_map(&mut access), at)?;
                access.finish()?;
                self.close(slot);
                Ok(value)
            }
            Header::Null => fix(
                visitor.visit_map(de::value::MapDeserializer::<_, Error>::new(
                    std::iter::empty::<((), ())>(),
                )),
                at,
            ),
            Header::Ref(n) => self.replay(n, at, |de| {
                let header = de.dec.pull()?;
                de.map_from(header, at, visitor)
            }),
            other => Err(invalid(other, &visitor, at)),
        }
    }

    fn any_from<V: Visitor<'de>>(
        &mut self,
        header: Header,
        at: u64,
        visitor: V,
    ) -> Result<V::Value> {
        let result = match header {
            Header::Null => visitor.visit_unit(),
            Header::Bool(v) => visitor.visit_bool(v),
            Header::Int(v) => visitor.visit_i32(v),
            Header::Long(v) | Header::Date(v) => visitor.visit_i64(v),
            Header::Double(v) => visitor.visit_f64(v),
            Header::String { len, last } => {
                return self.visit_read::<TEXT, V>(len, last, at, visitor)
            }
            Header::Binary { len, last } => {
                return self.visit_read::<BYTES, V>(len, last, at, visitor)
            }
            Header::List { .. } => return self.seq_from(header, at, visitor),
            Header::Map { .. } | Header::Object { .. } => {
                return self.map_from(header, at, visitor)
            }
            Header::Ref(n) => {
                return self.replay(n, at, |de| {
                    let header = de.dec.pull()?;
                    de.any_from(header, at, visitor)
                })
            }
            Header::End => return Err(invalid(header, &visitor, at)),
        };
        fix(result, at)
    }

    /// A string or binary whose (first) header was read, to `visitor`: as text (`TEXT`), as
    /// a Java enum constant's name (`ENUM_NAME`) or as bytes (`BYTES`); borrowed from the
    /// input where it allows.
    #[inline]
    fn visit_read<const AS: u8, V: Visitor<'de>>(
        &mut self,
        len: usize,
        last: bool,
        at: u64,
        visitor: V,
    ) -> Result<V::Value> {
        let value = if AS == BYTES {
            match self.dec.read_binary(len, last)? {
                Reference::Borrowed(b) => visitor.visit_borrowed_bytes(b),
                Reference::Copied(b) => visitor.visit_bytes(b),
            }
        } else {
            match self.dec.read_str(len, last)? {
                Reference::Borrowed(s) if AS == ENUM_NAME => {
                    visitor.visit_enum(JavaEnum::Borrowed(s))
                }
                Reference::Copied(s) if AS == ENUM_NAME => visitor.visit_enum(JavaEnum::Copied(s)),
                Reference::Borrowed(s) => visitor.visit_borrowed_str(s),
                Reference::Copied(s) => visitor.visit_str(s),
            }
        };
        fix(value, at)
    }

    fn str_from<V: Visitor<'de>>(
        &mut self,
        header: Header,
        at: u64,
        visitor: V,
    ) -> Result<V::Value> {
        match header {
            Header::String { len, last } => self.visit_read::<TEXT, V>(len, last, at, visitor),
            other => Err(invalid(other, &visitor, at)),
        }
    }

    fn bytes_from<V: Visitor<'de>>(
        &mut self,
        header: Header,
        at: u64,
        visitor: V,
    ) -> Result<V::Value> {
        match header {
            Header::Binary { len, last } => self.visit_read::<BYTES, V>(len, last, at, visitor),
            Header::String { .. } => self.str_from(header, at, visitor),
            Header::List { .. } | Header::Ref(_) => self.seq_from(header, at, visitor),
            other => Err(invalid(other, &visitor, at)),
        }
    }

    fn enum_from<V: Visitor<'de>>(
        &mut self,
        header: Header,
        at: u64,
        visitor: V,
    ) -> Result<V::Value> {
        match header {
            Header::Object { class } => {
                let slot = self.open()?;
                let fields = self.dec.class(class).fields.clone();
                let Some(name_at) = fields.iter().position(|f| &**f == "name") else {
                    return Err(Error::new(
                        ErrorKind::Message(format!(
                            "an object of class `{}` (without a `name` field) where an enum was \
                             expected",
                            self.dec.class(class).name
                        )),
                        at,
                    ));
                };
                for _ in 0..name_at {
                    self.skip_value()?;
                }
                let name_offset = self.dec.offset();
                let value = match self.dec.pull()? {
                    Header::String { len, last } => {
                        self.visit_read::<ENUM_NAME, V>(len, last, at, visitor)?
                    }
                    other => {
                        return Err(invalid(other, &"an enum constant name", name_offset));
                    }
                };
                for _ in name_at + 1..fields.len() {
                    self.skip_value()?;
                }
                self.close(slot);
                Ok(value)
            }
            Header::String { len, last } => self.visit_read::<ENUM_NAME, V>(len, last, at, visitor),
            Header::Map { .. } => {
                let slot = self.open()?;
                let value = fix(visitor.visit_enum(EnumMap { de: &mut *self }), at)?;
                if !self.at_end_marker()? {
                    return Err(Error::new(
                        ErrorKind::Message(
                            "a map with more than one entry where an enum variant was expected"
                                .into(),
                        ),
                        self.dec.offset(),
                    ));
                }
                self.close(slot);
                Ok(value)
            }
            Header::Ref(n) => self.replay(n, at, |de| {
                let header = de.dec.pull()?;
                de.enum_from(header, at, visitor)
            }),
            other => Err(invalid(other, &visitor, at)),
        }
    }
}

/// The `mag` of a `BigInteger`: 32-bit words, most significant first, read without a `Vec`.
struct Magnitude(u128);

impl<'de> Deserialize<'de> for Magnitude {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Words;
        impl<'de> Visitor<'de> for Words {
            type Value = Magnitude;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("the int[] magnitude of a BigInteger of at most 128 bits")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Magnitude, A::Error> {
                let mut value = 0u128;
                while let Some(word) = seq.next_element::<i32>()? {
                    if value >> 96 != 0 {
                        return Err(de::Error::invalid_value(
                            Unexpected::Other("a BigInteger beyond 128 bits"),
                            &self,
                        ));
                    }
                    value = (value << 32) | u128::from(word as u32);
                }
                Ok(Magnitude(value))
            }
        }
        d.deserialize_seq(Words)
    }
}

/// An integer of any width: sign and magnitude.
#[derive(Debug, Clone, Copy)]
struct Integer {
    negative: bool,
    magnitude: u128,
}

impl Integer {
    fn from_i64(v: i64) -> Self {
        Integer {
            negative: v < 0,
            magnitude: v.unsigned_abs().into(),
        }
    }

    fn to_i128(self) -> Option<i128> {
        if self.negative {
            if self.magnitude <= 1 << 127 {
                Some((self.magnitude as i128).wrapping_neg())
            } else {
                None
            }
        } else {
            i128::try_from(self.magnitude).ok()
        }
    }

    fn to_u128(self) -> Option<u128> {
        if self.negative && self.magnitude != 0 {
            None
        } else {
            Some(self.magnitude)
        }
    }

    fn unexpected(self) -> Unexpected<'static> {
        match self.to_i128().and_then(|v| i64::try_from(v).ok()) {
            Some(v) => Unexpected::Signed(v),
            None => match u64::try_from(self.magnitude) {
                Ok(v) if !self.negative => Unexpected::Unsigned(v),
                _ => Unexpected::Other("an integer beyond 64 bits"),
            },
        }
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

#[cold]
fn invalid(header: Header, exp: &dyn de::Expected, at: u64) -> Error {
    relocate(de::Error::invalid_type(unexpected(header), exp), at)
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

macro_rules! integer_method {
    ($method:ident, $visit:ident, $ty:ty, $conv:ident) => {
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            let at = self.dec.offset();
            // The common case first: an int or long, read straight from the input.
            if let Some(v) = self.dec.try_integer() {
                return match <$ty>::try_from(v) {
                    Ok(v) => fix(visitor.$visit(v), at),
                    Err(_) => Err(relocate(
                        de::Error::invalid_value(Integer::from_i64(v).unexpected(), &visitor),
                        at,
                    )),
                };
            }
            let header = self.dec.pull()?;
            // The common case first: an int or long that fits.
            let direct = match header {
                Header::Int(v) => <$ty>::try_from(v).ok(),
                Header::Long(v) => <$ty>::try_from(v).ok(),
                _ => None,
            };
            if let Some(v) = direct {
                return fix(visitor.$visit(v), at);
            }
            let n = self.integer(header, at, &visitor)?;
            match n.$conv().and_then(|v| <$ty>::try_from(v).ok()) {
                Some(v) => fix(visitor.$visit(v), at),
                None => Err(relocate(
                    de::Error::invalid_value(n.unexpected(), &visitor),
                    at,
                )),
            }
        }
    };
}

impl<'de, S: Source<'de>> de::Deserializer<'de> for &mut Deserializer<'de, S> {
    type Error = Error;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.dec.offset();
        if let Some(len) = self.dec.try_string_header() {
            return self.visit_read::<TEXT, V>(len, true, at, visitor);
        }
        let header = self.dec.pull()?;
        self.any_from(header, at, visitor)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.dec.offset();
        match self.dec.pull()? {
            Header::Bool(v) => fix(visitor.visit_bool(v), at),
            Header::Ref(n) => self.replay(n, at, |de| de.deserialize_bool(visitor)),
            other => Err(invalid(other, &visitor, at)),
        }
    }

    integer_method!(deserialize_i8, visit_i8, i8, to_i128);
    integer_method!(deserialize_i16, visit_i16, i16, to_i128);
    integer_method!(deserialize_i32, visit_i32, i32, to_i128);
    integer_method!(deserialize_i64, visit_i64, i64, to_i128);
    integer_method!(deserialize_i128, visit_i128, i128, to_i128);
    integer_method!(deserialize_u8, visit_u8, u8, to_u128);
    integer_method!(deserialize_u16, visit_u16, u16, to_u128);
    integer_method!(deserialize_u32, visit_u32, u32, to_u128);
    integer_method!(deserialize_u64, visit_u64, u64, to_u128);
    integer_method!(deserialize_u128, visit_u128, u128, to_u128);

    #[inline]
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.dec.offset();
        if let Some(v) = self.dec.try_double() {
            return fix(visitor.visit_f32(v as f32), at);
        }
        let header = self.dec.pull()?;
        let v = self.float(header, at, &visitor)?;
        fix(visitor.visit_f32(v as f32), at)
    }

    #[inline]
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.dec.offset();
        if let Some(v) = self.dec.try_double() {
            return fix(visitor.visit_f64(v), at);
        }
        let header = self.dec.pull()?;
        let v = self.float(header, at, &visitor)?;
        fix(visitor.visit_f64(v), at)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.dec.offset();
        match self.dec.pull()? {
            Header::String { len, last } => {
                let s = self.dec.read_str(len, last)?;
                let mut chars = s.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => fix(visitor.visit_char(c), at),
                    _ => Err(relocate(
                        de::Error::invalid_value(Unexpected::Str(&s), &visitor),
                        at,
                    )),
                }
            }
            other => Err(invalid(other, &visitor, at)),
        }
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.dec.offset();
        if let Some(len) = self.dec.try_string_header() {
            return self.visit_read::<TEXT, V>(len, true, at, visitor);
        }
        let header = self.dec.pull()?;
        self.str_from(header, at, visitor)
    }

    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.dec.offset();
        let header = self.dec.pull()?;
        self.bytes_from(header, at, visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.dec.offset();
        if self.dec.peek_u8()? == crate::marker::NULL {
            self.dec.pull()?;
            fix(visitor.visit_none(), at)
        } else {
            fix(visitor.visit_some(self), at)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.dec.offset();
        match self.dec.pull()? {
            Header::Null => fix(visitor.visit_unit(), at),
            other => Err(invalid(other, &visitor, at)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name.as_bytes().first() == Some(&b'$') {
            if name == token::DATE {
                let at = self.dec.offset();
                if let Some(v) = self.dec.try_date() {
                    return fix(visitor.visit_i64(v), at);
                }
                return match self.dec.pull()? {
                    Header::Date(v) | Header::Long(v) => fix(visitor.visit_i64(v), at),
                    Header::Int(v) => fix(visitor.visit_i64(v.into()), at),
                    other => Err(invalid(other, &visitor, at)),
                };
            }
            if name == token::BYTES {
                let at = self.dec.offset();
                return match self.dec.pull()? {
                    Header::Binary { len, last } => {
                        let bytes = self.dec.read_binary_bytes(len, last)?;
                        fix(
                            crate::types::bytes::hand_off(bytes, |b| visitor.visit_bytes(b)),
                            at,
                        )
                    }
                    other => self.bytes_from(other, at, visitor),
                };
            }
        }
        let at = self.dec.offset();
        fix(visitor.visit_newtype_struct(self), at)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.dec.offset();
        let header = self.dec.pull()?;
        self.seq_from(header, at, visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.dec.offset();
        let header = self.dec.pull()?;
        self.map_from(header, at, visitor)
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let at = self.dec.offset();
        match self.dec.pull()? {
            header @ (Header::Object { .. } | Header::Map { .. } | Header::Ref(_)) => {
                self.map_from(header, at, visitor)
            }
            header @ Header::List { .. } => self.seq_from(header, at, visitor),
            // For types that also accept a string (`BigDecimal`).
            header @ Header::String { .. } => self.str_from(header, at, visitor),
            other => Err(invalid(other, &visitor, at)),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let at = self.dec.offset();
        // The common case first: a plain string (a variant name, or a map key read as one).
        if let Some(len) = self.dec.try_string_header() {
            return self.visit_read::<ENUM_NAME, V>(len, true, at, visitor);
        }
        let header = self.dec.pull()?;
        self.enum_from(header, at, visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.skip_value()?;
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}
