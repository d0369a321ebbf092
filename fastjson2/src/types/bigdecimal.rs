//! Feature `bigdecimal`: [`BigDecimal`] to and from `bigdecimal::BigDecimal`, and a
//! `serde(with)` module so such a field travels as a `java.math.BigDecimal`, under the same
//! name as `hessian2::types::bigdecimal` (in human-readable formats: the string of Java's
//! `toString()`).
//!
//! Both are an unscaled integer of any size and a scale: the unscaled value and the scale carry
//! over exactly, negative scales included (`1E+5`), nothing is rounded. Only a scale beyond
//! Java's `int` fails ([`ConvertError`]).
//!
//! ```
//! use bigdecimal::BigDecimal;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Order {
//!     #[serde(with = "fastjson2::types::bigdecimal")]
//!     amount: BigDecimal,
//! }
//!
//! let order = Order { amount: BigDecimal::new(123450.into(), 2) };
//! let bytes = fastjson2::to_vec(&order)?;
//! assert_eq!(fastjson2::from_slice::<Order>(&bytes)?, order);
//! assert_eq!(serde_json::to_string(&order)?, r#"{"amount":"1234.50"}"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use ::bigdecimal::num_bigint::{BigInt, Sign};
use serde::{de, ser, Deserialize, Deserializer, Serialize, Serializer};

use java_serde::decimal::java_text as java_decimal_text;

use super::convert::{from_text, ConvertError};
use super::{BigDecimal, BigInteger};

type Decimal = ::bigdecimal::BigDecimal;

const TO_JAVA: ConvertError = ConvertError::new("bigdecimal::BigDecimal", "java.math.BigDecimal");

impl TryFrom<&Decimal> for BigDecimal {
    type Error = ConvertError;
    /// The same unscaled value and scale; fails on a scale beyond Java's `int`.
    fn try_from(d: &Decimal) -> Result<Self, ConvertError> {
        let (unscaled, scale) = d.as_bigint_and_exponent();
        Ok(BigDecimal {
            unscaled: BigInteger::from(unscaled),
            scale: i32::try_from(scale).map_err(|_| TO_JAVA)?,
        })
    }
}

impl TryFrom<Decimal> for BigDecimal {
    type Error = ConvertError;
    fn try_from(d: Decimal) -> Result<Self, ConvertError> {
        BigDecimal::try_from(&d)
    }
}

impl From<BigDecimal> for Decimal {
    fn from(d: BigDecimal) -> Self {
        Decimal::new(BigInt::from(d.unscaled), d.scale.into())
    }
}

/// Serializes a `bigdecimal::BigDecimal` as a `java.math.BigDecimal` (in human-readable
/// formats, the string of Java's `toString()`).
pub fn serialize<S: Serializer>(v: &Decimal, s: S) -> Result<S::Ok, S::Error> {
    let java = BigDecimal::try_from(v).map_err(ser::Error::custom)?;
    if s.is_human_readable() {
        let (unscaled, scale) = v.as_bigint_and_exponent();
        let digits = unscaled.magnitude().to_str_radix(10);
        return s.collect_str(&java_decimal_text(
            unscaled.sign() == Sign::Minus,
            &digits,
            scale,
        ));
    }
    java.serialize(s)
}

/// Deserializes a `java.math.BigDecimal` (or, in human-readable formats, a decimal string in
/// Java's syntax, its scale kept).
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
    if d.is_human_readable() {
        let decimal: Decimal = from_text(d)?;
        BigDecimal::try_from(&decimal).map_err(de::Error::custom)?;
        return Ok(decimal);
    }
    Ok(Decimal::from(BigDecimal::deserialize(d)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unscaled_value_and_scale_carry_over_at_any_size() {
        let huge: BigInt = "-123456789012345678901234567890123456789012345678901234567890"
            .parse()
            .unwrap();
        for (unscaled, scale) in [
            (BigInt::from(123_450), 2),
            (BigInt::ZERO, 10),
            (BigInt::from(1), -5),
            (huge, 40),
            (BigInt::from(7), i64::from(i32::MIN)),
            (BigInt::from(-7), i64::from(i32::MAX)),
        ] {
            let d = Decimal::new(unscaled.clone(), scale);
            let java = BigDecimal::try_from(&d).unwrap();
            assert_eq!(i64::from(java.scale), scale);
            assert_eq!(java.unscaled, BigInteger::from(&unscaled));
            assert_eq!(
                Decimal::from(java).as_bigint_and_exponent(),
                (unscaled, scale)
            );
        }
        let wide = Decimal::new(BigInt::from(1), i64::from(i32::MAX) + 1);
        assert_eq!(BigDecimal::try_from(wide), Err(TO_JAVA));
    }
}
