//! A value whose Java class is the one declared where it sits: Java writes no class name before
//! it.
//!
//! fastjson2 (with Dubbo's `WriteClassName`) writes a POJO's class name only where the declared
//! type does not already say it: a field declared `User` holding a `User`, an element of a
//! `User[]`, have none. An enum constant in such a place is written as its ordinal rather than
//! its name. Serde cannot know declared types, so this crate writes every struct with its class
//! name (which Java reads everywhere, just longer); [`Declared`] marks the places where Java
//! leaves it out, so that the bytes are Java's own.

use std::ops::{Deref, DerefMut};

use serde::de::{Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::ser::DECLARED;

/// A value whose Java class is the declared type of the field, array or collection holding it.
///
/// With this crate's serializer, a struct inside is written without its class name (`0x92`)
/// and a unit variant as its index (Java's ordinal: declare the variants in Java's order); with
/// any other serde format, and when reading, it is `T` itself.
///
/// ```
/// use fastjson2::types::Declared;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, Debug, PartialEq)]
/// #[serde(rename = "com.example.Address")]
/// struct Address {
///     city: String,
/// }
///
/// #[derive(Serialize, Deserialize, Debug, PartialEq)]
/// #[serde(rename_all = "UPPERCASE")]
/// enum Color {
///     Red,
///     Blue,
/// }
///
/// #[derive(Serialize, Deserialize, Debug, PartialEq)]
/// #[serde(rename = "com.example.Order")]
/// struct Order {
///     color: Declared<Color>,
///     #[serde(rename = "shipTo")]
///     ship_to: Declared<Address>,
/// }
///
/// let order = Order {
///     color: Declared(Color::Blue),
///     ship_to: Declared(Address { city: "Springfield".into() }),
/// };
/// let bytes = fastjson2::to_vec(&order)?;
/// // One class name (the Order's), and the color as its ordinal.
/// assert_eq!(bytes.iter().filter(|&&b| b == 0x92).count(), 1);
/// assert_eq!(fastjson2::from_slice::<Order>(&bytes)?, order);
/// # Ok::<(), fastjson2::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Declared<T>(pub T);

impl<T> Declared<T> {
    /// The value.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> From<T> for Declared<T> {
    fn from(value: T) -> Self {
        Declared(value)
    }
}

impl<T> Deref for Declared<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> DerefMut for Declared<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T: Serialize> Serialize for Declared<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(DECLARED, &self.0)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Declared<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_newtype_struct(DECLARED, DeclaredVisitor(std::marker::PhantomData))
    }
}

struct DeclaredVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for DeclaredVisitor<T> {
    type Value = Declared<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a value of its declared type")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        T::deserialize(d).map(Declared)
    }
}
