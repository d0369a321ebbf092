//! What a format that knows the vocabulary's names does with a value it is asked to write:
//! [`Parts::capture`] takes the parts back from inside the newtype, and [`Parts::visit`] hands
//! parts it read to the value's visitor.

use serde::de::{self, Visitor};
use serde::ser::{self, Impossible, Serialize, SerializeTuple, Serializer};

use crate::parts::PartsError;
use crate::scalar::{Scalar, Scalars};
use crate::{JavaType, Parts};

impl Parts {
    /// The parts of `value`, the inside of the newtype named `ty.newtype_name()` that a
    /// format's `serialize_newtype_struct` was given.
    pub fn capture<T: Serialize + ?Sized>(ty: JavaType, value: &T) -> Result<Parts, PartsError> {
        let mut c = Capture {
            ty,
            parts: Scalars::default(),
        };
        value.serialize(&mut c)?;
        Parts::from_scalars(ty, c.parts)
    }

    /// Hands these parts to `visitor`, the one a format's `deserialize_newtype_struct` was given
    /// for this value's newtype name, as the sequence it expects; `E` is the format's error.
    pub fn visit<'de, V: Visitor<'de>, E: de::Error>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_seq(self.scalars().into_seq())
    }
}

impl ser::Error for PartsError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        PartsError::custom(msg.to_string())
    }
}

/// A serializer that takes a tuple of numbers and bytes, and nothing else.
struct Capture {
    ty: JavaType,
    parts: Scalars,
}

impl Capture {
    fn part(&mut self, v: Scalar) -> Result<(), PartsError> {
        if self.parts.is_full() {
            return Err(PartsError::new(self.ty, "more parts than the type has"));
        }
        self.parts.push(v);
        Ok(())
    }

    fn refuse(&self) -> PartsError {
        PartsError::new(self.ty, "a part is neither a number nor bytes")
    }
}

/// The methods of a data-model type that no part is.
macro_rules! refuse {
    ($($f:ident($($t:ty),*) -> $r:ty;)*) => {
        $(fn $f(self, $(_: $t),*) -> Result<$r, PartsError> {
            Err(self.refuse())
        })*
    };
}

impl Serializer for &mut Capture {
    type Ok = ();
    type Error = PartsError;
    type SerializeSeq = Impossible<(), PartsError>;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Impossible<(), PartsError>;
    type SerializeTupleVariant = Impossible<(), PartsError>;
    type SerializeMap = Impossible<(), PartsError>;
    type SerializeStruct = Impossible<(), PartsError>;
    type SerializeStructVariant = Impossible<(), PartsError>;

    fn serialize_i8(self, v: i8) -> Result<(), PartsError> {
        self.part(Scalar::Int(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<(), PartsError> {
        self.part(Scalar::Int(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<(), PartsError> {
        self.part(Scalar::Int(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<(), PartsError> {
        self.part(Scalar::Int(v.into()))
    }
    fn serialize_i128(self, v: i128) -> Result<(), PartsError> {
        self.part(Scalar::Int(v))
    }
    fn serialize_u8(self, v: u8) -> Result<(), PartsError> {
        self.part(Scalar::Int(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<(), PartsError> {
        self.part(Scalar::Int(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<(), PartsError> {
        self.part(Scalar::Int(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<(), PartsError> {
        self.part(Scalar::Int(v.into()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), PartsError> {
        self.part(Scalar::Bytes(v.to_vec()))
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, PartsError> {
        Ok(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), PartsError> {
        v.serialize(self)
    }

    refuse! {
        serialize_bool(bool) -> ();
        serialize_f32(f32) -> ();
        serialize_f64(f64) -> ();
        serialize_char(char) -> ();
        serialize_str(&str) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_unit_variant(&'static str, u32, &'static str) -> ();
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), PartsError> {
        Err(self.refuse())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), PartsError> {
        Err(self.refuse())
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

impl SerializeTuple for &mut Capture {
    type Ok = ();
    type Error = PartsError;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), PartsError> {
        v.serialize(&mut **self)
    }

    fn end(self) -> Result<(), PartsError> {
        Ok(())
    }
}
