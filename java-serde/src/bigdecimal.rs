//! Feature `bigdecimal`: `bigdecimal::BigDecimal` as a `java.math.BigDecimal`, with
//! `#[serde(with = "java_serde::bigdecimal")]`. Both are an unscaled integer of any size and a
//! scale, so nothing is rounded and Java's scale survives (`1234.50`, `1E+5`); only a scale
//! beyond Java's `int` fails ([`ConvertError`]). In human-readable formats the value is the
//! text of Java's `toString()`, which `bigdecimal`'s parser reads back.

use std::fmt;

use ::bigdecimal::num_bigint::{BigInt, Sign};
use ::bigdecimal::BigDecimal;

use crate::decimal::java_text;
use crate::with::{with_fns, JavaValue};
use crate::{ConvertError, JavaType, Parts};

const TO: &str = "bigdecimal::BigDecimal";

impl JavaValue for BigDecimal {
    const TYPE: JavaType = JavaType::BigDecimal;
    fn to_parts(&self) -> Result<Parts, ConvertError> {
        let (unscaled, scale) = self.as_bigint_and_exponent();
        Ok(Parts::BigDecimal {
            unscaled: unscaled.to_signed_bytes_be(),
            scale: i32::try_from(scale)
                .map_err(|_| ConvertError::new(TO, "java.math.BigDecimal"))?,
        })
    }
    fn from_parts(parts: Parts) -> Result<Self, ConvertError> {
        match parts {
            Parts::BigDecimal { unscaled, scale } => Ok(BigDecimal::new(
                BigInt::from_signed_bytes_be(&unscaled),
                scale.into(),
            )),
            p => Err(ConvertError::new(p.java_type().class(), TO)),
        }
    }
    fn text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (unscaled, scale) = self.as_bigint_and_exponent();
        let digits = unscaled.magnitude().to_str_radix(10);
        f.write_str(&java_text(unscaled.sign() == Sign::Minus, &digits, scale))
    }
    fn parse(text: &str) -> Result<Self, String> {
        text.parse().map_err(|e| format!("{e}: {text:?}"))
    }
}

with_fns!(::bigdecimal::BigDecimal);
