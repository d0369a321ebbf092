//! Java value types that have no natural Rust counterpart in `std`: big numbers and the
//! `java.time` / `java.util.Date` values, kept exactly as the wire carries them (no calendar
//! arithmetic, no validation: a faithful carrier).
//!
//! The names, fields and text are `hessian2::types`'s: a carrier of the same name in both crates
//! holds the same public fields where the two wire forms carry the same parts (a
//! [`LocalDate`]'s `year` is an `i16` here, the two bytes JSONB has for it), `Display`s
//! and parses ([`FromStr`](std::str::FromStr), a typed [`ParseError`], never a panic) Java's
//! `toString()` text, and is that text in human-readable formats (serde_json), from the one
//! implementation in `java_serde::text`. With this crate's [`Serializer`](crate::Serializer)
//! and [`Deserializer`](crate::Deserializer) each is what fastjson2 2.0.52 and 2.0.56 write
//! (Dubbo's writer features), byte for byte (`tests/java_types.rs` reads and writes Java's
//! vectors):
//!
//! | Java | Rust | JSONB (fastjson2) | human-readable |
//! |---|---|---|---|
//! | `java.util.Date` | [`Date`] (milliseconds) | a date | the milliseconds |
//! | `java.time.LocalDate`, `LocalTime`, `LocalDateTime`, `Instant` | [`LocalDate`], [`LocalTime`], [`LocalDateTime`], [`Instant`] | their own codes (a date's year in two bytes) | Java's text |
//! | `java.time.ZonedDateTime` | [`ZonedDateTime`] (date-time and zone id: the wire has no offset, unlike hessian2's) | its own code | opaque bytes |
//! | `java.time.Duration`, `Period` | [`Duration`], [`Period`] | its `toString()`, a string | Java's text |
//! | `java.time.ZoneOffset`, `ZoneId` | [`ZoneOffset`], [`ZoneId`] | its id, a string | Java's text |
//! | `java.time.Year`, `YearMonth`, `MonthDay` | [`Year`], [`YearMonth`], [`MonthDay`] | an object of its fields, typed with its class | Java's text |
//! | `java.time.OffsetDateTime`, `OffsetTime` | [`OffsetDateTime`], [`OffsetTime`] | a zoned date-time whose zone is the offset id (`OffsetTime` on 1970-01-01) | Java's text |
//! | `java.sql.Date` | [`sql::Date`] (a [`Date`], as hessian2's) | a date | `{"value": milliseconds}`, as hessian2's |
//! | `java.sql.Time`, `Timestamp` | [`sql::Time`], [`sql::Timestamp`] (the [`LocalTime`] / [`LocalDateTime`] Java wrote in its zone) | `HH:mm:ss`, a local date-time | its text |
//! | `java.math.BigInteger`, `BigDecimal` | [`BigInteger`], [`BigDecimal`] | their own codes | opaque bytes |
//! | `java.util.UUID` | [`Uuid`] (`u128`) | a 16-byte binary | Java's text |
//! | `java.util.Locale` | [`Locale`] | its `toString()`, a string | the same |
//!
//! `hessian2::types::JavaClass` (`java.lang.Class`) has no counterpart here: Dubbo reads
//! fastjson2 with features that refuse to read a `Class`, so no value of it travels.
//!
//! Optional features (off by default) map them to the crates Rust services use, with
//! `serde(with)` modules named as in `hessian2::types`:
//!
//! | feature | Rust type | Java type | module |
//! |---|---|---|---|
//! | `chrono` | `NaiveDate`, `NaiveTime`, `NaiveDateTime`, `DateTime<Utc>` | `LocalDate`, `LocalTime`, `LocalDateTime`, `Instant` | `types::chrono` (feature `chrono`) |
//! | `chrono` | `DateTime<FixedOffset>`, `TimeDelta` | `OffsetDateTime`, `Duration` | conversions; fields: `java_serde::chrono::offset_date_time`, `duration` |
//! | `time` | `Date`, `Time`, `PrimitiveDateTime`, `OffsetDateTime` | `LocalDate`, `LocalTime`, `LocalDateTime`, `Instant` | `types::time` (feature `time`) |
//! | `time` | `OffsetDateTime`, `UtcOffset`, `Duration` | `OffsetDateTime`, `ZoneOffset`, `Duration` | conversions; fields: `java_serde::time::offset_date_time`, `duration` |
//! | `uuid` | `uuid::Uuid` | `java.util.UUID` (a 16-byte binary) | `types::uuid` (feature `uuid`) |
//! | `rust_decimal` | `rust_decimal::Decimal` | `java.math.BigDecimal` | `types::rust_decimal` (feature `rust_decimal`) |
//! | `num-bigint` | `num_bigint::BigInt`, `BigUint` | `java.math.BigInteger` | `types::num_bigint` (feature `num-bigint`) |
//! | `bigdecimal` | `bigdecimal::BigDecimal` | `java.math.BigDecimal` (any size and scale) | `types::bigdecimal` (feature `bigdecimal`) |
//!
//! Where fastjson2 writes a value as a string (`Duration`, `Period`, `ZoneId`, `ZoneOffset`,
//! `Locale`, `java.sql.Time`), a Rust `String` field takes it too; see
//! `interop/fastjson2-java/README.md` for what Java writes.
//!
//! Java's enum collections, `Optional` and `Currency`, as fastjson2 writes them (every type of
//! the table in `interop/fastjson2-java/README.md` is read and written typed in
//! `tests/java_types.rs`):
//!
//! | Java | Rust | JSONB |
//! |---|---|---|
//! | a Java enum | a Rust enum of unit variants named as the constants | its name (with its class name where Java held it as `Object`) |
//! | `java.util.EnumSet` | [`EnumSet<E>`] | an array typed `java.util.RegularEnumSet` of constants typed with their enum's class (Java cannot read back an empty one) |
//! | `java.util.EnumMap` | [`EnumMap<K, V>`] | an object typed `java.util.EnumMap` whose keys are constants typed with their class |
//! | `java.util.Optional` | `Option<T>` | the value, or null: no wrapper |
//! | `java.util.Currency` | [`Currency`] | the class name `Currency`, then the code |
//! | a POJO or enum where the declared type names its class | [`Declared<T>`] | no class name; an enum constant as its ordinal |
//!
//! One annotation for both serializations: the `serde(with)` modules of the
//! [`java_serde`] crate (`java_serde::chrono::local_date_time`, `java_serde::rust_decimal`,
//! ...) are recognised by this crate and written as this module's carriers, so a DTO
//! annotated with them is byte-identical with Java here and in `hessian2` alike.

