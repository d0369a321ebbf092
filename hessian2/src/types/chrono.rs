//! Feature `chrono`: the `java.time` carriers to and from `chrono`'s types, and `serde(with)`
//! modules so a DTO field of a `chrono` type travels as the Java type.
//!
//! | Java | chrono | `#[serde(with = ...)]` |
//! |---|---|---|
//! | `java.time.LocalDate` | `NaiveDate` | `hessian2::types::chrono::local_date` |
//! | `java.time.LocalTime` | `NaiveTime` | `hessian2::types::chrono::local_time` |
//! | `java.time.LocalDateTime` | `NaiveDateTime` | `hessian2::types::chrono::local_date_time` |
//! | `java.time.Instant` | `DateTime<Utc>` | `hessian2::types::chrono::instant` |
//! | `java.time.OffsetDateTime` | `DateTime<FixedOffset>` | `hessian2::types::chrono::offset_date_time` |
//! | `java.time.Duration` | `TimeDelta` | `hessian2::types::chrono::duration` |
//! | `java.util.Date` | `DateTime<Utc>` (milliseconds) | (see [`Date`](super::Date)) |
//!
//! With this crate the field is the Java value's handle object; in human-readable formats
//! (serde_json) it is the ISO-8601 text of Java's `toString()`, which is also what chrono's own
//! serde writes for these types (up to Java leaving out zero seconds: `13:45`).
//! Converting to chrono fails with [`ConvertError`] where chrono's range is narrower than
//! Java's (years beyond ±262,142) or a field is not a real date or time.
//!
//! ```
//! use chrono::{NaiveDate, NaiveDateTime};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! #[serde(rename = "com.example.Order")]
//! struct Order {
//!     #[serde(with = "hessian2::types::chrono::local_date_time")]
//!     placed: NaiveDateTime,
//! }
//!
//! let placed = NaiveDate::from_ymd_opt(2024, 2, 29).unwrap().and_hms_opt(13, 45, 30).unwrap();
//! let order = Order { placed };
//! let bytes = hessian2::to_vec(&order)?;
//! assert_eq!(hessian2::from_slice::<Order>(&bytes)?, order);
//! assert_eq!(serde_json::to_string(&order)?, r#"{"placed":"2024-02-29T13:45:30"}"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use ::chrono::{
    DateTime, Datelike, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Timelike, Utc,
};

use super::convert::{nanos_of_second, with_module, ConvertError};
use super::{Duration, Instant, LocalDate, LocalDateTime, LocalTime, OffsetDateTime, ZoneOffset};

const NANOS: i32 = 1_000_000_000;

impl From<NaiveDate> for LocalDate {
    fn from(d: NaiveDate) -> Self {
        LocalDate {
            year: d.year(),
            month: d.month() as u8,
            day: d.day() as u8,
        }
    }
}

impl TryFrom<LocalDate> for NaiveDate {
    type Error = ConvertError;
    fn try_from(d: LocalDate) -> Result<Self, ConvertError> {
        NaiveDate::from_ymd_opt(d.year, d.month.into(), d.day.into()).ok_or(ConvertError::new(
            "java.time.LocalDate",
            "chrono::NaiveDate",
        ))
    }
}

impl TryFrom<NaiveTime> for LocalTime {
    type Error = ConvertError;
    /// Fails on a chrono leap second (Java has none).
    fn try_from(t: NaiveTime) -> Result<Self, ConvertError> {
        let nano = i32::try_from(t.nanosecond())
            .ok()
            .filter(|&n| n < NANOS)
            .ok_or(ConvertError::new(
                "chrono::NaiveTime",
                "java.time.LocalTime",
            ))?;
        Ok(LocalTime {
            hour: t.hour() as u8,
            minute: t.minute() as u8,
            second: t.second() as u8,
            nano,
        })
    }
}

impl TryFrom<LocalTime> for NaiveTime {
    type Error = ConvertError;
    fn try_from(t: LocalTime) -> Result<Self, ConvertError> {
        let nano = nanos_of_second(t.nano);
        nano.and_then(|nano| {
            NaiveTime::from_hms_nano_opt(t.hour.into(), t.minute.into(), t.second.into(), nano)
        })
        .ok_or(ConvertError::new(
            "java.time.LocalTime",
            "chrono::NaiveTime",
        ))
    }
}

