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

#[cfg(any(
    feature = "chrono",
    feature = "rust_decimal",
    feature = "num-bigint",
    feature = "bigdecimal",
    feature = "time"
))]
impl ConvertError {
    pub(crate) const fn new(from: &'static str, to: &'static str) -> Self {
        ConvertError::OutOfRange { from, to }
    }
}

/// Java's nanoseconds of a second as a `u32`, if they are one (0-999,999,999).
#[cfg(any(feature = "chrono", feature = "time"))]
pub(crate) fn nanos_of_second(nanos: i32) -> Option<u32> {
    u32::try_from(nanos).ok().filter(|&n| n < 1_000_000_000)
}

/// A `serde(with)` module for the type `$rust` (chrono's, time's) travelling as the carrier
/// `$java`: `TryFrom` both ways, the carrier's serde (its Java text in human-readable formats).
#[cfg(any(feature = "chrono", feature = "time"))]
macro_rules! with_module {
    ($(#[$doc:meta])* $name:ident, $rust:ty, $java:ty) => {
        $(#[$doc])*
        pub mod $name {
            use serde::{de, ser, Deserialize, Deserializer, Serialize, Serializer};

            /// Serializes as the Java type.
            pub fn serialize<S: Serializer>(v: &$rust, s: S) -> Result<S::Ok, S::Error> {
                <$java>::try_from(*v).map_err(ser::Error::custom)?.serialize(s)
            }

            /// Deserializes the Java type.
            pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<$rust, D::Error> {
                <$rust>::try_from(<$java>::deserialize(d)?).map_err(de::Error::custom)
            }
        }
    };
}
#[cfg(any(feature = "chrono", feature = "time"))]
pub(crate) use with_module;
