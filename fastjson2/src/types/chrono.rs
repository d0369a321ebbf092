//! Feature `chrono`: the `java.time` carriers to and from `chrono`'s types, and `serde(with)`
//! modules so a DTO field of a `chrono` type travels as the Java type, under the same names as
//! `hessian2::types::chrono`.
//!
//! | Java | chrono | `#[serde(with = ...)]` |
//! |---|---|---|
//! | `java.time.LocalDate` | `NaiveDate` | `fastjson2::types::chrono::local_date` |
//! | `java.time.LocalTime` | `NaiveTime` | `fastjson2::types::chrono::local_time` |
//! | `java.time.LocalDateTime` | `NaiveDateTime` | `fastjson2::types::chrono::local_date_time` |
//! | `java.time.Instant` | `DateTime<Utc>` | `fastjson2::types::chrono::instant` |
//! | `java.time.OffsetDateTime` | `DateTime<FixedOffset>` | `TryFrom` both ways (as a field: `java_serde::chrono::offset_date_time`) |
//! | `java.time.Duration` | `TimeDelta` | `From` / `TryFrom` (as a field: `java_serde::chrono::duration`) |
//!
//! With this crate the field is the value's JSONB form; in human-readable formats (serde_json)
//! it is the ISO-8601 text chrono's own serde writes (`2024-02-29T13:45:30`).
//!
//! ```
//! use chrono::{NaiveDate, NaiveDateTime};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Order {
//!     #[serde(with = "fastjson2::types::chrono::local_date_time")]
//!     placed: NaiveDateTime,
//! }
//!
//! let placed = NaiveDate::from_ymd_opt(2024, 2, 29).unwrap().and_hms_opt(13, 45, 30).unwrap();
//! let order = Order { placed };
//! let bytes = fastjson2::to_vec(&order)?;
//! assert_eq!(fastjson2::from_slice::<Order>(&bytes)?, order);
//! assert_eq!(serde_json::to_string(&order)?, r#"{"placed":"2024-02-29T13:45:30"}"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use ::chrono::{
    DateTime, Datelike, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Timelike, Utc,
};

use super::convert::ConvertError;
use super::{Duration, Instant, LocalDate, LocalDateTime, LocalTime, OffsetDateTime, ZoneOffset};

const NANOS: u32 = 1_000_000_000;

impl TryFrom<NaiveDate> for LocalDate {
    type Error = ConvertError;
    /// Fails for years beyond the JSONB form's 16 bits.
    fn try_from(d: NaiveDate) -> Result<Self, ConvertError> {
        Ok(LocalDate {
            year: i16::try_from(d.year())
                .map_err(|_| ConvertError::new("chrono::NaiveDate", "java.time.LocalDate"))?,
            month: d.month() as u8,
            day: d.day() as u8,
        })
    }
}

impl TryFrom<LocalDate> for NaiveDate {
    type Error = ConvertError;
    fn try_from(d: LocalDate) -> Result<Self, ConvertError> {
        NaiveDate::from_ymd_opt(d.year.into(), d.month.into(), d.day.into()).ok_or(
            ConvertError::new("java.time.LocalDate", "chrono::NaiveDate"),
        )
    }
}

impl TryFrom<NaiveTime> for LocalTime {
    type Error = ConvertError;
    /// Fails on a chrono leap second (Java has none).
    fn try_from(t: NaiveTime) -> Result<Self, ConvertError> {
        if t.nanosecond() >= NANOS {
            return Err(ConvertError::new(
                "chrono::NaiveTime",
                "java.time.LocalTime",
            ));
        }
        Ok(LocalTime {
            hour: t.hour() as u8,
            minute: t.minute() as u8,
            second: t.second() as u8,
            nano: t.nanosecond() as i32,
        })
    }
}

impl TryFrom<LocalTime> for NaiveTime {
    type Error = ConvertError;
    fn try_from(t: LocalTime) -> Result<Self, ConvertError> {
        u32::try_from(t.nano)
            .ok()
            .filter(|&n| n < NANOS)
            .and_then(|n| {
                NaiveTime::from_hms_nano_opt(t.hour.into(), t.minute.into(), t.second.into(), n)
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
            date: t.date().try_into()?,
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
        u32::try_from(i.nanos)
            .ok()
            .filter(|&n| n < NANOS)
            .and_then(|n| DateTime::from_timestamp(i.seconds, n))
            .ok_or(ConvertError::new(
                "java.time.Instant",
                "chrono::DateTime<Utc>",
            ))
    }
}

impl TryFrom<DateTime<FixedOffset>> for OffsetDateTime {
    type Error = ConvertError;
    /// Fails for years beyond the JSONB form's 16 bits.
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
                nanos: nanos + NANOS as i32,
            }
        } else {
            Duration { seconds, nanos }
        }
    }
}

impl TryFrom<Duration> for TimeDelta {
    type Error = ConvertError;
    /// Fails beyond chrono's ±`i64::MAX` milliseconds, or for nanoseconds outside 0-999,999,999.
    fn try_from(d: Duration) -> Result<Self, ConvertError> {
        u32::try_from(d.nanos)
            .ok()
            .and_then(|n| TimeDelta::new(d.seconds, n))
            .ok_or(ConvertError::new("java.time.Duration", "chrono::TimeDelta"))
    }
}

/// A `serde(with)` module for the chrono type `$chrono` travelling as the carrier `$java`,
/// written in human-readable formats as chrono's serde writes it (`$text` formats it).
macro_rules! with_module {
    ($(#[$doc:meta])* $name:ident, $chrono:ty, $java:ty, $text:literal) => {
        $(#[$doc])*
        pub mod $name {
            use serde::{de, ser, Deserialize, Deserializer, Serialize, Serializer};

            /// Serializes as the Java type (chrono's text in human-readable formats).
            pub fn serialize<S: Serializer>(v: &$chrono, s: S) -> Result<S::Ok, S::Error> {
                if s.is_human_readable() {
                    return s.collect_str(&format_args!($text, v));
                }
                <$java>::try_from(*v).map_err(ser::Error::custom)?.serialize(s)
            }

            /// Deserializes the Java type (chrono's text in human-readable formats).
            pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<$chrono, D::Error> {
                if d.is_human_readable() {
                    let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                    return text.parse().map_err(de::Error::custom);
                }
                <$chrono>::try_from(<$java>::deserialize(d)?).map_err(de::Error::custom)
            }
        }
    };
}

with_module!(
    /// `chrono::NaiveDate` as a `java.time.LocalDate`.
    local_date,
    ::chrono::NaiveDate,
    crate::types::LocalDate,
    "{}"
);
with_module!(
    /// `chrono::NaiveTime` as a `java.time.LocalTime`.
    local_time,
    ::chrono::NaiveTime,
    crate::types::LocalTime,
    "{:?}"
);
with_module!(
    /// `chrono::NaiveDateTime` as a `java.time.LocalDateTime`.
    local_date_time,
    ::chrono::NaiveDateTime,
    crate::types::LocalDateTime,
    "{:?}"
);
with_module!(
    /// `chrono::DateTime<Utc>` as a `java.time.Instant`.
    instant,
    ::chrono::DateTime<::chrono::Utc>,
    crate::types::Instant,
    "{:?}"
);
