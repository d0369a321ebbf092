//! The two halves every `serde(with)` module of this crate shares: a Rust type of another crate
//! that maps to one Java type ([`JavaValue`]), and the functions that serialize it as the
//! vocabulary's newtype (as its text in human-readable formats).

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer};
use serde::ser::{self, Serialize, Serializer};

use crate::{ConvertError, JavaType, Parts, PartsSeed};

/// A Rust type that travels as one Java type.
pub(crate) trait JavaValue: Sized {
    /// The Java type.
    const TYPE: JavaType;
    /// The value's parts.
    fn to_parts(&self) -> Result<Parts, ConvertError>;
    /// The value of `parts` (of [`Self::TYPE`]).
    fn from_parts(parts: Parts) -> Result<Self, ConvertError>;
    /// The text human-readable formats show: the form the crate's own serde support writes.
    fn text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    /// Reads [`Self::text`] back.
    fn parse(text: &str) -> Result<Self, String>;
}

/// [`JavaValue::text`] as a `Display`.
struct Text<'a, T>(&'a T);

impl<T: JavaValue> fmt::Display for Text<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.text(f)
    }
}

pub(crate) fn serialize<T: JavaValue, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    if s.is_human_readable() {
        return s.collect_str(&Text(v));
    }
    v.to_parts().map_err(ser::Error::custom)?.serialize(s)
}

pub(crate) fn deserialize<'de, T: JavaValue, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    if d.is_human_readable() {
        let text = <Cow<'de, str>>::deserialize(d)?;
        return T::parse(&text).map_err(de::Error::custom);
    }
    let parts = PartsSeed(T::TYPE).deserialize(d)?;
    T::from_parts(parts).map_err(de::Error::custom)
}

/// A value serialized and deserialized through [`serialize`] and [`deserialize`], so that an
/// `Option` of it is serde's `Option` of the same newtype.
struct Field<T>(T);

impl<T: JavaValue> Serialize for Field<&T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize(self.0, s)
    }
}

impl<'de, T: JavaValue> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize(d).map(Field)
    }
}

pub(crate) fn serialize_option<T: JavaValue, S: Serializer>(
    v: &Option<T>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => s.serialize_some(&Field(v)),
        None => s.serialize_none(),
    }
}

pub(crate) fn deserialize_option<'de, T: JavaValue, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    Ok(Option::<Field<T>>::deserialize(d)?.map(|f| f.0))
}

/// The `serialize` and `deserialize` of a `serde(with)` module for `$ty` (a [`JavaValue`]).
macro_rules! with_fns {
    ($ty:ty) => {
        /// Serializes the value as its Java type.
        pub fn serialize<S: serde::Serializer>(v: &$ty, s: S) -> Result<S::Ok, S::Error> {
            $crate::with::serialize(v, s)
        }

        /// Deserializes the value from its Java type.
        pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
            $crate::with::deserialize(d)
        }

        /// The same for an `Option` field: `None` is Java's `null`.
        pub mod option {
            /// Serializes the value, if any, as its Java type.
            pub fn serialize<S: serde::Serializer>(
                v: &Option<$ty>,
                s: S,
            ) -> Result<S::Ok, S::Error> {
                $crate::with::serialize_option(v, s)
            }

            /// Deserializes the value, or `null`, from its Java type.
            pub fn deserialize<'de, D: serde::Deserializer<'de>>(
                d: D,
            ) -> Result<Option<$ty>, D::Error> {
                $crate::with::deserialize_option(d)
            }
        }
    };
}
pub(crate) use with_fns;

/// A `serde(with)` module named `$name` for `$ty` (the crates with several mapped types).
#[cfg(any(feature = "chrono", feature = "time", feature = "num-bigint"))]
macro_rules! with_module {
    ($(#[$doc:meta])* $name:ident, $ty:ty) => {
        $(#[$doc])*
        pub mod $name {
            $crate::with::with_fns!($ty);
        }
    };
}
#[cfg(any(feature = "chrono", feature = "time", feature = "num-bigint"))]
pub(crate) use with_module;
