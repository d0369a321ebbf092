//! `impl serde::Deserializer for &mut Deserializer`: each `deserialize_*` tries the typed fast
//! path of its type first (an int, a double, a one-chunk string read straight from the input),
//! then pulls a header and hands it to `dispatch.rs` or `numbers.rs`.

use serde::de::{self, Unexpected, Visitor};

use super::numbers::Integer;
use super::{fix, relocate, Deserializer, Source, ENUM_NAME, TEXT};
use crate::decode::Header;
use crate::error::{Error, Result};
use crate::types::token;

macro_rules! integer_method {
    ($method:ident, $visit:ident, $ty:ty, $conv:ident) => {
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            let at = self.dec.offset();
            // The common case inline: an int or long, read straight from the input. Everything
            // else out of line, so that callers inline a small function.
            if let Some(v) = self.dec.try_integer() {
                return match <$ty>::try_from(v) {
                    Ok(v) => fix(visitor.$visit(v), at),
                    Err(_) => Err(out_of_range(Integer::from_i64(v), &visitor, at)),
                };
            }
            self.integer_slow(
                visitor,
                at,
                |n| n.$conv().and_then(|v| <$ty>::try_from(v).ok()),
                V::$visit,
            )
        }
    };
}

#[cold]
fn out_of_range(n: Integer, exp: &dyn de::Expected, at: u64) -> Error {
    relocate(de::Error::invalid_value(n.unexpected(), exp), at)
}

