//! The `java.time` types fastjson2 writes as text, as objects of their fields, or as a zoned
//! date-time: carriers with the fields and names of `hessian2::types`, whose text (`Display`,
//! `FromStr`, and their form in human-readable formats) is Java's `toString()`, from
//! `java_serde::text` as in hessian2.
//!
//! What fastjson2 2.0.52 and 2.0.56 write (Dubbo's writer features), and these carriers with
//! this crate's serializer:
//!
//! - `Duration`, `Period`, `ZoneOffset`, `ZoneId`: their `toString()` as a string;
//! - `Year`, `YearMonth`, `MonthDay`: an object typed `java.time.Year`, ... of their fields in
//!   name order (`YearMonth`: `month`, `year`);
//! - `OffsetDateTime`: a zoned date-time whose zone is the offset id; `OffsetTime` the same on
//!   1970-01-01 (read back whatever the date).

use std::fmt;
use std::str::FromStr;

use java_serde::text::{
    parse_with, Cursor, DateText, DateTimeText, DurationText, FromStrVisitor, InstantText,
    MonthDayText, OffsetDateTimeText, OffsetText, OffsetTimeText, ParseError, PeriodText, TimeText,
    YearMonthText, YearText,
};
use serde::de::{self, Deserialize, Deserializer};
use serde::ser::{Serialize, SerializeStruct, Serializer};

use super::{Instant, LocalDate, LocalDateTime, LocalTime, ZonedDateTime};

/// A `java.time.Duration`, stored as Java does; fastjson2 writes its `toString()`
/// (`PT1H1M1.000000005S`).
///
/// ```
/// use fastjson2::types::Duration;
///
/// let d = Duration { seconds: 3661, nanos: 5 };
/// assert_eq!(d.to_string(), "PT1H1M1.000000005S");
/// let bytes = fastjson2::to_vec(&d)?;
/// assert_eq!(&bytes[1..], b"PT1H1M1.000000005S");
/// assert_eq!(fastjson2::from_slice::<Duration>(&bytes)?, d);
/// # Ok::<(), fastjson2::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Duration {
    /// Whole seconds (negative for negative durations).
    pub seconds: i64,
    /// Nanoseconds added to `seconds`, 0-999,999,999.
    pub nanos: i32,
}

/// A `java.time.Period` (years, months, days, each with its own sign); fastjson2 writes its
/// `toString()` (`P1Y-2M3D`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Period {
    /// Years.
    pub years: i32,
    /// Months.
    pub months: i32,
    /// Days.
    pub days: i32,
}

/// A `java.time.Year`; fastjson2 writes an object typed `java.time.Year` with the field `year`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Year {
    /// The year.
    pub year: i32,
}

/// A `java.time.YearMonth`; fastjson2 writes an object typed `java.time.YearMonth` with the
/// fields `month` and `year`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct YearMonth {
    /// The year.
    pub year: i32,
    /// Month, 1-12.
    pub month: u8,
}

/// A `java.time.MonthDay`; fastjson2 writes an object typed `java.time.MonthDay` with the
/// fields `day` and `month`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MonthDay {
    /// Month, 1-12.
    pub month: u8,
    /// Day of the month, 1-31.
    pub day: u8,
}

/// A `java.time.ZoneOffset`; fastjson2 writes its id (`+05:30`, `Z`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ZoneOffset {
    /// Seconds east of UTC (Java allows ±18 hours).
    pub total_seconds: i32,
}

/// A `java.time.ZoneId` (a region such as `Europe/Paris`, or an offset id); fastjson2 writes
/// its id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ZoneId {
    /// The id, as Java's `getId()` gives it.
    pub id: String,
}

/// A `java.time.OffsetTime`; fastjson2 writes a zoned date-time on 1970-01-01 whose zone is the
/// offset id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OffsetTime {
    /// The local time.
    pub time: LocalTime,
    /// Its offset from UTC.
    pub offset: ZoneOffset,
}

/// A `java.time.OffsetDateTime`; fastjson2 writes a zoned date-time whose zone is the offset
/// id.
///
/// ```
/// use fastjson2::types::OffsetDateTime;
///
/// let at: OffsetDateTime = "2024-05-06T07:08:09-05:00".parse()?;
/// assert_eq!(at.offset.total_seconds, -18_000);
/// let bytes = fastjson2::to_vec(&at)?;
/// assert_eq!(bytes, b"\xaa\x07\xe8\x05\x06\x07\x08\x09\x00\x4f-05:00");
/// assert_eq!(fastjson2::from_slice::<OffsetDateTime>(&bytes)?, at);
/// assert_eq!(serde_json::to_string(&at)?, r#""2024-05-06T07:08:09-05:00""#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OffsetDateTime {
    /// The local date and time.
    pub date_time: LocalDateTime,
    /// Its offset from UTC.
    pub offset: ZoneOffset,
}

