//! Feature `chrono`: chrono's dates and times as the `java.time` types.
//!
//! | chrono | Java | `#[serde(with = ...)]` |
//! |---|---|---|
//! | `NaiveDate` | `java.time.LocalDate` | `java_serde::chrono::local_date` |
//! | `NaiveTime` | `java.time.LocalTime` | `java_serde::chrono::local_time` |
//! | `NaiveDateTime` | `java.time.LocalDateTime` | `java_serde::chrono::local_date_time` |
//! | `DateTime<Utc>` | `java.time.Instant` | `java_serde::chrono::instant` |
//! | `DateTime<FixedOffset>` | `java.time.OffsetDateTime` | `java_serde::chrono::offset_date_time` |
//! | `TimeDelta` | `java.time.Duration` | `java_serde::chrono::duration` |
//!
//! In human-readable formats the text is what chrono's own serde writes
//! (`2024-02-29T13:45:30.5`, `2024-02-29T13:45:30Z`, `2024-02-29T13:45:30+08:00`); a
//! `TimeDelta`, which chrono's serde does not cover, is Java's `Duration` text (`PT1H30M`).

use std::fmt;

use ::chrono::{
    DateTime, Datelike, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, TimeZone,
    Timelike, Utc,
};

use crate::signed_duration;
use crate::with::{with_module, JavaValue};
use crate::{ConvertError, Date, JavaType, Parts, Time};

const NANOS: u32 = 1_000_000_000;

fn date(d: NaiveDate) -> Date {
    Date {
        year: d.year(),
        month: d.month() as u8,
        day: d.day() as u8,
    }
}

fn naive_date(d: Date, to: &'static str) -> Result<NaiveDate, ConvertError> {
    NaiveDate::from_ymd_opt(d.year, d.month.into(), d.day.into())
        .ok_or(ConvertError::new("java.time.LocalDate", to))
}

/// Fails on a chrono leap second (Java has none).
fn time(t: NaiveTime, from: &'static str) -> Result<Time, ConvertError> {
    if t.nanosecond() >= NANOS {
        return Err(ConvertError::new(from, "java.time.LocalTime"));
    }
    Ok(Time {
        hour: t.hour() as u8,
        minute: t.minute() as u8,
        second: t.second() as u8,
        nano: t.nanosecond(),
    })
}

fn naive_time(t: Time, to: &'static str) -> Result<NaiveTime, ConvertError> {
    NaiveTime::from_hms_nano_opt(t.hour.into(), t.minute.into(), t.second.into(), t.nano)
        .ok_or(ConvertError::new("java.time.LocalTime", to))
}

/// Parts of another type than the module's (a format that knows the names reads by them).
fn mismatch(parts: &Parts, to: &'static str) -> ConvertError {
    ConvertError::new(parts.java_type().class(), to)
}

impl JavaValue for NaiveDate {
    const TYPE: JavaType = JavaType::LocalDate;
    fn to_parts(&self) -> Result<Parts, ConvertError> {
        Ok(Parts::LocalDate(date(*self)))
    }
    fn from_parts(parts: Parts) -> Result<Self, ConvertError> {
        match parts {
            Parts::LocalDate(d) => naive_date(d, "chrono::NaiveDate"),
            p => Err(mismatch(&p, "chrono::NaiveDate")),
        }
    }
    fn text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
    fn parse(text: &str) -> Result<Self, String> {
        text.parse().map_err(|e| format!("{e}: {text:?}"))
    }
}

impl JavaValue for NaiveTime {
    const TYPE: JavaType = JavaType::LocalTime;
    fn to_parts(&self) -> Result<Parts, ConvertError> {
        Ok(Parts::LocalTime(time(*self, "chrono::NaiveTime")?))
    }
    fn from_parts(parts: Parts) -> Result<Self, ConvertError> {
        match parts {
            Parts::LocalTime(t) => naive_time(t, "chrono::NaiveTime"),
            p => Err(mismatch(&p, "chrono::NaiveTime")),
        }
    }
    fn text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
    fn parse(text: &str) -> Result<Self, String> {
        text.parse().map_err(|e| format!("{e}: {text:?}"))
    }
}

