//! The error of converting a Java type carrier to or from another crate's type (the same enum
//! as `hessian2::types::ConvertError`).

/// A value that the target type cannot hold: outside its range (the JSONB `LocalDate` has a
/// 16-bit year, chrono's years stop at ±262,142), or fields that are not a real date or time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// The value has no counterpart in the target type.
    #[error("this {from} has no {to}")]
    OutOfRange {
        /// The type converted from, e.g. `java.time.LocalDate`.
        from: &'static str,
        /// The type converted to, e.g. `chrono::NaiveDate`.
        to: &'static str,
    },
}

#[cfg(any(
    feature = "chrono",
    feature = "rust_decimal",
    feature = "num-bigint",
    feature = "time"
))]
impl ConvertError {
    pub(crate) const fn new(from: &'static str, to: &'static str) -> Self {
        ConvertError::OutOfRange { from, to }
    }
}

/// Reads a value of a `serde(with)` module from its text in a human-readable format
/// (`"12345678901234567890"` for a `BigInteger`).
#[cfg(any(feature = "num-bigint", feature = "bigdecimal"))]
pub(crate) fn from_text<'de, T, D>(d: D) -> Result<T, D::Error>
where
    T: std::str::FromStr<Err: std::fmt::Display>,
    D: serde::Deserializer<'de>,
{
    use serde::Deserialize;
    let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
    text.parse().map_err(serde::de::Error::custom)
}
