//! The serde `Deserializer`: JSONB to Rust values, borrowing strings and bytes from the input
//! where the wire allows (ASCII and UTF-8 strings, symbols defined in those, binaries; Latin-1
//! strings with chars above U+007F and UTF-16 strings are converted, so a `&str` field fails on
//! them: use `String` or `Cow<str>` where Java may send such text).
//!
//! Class names (`0x92`) are read past: a struct is read from the object that follows its class
//! name, a `Vec<i32>` from a typed `int[]`. Any integer form fills any Rust integer it fits, a
//! `java.util.Date` fills an `i64` (milliseconds), and an enum is read from its name or, as
//! Java writes an enum field, its ordinal. References (`0x93`, a repeated or circular object
//! that Java wrote once) cannot be resolved into typed Rust values and are an error here: read
//! such data as a [`crate::value::Value`].
//!
//! Field and variant names (`deserialize_identifier`) that are ASCII on the wire reach the
//! visitor as bytes (`visit_borrowed_bytes`), which serde's derived visitors accept like text:
//! no UTF-8 check for what is ASCII already. A hand-written identifier visitor must accept
//! bytes too.

mod access;

use std::borrow::Cow;

use bytes::{Buf, Bytes};
use serde::de::{self, DeserializeOwned, DeserializeSeed, Visitor};

use crate::decode::{Decoder, Header, Name};
use crate::error::{Error, ErrorKind, Result};
use crate::marker::{self, container, float, long};

use access::{EnumAccess, MapAccess, SeqAccess};

/// Deserializes one JSONB document (trailing bytes are an error).
pub fn from_slice<'de, T: de::Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    let mut d = Deserializer::new(bytes);
    let v = T::deserialize(&mut d).map_err(|e| d.locate(e))?;
    d.dec.end()?;
    Ok(v)
}

/// Deserializes one JSONB document held in [`Bytes`] (trailing bytes are an error). The
/// same as [`from_slice`] on its bytes; here so code written against `hessian2::from_bytes`
/// reads the same with either crate.
pub fn from_bytes<T: DeserializeOwned>(data: Bytes) -> Result<T> {
    from_slice(&data)
}

/// Deserializes one JSONB document from what remains of `buf` (trailing bytes are an error),
/// and consumes it. A contiguous buffer is read in place; one in several chunks is copied into
/// one first, since a JSONB decoder reads from a slice.
///
/// ```
/// use bytes::Buf;
///
/// let doc = fastjson2::to_vec(&(1i32, "hi"))?;
/// let (head, tail) = doc.split_at(3);
/// let v: (i32, String) = fastjson2::from_buf(head.chain(tail))?;
/// assert_eq!(v, (1, "hi".to_owned()));
/// # Ok::<(), fastjson2::Error>(())
/// ```
pub fn from_buf<T: DeserializeOwned>(mut buf: impl Buf) -> Result<T> {
    let len = buf.remaining();
    if buf.chunk().len() == len {
        let value = from_slice(buf.chunk());
        buf.advance(len);
        value
    } else {
        from_slice(&buf.copy_to_bytes(len))
    }
}

/// A serde deserializer over one JSONB document.
pub struct Deserializer<'de> {
    dec: Decoder<'de>,
}

impl<'de> Deserializer<'de> {
    /// A deserializer reading `bytes` from its start.
    pub fn new(bytes: &'de [u8]) -> Self {
        Deserializer {
            dec: Decoder::new(bytes),
        }
    }

    /// Starts over on a new document in `bytes`, keeping the symbol table's memory: one
    /// deserializer per connection, `reset` per message, as Dubbo reuses its reader. Every
    /// input must outlive the deserializer (values may borrow from it).
    ///
    /// ```
    /// let docs = [fastjson2::to_vec(&1i64)?, fastjson2::to_vec(&2i64)?];
    /// let mut de = fastjson2::Deserializer::new(&[]);
    /// for (doc, want) in docs.iter().zip([1i64, 2]) {
    ///     de.reset(doc);
    ///     assert_eq!(de.next_value::<i64>()?, want);
    ///     de.end()?;
    /// }
    /// # Ok::<(), fastjson2::Error>(())
    /// ```
    pub fn reset(&mut self, bytes: &'de [u8]) {
        self.dec.reset(bytes);
    }

