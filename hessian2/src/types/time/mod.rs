//! The `java.time` types, as faithful carriers: the fields Java puts on the wire, no calendar
//! arithmetic, no validation beyond the field types (a month is a `u8`, not checked to be
//! 1-12), so whatever Java sent is read and written back unchanged.
//!
//! hessian-lite (3.2.13 and 4.0.x alike) writes each `java.time` value as a fresh
//! `com.alibaba.com.caucho.hessian.io.java8.<Type>Handle` object whose fields are the value's
//! parts, and Java reads such a handle back as the `java.time` value (`readResolve`). With this
//! crate's [`Serializer`](crate::Serializer) (and any serde format that is not human-readable)
//! these types are that handle object, fields in the order Java writes them; in human-readable
//! formats (serde_json, ...) they are the ISO-8601 text of Java's `toString()`, which their
//! [`FromStr`](std::str::FromStr) reads back.
//!
//! ```
//! use hessian2::types::{LocalDate, LocalDateTime, LocalTime};
//!
//! let at = LocalDateTime {
//!     date: LocalDate { year: 2024, month: 2, day: 29 },
//!     time: LocalTime { hour: 13, minute: 45, second: 30, nano: 0 },
//! };
//! let bytes = hessian2::to_vec(&at)?;
//! assert!(bytes.starts_with(b"C\x30\x3bcom.alibaba.com.caucho.hessian.io.java8.LocalDateTimeHandle"));
//! assert_eq!(hessian2::from_slice::<LocalDateTime>(&bytes)?, at);
//! assert_eq!(at.to_string(), "2024-02-29T13:45:30");
//! assert_eq!("2024-02-29T13:45:30".parse::<LocalDateTime>()?, at);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub(crate) mod iso;
mod local;
mod span;
#[cfg(feature = "time")]
mod time_crate;
mod zone;

pub use iso::ParseError;
pub use local::{LocalDate, LocalDateTime, LocalTime, MonthDay, Year, YearMonth};
pub use span::{Duration, Instant, Period};
pub use zone::{OffsetDateTime, OffsetTime, ZoneId, ZoneOffset, ZonedDateTime};

// Feature `time`: `serde(with)` modules for the `time` crate's types (see `time_crate`).
#[cfg(feature = "time")]
pub use time_crate::{
    duration, instant, local_date, local_date_time, local_time, offset_date_time, zone_offset,
};

/// The package of hessian-lite's `java.time` handle classes.
pub(crate) const HANDLES: &str = "com.alibaba.com.caucho.hessian.io.java8.";

/// The `java.time` class a hessian-lite handle class stands for
/// (`...java8.LocalDateHandle` → `java.time.LocalDate`), if it is one.
pub fn java_type_of_handle(class: &str) -> Option<&'static str> {
    let simple = class.strip_prefix(HANDLES)?.strip_suffix("Handle")?;
    JAVA_TIME_TYPES
        .iter()
        .copied()
        .find(|t| t.strip_prefix("java.time.") == Some(simple))
}

/// Every `java.time` type hessian-lite writes through a handle (each has a carrier here).
pub const JAVA_TIME_TYPES: [&str; 14] = [
    "java.time.LocalDate",
    "java.time.LocalTime",
    "java.time.LocalDateTime",
    "java.time.Instant",
    "java.time.Duration",
    "java.time.Period",
    "java.time.Year",
    "java.time.YearMonth",
    "java.time.MonthDay",
    "java.time.ZoneOffset",
    "java.time.ZoneId",
    "java.time.OffsetTime",
    "java.time.OffsetDateTime",
    "java.time.ZonedDateTime",
];

/// Serde for a carrier: in formats that are not human-readable, the handle object of class
/// `$handle` (a full hessian-lite class name) with the listed fields in the listed (Java's wire) order, each Rust
/// field under its Java name; in human-readable ones, the `Display` / `FromStr` text.
macro_rules! handle_serde {
    ($ty:ident, $handle:literal, { $($field:ident: $fty:ty => $java:literal),+ $(,)? }) => {
        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeStruct;
                if s.is_human_readable() {
                    return s.collect_str(self);
                }
                let mut st = s.serialize_struct($handle, [$($java),+].len())?;
                $(st.serialize_field($java, &self.$field)?;)+
                st.end()
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                #[derive(serde::Deserialize)]
                #[serde(rename = $handle)]
                struct Wire {
                    $(#[serde(rename = $java)] $field: $fty,)+
                }
                if d.is_human_readable() {
                    return d.deserialize_str($crate::types::time::iso::TextVisitor::new());
                }
                let w = Wire::deserialize(d)?;
                Ok($ty { $($field: w.$field),+ })
            }
        }
    };
}
pub(crate) use handle_serde;

#[cfg(test)]
mod tests {
    use super::java_type_of_handle;

    #[test]
    fn handle_classes_name_their_java_types() {
        assert_eq!(
            java_type_of_handle("com.alibaba.com.caucho.hessian.io.java8.ZonedDateTimeHandle"),
            Some("java.time.ZonedDateTime")
        );
        assert_eq!(
            java_type_of_handle("com.alibaba.com.caucho.hessian.io.LocaleHandle"),
            None
        );
        assert_eq!(
            java_type_of_handle("com.alibaba.com.caucho.hessian.io.java8.BogusHandle"),
            None
        );
    }
}
