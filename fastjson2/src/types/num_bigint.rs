//! Feature `num-bigint`: [`BigInteger`] to and from `num_bigint::BigInt` and `BigUint`, and
//! `serde(with)` modules so such a field travels as a `java.math.BigInteger` (in human-readable
//! formats: its decimal string, as Java's `toString()`), under the same names as
//! `hessian2::types::num_bigint`.
//!
//! | Java | num-bigint | `#[serde(with = ...)]` |
//! |---|---|---|
//! | `java.math.BigInteger` | `BigInt` | `fastjson2::types::num_bigint` |
//! | `java.math.BigInteger` (not negative) | `BigUint` | `fastjson2::types::num_bigint::biguint` |
//!
//! Any size converts both ways; a negative `BigInteger` has no `BigUint` ([`ConvertError`]).
//!
//! ```
//! use num_bigint::BigInt;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Account {
//!     #[serde(with = "fastjson2::types::num_bigint")]
//!     balance: BigInt,
//! }
//!
//! let account = Account { balance: BigInt::from(-12345678901234567890i128) };
//! let bytes = fastjson2::to_vec(&account)?;
//! assert_eq!(fastjson2::from_slice::<Account>(&bytes)?, account);
//! assert_eq!(serde_json::to_string(&account)?, r#"{"balance":"-12345678901234567890"}"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use ::num_bigint::{BigInt, BigUint};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::convert::{from_text, ConvertError};
use super::BigInteger;

impl From<&BigInt> for BigInteger {
    fn from(n: &BigInt) -> Self {
        BigInteger::from_be_bytes(&n.to_signed_bytes_be())
    }
}

impl From<BigInt> for BigInteger {
    fn from(n: BigInt) -> Self {
        BigInteger::from(&n)
    }
}

impl From<&BigInteger> for BigInt {
    fn from(n: &BigInteger) -> Self {
        BigInt::from_signed_bytes_be(n.as_be_bytes())
    }
}

impl From<BigInteger> for BigInt {
    fn from(n: BigInteger) -> Self {
        BigInt::from(&n)
    }
}

impl From<BigUint> for BigInteger {
    fn from(n: BigUint) -> Self {
        BigInteger::from(BigInt::from(n))
    }
}

impl TryFrom<BigInteger> for BigUint {
    type Error = ConvertError;
    /// Fails on a negative number.
    fn try_from(n: BigInteger) -> Result<Self, ConvertError> {
        BigInt::from(n).to_biguint().ok_or(ConvertError::new(
            "java.math.BigInteger",
            "num_bigint::BigUint",
        ))
    }
}

/// Serializes a `BigInt` as a `java.math.BigInteger` (its decimal string in human-readable
/// formats).
pub fn serialize<S: Serializer>(v: &BigInt, s: S) -> Result<S::Ok, S::Error> {
    if s.is_human_readable() {
        return s.collect_str(v);
    }
    BigInteger::from(v).serialize(s)
}

/// Deserializes a `java.math.BigInteger` (or, in human-readable formats, a decimal string).
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<BigInt, D::Error> {
    if d.is_human_readable() {
        return from_text(d);
    }
    BigInteger::deserialize(d).map(BigInt::from)
}

/// `num_bigint::BigUint` as a `java.math.BigInteger` (a negative one is an error).
pub mod biguint {
    use num_bigint::{BigInt, BigUint};
    use serde::{de, Deserializer, Serializer};

    /// Serializes a `BigUint` as a `java.math.BigInteger`.
    pub fn serialize<S: Serializer>(v: &BigUint, s: S) -> Result<S::Ok, S::Error> {
        super::serialize(&BigInt::from(v.clone()), s)
    }

    /// Deserializes a `java.math.BigInteger` that is not negative.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<BigUint, D::Error> {
        let n = super::deserialize(d)?;
        n.to_biguint().ok_or_else(|| {
            de::Error::custom(super::ConvertError::new(
                "java.math.BigInteger",
                "num_bigint::BigUint",
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_carry_over_at_any_size() {
        let huge = BigInt::from(1) << 1000u32;
        for n in [
            BigInt::ZERO,
            BigInt::from(-1),
            BigInt::from(128),
            BigInt::from(-129),
            huge.clone(),
            -huge,
        ] {
            let java = BigInteger::from(&n);
            assert_eq!(java.as_be_bytes(), n.to_signed_bytes_be(), "{n}");
            assert_eq!(BigInt::from(java), n);
        }
        assert_eq!(BigInteger::from(BigInt::ZERO).as_be_bytes(), [0]);
        assert!(BigUint::try_from(BigInteger::from(-1)).is_err());
        assert_eq!(
            BigUint::try_from(BigInteger::from(255)),
            Ok(BigUint::from(255u8))
        );
    }
}