#[cfg(feature = "bigdecimal")]
pub mod bigdecimal;
#[cfg(feature = "chrono")]
pub mod chrono;
mod convert;
mod declared;
mod enums;
mod java_time;
mod jdk;
mod named;
#[cfg(feature = "num-bigint")]
pub mod num_bigint;
#[cfg(feature = "rust_decimal")]
pub mod rust_decimal;
mod serde_impls;
pub mod sql;
#[cfg(feature = "time")]
pub mod time;
#[cfg(feature = "uuid")]
pub mod uuid;
pub(crate) mod vocabulary;

pub use convert::ConvertError;
pub use declared::Declared;
pub use enums::{EnumMap, EnumSet};
pub use java_serde::text::ParseError;
pub use java_time::{
    Duration, MonthDay, OffsetDateTime, OffsetTime, Period, Year, YearMonth, ZoneId, ZoneOffset,
};
pub use jdk::{Currency, Locale, Uuid};

/// A `java.math.BigInteger`: its two's complement big-endian bytes, minimal (Java's
/// `BigInteger.toByteArray()`; zero is `[0]`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BigInteger(Vec<u8>);

impl BigInteger {
    /// From `toByteArray()` bytes; leading sign bytes are dropped so equal numbers compare equal.
    /// Empty bytes are zero.
    pub fn from_be_bytes(bytes: &[u8]) -> Self {
        match java_serde::decimal::minimal_bytes(bytes) {
            [] => BigInteger(vec![0]),
            rest => BigInteger(rest.to_vec()),
        }
    }