    /// Reads the next value (serde's own errors get the offset where decoding stopped).
    pub fn next_value<T: de::Deserialize<'de>>(&mut self) -> Result<T> {
        T::deserialize(&mut *self).map_err(|e| self.locate(e))
    }

    /// Fails with [`ErrorKind::TrailingBytes`] unless the whole input was read.
    pub fn end(&self) -> Result<()> {
        self.dec.end()
    }

    /// Whether the whole input has been read.
    pub fn is_end(&self) -> bool {
        self.dec.is_end()
    }

    /// The byte offset of the next value.
    pub fn offset(&self) -> u64 {
        self.dec.offset() as u64
    }

    /// The decoder underneath (its offset, its symbols).
    pub fn decoder(&mut self) -> &mut Decoder<'de> {
        &mut self.dec
    }

    /// Gives serde's own errors (made without an offset) the offset where decoding stopped.
    pub fn locate(&self, e: Error) -> Error {
        match e.kind() {
            ErrorKind::Message(_) if e.offset() == 0 => {
                Error::new(e.kind().clone(), self.dec.offset() as u64)
            }
            _ => e,
        }
    }

    /// The next header after any class names (read past without decoding them).
    fn pull(&mut self) -> Result<Header<'de>> {
        self.peek_untyped()?;
        self.dec.pull()
    }

    /// The next code byte after any class names (read past), not consumed.
    #[inline]
    fn peek_untyped(&mut self) -> Result<u8> {
        // One read of the code byte in the common case (no class name).
        loop {
            let c = self.dec.peek()?;
            if c != marker::TYPED {
                return Ok(c);
            }
            self.dec.next_if_type_name()?;
        }
    }

    /// An error of `kind` at the current offset.
    fn error(&self, kind: ErrorKind) -> Error {
        self.dec.error(kind)
    }

    fn invalid(&self, h: &Header<'_>, expected: &str) -> Error {
        self.error(ErrorKind::Message(format!(
            "found {}, expected {expected}",
            describe(h)
        )))
    }

    fn visit<V: Visitor<'de>>(&mut self, h: Header<'de>, visitor: V) -> Result<V::Value> {
        match h {
            Header::Null => visitor.visit_unit(),
            Header::Bool(v) => visitor.visit_bool(v),
            Header::Int(v) => visitor.visit_i32(v),
            Header::Long(v) | Header::Date(v) => visitor.visit_i64(v),
            Header::Byte(v) => visitor.visit_i8(v),
            Header::Short(v) => visitor.visit_i16(v),
            Header::Float(v) => visitor.visit_f32(v),
            Header::Double(v) => visitor.visit_f64(v),
            Header::Char(v) => match char::from_u32(u32::from(v)) {
                Some(c) => visitor.visit_char(c),
                None => visitor.visit_u16(v),
            },
            Header::String(s) | Header::Symbol(s) => match s {
                Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
                Cow::Owned(s) => visitor.visit_string(s),
            },
            Header::Binary(b) => visitor.visit_borrowed_bytes(b),
            Header::BigInteger(ref b) => match b.to_i64() {
                Some(v) => visitor.visit_i64(v),
                None => Err(self.invalid(&h, "a BigInteger that fits an i64 (or types::BigInteger)")),
            },
            Header::Array(n) => self.visit_array(n, visitor),
            Header::Object => self.visit_object(visitor),
            Header::Ref(ref path) => Err(self.error(ErrorKind::Message(format!(
                "reference {path:?} to a value written before: read such data as a fastjson2::value::Value"
            )))),
            _ => Err(self.invalid(&h, "a value serde can represent (see fastjson2::types)")),
        }
    }
}

impl<'de> Deserializer<'de> {
    /// The `n` items of an array whose head was just read.
    fn visit_array<V: Visitor<'de>>(&mut self, n: usize, visitor: V) -> Result<V::Value> {
        self.dec.enter()?;
        let v = visitor.visit_seq(SeqAccess::new(self, n))?;
        self.dec.leave();
        Ok(v)
    }

    /// The entries of an object whose start code was just read.
    fn visit_object<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.dec.enter()?;
        let v = visitor.visit_map(MapAccess::new(self))?;
        self.dec.leave();
        Ok(v)
    }

    /// A field name in any form but the short ASCII symbols of
    /// [`Decoder::next_if_ascii_symbol`]; out of line, so that the fast path inlines small.
    #[inline(never)]
    fn identifier_slow<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        match self.dec.next_if_symbol() {
            Some(Ok(Name::Ascii(bytes))) => visitor.visit_borrowed_bytes(bytes),
            Some(Ok(Name::Text(Cow::Borrowed(s)))) => visitor.visit_borrowed_str(s),
            Some(Ok(Name::Text(Cow::Owned(s)))) => visitor.visit_string(s),
            Some(Err(e)) => Err(e),
            None => de::Deserializer::deserialize_str(self, visitor),
        }
    }

    /// A value of the [`java_serde`] vocabulary (newtype `name`): read as its carrier in
    /// `crate::types`, given to `visitor` as its parts. Out of line, so that the newtype path
    /// of other types stays inline.
    #[inline(never)]
    fn java_value<V: Visitor<'de>>(&mut self, name: &'static str, visitor: V) -> Result<V::Value> {
        let Some(ty) = java_serde::JavaType::of_newtype(name) else {
            return visitor.visit_newtype_struct(self);
        };
        crate::types::vocabulary::read(ty, &mut *self)?.visit(visitor)
    }
}

/// A short description of a header for error messages.
fn describe(h: &Header<'_>) -> String {
    let s = format!("{h:?}");
    match s.find('(') {
        Some(i) => s[..i].to_owned(),
        None => s,
    }
}

impl de::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::new(ErrorKind::Message(msg.to_string()), 0)
    }
}

