//! The text of the `java.time` values and of `java.util.UUID`: what Java's `toString()` writes
//! and its `parse` reads, for the carriers of the hessian2 and fastjson2 crates (which hold the
//! same fields) and for fastjson2, which sends several of them as that text.

use std::fmt;
use std::str::FromStr;

use super::cursor::{
    civil_from_days, days_from_civil, parse_with, write_nanos, write_year, Cursor, ParseError,
};
use super::{DurationText, OffsetText};

const NANOS_PER_SECOND: i128 = 1_000_000_000;

/// A `java.time.LocalDate`'s text: `2024-02-29`, `-0005-01-01`, `+10000-01-01`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DateText {
    /// Year.
    pub year: i32,
    /// Month, 1-12.
    pub month: u8,
    /// Day of the month, 1-31.
    pub day: u8,
}

/// A `java.time.LocalTime`'s text: `13:45`, `13:45:30`, `13:45:30.123456789` (seconds only when
/// not zero, the fraction in groups of three digits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimeText {
    /// Hour, 0-23.
    pub hour: u8,
    /// Minute, 0-59.
    pub minute: u8,
    /// Second, 0-59.
    pub second: u8,
    /// Nanoseconds within the second.
    pub nano: i32,
}

/// A `java.time.LocalDateTime`'s text: `2024-02-29T13:45:30`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DateTimeText {
    /// The date.
    pub date: DateText,
    /// The time of day.
    pub time: TimeText,
}

/// A `java.time.Instant`'s text (ISO_INSTANT): UTC, seconds always, `Z`:
/// `2023-11-14T22:13:20.123456789Z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstantText {
    /// Seconds since 1970-01-01T00:00:00Z.
    pub seconds: i64,
    /// Nanoseconds within the second, 0-999,999,999.
    pub nanos: i32,
}

/// A `java.time.Year`'s text: `2024`, `-12`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct YearText(pub i32);

/// A `java.time.YearMonth`'s text: `2024-02` (no `+` before years over 9999).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct YearMonthText {
    /// The year.
    pub year: i32,
    /// Month, 1-12.
    pub month: u8,
}

/// A `java.time.MonthDay`'s text: `--02-29`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MonthDayText {
    /// Month, 1-12.
    pub month: u8,
    /// Day of the month, 1-31.
    pub day: u8,
}

/// A `java.time.Period`'s text: `P1Y-2M3D`, `P0D`; read as `Period.parse` does
/// (`[-]P[nY][nM][nW][nD]`, weeks counting seven days).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PeriodText {
    /// Years.
    pub years: i32,
    /// Months.
    pub months: i32,
    /// Days.
    pub days: i32,
}

/// A `java.time.OffsetTime`'s text: `13:45:30-05:00`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OffsetTimeText {
    /// The local time.
    pub time: TimeText,
    /// Seconds east of UTC.
    pub offset: OffsetText,
}

/// A `java.time.OffsetDateTime`'s text: `2024-05-06T07:08:09-05:00`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OffsetDateTimeText {
    /// The local date and time.
    pub date_time: DateTimeText,
    /// Seconds east of UTC.
    pub offset: OffsetText,
}

/// A `java.util.UUID`'s text: `123e4567-e89b-12d3-a456-426614174000` (lowercase; either case
/// is read).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UuidText(pub u128);

impl fmt::Display for DateText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_year(f, self.year, true)?;
        write!(f, "-{:02}-{:02}", self.month, self.day)
    }
}

impl fmt::Display for TimeText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}:{:02}", self.hour, self.minute)?;
        if self.second > 0 || self.nano > 0 {
            write!(f, ":{:02}", self.second)?;
            write_nanos(f, self.nano)?;
        }
        Ok(())
    }
}

impl fmt::Display for DateTimeText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}T{}", self.date, self.time)
    }
}

impl fmt::Display for InstantText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let in_day = self.seconds.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(self.seconds.div_euclid(86_400));
        match i32::try_from(y) {
            Ok(year) => write!(
                f,
                "{}",
                DateText {
                    year,
                    month: m as u8,
                    day: d as u8
                }
            )?,
            // Beyond LocalDate's range (seconds near the i64 limits): the plain year.
            Err(_) => write!(f, "{y}-{m:02}-{d:02}")?,
        }
        write!(
            f,
            "T{:02}:{:02}:{:02}",
            in_day / 3600,
            in_day / 60 % 60,
            in_day % 60
        )?;
        write_nanos(f, self.nanos)?;
        f.write_str("Z")
    }
}