impl<'de, S: Source<'de>> Deserializer<'de, S> {
    /// The integer forms the inline fast path of `deserialize_i32` and the like does not take
    /// (a double, a `BigInteger`, a reference, an int split across input chunks, errors), out
    /// of line. `convert` narrows to the visitor's type.
    #[inline(never)]
    fn integer_slow<T, V: Visitor<'de>>(
        &mut self,
        visitor: V,
        at: u64,
        convert: impl FnOnce(Integer) -> Option<T>,
        visit: fn(V, T) -> Result<V::Value>,
    ) -> Result<V::Value> {
        let header = self.dec.pull()?;
        let n = self.integer(header, at, &visitor)?;
        match convert(n) {
            Some(v) => fix(visit(visitor, v), at),
            None => Err(out_of_range(n, &visitor, at)),
        }
    }

    /// What the inline fast path of `deserialize_bool` does not take, out of line.
    #[inline(never)]
    fn bool_slow<V: Visitor<'de>>(&mut self, visitor: V, at: u64) -> Result<V::Value> {
        match self.dec.pull()? {
            Header::Bool(v) => fix(visitor.visit_bool(v), at),
            Header::Ref(n) => {
                self.replay(n, at, |de| de::Deserializer::deserialize_bool(de, visitor))
            }
            other => Err(self.invalid(other, &visitor, at)),
        }
    }

    /// A date (or the milliseconds of a long or int) that the inline fast path of
    /// `deserialize_newtype_struct` did not take, out of line.
    #[inline(never)]
    fn date_slow<V: Visitor<'de>>(&mut self, visitor: V, at: u64) -> Result<V::Value> {
        match self.dec.pull()? {
            Header::Date(v) | Header::Long(v) => fix(visitor.visit_i64(v), at),
            Header::Int(v) => fix(visitor.visit_i64(v.into()), at),
            other => Err(self.invalid(other, &visitor, at)),
        }
    }

    /// A value of the [`java_serde`] vocabulary (newtype `name`): read as its carrier in
    /// `crate::types`, given to `visitor` as its parts. Out of line, so that the newtype path
    /// of other types stays inline.
    #[inline(never)]
    fn java_value<V: Visitor<'de>>(
        &mut self,
        name: &'static str,
        visitor: V,
        at: u64,
    ) -> Result<V::Value> {
        let Some(ty) = java_serde::JavaType::of_newtype(name) else {
            return fix(visitor.visit_newtype_struct(self), at);
        };
        let parts = crate::types::vocabulary::read(ty, &mut *self)?;
        fix(parts.visit(visitor), at)
    }

    /// A binary read as `bytes::Bytes` ([`types::bytes`](crate::types::bytes)).
    fn bytes_token<V: Visitor<'de>>(&mut self, visitor: V, at: u64) -> Result<V::Value> {
        match self.dec.pull()? {
            Header::Binary { len, last } => {
                let bytes = self.dec.read_binary_bytes(len, last)?;
                fix(
                    crate::types::bytes::hand_off(bytes, |b| visitor.visit_bytes(b)),
                    at,
                )
            }
            other => self.bytes_from(other, at, visitor),
        }
    }

    /// What the inline fast path of `deserialize_str` does not take (chunked strings, other
    /// types, errors), out of line.
    #[inline(never)]
    fn str_slow<V: Visitor<'de>>(&mut self, visitor: V, at: u64) -> Result<V::Value> {
        let header = self.dec.pull()?;
        self.str_from(header, at, visitor)
    }

    /// What the inline fast path of `deserialize_enum` does not take (Java enum objects,
    /// maps of one variant, references, errors), out of line.
    #[inline(never)]
    fn enum_slow<V: Visitor<'de>>(&mut self, visitor: V, at: u64) -> Result<V::Value> {
        let header = self.dec.pull()?;
        self.enum_from(header, at, visitor)
    }

    /// What the inline fast path of `deserialize_f64` did not take, out of line.
    #[inline(never)]
    fn float_slow(&mut self, exp: &dyn de::Expected) -> Result<f64> {
        let at = self.dec.offset();
        let header = self.dec.pull()?;
        self.float(header, at, exp)
    }
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

    #[inline]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.dec.offset();
        // The common case inline: `T` or `F`; everything else out of line.
        let value = match self.dec.peek_byte() {
            Some(crate::marker::TRUE) => true,
            Some(crate::marker::FALSE) => false,
            _ => return self.bool_slow(visitor, at),
        };
        self.dec.consume_peeked();
        fix(visitor.visit_bool(value), at)
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
        let v = match self.dec.try_double() {
            Some(v) => v,
            None => self.float_slow(&visitor)?,
        };
        fix(visitor.visit_f32(v as f32), at)
    }

    #[inline]
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.dec.offset();
        let v = match self.dec.try_double() {
            Some(v) => v,
            None => self.float_slow(&visitor)?,
        };
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
            other => Err(self.invalid(other, &visitor, at)),
        }
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.dec.offset();
        if let Some(len) = self.dec.try_string_header() {
            return self.visit_read::<TEXT, V>(len, true, at, visitor);
        }
        self.str_slow(visitor, at)
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
            self.dec.consume_peeked();
            fix(visitor.visit_none(), at)
        } else {
            fix(visitor.visit_some(self), at)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.dec.offset();
        match self.dec.pull()? {
            Header::Null => fix(visitor.visit_unit(), at),
            other => Err(self.invalid(other, &visitor, at)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        let at = self.dec.offset();
        // `name` is a constant where this is inlined: the comparisons fold away.
        if name == token::DATE {
            // The common case inline: a date read straight from the input.
            if let Some(v) = self.dec.try_date() {
                return fix(visitor.visit_i64(v), at);
            }
            return self.date_slow(visitor, at);
        }
        if name == token::BYTES {
            return self.bytes_token(visitor, at);
        }
        if name.starts_with(java_serde::NAME_PREFIX) {
            return self.java_value(name, visitor, at);
        }
        fix(visitor.visit_newtype_struct(self), at)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.dec.offset();
        let header = self.dec.pull_container()?;
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
        let header = self.dec.pull_container()?;
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
        match self.dec.pull_container()? {
            header @ (Header::Object { .. } | Header::Map { .. } | Header::Ref(_)) => {
                self.map_from(header, at, visitor)
            }
            header @ Header::List { .. } => self.seq_from(header, at, visitor),
            // For types that also accept a string (`BigDecimal`).
            header @ Header::String { .. } => self.str_from(header, at, visitor),
            other => Err(self.invalid(other, &visitor, at)),
        }
    }

    #[inline]
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
        self.enum_slow(visitor, at)
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