macro_rules! forward_to_any {
    ($($method:ident)*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_any(visitor)
        })*
    };
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let h = self.pull()?;
        self.visit(h, visitor)
    }

    forward_to_any! {
        deserialize_i8 deserialize_i16
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_f32
        deserialize_char deserialize_bytes deserialize_byte_buf deserialize_unit
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // The forms Java gives 0, 1 and whole numbers.
        match self.dec.peek()? {
            float::DOUBLE_0 => {
                self.dec.bump();
                visitor.visit_f64(0.0)
            }
            float::DOUBLE_1 => {
                self.dec.bump();
                visitor.visit_f64(1.0)
            }
            float::DOUBLE_LONG => {
                self.dec.bump();
                let v = self.dec.int64()?;
                visitor.visit_f64(v as f64)
            }
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // Short arrays: the count is in the code.
        let code = self.peek_untyped()?;
        if let container::ARRAY_FIX_FIRST..=container::ARRAY_FIX_LAST = code {
            self.dec.bump();
            let n = usize::from(code - container::ARRAY_FIX_FIRST);
            return self.visit_array(n, visitor);
        }
        self.deserialize_any(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // Structs and maps: the object's start code without the general header match.
        if self.peek_untyped()? == container::OBJECT {
            self.dec.bump();
            return self.visit_object(visitor);
        }
        self.deserialize_any(visitor)
    }

    // Fast paths for what POJOs are made of: field names (symbols), short ASCII strings, small
    // ints. Anything else goes through `deserialize_any`.

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // serde's derived field visitors take bytes as well as text: ASCII names need no
        // UTF-8 check. Java's field names first, without the general symbol path's `Result`.
        if let Some(bytes) = self.dec.next_if_ascii_symbol() {
            return visitor.visit_borrowed_bytes(bytes);
        }
        self.identifier_slow(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.dec.next_if_short_ascii() {
            Some(s) => visitor.visit_borrowed_str(s),
            None => self.deserialize_any(visitor),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.dec.peek()? {
            c @ (marker::FALSE | marker::TRUE) => {
                self.dec.bump();
                visitor.visit_bool(c == marker::TRUE)
            }
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.dec.peek()? {
            c @ long::DIRECT_FIRST..=long::DIRECT_LAST => {
                self.dec.bump();
                visitor.visit_i64(i64::from(c) - i64::from(long::DIRECT_ZERO))
            }
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.dec.peek()? {
            c @ (0xf0..=0xff | 0x00..=0x2f) => {
                self.dec.bump();
                visitor.visit_i32(i32::from(c as i8))
            }
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.peek_untyped()? == crate::marker::NULL {
            self.dec.bump();
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, v: V) -> Result<V::Value> {
        self.deserialize_unit(v)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name == crate::ser::RAW {
            // A `java.util.Date` (the common one) arrives as its milliseconds, decoded once.
            if let Some(millis) = self.dec.next_if_date()? {
                return visitor.visit_i64(millis);
            }
            // Any other `crate::types` value reads its own header from the raw bytes.
            let start = self.dec.offset();
            self.dec.skip()?;
            let raw = self.dec.raw(start);
            return visitor.visit_borrowed_bytes(raw);
        }
        if name.starts_with(java_serde::NAME_PREFIX) {
            return self.java_value(name, visitor);
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, v: V) -> Result<V::Value> {
        self.deserialize_seq(v)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _: usize,
        v: V,
    ) -> Result<V::Value> {
        if name == crate::ser::TYPED {
            // `(class name, value)`: the class name Java wrote before the value, if any.
            let class = match self.dec.peek()? {
                marker::TYPED => match self.dec.pull()? {
                    Header::Typed(class) => Some(class),
                    h => return Err(self.invalid(&h, "a type name")),
                },
                _ => None,
            };
            return v.visit_seq(access::TypedAccess::new(self, class));
        }
        self.deserialize_seq(v)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        v: V,
    ) -> Result<V::Value> {
        self.deserialize_map(v)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        // An enum as a map key or a field: its name, mostly short ASCII.
        if let Some(name) = self.dec.next_if_short_ascii() {
            let h = Header::String(Cow::Borrowed(name));
            return visitor.visit_enum(EnumAccess::new(self, Some(h)));
        }
        match self.pull()? {
            Header::Object => {
                self.dec.enter()?;
                let v = visitor.visit_enum(EnumAccess::new(self, None))?;
                match self.dec.pull()? {
                    Header::End => {}
                    h => return Err(self.invalid(&h, "the end of a one-entry enum object")),
                }
                self.dec.leave();
                Ok(v)
            }
            h @ (Header::String(_) | Header::Symbol(_) | Header::Int(_)) => {
                visitor.visit_enum(EnumAccess::new(self, Some(h)))
            }
            h => Err(self.invalid(&h, "an enum (its name, ordinal or {variant: value})")),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.dec.skip()?;
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

/// Deserializes the value of an entry or item with `seed`.
fn next<'de, T: DeserializeSeed<'de>>(d: &mut Deserializer<'de>, seed: T) -> Result<T::Value> {
    seed.deserialize(d)
}
