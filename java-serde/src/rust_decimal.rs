//! Feature `rust_decimal`: `rust_decimal::Decimal` as a `java.math.BigDecimal`, with
//! `#[serde(with = "java_serde::rust_decimal")]`; in human-readable formats, its decimal text
//! (`1234.50`). The unscaled value and scale carry over exactly; Java's value fails with a
//! [`ConvertError`] beyond `Decimal`'s 96 bits or 28 places (nothing is rounded), and a
//! negative Java scale (`1E+5`) becomes scale 0.

use std::fmt;

use ::rust_decimal::Decimal;

use crate::convert::{be_bytes, from_be_bytes};
use crate::with::{with_fns, JavaValue};
use crate::{ConvertError, JavaType, Parts};

const TO: &str = "rust_decimal::Decimal";
const OUT: ConvertError = ConvertError::new("java.math.BigDecimal", TO);

impl JavaValue for Decimal {
    const TYPE: JavaType = JavaType::BigDecimal;
    fn to_parts(&self) -> Result<Parts, ConvertError> {
        Ok(Parts::BigDecimal {
            unscaled: be_bytes(self.mantissa()),
            scale: self.scale() as i32,
        })
    }
    fn from_parts(parts: Parts) -> Result<Self, ConvertError> {
        let Parts::BigDecimal { unscaled, scale } = parts else {
            return Err(ConvertError::new(parts.java_type().class(), TO));
        };
        let mut mantissa = from_be_bytes(&unscaled).ok_or(OUT)?;
        let mut scale = i64::from(scale);
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
    fn text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
    fn parse(text: &str) -> Result<Self, String> {
        text.parse().map_err(|e| format!("{e}: {text:?}"))
    }
}

with_fns!(::rust_decimal::Decimal);
