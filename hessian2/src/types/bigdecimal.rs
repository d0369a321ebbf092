//! Feature `bigdecimal`: [`BigDecimal`] to and from `bigdecimal::BigDecimal`, and a
//! `serde(with)` module so such a field travels as a `java.math.BigDecimal` (in human-readable
//! formats: the string of Java's `toString()`).
//!
//! Both are an unscaled integer of any size and a scale, so nothing is ever rounded: a
//! `bigdecimal::BigDecimal` is written as the string Java's `toString()` gives for the same
//! unscaled value and scale (`1234.50`, `0E-10`, `1E+5` for a negative scale), and Java reads
//! back exactly that `BigDecimal`, scale included. Only a scale beyond Java's `int` fails
//! ([`ConvertError`]).
//!
//! ```
//! use bigdecimal::BigDecimal;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! #[serde(rename = "com.example.Order")]
//! struct Order {
//!     #[serde(with = "hessian2::types::bigdecimal")]
//!     amount: BigDecimal,
//! }
//!
//! let order = Order { amount: BigDecimal::new(123450.into(), 2) };
//! let bytes = hessian2::to_vec(&order)?;
//! assert!(bytes.ends_with(b"java.math.BigDecimal\x91\x05value\x61\x071234.50"));
//! assert_eq!(hessian2::from_slice::<Order>(&bytes)?, order);
//! assert_eq!(serde_json::to_string(&order)?, r#"{"amount":"1234.50"}"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use ::bigdecimal::num_bigint::{BigInt, Sign};
use serde::{de, ser, Deserializer, Serializer};

use java_serde::decimal::{java_text as java_decimal_text, parse_java_text as java_decimal_parts};

use super::convert::ConvertError;
use super::BigDecimal;

type Decimal = ::bigdecimal::BigDecimal;

const TO_JAVA: ConvertError = ConvertError::new("bigdecimal::BigDecimal", "java.math.BigDecimal");
const FROM_JAVA: ConvertError = ConvertError::new("java.math.BigDecimal", "bigdecimal::BigDecimal");

impl TryFrom<&Decimal> for BigDecimal {
    type Error = ConvertError;
    /// Java's `toString()` of the same unscaled value and scale; fails on a scale beyond
    /// Java's `int`.
    fn try_from(d: &Decimal) -> Result<Self, ConvertError> {
        let (unscaled, scale) = d.as_bigint_and_exponent();
        i32::try_from(scale).map_err(|_| TO_JAVA)?;
        let digits = unscaled.magnitude().to_str_radix(10);
        let text = java_decimal_text(unscaled.sign() == Sign::Minus, &digits, scale);
        Ok(BigDecimal::new_unchecked(text))
    }
}

impl TryFrom<Decimal> for BigDecimal {
    type Error = ConvertError;
    fn try_from(d: Decimal) -> Result<Self, ConvertError> {
        BigDecimal::try_from(&d)
    }
}

impl TryFrom<&BigDecimal> for Decimal {
    type Error = ConvertError;
    /// The same unscaled value and scale; fails only on a string that is not a decimal
    /// (a carrier made with [`BigDecimal::new_unchecked`]) or whose scale leaves Java's `int`.
    fn try_from(d: &BigDecimal) -> Result<Self, ConvertError> {
        let (unscaled, scale) = java_decimal_parts(d.as_str()).ok_or(FROM_JAVA)?;
        i32::try_from(scale).map_err(|_| FROM_JAVA)?;
        let unscaled = BigInt::parse_bytes(unscaled.as_bytes(), 10).ok_or(FROM_JAVA)?;
        Ok(Decimal::new(unscaled, scale))
    }
}

impl TryFrom<BigDecimal> for Decimal {
    type Error = ConvertError;
    fn try_from(d: BigDecimal) -> Result<Self, ConvertError> {
        Decimal::try_from(&d)
    }
}

/// Serializes a `bigdecimal::BigDecimal` as a `java.math.BigDecimal` (its string in
/// human-readable formats).
pub fn serialize<S: Serializer>(v: &Decimal, s: S) -> Result<S::Ok, S::Error> {
    BigDecimal::try_from(v)
        .map_err(ser::Error::custom)?
        .serialize_either(s)
}

/// Deserializes a `java.math.BigDecimal` (or, in human-readable formats, a decimal string).
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
    Decimal::try_from(BigDecimal::deserialize_either(d)?).map_err(de::Error::custom)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decimal(unscaled: &str, scale: i64) -> Decimal {
        Decimal::new(unscaled.parse().unwrap(), scale)
    }

    #[test]
    fn written_as_javas_to_string_and_read_back_exactly() {
        for (unscaled, scale, java) in [
            ("123450", 2, "1234.50"),
            ("0", 3, "0.000"),
            ("0", 10, "0E-10"),
            ("0", -3, "0E+3"),
            ("1", 7, "1E-7"),
            ("-123", 9, "-1.23E-7"),
            ("1", 6, "0.000001"),
            ("-5", 1, "-0.5"),
            ("1", -5, "1E+5"),
            ("-123", -2, "-1.23E+4"),
            (
                "12345678901234567890123456789012345678901234567890",
                40,
                "1234567890.1234567890123456789012345678901234567890",
            ),
            ("1", 2_147_483_647, "1E-2147483647"),
            ("7", -2_147_483_648, "7E+2147483648"),
        ] {
            let d = decimal(unscaled, scale);
            let carrier = BigDecimal::try_from(&d).unwrap();
            assert_eq!(carrier.as_str(), java);
            let back = Decimal::try_from(&carrier).unwrap();
            assert_eq!(
                back.as_bigint_and_exponent(),
                d.as_bigint_and_exponent(),
                "{java}"
            );
        }
    }

    #[test]
    fn what_java_cannot_hold_is_an_error() {
        assert_eq!(BigDecimal::try_from(decimal("1", 1 << 31)), Err(TO_JAVA));
        assert_eq!(
            BigDecimal::try_from(decimal("1", -(1 << 31) - 1)),
            Err(TO_JAVA)
        );
        let from = |s: &str| Decimal::try_from(BigDecimal::new_unchecked(s));
        assert_eq!(from("1E-2147483648"), Err(FROM_JAVA));
        assert_eq!(from("1E+99999999999999999999"), Err(FROM_JAVA));
        assert_eq!(from("1.2.3"), Err(FROM_JAVA));
        assert_eq!(from(""), Err(FROM_JAVA));
        assert_eq!(from("-"), Err(FROM_JAVA));
        // Java's own syntax variants read with their scale.
        let parts = |s: &str| from(s).unwrap().as_bigint_and_exponent();
        assert_eq!(parts("+.5"), (BigInt::from(5), 1));
        assert_eq!(parts("5."), (BigInt::from(5), 0));
        assert_eq!(parts("-1.50e3"), (BigInt::from(-150), -1));
    }
}
