//! `impl serde::Deserializer for &mut Deserializer`: each `deserialize_*` tries the typed fast
//! path of its type first (an int, a double, a one-chunk string read straight from the input),
//! then pulls a header and hands it to `dispatch.rs` or `numbers.rs`.

use serde::de::{self, Unexpected, Visitor};

use super::numbers::Integer;
use super::{fix, invalid, relocate, Deserializer, Source, ENUM_NAME, TEXT};
use crate::decode::Header;
use crate::error::{Error, Result};
use crate::types::token;

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
        let header = self.dec.pull_inlined()?;
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
        let header = self.dec.pull_inlined()?;
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
        match self.dec.pull_inlined()? {
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
