//! `java.sql.Date`, `java.sql.Time` and `java.sql.Timestamp` as fastjson2 writes them: a
//! `java.sql.Date` as a date (milliseconds), a `Time` as its `toString()` (`12:34:56`) and a
//! `Timestamp` as a local date-time, both in the writing JVM's zone.
//!
//! Each holds its value in the field `value`, as `hessian2::types::sql`'s do; a
//! `java.sql.Date`'s is the same [`Date`](super::Date). A `Time` and a `Timestamp` travel as
//! wall-clock text and fields without their zone, so their `value` is the [`LocalTime`] and
//! [`LocalDateTime`] Java wrote, not milliseconds (which only the writer's zone would give).
//!
//! In human-readable formats (serde_json) a `sql::Date` is `{"value": milliseconds}`, as
//! hessian2's is; a `Time` and a `Timestamp` are the text of their value.

use std::fmt;
use std::str::FromStr;

use java_serde::text::{FromStrVisitor, ParseError};
use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, Serializer};

use super::{Date as UtilDate, LocalDateTime, LocalTime};

/// A `java.sql.Date`: fastjson2 writes it as a date.
///
/// ```
/// use fastjson2::types::{sql, Date};
///
/// let d = sql::Date { value: Date(1_577_836_800_000) };
/// let bytes = fastjson2::to_vec(&d)?;
/// assert_eq!(fastjson2::from_slice::<sql::Date>(&bytes)?, d);
/// assert_eq!(serde_json::to_string(&d)?, r#"{"value":1577836800000}"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Date {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    pub value: UtilDate,
}

impl From<UtilDate> for Date {
    fn from(value: UtilDate) -> Self {
        Date { value }
    }
}

/// The human-readable form of a `java.sql.Date` (hessian2's: the object of its field).
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename = "java.sql.Date")]
struct DateText {
    value: i64,
}

impl Serialize for Date {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return DateText {
                value: self.value.0,
            }
            .serialize(s);
        }
        self.value.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Date {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if d.is_human_readable() {
            let t = DateText::deserialize(d)?;
            return Ok(Date {
                value: UtilDate(t.value),
            });
        }
        UtilDate::deserialize(d).map(Date::from)
    }
}

/// A `java.sql.Time`: fastjson2 writes its `toString()`, `HH:mm:ss` in the writing JVM's zone
/// (whole seconds: Java's text has no fraction, so `value.nano` is not written).
///
/// ```
/// use fastjson2::types::{sql, LocalTime};
///
/// let t: sql::Time = "12:34:56".parse()?;
/// assert_eq!(t.value, LocalTime { hour: 12, minute: 34, second: 56, nano: 0 });
/// assert_eq!(&fastjson2::to_vec(&t)?[1..], b"12:34:56");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Time {
    /// The wall-clock time Java wrote.
    pub value: LocalTime,
}

impl fmt::Display for Time {
    /// `HH:mm:ss`, as Java's `java.sql.Time.toString()`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.value;
        write!(f, "{:02}:{:02}:{:02}", t.hour, t.minute, t.second)
    }
}

impl FromStr for Time {
    type Err = ParseError;
    /// `HH:mm:ss` (or any `LocalTime` text).
    fn from_str(s: &str) -> Result<Self, ParseError> {
        s.parse().map(|value| Time { value })
    }
}

impl Serialize for Time {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(FromStrVisitor::new())
    }
}

/// A `java.sql.Timestamp`: fastjson2 writes the local date-time in the writing JVM's zone
/// (to the nanosecond).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Timestamp {
    /// The wall-clock date and time Java wrote.
    pub value: LocalDateTime,
}

impl fmt::Display for Timestamp {
    /// The value's ISO text, `2023-11-14T22:13:20.123`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.value, f)
    }
}

impl FromStr for Timestamp {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        s.parse().map(|value| Timestamp { value })
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return s.collect_str(self);
        }
        self.value.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if d.is_human_readable() {
            return d.deserialize_str(FromStrVisitor::new());
        }
        LocalDateTime::deserialize(d).map(|value| Timestamp { value })
    }
}