impl JavaValue for NaiveDateTime {
    const TYPE: JavaType = JavaType::LocalDateTime;
    fn to_parts(&self) -> Result<Parts, ConvertError> {
        Ok(Parts::LocalDateTime(
            date(self.date()),
            time(self.time(), "chrono::NaiveDateTime")?,
        ))
    }
    fn from_parts(parts: Parts) -> Result<Self, ConvertError> {
        const TO: &str = "chrono::NaiveDateTime";
        match parts {
            Parts::LocalDateTime(d, t) => Ok(naive_date(d, TO)?.and_time(naive_time(t, TO)?)),
            p => Err(mismatch(&p, TO)),
        }
    }
    fn text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
    fn parse(text: &str) -> Result<Self, String> {
        text.parse().map_err(|e| format!("{e}: {text:?}"))
    }
}

impl JavaValue for DateTime<Utc> {
    const TYPE: JavaType = JavaType::Instant;
    fn to_parts(&self) -> Result<Parts, ConvertError> {
        let Time { nano, .. } = time(self.time(), "chrono::DateTime<Utc>")?;
        Ok(Parts::Instant {
            seconds: self.timestamp(),
            nanos: nano,
        })
    }
    fn from_parts(parts: Parts) -> Result<Self, ConvertError> {
        const TO: &str = "chrono::DateTime<Utc>";
        match parts {
            Parts::Instant { seconds, nanos } => DateTime::from_timestamp(seconds, nanos)
                .ok_or(ConvertError::new("java.time.Instant", TO)),
            p => Err(mismatch(&p, TO)),
        }
    }
    fn text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
    fn parse(text: &str) -> Result<Self, String> {
        text.parse().map_err(|e| format!("{e}: {text:?}"))
    }
}

impl JavaValue for DateTime<FixedOffset> {
    const TYPE: JavaType = JavaType::OffsetDateTime;
    fn to_parts(&self) -> Result<Parts, ConvertError> {
        const FROM: &str = "chrono::DateTime<FixedOffset>";
        let local = self.naive_local();
        Ok(Parts::OffsetDateTime(
            date(local.date()),
            time(local.time(), FROM)?,
            self.offset().local_minus_utc(),
        ))
    }
    fn from_parts(parts: Parts) -> Result<Self, ConvertError> {
        const TO: &str = "chrono::DateTime<FixedOffset>";
        let out = || ConvertError::new("java.time.OffsetDateTime", TO);
        match parts {
            Parts::OffsetDateTime(d, t, offset) => {
                let local = naive_date(d, TO)?.and_time(naive_time(t, TO)?);
                let offset = FixedOffset::east_opt(offset).ok_or_else(out)?;
                offset.from_local_datetime(&local).single().ok_or_else(out)
            }
            p => Err(mismatch(&p, TO)),
        }
    }
    fn text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
    fn parse(text: &str) -> Result<Self, String> {
        text.parse().map_err(|e| format!("{e}: {text:?}"))
    }
}

impl JavaValue for TimeDelta {
    const TYPE: JavaType = JavaType::Duration;
    fn to_parts(&self) -> Result<Parts, ConvertError> {
        Ok(signed_duration::parts(
            self.num_seconds(),
            self.subsec_nanos(),
        ))
    }
    fn from_parts(parts: Parts) -> Result<Self, ConvertError> {
        signed_duration::from_parts(parts, "chrono::TimeDelta", TimeDelta::new)
    }
    fn text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        signed_duration::text(self.to_parts().map_err(|_| fmt::Error)?, f)
    }
    fn parse(text: &str) -> Result<Self, String> {
        signed_duration::parse(text, TimeDelta::new)
    }
}

with_module!(
    /// `chrono::NaiveDate` as a `java.time.LocalDate`.
    local_date,
    ::chrono::NaiveDate
);
with_module!(
    /// `chrono::NaiveTime` as a `java.time.LocalTime`.
    local_time,
    ::chrono::NaiveTime
);
with_module!(
    /// `chrono::NaiveDateTime` as a `java.time.LocalDateTime`.
    local_date_time,
    ::chrono::NaiveDateTime
);
with_module!(
    /// `chrono::DateTime<Utc>` as a `java.time.Instant`.
    instant,
    ::chrono::DateTime<::chrono::Utc>
);
with_module!(
    /// `chrono::DateTime<FixedOffset>` as a `java.time.OffsetDateTime`.
    offset_date_time,
    ::chrono::DateTime<::chrono::FixedOffset>
);
with_module!(
    /// `chrono::TimeDelta` as a `java.time.Duration`.
    duration,
    ::chrono::TimeDelta
);