impl fmt::Display for YearText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Display for YearMonthText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_year(f, self.year, false)?;
        write!(f, "-{:02}", self.month)
    }
}

impl fmt::Display for MonthDayText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "--{:02}-{:02}", self.month, self.day)
    }
}

impl fmt::Display for PeriodText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if (self.years, self.months, self.days) == (0, 0, 0) {
            return f.write_str("P0D");
        }
        f.write_str("P")?;
        for (v, unit) in [(self.years, 'Y'), (self.months, 'M'), (self.days, 'D')] {
            if v != 0 {
                write!(f, "{v}{unit}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for OffsetTimeText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.time, self.offset)
    }
}

impl fmt::Display for OffsetDateTimeText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.date_time, self.offset)
    }
}

impl fmt::Display for UuidText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        write!(
            f,
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            v >> 96,
            (v >> 80) & 0xffff,
            (v >> 64) & 0xffff,
            (v >> 48) & 0xffff,
            v & 0xffff_ffff_ffff
        )
    }
}

impl DateText {
    /// Reads `[+-]yyyy-MM-dd` at the cursor.
    pub fn read(c: &mut Cursor<'_>) -> Result<Self, ParseError> {
        let year = c.year()?;
        c.expect(b'-')?;
        let month = c.field(2)?;
        c.expect(b'-')?;
        let day = c.field(2)?;
        Ok(DateText { year, month, day })
    }
}

impl TimeText {
    /// Reads `HH:mm[:ss[.fraction]]` at the cursor.
    pub fn read(c: &mut Cursor<'_>) -> Result<Self, ParseError> {
        let hour = c.field(2)?;
        c.expect(b':')?;
        let minute = c.field(2)?;
        let (mut second, mut nano) = (0, 0);
        if c.eat(b':') {
            second = c.field(2)?;
            if c.eat(b'.') {
                nano = c.nanos()?;
            }
        }
        Ok(TimeText {
            hour,
            minute,
            second,
            nano,
        })
    }
}

impl DateTimeText {
    /// Reads a date, `T` and a time at the cursor.
    pub fn read(c: &mut Cursor<'_>) -> Result<Self, ParseError> {
        let date = DateText::read(c)?;
        c.expect(b'T')?;
        let time = TimeText::read(c)?;
        Ok(DateTimeText { date, time })
    }
}

impl OffsetText {
    /// Reads `Z`, or a sign and `HH`, `HH:MM` or `HH:MM:SS`, at the cursor.
    pub fn read(c: &mut Cursor<'_>) -> Result<Self, ParseError> {
        if c.eat(b'Z') {
            return Ok(OffsetText(0));
        }
        let sign = match c.peek() {
            Some(b'+' | b'-') => c.sign(),
            _ => return Err(c.syntax()),
        };
        let mut seconds = c.digits(2, 2)? * 3600;
        if c.eat(b':') {
            seconds += c.digits(2, 2)? * 60;
            if c.eat(b':') {
                seconds += c.digits(2, 2)?;
            }
        }
        Ok(OffsetText(c.fit(sign * seconds)?))
    }
}

/// `2023-11-14T22:13:20Z`: a UTC date-time with `Z`, fields checked (they index a calendar).
fn read_instant(c: &mut Cursor<'_>) -> Result<InstantText, ParseError> {
    let DateTimeText { date, time } = DateTimeText::read(c)?;
    c.expect(b'Z')?;
    let in_range = (1..=12).contains(&date.month)
        && (1..=31).contains(&date.day)
        && time.hour < 24
        && time.minute < 60
        && time.second < 60;
    if !in_range {
        return Err(c.out_of_range());
    }
    let days = days_from_civil(date.year.into(), date.month.into(), date.day.into());
    let seconds = days * 86_400
        + i64::from(time.hour) * 3600
        + i64::from(time.minute) * 60
        + i64::from(time.second);
    Ok(InstantText {
        seconds,
        nanos: time.nano,
    })
}

