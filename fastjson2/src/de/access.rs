//! serde's access traits: array items, object entries, enum variants.

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use super::{next, Deserializer};
use crate::decode::Header;
use crate::error::{Error, Result};

/// The items of an array of known length.
pub(super) struct SeqAccess<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    left: usize,
}

impl<'a, 'de> SeqAccess<'a, 'de> {
    pub(super) fn new(de: &'a mut Deserializer<'de>, len: usize) -> Self {
        SeqAccess { de, left: len }
    }
}

impl<'de> de::SeqAccess<'de> for SeqAccess<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        next(self.de, seed).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        // Never more than the bytes left could hold: a hostile count must not reserve memory.
        Some(self.left.min(self.de.dec.remaining()))
    }
}

/// A value with the class name Java wrote before it, as the tuple `(class name, value)`; the
/// class name is `""` where Java wrote none.
pub(super) struct TypedAccess<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    class: Option<Option<std::borrow::Cow<'de, str>>>,
    value_left: bool,
}

impl<'a, 'de> TypedAccess<'a, 'de> {
    pub(super) fn new(
        de: &'a mut Deserializer<'de>,
        class: Option<std::borrow::Cow<'de, str>>,
    ) -> Self {
        TypedAccess {
            de,
            class: Some(class),
            value_left: true,
        }
    }
}

impl<'de> de::SeqAccess<'de> for TypedAccess<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if let Some(class) = self.class.take() {
            let class = match class {
                Some(std::borrow::Cow::Borrowed(c)) => de::value::BorrowedStrDeserializer::new(c),
                Some(std::borrow::Cow::Owned(c)) => {
                    return seed.deserialize(c.into_deserializer()).map(Some);
                }
                None => de::value::BorrowedStrDeserializer::new(""),
            };
            return seed.deserialize(class).map(Some);
        }
        if std::mem::take(&mut self.value_left) {
            return next(self.de, seed).map(Some);
        }
        Ok(None)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(usize::from(self.class.is_some()) + usize::from(self.value_left))
    }
}

/// The entries of an object, up to its end code.
pub(super) struct MapAccess<'a, 'de> {
    de: &'a mut Deserializer<'de>,
}

impl<'a, 'de> MapAccess<'a, 'de> {
    pub(super) fn new(de: &'a mut Deserializer<'de>) -> Self {
        MapAccess { de }
    }
}

impl<'de> de::MapAccess<'de> for MapAccess<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.de.dec.peek()? == crate::marker::container::OBJECT_END {
            self.de.dec.bump();
            return Ok(None);
        }
        next(self.de, seed).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        next(self.de, seed)
    }
}

/// An enum: from its name or ordinal (`header`), or inside a one-entry object.
pub(super) struct EnumAccess<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    header: Option<Header<'de>>,
}

impl<'a, 'de> EnumAccess<'a, 'de> {
    pub(super) fn new(de: &'a mut Deserializer<'de>, header: Option<Header<'de>>) -> Self {
        EnumAccess { de, header }
    }
}

impl<'a, 'de> de::EnumAccess<'de> for EnumAccess<'a, 'de> {
    type Error = Error;
    type Variant = VariantAccess<'a, 'de>;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self::Variant)> {
        let unit = self.header.is_some();
        let v = match self.header {
            // An enum field as Java writes it: the ordinal.
            Some(Header::Int(ordinal)) => {
                let ordinal = u32::try_from(ordinal).map_err(|_| {
                    self.de.error(crate::error::ErrorKind::InvalidLength {
                        what: "enum ordinal",
                        value: i64::from(ordinal),
                    })
                })?;
                seed.deserialize(ordinal.into_deserializer())?
            }
            Some(h) => seed.deserialize(HeaderDeserializer { de: self.de, h })?,
            None => next(self.de, seed)?,
        };
        Ok((v, VariantAccess { de: self.de, unit }))
    }
}

/// The variant's data.
pub(super) struct VariantAccess<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    /// The enum was only a name or ordinal: no data follows.
    unit: bool,
}

impl<'de> de::VariantAccess<'de> for VariantAccess<'_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        if self.unit {
            Ok(())
        } else {
            de::Deserialize::deserialize(self.de)
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        if self.unit {
            return Err(de::Error::invalid_type(
                de::Unexpected::UnitVariant,
                &"newtype variant",
            ));
        }
        next(self.de, seed)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        if self.unit {
            return Err(de::Error::invalid_type(
                de::Unexpected::UnitVariant,
                &"tuple variant",
            ));
        }
        de::Deserializer::deserialize_seq(self.de, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        if self.unit {
            return Err(de::Error::invalid_type(
                de::Unexpected::UnitVariant,
                &"struct variant",
            ));
        }
        de::Deserializer::deserialize_map(self.de, visitor)
    }
}

/// A header already pulled (an enum's name), handed to a seed.
struct HeaderDeserializer<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    h: Header<'de>,
}

impl<'de> de::Deserializer<'de> for HeaderDeserializer<'_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.de.visit(self.h, visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}
