//! JDK value types fastjson2 writes under a class name of their own.

use std::convert::Infallible;
use std::fmt;
use std::str::FromStr;

use serde::de::{Deserialize, Deserializer};
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
