//! The error of converting a Java type carrier to or from another crate's type.

/// A value that the target type cannot hold: outside its range (chrono's years stop at
/// ±262,142, Java's at ±999,999,999), or fields that are not a real date, time or offset.
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

#[cfg(any(feature = "chrono", feature = "rust_decimal", feature = "num-bigint"))]
impl ConvertError {
    pub(crate) const fn new(from: &'static str, to: &'static str) -> Self {
        ConvertError::OutOfRange { from, to }
    }
}
