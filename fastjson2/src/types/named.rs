//! A value with a class name known only at run time: what Java writes for an object held where
//! the declared type does not name its class, such as an enum constant inside an `EnumSet`.
//!
//! With this crate's serializer it is the class name (`0x92`) and then the value, exactly as
//! Java writes it; with this crate's deserializer, whatever class name Java wrote before the
//! value (`""` where it wrote none). Other serde formats see the tuple `(class name, value)`.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeTupleStruct, Serializer};

use crate::ser::{TYPED, TYPE_NAME};

/// Serializes `.1` after the class name `.0` (none when the name is empty).
pub(crate) struct Named<'a, T: ?Sized>(pub &'a str, pub &'a T);

impl<T: Serialize + ?Sized> Serialize for Named<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple_struct(TYPED, 2)?;
        t.serialize_field(&ClassName(self.0))?;
        t.serialize_field(self.1)?;
        t.end()
    }
}

/// A class name, handed to this crate's serializer as bytes (see [`TYPE_NAME`]).
struct ClassName<'a>(&'a str);

impl Serialize for ClassName<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(TYPE_NAME, &Utf8(self.0))
    }
}

struct Utf8<'a>(&'a str);

impl Serialize for Utf8<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0.as_bytes())
    }
}

/// A value read with the class name Java wrote before it.
pub(crate) struct NamedValue<T> {
    /// `""` where Java wrote no class name.
    pub class: String,
    pub value: T,
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for NamedValue<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_tuple_struct(TYPED, 2, NamedVisitor(PhantomData))
    }
}

struct NamedVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for NamedVisitor<T> {
    type Value = NamedValue<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value with its class name")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let ClassText(class) = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let value = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        Ok(NamedValue { class, value })
    }
}

/// A class name as text or as the bytes [`ClassName`] gives other formats.
struct ClassText(String);

impl<'de> Deserialize<'de> for ClassText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_newtype_struct(TYPE_NAME, ClassTextVisitor)
    }
}

struct ClassTextVisitor;

impl<'de> Visitor<'de> for ClassTextVisitor {
    type Value = ClassText;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a class name")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<ClassText, E> {
        Ok(ClassText(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<ClassText, E> {
        Ok(ClassText(v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<ClassText, E> {
        std::str::from_utf8(v)
            .map(|s| ClassText(s.to_owned()))
            .map_err(|_| E::invalid_value(de::Unexpected::Bytes(v), &self))
    }

    /// Other formats: the bytes [`ClassName`] wrote.
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<ClassText, D::Error> {
        d.deserialize_bytes(self)
    }
}
