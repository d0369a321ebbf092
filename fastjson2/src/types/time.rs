//! Feature `time`: the `java.time` carriers to and from the `time` crate's types, and
//! `serde(with)` modules so a DTO field of a `time` type travels as the Java type, mapped as
//! feature `chrono` maps chrono's, under the same names as `hessian2::types::time`.
//!
//! | Java | time | `#[serde(with = ...)]` |
//! |---|---|---|
//! | `java.time.LocalDate` | `Date` | `fastjson2::types::time::local_date` |
//! | `java.time.LocalTime` | `Time` | `fastjson2::types::time::local_time` |
//! | `java.time.LocalDateTime` | `PrimitiveDateTime` | `fastjson2::types::time::local_date_time` |
//! | `java.time.Instant` | `OffsetDateTime` (read back at UTC) | `fastjson2::types::time::instant` |
//! | `java.time.OffsetDateTime` | `OffsetDateTime` (its offset kept) | `TryFrom` both ways (as a field: `java_serde::time::offset_date_time`) |
//! | `java.time.ZoneOffset` | `UtcOffset` | `TryFrom` both ways |
//! | `java.time.Duration` | `Duration` | `TryFrom` both ways (as a field: `java_serde::time::duration`) |
//!
//! With this crate the field is the value's JSONB form; in human-readable formats (serde_json)
//! it is the text the `time` crate's own serde writes (RFC 3339 for an instant). Converting to
//! `time` fails with [`ConvertError`] where a field is not a real date or time, or an instant
//! is beyond `time`'s years (±9999).
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use time::{Date, Month, PrimitiveDateTime, Time};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Order {
//!     #[serde(with = "fastjson2::types::time::local_date_time")]
//!     placed: PrimitiveDateTime,
//! }
//!
//! let day = Date::from_calendar_date(2024, Month::February, 29)?;
//! let order = Order { placed: PrimitiveDateTime::new(day, Time::from_hms(13, 45, 30)?) };
//! let bytes = fastjson2::to_vec(&order)?;
//! assert_eq!(fastjson2::from_slice::<Order>(&bytes)?, order);
//! let json = serde_json::to_string(&order)?;
//! assert_eq!(serde_json::from_str::<Order>(&json)?, order);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use ::time::{Date, Month, PrimitiveDateTime, Time, UtcOffset};

use super::convert::ConvertError;
use super::{Duration, Instant, LocalDate, LocalDateTime, LocalTime, OffsetDateTime, ZoneOffset};

/// Java's offsets are within ±18:00.
const MAX_OFFSET: i32 = java_serde::text::MAX_OFFSET_SECONDS as i32;

impl From<Date> for LocalDate {
    /// `time`'s years (±9999) fit the JSONB form's 16 bits.
    fn from(d: Date) -> Self {
        LocalDate {
            year: d.year() as i16,
            month: d.month().into(),
            day: d.day(),
        }
    }
}

impl TryFrom<LocalDate> for Date {
    type Error = ConvertError;
    fn try_from(d: LocalDate) -> Result<Self, ConvertError> {
        Month::try_from(d.month)
            .and_then(|m| Date::from_calendar_date(d.year.into(), m, d.day))
            .map_err(|_| ConvertError::new("java.time.LocalDate", "time::Date"))
    }
}

impl From<Time> for LocalTime {
    fn from(t: Time) -> Self {
        let (hour, minute, second, nano) = t.as_hms_nano();
        LocalTime {
            hour,
            minute,
            second,
            nano: nano as i32,
        }
    }
}

impl TryFrom<LocalTime> for Time {
    type Error = ConvertError;
    fn try_from(t: LocalTime) -> Result<Self, ConvertError> {
        u32::try_from(t.nano)
            .ok()
            .and_then(|nano| Time::from_hms_nano(t.hour, t.minute, t.second, nano).ok())
            .ok_or(ConvertError::new("java.time.LocalTime", "time::Time"))
    }
}

impl From<PrimitiveDateTime> for LocalDateTime {
    fn from(t: PrimitiveDateTime) -> Self {
        LocalDateTime {
            date: t.date().into(),
            time: t.time().into(),
        }
    }
}

impl TryFrom<LocalDateTime> for PrimitiveDateTime {
    type Error = ConvertError;
    fn try_from(t: LocalDateTime) -> Result<Self, ConvertError> {
        Ok(PrimitiveDateTime::new(
            t.date.try_into()?,
            t.time.try_into()?,
        ))
    }
}

impl From<::time::OffsetDateTime> for Instant {
    fn from(t: ::time::OffsetDateTime) -> Self {
        Instant {
            seconds: t.unix_timestamp(),
            nanos: t.nanosecond() as i32,
        }
    }
}

impl TryFrom<Instant> for ::time::OffsetDateTime {
    type Error = ConvertError;
    /// The instant at UTC.
    fn try_from(i: Instant) -> Result<Self, ConvertError> {
        let nanos = i128::from(i.seconds) * 1_000_000_000 + i128::from(i.nanos);
        ::time::OffsetDateTime::from_unix_timestamp_nanos(nanos)
            .map_err(|_| ConvertError::new("java.time.Instant", "time::OffsetDateTime"))
    }
}

impl TryFrom<UtcOffset> for ZoneOffset {
    type Error = ConvertError;
    /// Fails beyond Java's ±18:00.
    fn try_from(o: UtcOffset) -> Result<Self, ConvertError> {
        let total_seconds = o.whole_seconds();
        if total_seconds.abs() > MAX_OFFSET {
            return Err(ConvertError::new("time::UtcOffset", "java.time.ZoneOffset"));
        }
        Ok(ZoneOffset { total_seconds })
    }
}

impl TryFrom<ZoneOffset> for UtcOffset {
    type Error = ConvertError;
    fn try_from(o: ZoneOffset) -> Result<Self, ConvertError> {
        Some(o.total_seconds)
            .filter(|s| s.abs() <= MAX_OFFSET)
            .and_then(|s| UtcOffset::from_whole_seconds(s).ok())
            .ok_or(ConvertError::new("java.time.ZoneOffset", "time::UtcOffset"))
    }
}

impl TryFrom<::time::OffsetDateTime> for OffsetDateTime {
    type Error = ConvertError;
    /// The local date and time and the offset, as Java's `OffsetDateTime` holds them.
    fn try_from(t: ::time::OffsetDateTime) -> Result<Self, ConvertError> {
        Ok(OffsetDateTime {
            date_time: PrimitiveDateTime::new(t.date(), t.time()).into(),
            offset: t.offset().try_into()?,
        })
    }
}

impl TryFrom<OffsetDateTime> for ::time::OffsetDateTime {
    type Error = ConvertError;
    fn try_from(t: OffsetDateTime) -> Result<Self, ConvertError> {
        let offset = UtcOffset::try_from(t.offset)?;
        Ok(PrimitiveDateTime::try_from(t.date_time)?.assume_offset(offset))
    }
}

impl TryFrom<::time::Duration> for Duration {
    type Error = ConvertError;
    /// Kept as Java keeps it (seconds floored, nanoseconds 0-999,999,999); fails only below
    /// Java's `Duration` minimum (`time`'s reaches one nanosecond less).
    fn try_from(d: ::time::Duration) -> Result<Self, ConvertError> {
        let (seconds, nanos) = (d.whole_seconds(), d.subsec_nanoseconds());
        if nanos >= 0 {
            return Ok(Duration { seconds, nanos });
        }
        seconds
            .checked_sub(1)
            .map(|seconds| Duration {
                seconds,
                nanos: nanos + 1_000_000_000,
            })
            .ok_or(ConvertError::new("time::Duration", "java.time.Duration"))
    }
}

impl TryFrom<Duration> for ::time::Duration {
    type Error = ConvertError;
    /// Fails for nanoseconds outside 0-999,999,999.
    fn try_from(d: Duration) -> Result<Self, ConvertError> {
        Some(d.nanos)
            .filter(|n| (0..1_000_000_000).contains(n))
            .and_then(|n| {
                ::time::Duration::seconds(d.seconds)
                    .checked_add(::time::Duration::nanoseconds(n.into()))
            })
            .ok_or(ConvertError::new("java.time.Duration", "time::Duration"))
    }
}

/// A `serde(with)` module for the `time` type `$rust` travelling as the carrier `$java`,
/// written in human-readable formats by `$text` (a module of `serialize` and `deserialize`
/// with `time`'s own text).
macro_rules! with_module {
    ($(#[$doc:meta])* $name:ident, $rust:ty, $java:ty, $text:path) => {
        $(#[$doc])*
        pub mod $name {
            use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

            /// Serializes as the Java type (`time`'s text in human-readable formats).
            pub fn serialize<S: Serializer>(v: &$rust, s: S) -> Result<S::Ok, S::Error> {
                use $text as text;
                if s.is_human_readable() {
                    return text::serialize(v, s);
                }
                <$java>::from(*v).serialize(s)
            }

            /// Deserializes the Java type (`time`'s text in human-readable formats).
            pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<$rust, D::Error> {
                use $text as text;
                if d.is_human_readable() {
                    return text::deserialize(d);
                }
                <$rust>::try_from(<$java>::deserialize(d)?).map_err(de::Error::custom)
            }
        }
    };
}

/// `time`'s own serde for a type that has it, as a `serde(with)`-shaped module.
mod own {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<T: Serialize, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        v.serialize(s)
    }

    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<T, D::Error> {
        T::deserialize(d)
    }
}

with_module!(
    /// `time::Date` as a `java.time.LocalDate`.
    local_date,
    ::time::Date,
    crate::types::LocalDate,
    super::own
);
with_module!(
    /// `time::Time` as a `java.time.LocalTime`.
    local_time,
    ::time::Time,
    crate::types::LocalTime,
    super::own
);
with_module!(
    /// `time::PrimitiveDateTime` as a `java.time.LocalDateTime`.
    local_date_time,
    ::time::PrimitiveDateTime,
    crate::types::LocalDateTime,
    super::own
);
with_module!(
    /// `time::OffsetDateTime` as a `java.time.Instant` (read back at UTC; RFC 3339 text in
    /// human-readable formats).
    instant,
    ::time::OffsetDateTime,
    crate::types::Instant,
    ::time::serde::rfc3339
);
