//! Feature `rust_decimal`: [`BigDecimal`] to and from `rust_decimal::Decimal`, and a
//! `serde(with)` module so a `Decimal` field travels as a `java.math.BigDecimal`, under the
//! same name as `hessian2::types::rust_decimal` (in human-readable formats: its decimal string).
//! The unscaled value and scale carry over exactly; the other way fails with [`ConvertError`]
//! beyond `Decimal`'s 96 bits or 28 decimal places (nothing is rounded), and a negative Java
//! scale (`1E+5`) becomes scale 0.
//!
//! ```
//! use rust_decimal::Decimal;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Order {
//!     #[serde(with = "fastjson2::types::rust_decimal")]
//!     amount: Decimal,
//! }
//!
//! let order = Order { amount: Decimal::new(123450, 2) };
//! let bytes = fastjson2::to_vec(&order)?;
//! assert_eq!(fastjson2::from_slice::<Order>(&bytes)?, order);
//! assert_eq!(serde_json::to_string(&order)?, r#"{"amount":"1234.50"}"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use ::rust_decimal::Decimal;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

use super::convert::ConvertError;
use super::{BigDecimal, BigInteger};

const OUT: ConvertError = ConvertError::new("java.math.BigDecimal", "rust_decimal::Decimal");

impl From<Decimal> for BigDecimal {
    fn from(d: Decimal) -> Self {
        BigDecimal {
            unscaled: BigInteger::from_be_bytes(&d.mantissa().to_be_bytes()),
            scale: d.scale() as i32,
        }
    }
}

impl TryFrom<BigDecimal> for Decimal {
    type Error = ConvertError;
    fn try_from(d: BigDecimal) -> Result<Self, ConvertError> {
        let bytes = d.unscaled.as_be_bytes();
        if bytes.len() > 16 {
            return Err(OUT);
        }
        // Sign-extend the two's complement bytes to 16.
        let fill = if bytes[0] & 0x80 != 0 { 0xff } else { 0 };
        let mut wide = [fill; 16];
        wide[16 - bytes.len()..].copy_from_slice(bytes);
        let mut mantissa = i128::from_be_bytes(wide);
        let mut scale = i64::from(d.scale);
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
    if s.is_human_readable() {
        return s.collect_str(v);
    }
    BigDecimal::from(*v).serialize(s)
}

/// Deserializes a `java.math.BigDecimal` (or, in human-readable formats, a decimal string).
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
    if d.is_human_readable() {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        return Decimal::from_str_exact(&text).map_err(de::Error::custom);
    }
    Decimal::try_from(BigDecimal::deserialize(d)?).map_err(de::Error::custom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unscaled_value_and_scale_carry_over() {
        for (mantissa, scale) in [(123_450i64, 2u32), (-5, 1), (0, 3), (i64::MIN, 28)] {
            let d = Decimal::new(mantissa, scale);
            let java = BigDecimal::from(d);
            assert_eq!(java.scale, scale as i32);
            assert_eq!(java.unscaled.to_i64(), Some(mantissa));
            assert_eq!(Decimal::try_from(java), Ok(d));
        }
        let big = |unscaled: i64, scale| BigDecimal {
            unscaled: BigInteger::from(unscaled),
            scale,
        };
        assert_eq!(Decimal::try_from(big(1, -5)), Ok(Decimal::new(100_000, 0)));
        assert_eq!(Decimal::try_from(big(1, 29)), Err(OUT));
        assert_eq!(Decimal::try_from(big(1, -29)), Err(OUT));
        let huge = BigDecimal {
            unscaled: BigInteger::from_be_bytes(&[0x7f; 17]),
            scale: 0,
        };
        assert_eq!(Decimal::try_from(huge), Err(OUT));
    }
}