impl TryFrom<NaiveDateTime> for LocalDateTime {
    type Error = ConvertError;
    fn try_from(t: NaiveDateTime) -> Result<Self, ConvertError> {
        Ok(LocalDateTime {
            date: t.date().into(),
            time: t.time().try_into()?,
        })
    }
}

impl TryFrom<LocalDateTime> for NaiveDateTime {
    type Error = ConvertError;
    fn try_from(t: LocalDateTime) -> Result<Self, ConvertError> {
        Ok(NaiveDate::try_from(t.date)?.and_time(t.time.try_into()?))
    }
}

impl TryFrom<DateTime<Utc>> for Instant {
    type Error = ConvertError;
    fn try_from(t: DateTime<Utc>) -> Result<Self, ConvertError> {
        let LocalTime { nano, .. } = t.time().try_into()?;
        Ok(Instant {
            seconds: t.timestamp(),
            nanos: nano,
        })
    }
}

impl TryFrom<Instant> for DateTime<Utc> {
    type Error = ConvertError;
    fn try_from(i: Instant) -> Result<Self, ConvertError> {
        nanos_of_second(i.nanos)
            .and_then(|n| DateTime::from_timestamp(i.seconds, n))
            .ok_or(ConvertError::new(
                "java.time.Instant",
                "chrono::DateTime<Utc>",
            ))
    }
}

impl TryFrom<DateTime<FixedOffset>> for OffsetDateTime {
    type Error = ConvertError;
    fn try_from(t: DateTime<FixedOffset>) -> Result<Self, ConvertError> {
        Ok(OffsetDateTime {
            date_time: t.naive_local().try_into()?,
            offset: ZoneOffset {
                total_seconds: t.offset().local_minus_utc(),
            },
        })
    }
}

impl TryFrom<OffsetDateTime> for DateTime<FixedOffset> {
    type Error = ConvertError;
    fn try_from(t: OffsetDateTime) -> Result<Self, ConvertError> {
        let out = || ConvertError::new("java.time.OffsetDateTime", "chrono::DateTime<FixedOffset>");
        let offset = FixedOffset::east_opt(t.offset.total_seconds).ok_or_else(out)?;
        NaiveDateTime::try_from(t.date_time)?
            .and_local_timezone(offset)
            .single()
            .ok_or_else(out)
    }
}

impl From<TimeDelta> for Duration {
    fn from(d: TimeDelta) -> Self {
        // chrono rounds seconds towards zero with a negative fraction; Java floors.
        let (seconds, nanos) = (d.num_seconds(), d.subsec_nanos());
        if nanos < 0 {
            Duration {
                seconds: seconds - 1,
                nanos: nanos + NANOS,
            }
        } else {
            Duration { seconds, nanos }
        }
    }
}

impl TryFrom<Duration> for TimeDelta {
    type Error = ConvertError;
    /// Fails beyond chrono's ±`i64::MAX` milliseconds.
    fn try_from(d: Duration) -> Result<Self, ConvertError> {
        u32::try_from(d.nanos)
            .ok()
            .and_then(|n| TimeDelta::new(d.seconds, n))
            .ok_or(ConvertError::new("java.time.Duration", "chrono::TimeDelta"))
    }
}

with_module!(
    /// `chrono::NaiveDate` as a `java.time.LocalDate`.
    local_date,
    ::chrono::NaiveDate,
    crate::types::LocalDate
);
with_module!(
    /// `chrono::NaiveTime` as a `java.time.LocalTime`.
    local_time,
    ::chrono::NaiveTime,
    crate::types::LocalTime
);
with_module!(
    /// `chrono::NaiveDateTime` as a `java.time.LocalDateTime`.
    local_date_time,
    ::chrono::NaiveDateTime,
    crate::types::LocalDateTime
);
with_module!(
    /// `chrono::DateTime<Utc>` as a `java.time.Instant`.
    instant,
    ::chrono::DateTime<::chrono::Utc>,
    crate::types::Instant
);
with_module!(
    /// `chrono::DateTime<FixedOffset>` as a `java.time.OffsetDateTime`.
    offset_date_time,
    ::chrono::DateTime<::chrono::FixedOffset>,
    crate::types::OffsetDateTime
);
with_module!(
    /// `chrono::TimeDelta` as a `java.time.Duration`.
    duration,
    ::chrono::TimeDelta,
    crate::types::Duration
);
