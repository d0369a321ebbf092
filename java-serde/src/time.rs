//! Feature `time`: the `time` crate's dates and times as the `java.time` types.
//!
//! | time | Java | `#[serde(with = ...)]` |
//! |---|---|---|
//! | `Date` | `java.time.LocalDate` | `java_serde::time::local_date` |
//! | `Time` | `java.time.LocalTime` | `java_serde::time::local_time` |
//! | `PrimitiveDateTime` | `java.time.LocalDateTime` | `java_serde::time::local_date_time` |
//! | `OffsetDateTime` | `java.time.Instant` (the offset is not kept) | `java_serde::time::instant` |
//! | `OffsetDateTime` | `java.time.OffsetDateTime` (the offset kept) | `java_serde::time::offset_date_time` |
//! | `Duration` | `java.time.Duration` | `java_serde::time::duration` |
//!
//! In human-readable formats the text is what `time`'s own serde writes for the first three
//! (`2024-02-29`, `13:45:30.5`, `2024-02-29 13:45:30.5`) and RFC 3339 for the instant
//! (`2024-02-29T13:45:30.5Z`, as `time::serde::rfc3339`; at its own offset for an
//! `OffsetDateTime` as `java.time.OffsetDateTime`); a `Duration` is Java's text
//! (`PT1H30M`).

use std::fmt;

use ::time::format_description::well_known::Rfc3339;
use ::time::macros::format_description;
use ::time::{Date, Duration, Month, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};

use crate::signed_duration;
use crate::with::{with_module, JavaValue};
use crate::{ConvertError, JavaType, Parts};

const DATE: &[::time::format_description::BorrowedFormatItem<'_>] =
    format_description!("[year]-[month]-[day]");
const TIME: &[::time::format_description::BorrowedFormatItem<'_>] =
    format_description!("[hour]:[minute]:[second].[subsecond]");
const DATE_TIME: &[::time::format_description::BorrowedFormatItem<'_>] =
    format_description!("[year]-[month]-[day] [hour]:[minute]:[second].[subsecond]");

fn day(d: Date) -> crate::Date {
    crate::Date {
        year: d.year(),
        month: u8::from(d.month()),
        day: d.day(),
    }
}

fn date(d: crate::Date, to: &'static str) -> Result<Date, ConvertError> {
    let out = ConvertError::new("java.time.LocalDate", to);
    let month = Month::try_from(d.month).map_err(|_| out)?;
    Date::from_calendar_date(d.year, month, d.day).map_err(|_| out)
}

fn clock(t: Time) -> crate::Time {
    crate::Time {
        hour: t.hour(),
        minute: t.minute(),
        second: t.second(),
        nano: t.nanosecond(),
    }
}

fn time(t: crate::Time, to: &'static str) -> Result<Time, ConvertError> {
    Time::from_hms_nano(t.hour, t.minute, t.second, t.nano)
        .map_err(|_| ConvertError::new("java.time.LocalTime", to))
}

fn mismatch(parts: &Parts, to: &'static str) -> ConvertError {
    ConvertError::new(parts.java_type().class(), to)
}

/// Writes the text `time` formatted (it formats into a `String` or bytes, not a `Formatter`).
fn write(f: &mut fmt::Formatter<'_>, text: Result<String, ::time::error::Format>) -> fmt::Result {
    f.write_str(&text.map_err(|_| fmt::Error)?)
}

impl JavaValue for Date {
    const TYPE: JavaType = JavaType::LocalDate;
    fn to_parts(&self) -> Result<Parts, ConvertError> {
        Ok(Parts::LocalDate(day(*self)))
    }
    fn from_parts(parts: Parts) -> Result<Self, ConvertError> {
        match parts {
            Parts::LocalDate(d) => date(d, "time::Date"),
            p => Err(mismatch(&p, "time::Date")),
        }
    }
    fn text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write(f, self.format(DATE))
    }
    fn parse(text: &str) -> Result<Self, String> {
        Date::parse(text, DATE).map_err(|e| format!("{e}: {text:?}"))
    }
}

impl JavaValue for Time {
    const TYPE: JavaType = JavaType::LocalTime;
    fn to_parts(&self) -> Result<Parts, ConvertError> {
        Ok(Parts::LocalTime(clock(*self)))
    }
    fn from_parts(parts: Parts) -> Result<Self, ConvertError> {
        match parts {
            Parts::LocalTime(t) => time(t, "time::Time"),
            p => Err(mismatch(&p, "time::Time")),
        }
    }
    fn text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write(f, self.format(TIME))
    }
    fn parse(text: &str) -> Result<Self, String> {
        Time::parse(text, TIME).map_err(|e| format!("{e}: {text:?}"))
    }
}

impl JavaValue for PrimitiveDateTime {
    const TYPE: JavaType = JavaType::LocalDateTime;
    fn to_parts(&self) -> Result<Parts, ConvertError> {
        Ok(Parts::LocalDateTime(day(self.date()), clock(self.time())))
    }
    fn from_parts(parts: Parts) -> Result<Self, ConvertError> {
        const TO: &str = "time::PrimitiveDateTime";
        match parts {
            Parts::LocalDateTime(d, t) => Ok(PrimitiveDateTime::new(date(d, TO)?, time(t, TO)?)),
            p => Err(mismatch(&p, TO)),
        }
    }
    fn text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write(f, self.format(DATE_TIME))
    }
    fn parse(text: &str) -> Result<Self, String> {
        PrimitiveDateTime::parse(text, DATE_TIME).map_err(|e| format!("{e}: {text:?}"))
    }
}

