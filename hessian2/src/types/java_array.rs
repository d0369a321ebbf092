//! Java arrays (`int[]`, `String[]`, `User[]`, ...): typed lists whose type is the array's.
//!
//! `#[serde(with = "hessian2::types::java_array")]` on a `Vec<T>` field, or the [`JavaArray`]
//! wrapper, writes the list with the Java array type of `T` (see [`ArrayElement`]), as Java
//! does for an array-typed field; without it a `Vec` is written as Java writes an `ArrayList`.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, PartialEq, Debug)]
//! #[serde(rename = "com.example.Series")]
//! struct Series {
//!     #[serde(with = "hessian2::types::java_array")]
//!     points: Vec<f64>, // Java: double[] points
//! }
//!
//! let s = Series { points: vec![1.0, 2.5] };
//! let bytes = hessian2::to_vec(&s)?;
//! assert!(bytes.windows(8).any(|w| w == b"\x07[double"));
//! assert_eq!(hessian2::from_slice::<Series>(&bytes)?, s);
//! # Ok::<(), hessian2::Error>(())
//! ```

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use serde::de::{Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use super::Date;

/// An element type of a Java array, naming the array's Hessian type (Java's
/// `ArraySerializer`/`BasicSerializer` names): `[int`, `[long`, `[double`, `[string`, ...
///
/// Implement it for your own types with [`array_element!`](crate::array_element).
pub trait ArrayElement {
    /// `"$hessian2::type:"` followed by the array type name.
    const ARRAY_TOKEN: &'static str;
}

/// Makes a type usable as a Java array element, naming the array type (Java writes `User[]`
/// as a list of type `"[com.example.User"`).
///
/// ```
/// # #[derive(serde::Serialize)]
/// # #[serde(rename = "com.example.User")]
/// # struct User { id: i64 }
/// hessian2::array_element!(User = "[com.example.User");
/// let users = hessian2::types::JavaArray(vec![User { id: 1 }]);
/// let bytes = hessian2::to_vec(&users)?;
/// assert_eq!(&bytes[..2], b"\x71\x11");
/// # Ok::<(), hessian2::Error>(())
/// ```
#[macro_export]
macro_rules! array_element {
    ($ty:ty = $java:literal) => {
        impl $crate::types::ArrayElement for $ty {
            const ARRAY_TOKEN: &'static str = concat!("$hessian2::type:", $java);
        }
    };
}

array_element!(bool = "[boolean");
array_element!(i16 = "[short");
array_element!(i32 = "[int");
array_element!(i64 = "[long");
array_element!(f32 = "[float");
array_element!(f64 = "[double");
array_element!(String = "[string");
array_element!(&str = "[string");
array_element!(Box<str> = "[string");
array_element!(Date = "[date");
array_element!(Option<bool> = "[java.lang.Boolean");
array_element!(Option<i16> = "[java.lang.Short");
array_element!(Option<i32> = "[java.lang.Integer");
array_element!(Option<i64> = "[java.lang.Long");
array_element!(Option<f32> = "[java.lang.Float");
array_element!(Option<f64> = "[java.lang.Double");
array_element!(Option<String> = "[string");
array_element!(Option<Date> = "[date");

/// Serializes `items` as a Java array of `T`.
pub fn serialize<T, S>(items: &[T], serializer: S) -> Result<S::Ok, S::Error>
where
    T: ArrayElement + Serialize,
    S: Serializer,
{
    serializer.serialize_newtype_struct(T::ARRAY_TOKEN, items)
}

/// Deserializes a list (of any type) into a `Vec<T>`.
pub fn deserialize<'de, T, D>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    T: ArrayElement + Deserialize<'de>,
    D: Deserializer<'de>,
{
    struct Inner<T>(PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for Inner<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an array")
        }
        fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Vec<T>, D::Error> {
            Vec::deserialize(d)
        }
    }
    deserializer.deserialize_newtype_struct(T::ARRAY_TOKEN, Inner(PhantomData))
}

/// A `Vec<T>` that is a Java array of `T` (`JavaArray<i32>` is an `int[]`); see the
/// [module docs](self).
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub struct JavaArray<T>(pub Vec<T>);

impl<T> Deref for JavaArray<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T> DerefMut for JavaArray<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.0
    }
}

impl<T> From<Vec<T>> for JavaArray<T> {
    fn from(v: Vec<T>) -> Self {
        JavaArray(v)
    }
}

impl<T: ArrayElement + Serialize> Serialize for JavaArray<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize(&self.0, serializer)
    }
}

impl<'de, T: ArrayElement + Deserialize<'de>> Deserialize<'de> for JavaArray<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize(deserializer).map(JavaArray)
    }
}
