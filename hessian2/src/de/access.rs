//! serde's access traits over Hessian lists, maps, objects and enums.

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use super::{Deserializer, Source};
use crate::error::{Error, ErrorKind, Result};

/// The items of a list: `left` of them, or until `Z` when the list has no length.
pub(super) struct ListAccess<'a, 'de, S: Source<'de>> {
    de: &'a mut Deserializer<'de, S>,
    left: Option<usize>,
    len: Option<usize>,
    ended: bool,
}

impl<'a, 'de, S: Source<'de>> ListAccess<'a, 'de, S> {
    pub fn new(de: &'a mut Deserializer<'de, S>, len: Option<usize>) -> Self {
        ListAccess {
            de,
            left: len,
            len,
            ended: false,
        }
    }

    /// After the visitor: the list must have been read to its end.
    pub fn finish(self, at: u64) -> Result<()> {
        let trailing = match self.left {
            Some(0) => false,
            Some(_) => true,
            None => !self.ended && !self.de.at_end_marker()?,
        };
        if trailing {
            return Err(super::relocate(
                de::Error::invalid_length(
                    self.len.unwrap_or(usize::MAX),
                    &"no more items than the Rust type holds",
                ),
                at,
            ));
        }
        Ok(())
    }
}

impl<'de, S: Source<'de>> de::SeqAccess<'de> for ListAccess<'_, 'de, S> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match &mut self.left {
            Some(0) => Ok(None),
            Some(n) => {
                *n -= 1;
                seed.deserialize(&mut *self.de).map(Some)
            }
            None => {
                if self.ended {
                    return Ok(None);
                }
                if self.de.at_end_marker()? {
                    self.ended = true;
                    return Ok(None);
                }
                seed.deserialize(&mut *self.de).map(Some)
            }
        }
    }

    /// No more than the input can fill (serde reserves by it, at every level of nesting).
    fn size_hint(&self) -> Option<usize> {
        self.left.map(|left| self.de.dec.room_for(left))
    }
}

/// The entries of a map, until `Z`.
pub(super) struct MapAcc<'a, 'de, S: Source<'de>> {
    de: &'a mut Deserializer<'de, S>,
    ended: bool,
}

impl<'a, 'de, S: Source<'de>> MapAcc<'a, 'de, S> {
    pub fn new(de: &'a mut Deserializer<'de, S>) -> Self {
        MapAcc { de, ended: false }
    }

    /// After the visitor: steps over entries it did not read.
    pub fn finish(self) -> Result<()> {
        if self.ended {
            Ok(())
        } else {
            self.de.skip_to_end(true)
        }
    }
}

impl<'de, S: Source<'de>> de::MapAccess<'de> for MapAcc<'_, 'de, S> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.ended {
            return Ok(None);
        }
        if self.de.at_end_marker()? {
            self.ended = true;
            return Ok(None);
        }
        seed.deserialize(&mut *self.de).map(Some)
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(&mut *self.de)
    }
}

/// The fields of an object: the names from its class definition, then the values.
pub(super) struct ObjectAccess<'a, 'de, S: Source<'de>> {
    de: &'a mut Deserializer<'de, S>,
    class: usize,
    next: usize,
    len: usize,
    /// A key was given and its value not yet read.
    pending: bool,
}

impl<'a, 'de, S: Source<'de>> ObjectAccess<'a, 'de, S> {
    pub fn new(de: &'a mut Deserializer<'de, S>, class: usize) -> Self {
        let len = de.dec.class(class).fields.len();
        ObjectAccess {
            de,
            class,
            next: 0,
            len,
            pending: false,
        }
    }

    /// After the visitor: steps over fields it did not read.
    pub fn finish(self) -> Result<()> {
        for _ in self.next - usize::from(self.pending)..self.len {
            self.de.skip_value()?;
        }
        Ok(())
    }
}

impl<'de, S: Source<'de>> de::MapAccess<'de> for ObjectAccess<'_, 'de, S> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.pending {
            // The visitor skipped a value without asking for it.
            self.de.skip_value()?;
            self.pending = false;
        }
        if self.next == self.len {
            return Ok(None);
        }
        let name: &str = &self.de.dec.class(self.class).fields[self.next];
        self.next += 1;
        self.pending = true;
        seed.deserialize(name.into_deserializer()).map(Some)
    }

    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.pending = false;
        seed.deserialize(&mut *self.de)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.de.dec.room_for(self.len - self.next))
    }
}

/// A Java enum constant (or a plain string) as a unit variant.
pub(super) enum JavaEnum<'de, 's> {
    Borrowed(&'de str),
    Copied(&'s str),
}

impl<'de, 's> de::EnumAccess<'de> for JavaEnum<'de, 's> {
    type Error = Error;
    type Variant = UnitOnly;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, UnitOnly)> {
        let value = match self {
            JavaEnum::Borrowed(s) => {
                seed.deserialize(de::value::BorrowedStrDeserializer::<Error>::new(s))?
            }
            JavaEnum::Copied(s) => seed.deserialize(s.into_deserializer())?,
        };
        Ok((value, UnitOnly))
    }
}

/// The variant of a Java enum constant: it carries no data.
pub(super) struct UnitOnly;

fn not_unit(what: &str) -> Error {
    Error::new(
        ErrorKind::Message(format!(
            "a Java enum constant where a {what} variant was expected (only unit variants map \
             to Java enums)"
        )),
        super::UNSET,
    )
}

impl<'de> de::VariantAccess<'de> for UnitOnly {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, _seed: T) -> Result<T::Value> {
        Err(not_unit("newtype"))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value> {
        Err(not_unit("tuple"))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value> {
        Err(not_unit("struct"))
    }
}

/// An externally tagged variant: a map with one entry, variant name to value.
pub(super) struct EnumMap<'a, 'de, S: Source<'de>> {
    pub de: &'a mut Deserializer<'de, S>,
}

impl<'a, 'de, S: Source<'de>> de::EnumAccess<'de> for EnumMap<'a, 'de, S> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let variant = seed.deserialize(&mut *self.de)?;
        Ok((variant, self))
    }
}

impl<'de, S: Source<'de>> de::VariantAccess<'de> for EnumMap<'_, 'de, S> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        de::Deserialize::deserialize(&mut *self.de)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(&mut *self.de)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_seq(&mut *self.de, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_struct(&mut *self.de, "", fields, visitor)
    }
}