impl JavaValue for OffsetDateTime {
    const TYPE: JavaType = JavaType::Instant;
    fn to_parts(&self) -> Result<Parts, ConvertError> {
        Ok(Parts::Instant {
            seconds: self.unix_timestamp(),
            nanos: self.nanosecond(),
        })
    }
    fn from_parts(parts: Parts) -> Result<Self, ConvertError> {
        const TO: &str = "time::OffsetDateTime";
        match parts {
            Parts::Instant { seconds, nanos } => {
                let nanos = i128::from(seconds) * 1_000_000_000 + i128::from(nanos);
                OffsetDateTime::from_unix_timestamp_nanos(nanos)
                    .map_err(|_| ConvertError::new("java.time.Instant", TO))
            }
            p => Err(mismatch(&p, TO)),
        }
    }
    fn text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write(f, self.to_offset(UtcOffset::UTC).format(&Rfc3339))
    }
    fn parse(text: &str) -> Result<Self, String> {
        OffsetDateTime::parse(text, &Rfc3339).map_err(|e| format!("{e}: {text:?}"))
    }
}

/// An `OffsetDateTime` that travels as a `java.time.OffsetDateTime` (the type's own mapping is
/// the `Instant`).
struct AsOffset(OffsetDateTime);

impl JavaValue for AsOffset {
    const TYPE: JavaType = JavaType::OffsetDateTime;
    fn to_parts(&self) -> Result<Parts, ConvertError> {
        let t = &self.0;
        Ok(Parts::OffsetDateTime(
            day(t.date()),
            clock(t.time()),
            t.offset().whole_seconds(),
        ))
    }
    fn from_parts(parts: Parts) -> Result<Self, ConvertError> {
        const TO: &str = "time::OffsetDateTime";
        match parts {
            Parts::OffsetDateTime(d, t, offset) => {
                let offset = UtcOffset::from_whole_seconds(offset)
                    .map_err(|_| ConvertError::new("java.time.ZoneOffset", TO))?;
                let local = PrimitiveDateTime::new(date(d, TO)?, time(t, TO)?);
                Ok(AsOffset(local.assume_offset(offset)))
            }
            p => Err(mismatch(&p, TO)),
        }
    }
    fn text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write(f, self.0.format(&Rfc3339))
    }
    fn parse(text: &str) -> Result<Self, String> {
        OffsetDateTime::parse(text, &Rfc3339)
            .map(AsOffset)
            .map_err(|e| format!("{e}: {text:?}"))
    }
}

/// `time::OffsetDateTime` as a `java.time.OffsetDateTime`, its offset kept (where [`instant`]
/// keeps only the moment).
pub mod offset_date_time {
    use ::time::OffsetDateTime;

    use super::AsOffset;
    use crate::with;

    /// Serializes the value as a `java.time.OffsetDateTime`.
    pub fn serialize<S: serde::Serializer>(v: &OffsetDateTime, s: S) -> Result<S::Ok, S::Error> {
        with::serialize(&AsOffset(*v), s)
    }

    /// Deserializes the value from a `java.time.OffsetDateTime`.
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<OffsetDateTime, D::Error> {
        with::deserialize::<AsOffset, D>(d).map(|v| v.0)
    }

    /// The same for an `Option` field: `None` is Java's `null`.
    pub mod option {
        use ::time::OffsetDateTime;

        use super::AsOffset;
        use crate::with;

        /// Serializes the value, if any, as a `java.time.OffsetDateTime`.
        pub fn serialize<S: serde::Serializer>(
            v: &Option<OffsetDateTime>,
            s: S,
        ) -> Result<S::Ok, S::Error> {
            with::serialize_option(&v.map(AsOffset), s)
        }

        /// Deserializes the value, or `null`, from a `java.time.OffsetDateTime`.
        pub fn deserialize<'de, D: serde::Deserializer<'de>>(
            d: D,
        ) -> Result<Option<OffsetDateTime>, D::Error> {
            Ok(with::deserialize_option::<AsOffset, D>(d)?.map(|v| v.0))
        }
    }
}

/// Java's seconds and nanoseconds as a `Duration` (`None` beyond its range).
fn duration_of(seconds: i64, nanos: u32) -> Option<Duration> {
    Duration::seconds(seconds).checked_add(Duration::nanoseconds(nanos.into()))
}

impl JavaValue for Duration {
    const TYPE: JavaType = JavaType::Duration;
    fn to_parts(&self) -> Result<Parts, ConvertError> {
        Ok(signed_duration::parts(
            self.whole_seconds(),
            self.subsec_nanoseconds(),
        ))
    }
    fn from_parts(parts: Parts) -> Result<Self, ConvertError> {
        signed_duration::from_parts(parts, "time::Duration", duration_of)
    }
    fn text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        signed_duration::text(self.to_parts().map_err(|_| fmt::Error)?, f)
    }
    fn parse(text: &str) -> Result<Self, String> {
        signed_duration::parse(text, duration_of)
    }
}

with_module!(
    /// `time::Date` as a `java.time.LocalDate`.
    local_date,
    ::time::Date
);
with_module!(
    /// `time::Time` as a `java.time.LocalTime`.
    local_time,
    ::time::Time
);
with_module!(
    /// `time::PrimitiveDateTime` as a `java.time.LocalDateTime`.
    local_date_time,
    ::time::PrimitiveDateTime
);
with_module!(
    /// `time::OffsetDateTime` as a `java.time.Instant` (read back at UTC).
    instant,
    ::time::OffsetDateTime
);
with_module!(
    /// `time::Duration` as a `java.time.Duration`.
    duration,
    ::time::Duration
);
