//! JDK value types fastjson2 writes under a class name of their own.

use std::convert::Infallible;
use std::fmt;
use std::str::FromStr;

use java_serde::text::UuidText;
use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use super::named::{Named, NamedValue};

/// The class name fastjson2 writes for a `java.util.Currency` (its short form, which it also
/// reads back).
const CURRENCY: &str = "Currency";

/// A `java.util.Currency`, as its ISO 4217 code (`EUR`): fastjson2 writes the class name
/// `Currency` and then the code; the same name as `hessian2::types::Currency`.
///
/// ```
/// use fastjson2::types::Currency;
///
/// let bytes = fastjson2::to_vec(&Currency("EUR".into()))?;
/// assert_eq!(bytes, b"\x92\x51Currency\x00\x4cEUR");
/// assert_eq!(fastjson2::from_slice::<Currency>(&bytes)?.to_string(), "EUR");
/// # Ok::<(), fastjson2::Error>(())
/// ```
///
/// In human-readable formats (serde_json) it is the code.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Currency(pub String);

impl Serialize for Currency {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return s.serialize_str(&self.0);
        }
        Named(CURRENCY, &self.0).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Currency {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if d.is_human_readable() {
            return String::deserialize(d).map(Currency);
        }
        NamedValue::<String>::deserialize(d).map(|n| Currency(n.value))
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Currency {
    type Err = Infallible;
    fn from_str(s: &str) -> Result<Self, Infallible> {
        Ok(Currency(s.to_owned()))
    }
}

/// A `java.util.UUID`: its 128 bits, most significant first; fastjson2 writes a 16-byte binary
/// of them. Its text (`Display`, `FromStr`, human-readable formats) is Java's `toString()`,
/// as `hessian2::types::Uuid`'s.
///
/// ```
/// use fastjson2::types::Uuid;
///
/// let id: Uuid = "01234567-89ab-cdef-fedc-ba9876543210".parse()?;
/// let bytes = fastjson2::to_vec(&id)?;
/// assert_eq!(&bytes[..2], b"\x91\x10");
/// assert_eq!(fastjson2::from_slice::<Uuid>(&bytes)?, id);
/// assert_eq!(serde_json::to_string(&id)?, r#""01234567-89ab-cdef-fedc-ba9876543210""#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Uuid(pub u128);

java_serde::__via_text! {
    Uuid => UuidText, |v| UuidText(v.0), |t| Ok(Uuid(t.0));
}

impl Serialize for Uuid {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return s.collect_str(self);
        }
        s.serialize_bytes(&self.0.to_be_bytes())
    }
}

impl<'de> Deserialize<'de> for Uuid {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if d.is_human_readable() {
            d.deserialize_str(UuidVisitor)
        } else {
            d.deserialize_bytes(UuidVisitor)
        }
    }
}

struct UuidVisitor;

impl Visitor<'_> for UuidVisitor {
    type Value = Uuid;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a java.util.UUID (16 bytes or its text)")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Uuid, E> {
        <[u8; 16]>::try_from(v)
            .map(|b| Uuid(u128::from_be_bytes(b)))
            .map_err(|_| E::invalid_length(v.len(), &self))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Uuid, E> {
        v.parse().map_err(E::custom)
    }
}

/// A `java.util.Locale`, as its `toString()` (`zh_CN`, `en`, `en_US_POSIX`): fastjson2 writes
/// that string, in every format (as `hessian2::types::Locale` is in human-readable ones).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Locale(pub String);

impl Serialize for Locale {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Locale {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Locale)
    }
}

impl fmt::Display for Locale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Locale {
    type Err = Infallible;
    fn from_str(s: &str) -> Result<Self, Infallible> {
        Ok(Locale(s.to_owned()))
    }
}
