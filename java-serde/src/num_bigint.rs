//! Feature `num-bigint`: num-bigint's integers as a `java.math.BigInteger`, with
//! `#[serde(with = "java_serde::num_bigint")]` for a `BigInt` and
//! `#[serde(with = "java_serde::num_bigint::biguint")]` for a `BigUint` (a negative Java value
//! fails with a [`ConvertError`]); in human-readable formats, the decimal text.

use std::fmt;

use ::num_bigint::{BigInt, BigUint, Sign};

use crate::with::{with_fns, with_module, JavaValue};
use crate::{ConvertError, JavaType, Parts};

fn bytes(parts: Parts, to: &'static str) -> Result<Vec<u8>, ConvertError> {
    match parts {
        Parts::BigInteger(b) => Ok(b),
        p => Err(ConvertError::new(p.java_type().class(), to)),
    }
}

impl JavaValue for BigInt {
    const TYPE: JavaType = JavaType::BigInteger;
    fn to_parts(&self) -> Result<Parts, ConvertError> {
        Ok(Parts::BigInteger(self.to_signed_bytes_be()))
    }
    fn from_parts(parts: Parts) -> Result<Self, ConvertError> {
        Ok(BigInt::from_signed_bytes_be(&bytes(
            parts,
            "num_bigint::BigInt",
        )?))
    }
    fn text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
    fn parse(text: &str) -> Result<Self, String> {
        text.parse().map_err(|e| format!("{e}: {text:?}"))
    }
}

impl JavaValue for BigUint {
    const TYPE: JavaType = JavaType::BigInteger;
    fn to_parts(&self) -> Result<Parts, ConvertError> {
        Ok(Parts::BigInteger(
            BigInt::from(self.clone()).to_signed_bytes_be(),
        ))
    }
    fn from_parts(parts: Parts) -> Result<Self, ConvertError> {
        const TO: &str = "num_bigint::BigUint";
        let v = BigInt::from_signed_bytes_be(&bytes(parts, TO)?);
        match v.sign() {
            Sign::Minus => Err(ConvertError::new("java.math.BigInteger", TO)),
            _ => Ok(v.magnitude().clone()),
        }
    }
    fn text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
    fn parse(text: &str) -> Result<Self, String> {
        text.parse().map_err(|e| format!("{e}: {text:?}"))
    }
}

with_fns!(::num_bigint::BigInt);
with_module!(
    /// `num_bigint::BigUint` as a `java.math.BigInteger`.
    biguint,
    ::num_bigint::BigUint
);
