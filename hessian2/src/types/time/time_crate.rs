//! Feature `time`: the `java.time` carriers to and from the `time` crate's types, and
//! `serde(with)` modules so a DTO field of a `time` type travels as the Java type, mapped as
//! feature `chrono` maps chrono's.
//!
//! | Java | time | `#[serde(with = ...)]` |
//! |---|---|---|
//! | `java.time.LocalDate` | `Date` | `hessian2::types::time::local_date` |
//! | `java.time.LocalTime` | `Time` | `hessian2::types::time::local_time` |
//! | `java.time.LocalDateTime` | `PrimitiveDateTime` | `hessian2::types::time::local_date_time` |
//! | `java.time.Instant` | `OffsetDateTime` (read back at UTC) | `hessian2::types::time::instant` |
//! | `java.time.OffsetDateTime` | `OffsetDateTime` | `hessian2::types::time::offset_date_time` |
//! | `java.time.ZoneOffset` | `UtcOffset` | `hessian2::types::time::zone_offset` |
//! | `java.time.Duration` | `Duration` | `hessian2::types::time::duration` |
//!
//! With this crate the field is the Java value's handle object; in human-readable formats
//! (serde_json) it is the ISO-8601 text of Java's `toString()`. Converting to `time` fails with
//! [`ConvertError`] where `time`'s range is narrower than Java's (years beyond ±9999), a field
//! is not a real date or time, or an offset passes ±18:00 (Java's limit, `time`'s is ±25:59:59).
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use time::{Date, Month, PrimitiveDateTime, Time};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! #[serde(rename = "com.example.Order")]
//! struct Order {
//!     #[serde(with = "hessian2::types::time::local_date_time")]
//!     placed: PrimitiveDateTime,
//! }
//!
//! let day = Date::from_calendar_date(2024, Month::February, 29)?;
//! let order = Order { placed: PrimitiveDateTime::new(day, Time::from_hms(13, 45, 30)?) };
//! let bytes = hessian2::to_vec(&order)?;
//! assert_eq!(hessian2::from_slice::<Order>(&bytes)?, order);
//! assert_eq!(serde_json::to_string(&order)?, r#"{"placed":"2024-02-29T13:45:30"}"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`ConvertError`]: crate::types::ConvertError

use ::time::{Date, Month, PrimitiveDateTime, Time, UtcOffset};

use super::{Duration, Instant, LocalDate, LocalDateTime, LocalTime, OffsetDateTime, ZoneOffset};
use crate::types::convert::{nanos_of_second, with_module, ConvertError};

/// Java's `ZoneOffset.MAX_SECONDS`.
const MAX_OFFSET: i32 = 18 * 3600;

impl From<Date> for LocalDate {
    fn from(d: Date) -> Self {
        LocalDate {
            year: d.year(),
            month: d.month().into(),
            day: d.day(),
        }
    }
}

impl TryFrom<LocalDate> for Date {
    type Error = ConvertError;
    fn try_from(d: LocalDate) -> Result<Self, ConvertError> {
        Month::try_from(d.month)
            .and_then(|m| Date::from_calendar_date(d.year, m, d.day))
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
        nanos_of_second(t.nano)
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
        nanos_of_second(i.nanos)
            .and_then(|n| {
                let t = ::time::OffsetDateTime::from_unix_timestamp(i.seconds).ok()?;
                t.replace_nanosecond(n).ok()
            })
            .ok_or(ConvertError::new(
                "java.time.Instant",
                "time::OffsetDateTime",
            ))
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
    /// Fails only below Java's `Duration` minimum (`time`'s reaches one nanosecond less).
    fn try_from(d: ::time::Duration) -> Result<Self, ConvertError> {
        Duration::from_signed_parts(d.whole_seconds(), d.subsec_nanoseconds())
            .ok_or(ConvertError::new("time::Duration", "java.time.Duration"))
    }
}

impl TryFrom<Duration> for ::time::Duration {
    type Error = ConvertError;
    fn try_from(d: Duration) -> Result<Self, ConvertError> {
        nanos_of_second(d.nanos)
            .and_then(|n| {
                ::time::Duration::seconds(d.seconds)
                    .checked_add(::time::Duration::nanoseconds(n.into()))
            })
            .ok_or(ConvertError::new("java.time.Duration", "time::Duration"))
    }
}

with_module!(
    /// `time::Date` as a `java.time.LocalDate`.
    local_date,
    ::time::Date,
    crate::types::LocalDate
);
with_module!(
    /// `time::Time` as a `java.time.LocalTime`.
    local_time,
    ::time::Time,
    crate::types::LocalTime
);
with_module!(
    /// `time::PrimitiveDateTime` as a `java.time.LocalDateTime`.
    local_date_time,
    ::time::PrimitiveDateTime,
    crate::types::LocalDateTime
);
with_module!(
    /// `time::OffsetDateTime` as a `java.time.Instant` (read back at UTC).
    instant,
    ::time::OffsetDateTime,
    crate::types::Instant
);
with_module!(
    /// `time::OffsetDateTime` as a `java.time.OffsetDateTime` (its offset kept).
    offset_date_time,
    ::time::OffsetDateTime,
    crate::types::OffsetDateTime
);
with_module!(
    /// `time::UtcOffset` as a `java.time.ZoneOffset`.
    zone_offset,
    ::time::UtcOffset,
    crate::types::ZoneOffset
);
with_module!(
    /// `time::Duration` as a `java.time.Duration`.
    duration,
    ::time::Duration,
    crate::types::Duration
);