/// This crate's `LocalDate` holds the two bytes of year the JSONB form has.
fn date_from_text(c: &Cursor<'_>, t: DateText) -> Result<LocalDate, ParseError> {
    Ok(LocalDate {
        year: c.fit(i64::from(t.year))?,
        month: t.month,
        day: t.day,
    })
}

fn time_from_text(t: TimeText) -> LocalTime {
    LocalTime {
        hour: t.hour,
        minute: t.minute,
        second: t.second,
        nano: t.nano,
    }
}

impl From<LocalDate> for DateText {
    fn from(d: LocalDate) -> Self {
        DateText {
            year: d.year.into(),
            month: d.month,
            day: d.day,
        }
    }
}

impl From<LocalTime> for TimeText {
    fn from(t: LocalTime) -> Self {
        TimeText {
            hour: t.hour,
            minute: t.minute,
            second: t.second,
            nano: t.nano,
        }
    }
}

impl From<LocalDateTime> for DateTimeText {
    fn from(v: LocalDateTime) -> Self {
        DateTimeText {
            date: v.date.into(),
            time: v.time.into(),
        }
    }
}

fn read_date(c: &mut Cursor<'_>) -> Result<LocalDate, ParseError> {
    let t = DateText::read(c)?;
    date_from_text(c, t)
}

fn read_date_time(c: &mut Cursor<'_>) -> Result<LocalDateTime, ParseError> {
    let t = DateTimeText::read(c)?;
    Ok(LocalDateTime {
        date: date_from_text(c, t.date)?,
        time: time_from_text(t.time),
    })
}

impl FromStr for LocalDate {
    type Err = ParseError;
    /// Java's `LocalDate.parse` text; a year beyond the two bytes of the JSONB form is out of
    /// range.
    fn from_str(s: &str) -> Result<Self, ParseError> {
        parse_with(s, "java.time.LocalDate", read_date)
    }
}

impl FromStr for LocalDateTime {
    type Err = ParseError;
    /// Java's `LocalDateTime.parse` text; a year beyond the two bytes of the JSONB form is out
    /// of range.
    fn from_str(s: &str) -> Result<Self, ParseError> {
        parse_with(s, "java.time.LocalDateTime", read_date_time)
    }
}

impl FromStr for OffsetDateTime {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        parse_with(s, "java.time.OffsetDateTime", |c| {
            let date_time = read_date_time(c)?;
            let offset = ZoneOffset {
                total_seconds: OffsetText::read(c)?.0,
            };
            Ok(OffsetDateTime { date_time, offset })
        })
    }
}

impl fmt::Display for OffsetDateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = OffsetDateTimeText {
            date_time: self.date_time.into(),
            offset: OffsetText(self.offset.total_seconds),
        };
        fmt::Display::fmt(&text, f)
    }
}

java_serde::__via_text! {
    Instant => InstantText,
        |v| InstantText { seconds: v.seconds, nanos: v.nanos },
        |t| Ok(Instant { seconds: t.seconds, nanos: t.nanos });
    LocalTime => TimeText, |v| TimeText::from(*v), |t| Ok(time_from_text(t));
    Duration => DurationText,
        // A `nanos` outside 0-999,999,999 is no Java value; shown as its seconds alone.
        |v| DurationText { seconds: v.seconds, nanos: u32::try_from(v.nanos).unwrap_or(0) },
        |t| Ok(Duration { seconds: t.seconds, nanos: t.nanos as i32 });
    Period => PeriodText,
        |v| PeriodText { years: v.years, months: v.months, days: v.days },
        |t| Ok(Period { years: t.years, months: t.months, days: t.days });
    Year => YearText, |v| YearText(v.year), |t| Ok(Year { year: t.0 });
    YearMonth => YearMonthText,
        |v| YearMonthText { year: v.year, month: v.month },
        |t| Ok(YearMonth { year: t.year, month: t.month });
    MonthDay => MonthDayText,
        |v| MonthDayText { month: v.month, day: v.day },
        |t| Ok(MonthDay { month: t.month, day: t.day });
    ZoneOffset => OffsetText,
        |v| OffsetText(v.total_seconds),
        |t| Ok(ZoneOffset { total_seconds: t.0 });
    OffsetTime => OffsetTimeText,
        |v| OffsetTimeText { time: v.time.into(), offset: OffsetText(v.offset.total_seconds) },
        |t| Ok(OffsetTime {
            time: time_from_text(t.time),
            offset: ZoneOffset { total_seconds: t.offset.0 },
        });
}

impl fmt::Display for LocalDate {
    /// Java's `toString()`: `2024-02-29`, `-0005-01-01`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&DateText::from(*self), f)
    }
}

impl fmt::Display for LocalDateTime {
    /// Java's `toString()`: `2024-02-29T13:45:30`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&DateTimeText::from(*self), f)
    }
}

impl fmt::Display for ZoneId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id)
    }
}

impl FromStr for ZoneId {
    type Err = ParseError;
    /// Any id but the empty one.
    fn from_str(s: &str) -> Result<Self, ParseError> {
        match s {
            "" => Err(Cursor::new(s, "java.time.ZoneId").syntax()),
            id => Ok(ZoneId { id: id.to_owned() }),
        }
    }
}

