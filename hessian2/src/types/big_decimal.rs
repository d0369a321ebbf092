//! `java.math.BigDecimal`.

use std::fmt;
use std::str::FromStr;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeStruct, Serializer};

/// Java's class name.
const CLASS: &str = "java.math.BigDecimal";
const FIELDS: &[&str] = &["value"];

/// A `java.math.BigDecimal`, kept as its decimal string (what Java's `toString()` gives, e.g.
/// `"123.456"` or `"-1E+10"`): no arithmetic here, only a faithful carrier.
///
/// Hessian-lite writes a `BigDecimal` as an object of class `java.math.BigDecimal` with one
/// field, `value`, holding that string; so does this type (so Java reads it back as a
/// `BigDecimal`). Reading also accepts a plain string.
///
/// ```
/// use hessian2::types::BigDecimal;
///
/// let d: BigDecimal = "123.456".parse()?;
/// let bytes = hessian2::to_vec(&d)?;
/// assert_eq!(bytes, b"C\x14java.math.BigDecimal\x91\x05value\x60\x07123.456");
/// assert_eq!(hessian2::from_slice::<BigDecimal>(&bytes)?, d);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BigDecimal(String);

/// A string that is not a decimal number in Java's `BigDecimal(String)` syntax.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid BigDecimal {0:?}")]
pub struct ParseBigDecimalError(pub String);

impl BigDecimal {
    /// Writes this as a `java.math.BigDecimal`, or in human-readable formats as its decimal
    /// string: what each mapping's `serde(with)` module writes.
    #[cfg(any(feature = "rust_decimal", feature = "bigdecimal"))]
    pub(crate) fn serialize_either<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return s.collect_str(self);
        }
        self.serialize(s)
    }

    /// Reads a `java.math.BigDecimal`, or in human-readable formats a decimal string.
    #[cfg(any(feature = "rust_decimal", feature = "bigdecimal"))]
    pub(crate) fn deserialize_either<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if d.is_human_readable() {
            return d.deserialize_str(super::time::iso::TextVisitor::<BigDecimal>::new());
        }
        BigDecimal::deserialize(d)
    }

    /// The decimal string.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The decimal string, owned.
    pub fn into_string(self) -> String {
        self.0
    }

    /// Wraps `s` without checking its syntax (for strings that come from Java).
    pub fn new_unchecked(s: impl Into<String>) -> Self {
        BigDecimal(s.into())
    }

    /// True if `s` has the syntax of Java's `new BigDecimal(String)`: an optional sign, digits
    /// with at most one decimal point (at least one digit), and an optional exponent
    /// (`e`/`E`, optional sign, digits).
    pub fn is_valid(s: &str) -> bool {
        let b = s.as_bytes();
        let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
        let mut digits = 0;
        let mut point = false;
        while let Some(&c) = b.get(i) {
            match c {
                b'0'..=b'9' => digits += 1,
                b'.' if !point => point = true,
                _ => break,
            }
            i += 1;
        }
        if digits == 0 {
            return false;
        }
        if let Some(b'e' | b'E') = b.get(i) {
            i += 1;
            i += usize::from(matches!(b.get(i), Some(b'+' | b'-')));
            let start = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == start {
                return false;
            }
        }
        i == b.len()
    }
}

impl FromStr for BigDecimal {
    type Err = ParseBigDecimalError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if BigDecimal::is_valid(s) {
            Ok(BigDecimal(s.to_owned()))
        } else {
            Err(ParseBigDecimalError(s.to_owned()))
        }
    }
}

impl TryFrom<String> for BigDecimal {
    type Error = ParseBigDecimalError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        if BigDecimal::is_valid(&s) {
            Ok(BigDecimal(s))
        } else {
            Err(ParseBigDecimalError(s))
        }
    }
}

impl fmt::Display for BigDecimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for BigDecimal {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct(CLASS, 1)?;
        s.serialize_field(FIELDS[0], &self.0)?;
        s.end()
    }
}

impl<'de> Deserialize<'de> for BigDecimal {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct(CLASS, FIELDS, BigDecimalVisitor)
    }
}

struct BigDecimalVisitor;

impl BigDecimalVisitor {
    fn checked<E: de::Error>(s: String) -> Result<BigDecimal, E> {
        BigDecimal::try_from(s)
            .map_err(|e| E::invalid_value(de::Unexpected::Str(&e.0), &"a decimal number"))
    }
}

impl<'de> Visitor<'de> for BigDecimalVisitor {
    type Value = BigDecimal;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a java.math.BigDecimal")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<BigDecimal, E> {
        Self::checked(v.to_owned())
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<BigDecimal, E> {
        Self::checked(v)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<BigDecimal, A::Error> {
        let mut value = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "value" {
                value = Some(map.next_value::<String>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Self::checked(value.ok_or_else(|| de::Error::missing_field("value"))?)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<BigDecimal, A::Error> {
        let value: String = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        Self::checked(value)
    }
}