/// `[-]P[nD][T[nH][nM][n[.f]S]]` (Java's `Duration.parse`, `,` for `.` excepted).
fn read_duration(c: &mut Cursor<'_>) -> Result<DurationText, ParseError> {
    let negate = c.eat(b'-');
    c.expect(b'P')?;
    let mut total: i128 = 0;
    let mut any = false;
    if c.peek() != Some(b'T') {
        total += i128::from(c.signed()?) * 86_400 * NANOS_PER_SECOND;
        c.expect(b'D')?;
        any = true;
    }
    if c.eat(b'T') {
        let mut units: &[(u8, i128)] = &[(b'H', 3600), (b'M', 60), (b'S', 1)];
        while c.peek().is_some() {
            let negative = c.peek() == Some(b'-');
            let whole = c.signed()?;
            let mut fraction = 0;
            if c.eat(b'.') {
                fraction = i128::from(c.nanos()?);
                units = &units[units.len() - 1..];
            }
            let Some(i) = units.iter().position(|&(u, _)| c.eat(u)) else {
                return Err(c.syntax());
            };
            let signed_fraction = if negative { -fraction } else { fraction };
            total += i128::from(whole) * units[i].1 * NANOS_PER_SECOND + signed_fraction;
            units = &units[i + 1..];
            any = true;
        }
    }
    if !any {
        return Err(c.syntax());
    }
    let total = if negate { -total } else { total };
    let seconds =
        i64::try_from(total.div_euclid(NANOS_PER_SECOND)).map_err(|_| c.out_of_range())?;
    Ok(DurationText {
        seconds,
        nanos: total.rem_euclid(NANOS_PER_SECOND) as u32,
    })
}

/// `[-]P[nY][nM][nW][nD]` (Java's `Period.parse`; weeks count seven days).
fn read_period(c: &mut Cursor<'_>) -> Result<PeriodText, ParseError> {
    let negate: i64 = if c.eat(b'-') { -1 } else { 1 };
    c.expect(b'P')?;
    let mut units: &[u8] = b"YMWD";
    let (mut years, mut months, mut days) = (0i64, 0i64, 0i64);
    while c.peek().is_some() {
        let v = c.signed()? * negate;
        let Some(i) = units.iter().position(|&u| c.eat(u)) else {
            return Err(c.syntax());
        };
        match units[i] {
            b'Y' => years = v,
            b'M' => months = v,
            b'W' => days = v * 7,
            _ => days += v,
        }
        units = &units[i + 1..];
    }
    if units.len() == 4 {
        return Err(c.syntax());
    }
    Ok(PeriodText {
        years: c.fit(years)?,
        months: c.fit(months)?,
        days: c.fit(days)?,
    })
}

/// The 36-character form, hex digits in either case.
fn read_uuid(c: &mut Cursor<'_>) -> Result<UuidText, ParseError> {
    let text = c.take_rest();
    let syntax = |at| ParseError::Syntax {
        java_type: "java.util.UUID",
        input: text.to_owned(),
        at,
    };
    let mut v: u128 = 0;
    for (i, b) in text.bytes().enumerate() {
        let dash = matches!(i, 8 | 13 | 18 | 23);
        let digit = match b {
            _ if i == 36 => None,
            b'-' if dash => continue,
            _ if dash => None,
            _ => char::from(b).to_digit(16),
        };
        v = v << 4 | u128::from(digit.ok_or_else(|| syntax(i))?);
    }
    if text.len() < 36 {
        return Err(syntax(text.len()));
    }
    Ok(UuidText(v))
}

/// `FromStr` through a reader of the whole text.
macro_rules! parse_whole {
    ($($ty:ident => $java:literal, $read:expr;)+) => {$(
        impl FromStr for $ty {
            type Err = ParseError;
            fn from_str(s: &str) -> Result<Self, ParseError> {
                parse_with(s, $java, $read)
            }
        }
    )+};
}

