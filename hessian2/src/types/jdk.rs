//! JDK values hessian-lite writes as an object with one string field: `java.util.UUID`
//! (`StringValueSerializer`: field `value`), `java.util.Locale` (a `LocaleHandle` with field
//! `value`), `java.util.Currency` (no serializer of its own: its one non-transient field,
//! `currencyCode`) and `java.lang.Class` (`ClassSerializer`: field `name`).
//!
//! In formats that are not human-readable each is that object; in human-readable ones, the
//! string itself.

use std::fmt;
use std::str::FromStr;

use serde::de::{self, Deserialize, Deserializer};
use serde::ser::{Serialize, SerializeStruct, Serializer};

use super::time::iso::{ParseError, TextVisitor};

/// Serializes a `Display` value as a string.
struct Text<'a, T>(&'a T);

impl<T: fmt::Display> Serialize for Text<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self.0)
    }
}

/// Serde for a type whose wire form is the object `$class` with the one string field `$field`
/// holding its `Display` text (read back with `FromStr`).
macro_rules! string_object {
    ($ty:ident, $class:literal, $field:literal) => {
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                if s.is_human_readable() {
                    return s.collect_str(self);
                }
                let mut st = s.serialize_struct($class, 1)?;
                st.serialize_field($field, &Text(self))?;
                st.end()
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                #[derive(serde::Deserialize)]
                #[serde(rename = $class)]
                struct Wire {
                    #[serde(rename = $field)]
                    text: String,
                }
                if d.is_human_readable() {
                    return d.deserialize_str(TextVisitor::new());
                }
                Wire::deserialize(d)?
                    .text
                    .parse()
                    .map_err(de::Error::custom)
            }
        }
    };
}

/// A `java.util.UUID`: 128 bits, written as Java's `toString()`
/// (`123e4567-e89b-12d3-a456-426614174000`, lowercase).
///
/// ```
/// use hessian2::types::Uuid;
///
/// let id: Uuid = "123e4567-e89b-12d3-a456-426614174000".parse()?;
/// assert_eq!(id.0, 0x123e4567_e89b_12d3_a456_426614174000);
/// let bytes = hessian2::to_vec(&id)?;
/// assert!(bytes.starts_with(b"C\x0ejava.util.UUID\x91\x05value"));
/// assert_eq!(hessian2::from_slice::<Uuid>(&bytes)?, id);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Uuid(pub u128);

string_object!(Uuid, "java.util.UUID", "value");

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&java_serde::text::UuidText(self.0), f)
    }
}

impl FromStr for Uuid {
    type Err = ParseError;

    /// The 36-character form, hex digits in either case (what Java's `toString()` writes).
    fn from_str(s: &str) -> Result<Self, ParseError> {
        s.parse().map(|java_serde::text::UuidText(v)| Uuid(v))
    }
}

/// Declares a carrier of a Java string (any text is valid).
macro_rules! text_carrier {
    ($(#[$doc:meta])* $ty:ident, $class:literal, $field:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub struct $ty(pub String);

        string_object!($ty, $class, $field);

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl FromStr for $ty {
            type Err = ParseError;
            fn from_str(s: &str) -> Result<Self, ParseError> {
                Ok($ty(s.to_owned()))
            }
        }
    };
}

text_carrier!(
    /// A `java.util.Locale`, as its `toString()` (`zh_CN`, `en`, `en_US_POSIX`). hessian-lite
    /// writes a fresh `com.alibaba.com.caucho.hessian.io.LocaleHandle` for each occurrence.
    Locale,
    "com.alibaba.com.caucho.hessian.io.LocaleHandle",
    "value"
);

text_carrier!(
    /// A `java.util.Currency`, as its ISO 4217 code (`EUR`).
    Currency,
    "java.util.Currency",
    "currencyCode"
);

text_carrier!(
    /// A `java.lang.Class`, as its name (`java.lang.String`, `[I`).
    JavaClass,
    "java.lang.Class",
    "name"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_text_is_javas_and_bad_text_says_where() {
        let id = Uuid(0x0000_0001_0002_0003_0004_0000_0000_0005);
        assert_eq!(id.to_string(), "00000001-0002-0003-0004-000000000005");
        assert_eq!("00000001-0002-0003-0004-000000000005".parse(), Ok(id));
        assert_eq!(
            "00000001-0002-0003-0004-00000000000A"
                .parse::<Uuid>()
                .map(|u| u.0 & 0xf),
            Ok(0xa)
        );
        for (text, at) in [
            ("00000001-0002-0003-0004-00000000000g", 35),
            ("00000001+0002-0003-0004-000000000005", 8),
            ("00000001-0002-0003-0004-0000000000051", 36),
            ("00000001-0002", 13),
            ("é", 0),
        ] {
            assert!(
                matches!(text.parse::<Uuid>(), Err(ParseError::Syntax { at: a, .. }) if a == at),
                "{text}"
            );
        }
    }
}