    /// The bytes of `toByteArray()`.
    pub fn as_be_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The value as an `i64`, if it fits.
    pub fn to_i64(&self) -> Option<i64> {
        if self.0.len() > 8 {
            return None;
        }
        let negative = self.0[0] & 0x80 != 0;
        let mut v: i64 = if negative { -1 } else { 0 };
        for &b in &self.0 {
            v = (v << 8) | i64::from(b);
        }
        Some(v)
    }

    /// The value as an `i32`, if it fits.
    pub fn to_i32(&self) -> Option<i32> {
        self.to_i64().and_then(|v| i32::try_from(v).ok())
    }
}

impl From<i64> for BigInteger {
    fn from(v: i64) -> Self {
        BigInteger::from_be_bytes(&v.to_be_bytes())
    }
}

/// A `java.math.BigDecimal`: `unscaled * 10^-scale`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BigDecimal {
    /// The unscaled value.
    pub unscaled: BigInteger,
    /// The scale (negative for `1E+5`).
    pub scale: i32,
}

/// A `java.util.Date`: milliseconds since 1970-01-01T00:00Z.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Date(pub i64);

/// A `java.time.Instant`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Instant {
    /// Seconds since 1970-01-01T00:00Z.
    pub seconds: i64,
    /// Nanoseconds within the second.
    pub nanos: i32,
}

/// A `java.time.LocalDate`. The wire has two bytes for the year (Java truncates others).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalDate {
    /// Year.
    pub year: i16,
    /// Month, 1-12.
    pub month: u8,
    /// Day of the month, 1-31.
    pub day: u8,
}

/// A `java.time.LocalTime`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalTime {
    /// Hour, 0-23.
    pub hour: u8,
    /// Minute, 0-59.
    pub minute: u8,
    /// Second, 0-59.
    pub second: u8,
    /// Nanoseconds within the second.
    pub nano: i32,
}

/// A `java.time.LocalDateTime`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalDateTime {
    /// The date.
    pub date: LocalDate,
    /// The time of day.
    pub time: LocalTime,
}

/// A `java.time.ZonedDateTime` or `OffsetDateTime`: local date and time and the zone id
/// (`"Asia/Shanghai"`, `"UTC"`, `"-05:00"`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ZonedDateTime {
    /// The local date and time in that zone.
    pub date_time: LocalDateTime,
    /// The zone id.
    pub zone: String,
}

#[cfg(test)]
mod tests {
    use super::BigInteger;

    #[test]
    fn big_integer_is_minimal_and_round_trips_i64() {
        for v in [
            0i64,
            1,
            -1,
            127,
            128,
            -128,
            -129,
            1 << 40,
            i64::MIN,
            i64::MAX,
        ] {
            let b = BigInteger::from(v);
            assert_eq!(b.to_i64(), Some(v), "{v}");
            let java_len =
                (64 - if v < 0 {
                    (!v).leading_zeros()
                } else {
                    v.leading_zeros()
                }) / 8
                    + 1;
            assert_eq!(b.as_be_bytes().len(), java_len as usize, "{v}");
        }
        assert_eq!(BigInteger::from_be_bytes(&[0, 0, 1]).as_be_bytes(), &[1]);
        assert_eq!(
            BigInteger::from_be_bytes(&[0xff, 0xff, 0x80]).as_be_bytes(),
            &[0x80]
        );
        assert_eq!(
            BigInteger::from_be_bytes(&[0, 0x80]).as_be_bytes(),
            &[0, 0x80]
        );
        assert_eq!(BigInteger::from_be_bytes(&[1; 9]).to_i64(), None);
    }
}