parse_whole! {
    DateText => "java.time.LocalDate", DateText::read;
    TimeText => "java.time.LocalTime", TimeText::read;
    DateTimeText => "java.time.LocalDateTime", DateTimeText::read;
    InstantText => "java.time.Instant", read_instant;
    YearText => "java.time.Year", |c: &mut Cursor<'_>| -> Result<YearText, ParseError> {
        let sign = c.sign();
        let v = c.digits(1, 10)?;
        Ok(YearText(c.fit(sign * v)?))
    };
    YearMonthText => "java.time.YearMonth", |c: &mut Cursor<'_>| -> Result<YearMonthText, ParseError> {
        let year = c.year()?;
        c.expect(b'-')?;
        Ok(YearMonthText { year, month: c.field(2)? })
    };
    MonthDayText => "java.time.MonthDay", |c: &mut Cursor<'_>| -> Result<MonthDayText, ParseError> {
        c.expect(b'-')?;
        c.expect(b'-')?;
        let month = c.field(2)?;
        c.expect(b'-')?;
        Ok(MonthDayText { month, day: c.field(2)? })
    };
    PeriodText => "java.time.Period", read_period;
    DurationText => "java.time.Duration", read_duration;
    OffsetText => "java.time.ZoneOffset", OffsetText::read;
    OffsetTimeText => "java.time.OffsetTime", |c: &mut Cursor<'_>| -> Result<OffsetTimeText, ParseError> {
        let time = TimeText::read(c)?;
        Ok(OffsetTimeText { time, offset: OffsetText::read(c)? })
    };
    OffsetDateTimeText => "java.time.OffsetDateTime", |c: &mut Cursor<'_>| -> Result<OffsetDateTimeText, ParseError> {
        let date_time = DateTimeText::read(c)?;
        Ok(OffsetDateTimeText { date_time, offset: OffsetText::read(c)? })
    };
    UuidText => "java.util.UUID", read_uuid;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each text reads back as the value that wrote it.
    #[test]
    fn text_round_trips() {
        fn check<T: fmt::Display + FromStr<Err = ParseError> + PartialEq + fmt::Debug>(
            v: T,
            text: &str,
        ) {
            assert_eq!(v.to_string(), text);
            assert_eq!(text.parse::<T>(), Ok(v), "{text}");
        }
        let time = TimeText {
            hour: 13,
            minute: 45,
            second: 30,
            nano: 123_000_000,
        };
        check(time, "13:45:30.123");
        check(
            DateTimeText {
                date: DateText {
                    year: 10_000,
                    month: 1,
                    day: 2,
                },
                time,
            },
            "+10000-01-02T13:45:30.123",
        );
        check(
            InstantText {
                seconds: -1,
                nanos: 999_999_999,
            },
            "1969-12-31T23:59:59.999999999Z",
        );
        check(YearText(-12), "-12");
        check(
            YearMonthText {
                year: 10_000,
                month: 2,
            },
            "10000-02",
        );
        check(MonthDayText { month: 2, day: 29 }, "--02-29");
        check(
            PeriodText {
                years: 0,
                months: 0,
                days: 0,
            },
            "P0D",
        );
        check(
            DurationText {
                seconds: -2,
                nanos: 500_000_000,
            },
            "PT-1.5S",
        );
        check(OffsetText(-28_800), "-08:00");
        check(
            OffsetTimeText {
                time,
                offset: OffsetText(0),
            },
            "13:45:30.123Z",
        );
        check(UuidText(u128::MAX), "ffffffff-ffff-ffff-ffff-ffffffffffff");
    }

    #[test]
    fn bad_text_is_a_typed_error() {
        assert!(matches!(
            "P1Y2Y".parse::<PeriodText>(),
            Err(ParseError::Syntax { at: 4, .. })
        ));
        assert!(matches!(
            "P9999999999D".parse::<PeriodText>(),
            Err(ParseError::OutOfRange { .. })
        ));
        assert!(matches!(
            "PT9999999999999999999H".parse::<DurationText>(),
            Err(ParseError::Syntax { .. })
        ));
        assert!(matches!(
            "2024-02-30T25:00:00Z".parse::<InstantText>(),
            Err(ParseError::OutOfRange { .. })
        ));
        for bad in ["", "-", "+", "P-", "--", "é", "T", "0000-00-00T"] {
            assert!(bad.parse::<DateTimeText>().is_err(), "{bad:?}");
            assert!(bad.parse::<PeriodText>().is_err(), "{bad:?}");
            assert!(bad.parse::<DurationText>().is_err(), "{bad:?}");
            assert!(bad.parse::<OffsetDateTimeText>().is_err(), "{bad:?}");
            assert!(bad.parse::<UuidText>().is_err(), "{bad:?}");
        }
    }
}