/// Serde of a type fastjson2 writes as its `toString()`: the string, in every format.
macro_rules! string_serde {
    ($($ty:ty),+) => {$(
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_str(FromStrVisitor::new())
            }
        }
    )+};
}

string_serde!(Duration, Period, ZoneOffset, ZoneId);

/// Serde of a type fastjson2 writes as an object of its fields typed `$class` (each an `i32`
/// field named as in Java, in name order); its text in human-readable formats.
macro_rules! object_serde {
    ($ty:ident, $class:literal, { $($field:ident),+ }) => {
        impl Serialize for $ty {
            #[allow(clippy::useless_conversion)]
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                if s.is_human_readable() {
                    return s.collect_str(self);
                }
                let mut st = s.serialize_struct($class, [$(stringify!($field)),+].len())?;
                $(st.serialize_field(stringify!($field), &i32::from(self.$field))?;)+
                st.end()
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            #[allow(clippy::useless_conversion)]
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                #[derive(serde::Deserialize)]
                #[serde(rename = $class)]
                struct Wire {
                    $($field: i32,)+
                }
                if d.is_human_readable() {
                    return d.deserialize_str(FromStrVisitor::new());
                }
                let w = Wire::deserialize(d)?;
                Ok($ty {
                    $($field: w.$field.try_into().map_err(|_| {
                        de::Error::invalid_value(
                            de::Unexpected::Signed(w.$field.into()),
                            &concat!("a ", $class, " ", stringify!($field)),
                        )
                    })?,)+
                })
            }
        }
    };
}

object_serde!(Year, "java.time.Year", { year });
object_serde!(YearMonth, "java.time.YearMonth", { month, year });
object_serde!(MonthDay, "java.time.MonthDay", { day, month });

/// The zoned date-time fastjson2 writes for an offset value.
fn zoned(date_time: LocalDateTime, offset: ZoneOffset) -> ZonedDateTime {
    ZonedDateTime {
        date_time,
        zone: offset.to_string(),
    }
}

/// The offset of a zoned date-time read for an offset value: its zone must be an offset id.
fn offset_of<E: de::Error>(z: &ZonedDateTime) -> Result<ZoneOffset, E> {
    z.zone
        .parse()
        .map_err(|_| E::invalid_value(de::Unexpected::Str(&z.zone), &"an offset id"))
}

impl Serialize for OffsetDateTime {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return s.collect_str(self);
        }
        zoned(self.date_time, self.offset).serialize(s)
    }
}

impl<'de> Deserialize<'de> for OffsetDateTime {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if d.is_human_readable() {
            return d.deserialize_str(FromStrVisitor::new());
        }
        let z = ZonedDateTime::deserialize(d)?;
        Ok(OffsetDateTime {
            offset: offset_of(&z)?,
            date_time: z.date_time,
        })
    }
}

/// The date fastjson2 writes before an `OffsetTime`.
const EPOCH_DAY: LocalDate = LocalDate {
    year: 1970,
    month: 1,
    day: 1,
};

impl Serialize for OffsetTime {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return s.collect_str(self);
        }
        let date_time = LocalDateTime {
            date: EPOCH_DAY,
            time: self.time,
        };
        zoned(date_time, self.offset).serialize(s)
    }
}

impl<'de> Deserialize<'de> for OffsetTime {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if d.is_human_readable() {
            return d.deserialize_str(FromStrVisitor::new());
        }
        let z = ZonedDateTime::deserialize(d)?;
        Ok(OffsetTime {
            offset: offset_of(&z)?,
            time: z.date_time.time,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_javas_and_bad_text_is_an_error() {
        let d = Duration {
            seconds: -2,
            nanos: 500_000_000,
        };
        assert_eq!(d.to_string(), "PT-1.5S");
        assert_eq!("PT-1.5S".parse(), Ok(d));
        assert_eq!(
            "P1Y-2M3D".parse::<Period>().map(|p| p.to_string()),
            Ok("P1Y-2M3D".into())
        );
        assert_eq!("--02-29".parse(), Ok(MonthDay { month: 2, day: 29 }));
        assert_eq!(
            YearMonth {
                year: 2024,
                month: 2
            }
            .to_string(),
            "2024-02"
        );
        assert_eq!(
            "13:45:30.123-05:00"
                .parse::<OffsetTime>()
                .map(|t| t.to_string()),
            Ok("13:45:30.123-05:00".into())
        );
        // The JSONB date has a 16-bit year.
        assert!(matches!(
            "+100000-01-01".parse::<LocalDate>(),
            Err(ParseError::OutOfRange { .. })
        ));
        for bad in ["", "P", "PT1S1H", "x"] {
            assert!(bad.parse::<Duration>().is_err(), "{bad:?}");
        }
        assert!("".parse::<ZoneId>().is_err());
        assert!("05:00".parse::<ZoneOffset>().is_err());
        assert!("2024-05-06T07:08:09".parse::<OffsetDateTime>().is_err());
    }
}
