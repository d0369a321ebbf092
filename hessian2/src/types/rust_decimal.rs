//! Feature `rust_decimal`: [`BigDecimal`] to and from `rust_decimal::Decimal`, and a
//! `serde(with)` module so a `Decimal` field travels as a `java.math.BigDecimal` (in
//! human-readable formats: its decimal string).
//!
//! A `Decimal` is written as the string Java's `BigDecimal.toString()` gives for the same
//! unscaled value and scale (`1234.50`, `0.000`, `1E-7`), so Java reads back exactly that
//! `BigDecimal`, scale included. The other way fails with [`ConvertError`] when the number
//! needs more than `Decimal`'s 96 bits or 28 decimal places (nothing is rounded); a negative
//! Java scale (`1E+5`) becomes scale 0 (`100000`).
//!
//! ```
//! use rust_decimal::Decimal;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! #[serde(rename = "com.example.Order")]
//! struct Order {
//!     #[serde(with = "hessian2::types::rust_decimal")]
//!     amount: Decimal,
//! }
//!
//! let order = Order { amount: Decimal::new(123450, 2) };
//! let bytes = hessian2::to_vec(&order)?;
//! assert!(bytes.ends_with(b"java.math.BigDecimal\x91\x05value\x61\x071234.50"));
//! assert_eq!(hessian2::from_slice::<Order>(&bytes)?, order);
//! assert_eq!(serde_json::to_string(&order)?, r#"{"amount":"1234.50"}"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use ::rust_decimal::Decimal;
use serde::{de, Deserializer, Serializer};

use java_serde::decimal::java_text as java_decimal_text;

use super::convert::ConvertError;
use super::BigDecimal;

const OUT: ConvertError = ConvertError::new("java.math.BigDecimal", "rust_decimal::Decimal");

impl From<Decimal> for BigDecimal {
    /// Java's `toString()` of the same unscaled value and scale.
    fn from(d: Decimal) -> Self {
        let mantissa = d.mantissa();
        let digits = mantissa.unsigned_abs().to_string();
        BigDecimal::new_unchecked(java_decimal_text(mantissa < 0, &digits, d.scale().into()))
    }
}

impl TryFrom<BigDecimal> for Decimal {
    type Error = ConvertError;
    fn try_from(d: BigDecimal) -> Result<Self, ConvertError> {
        let s = d.as_str();
        let (coefficient, exponent) = match s.find(['e', 'E']) {
            Some(i) => (&s[..i], s[i + 1..].parse::<i64>().map_err(|_| OUT)?),
            None => (s, 0),
        };
        let c = Decimal::from_str_exact(coefficient).map_err(|_| OUT)?;
        let mut mantissa = c.mantissa();
        let mut scale = i64::from(c.scale()) - exponent;
        if scale < 0 {
            let factor = u32::try_from(-scale)
                .ok()
                .and_then(|k| 10i128.checked_pow(k))
                .ok_or(OUT)?;
            mantissa = mantissa.checked_mul(factor).ok_or(OUT)?;
            scale = 0;
        }
        let scale = u32::try_from(scale).map_err(|_| OUT)?;
        Decimal::try_from_i128_with_scale(mantissa, scale).map_err(|_| OUT)
    }
}

/// Serializes a `Decimal` as a `java.math.BigDecimal` (its string in human-readable formats).
pub fn serialize<S: Serializer>(v: &Decimal, s: S) -> Result<S::Ok, S::Error> {
    BigDecimal::from(*v).serialize_either(s)
}

/// Deserializes a `java.math.BigDecimal` (or, in human-readable formats, a decimal string).
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
    Decimal::try_from(BigDecimal::deserialize_either(d)?).map_err(de::Error::custom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_written_as_javas_to_string() {
        for (mantissa, scale, java) in [
            (123_450, 2, "1234.50"),
            (0, 3, "0.000"),
            (0, 10, "0E-10"),
            (1, 7, "1E-7"),
            (-123, 9, "-1.23E-7"),
            (1, 6, "0.000001"),
            (-5, 1, "-0.5"),
            (100, 0, "100"),
        ] {
            let d = Decimal::new(mantissa, scale);
            assert_eq!(BigDecimal::from(d).as_str(), java);
            assert_eq!(Decimal::try_from(BigDecimal::from(d)), Ok(d), "{java}");
        }
    }

    #[test]
    fn java_strings_convert_exactly_or_not_at_all() {
        let from = |s: &str| Decimal::try_from(s.parse::<BigDecimal>().unwrap());
        assert_eq!(from("1E+5"), Ok(Decimal::new(100_000, 0)));
        assert_eq!(from("-1.5E-3"), Ok(Decimal::new(-15, 4)));
        assert_eq!(from("1E-28"), Ok(Decimal::new(1, 28)));
        assert_eq!(from("1E-29"), Err(OUT));
        assert_eq!(from("1E+29"), Err(OUT));
        assert_eq!(from("123456789012345678901234567890"), Err(OUT));
        assert_eq!(from("1E+99999999999999999999"), Err(OUT));
    }
}
