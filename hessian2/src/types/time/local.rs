//! Dates and times without a zone: `LocalDate`, `LocalTime`, `LocalDateTime`, `Year`,
//! `YearMonth`, `MonthDay`.

use std::fmt;
use std::str::FromStr;

use super::handle_serde;
use super::iso::{read_year, write_nanos, write_year, Cursor, ParseError};

/// A `java.time.LocalDate` (hessian-lite's `LocalDateHandle`: `year`, `month`, `day` ints).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalDate {
    /// Year (Java allows ±999,999,999).
    pub year: i32,
    /// Month, 1-12.
    pub month: u8,
    /// Day of the month, 1-31.
    pub day: u8,
}

handle_serde!(LocalDate, "com.alibaba.com.caucho.hessian.io.java8.LocalDateHandle", {
    day: u8 => "day",
    month: u8 => "month",
    year: i32 => "year",
});

/// A `java.time.LocalTime` (`LocalTimeHandle`: `hour`, `minute`, `second`, `nano` ints).
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

handle_serde!(LocalTime, "com.alibaba.com.caucho.hessian.io.java8.LocalTimeHandle", {
    nano: i32 => "nano",
    second: u8 => "second",
    minute: u8 => "minute",
    hour: u8 => "hour",
});

/// A `java.time.LocalDateTime` (`LocalDateTimeHandle`: a `LocalDate` and a `LocalTime` handle).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalDateTime {
    /// The date.
    pub date: LocalDate,
    /// The time of day.
    pub time: LocalTime,
}

handle_serde!(LocalDateTime, "com.alibaba.com.caucho.hessian.io.java8.LocalDateTimeHandle", {
    time: LocalTime => "time",
    date: LocalDate => "date",
});

/// A `java.time.Year` (`YearHandle`: `year`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Year {
    /// The year.
    pub year: i32,
}

handle_serde!(Year, "com.alibaba.com.caucho.hessian.io.java8.YearHandle", {
    year: i32 => "year",
});

/// A `java.time.YearMonth` (`YearMonthHandle`: `year`, `month`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct YearMonth {
    /// The year.
    pub year: i32,
    /// Month, 1-12.
    pub month: u8,
}

handle_serde!(YearMonth, "com.alibaba.com.caucho.hessian.io.java8.YearMonthHandle", {
    month: u8 => "month",
    year: i32 => "year",
});

/// A `java.time.MonthDay` (`MonthDayHandle`: `month`, `day`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MonthDay {
    /// Month, 1-12.
    pub month: u8,
    /// Day of the month, 1-31.
    pub day: u8,
}

handle_serde!(MonthDay, "com.alibaba.com.caucho.hessian.io.java8.MonthDayHandle", {
    day: u8 => "day",
    month: u8 => "month",
});

impl fmt::Display for LocalDate {
    /// `2024-02-29`, `-0005-01-01`, `+10000-01-01` (Java's `toString()`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_year(f, self.year, true)?;
        write!(f, "-{:02}-{:02}", self.month, self.day)
    }
}

impl fmt::Display for LocalTime {
    /// `13:45`, `13:45:30`, `13:45:30.123456789`: seconds only when not zero, the fraction in
    /// groups of three digits (Java's `toString()`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}:{:02}", self.hour, self.minute)?;
        if self.second > 0 || self.nano > 0 {
            write!(f, ":{:02}", self.second)?;
            write_nanos(f, self.nano)?;
        }
        Ok(())
    }
}

impl fmt::Display for LocalDateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}T{}", self.date, self.time)
    }
}

impl fmt::Display for Year {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.year)
    }
}

impl fmt::Display for YearMonth {
    /// `2024-02` (Java writes no `+` before years over 9999 here).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_year(f, self.year, false)?;
        write!(f, "-{:02}", self.month)
    }
}

impl fmt::Display for MonthDay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "--{:02}-{:02}", self.month, self.day)
    }
}

impl LocalDate {
    pub(crate) fn read(c: &mut Cursor<'_>) -> Result<Self, ParseError> {
        let year = read_year(c)?;
        c.expect(b'-')?;
        let month = c.field(2)?;
        c.expect(b'-')?;
        let day = c.field(2)?;
        Ok(LocalDate { year, month, day })
    }
}

impl LocalTime {
    /// `HH:mm[:ss[.fraction]]`.
    pub(crate) fn read(c: &mut Cursor<'_>) -> Result<Self, ParseError> {
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
        Ok(LocalTime {
            hour,
            minute,
            second,
            nano,
        })
    }
}

impl LocalDateTime {
    pub(crate) fn read(c: &mut Cursor<'_>) -> Result<Self, ParseError> {
        let date = LocalDate::read(c)?;
        c.expect(b'T')?;
        let time = LocalTime::read(c)?;
        Ok(LocalDateTime { date, time })
    }
}

/// `FromStr` through a reader of the whole text.
macro_rules! parse_whole {
    ($($ty:ident => $java:literal, $read:expr;)+) => {$(
        impl FromStr for $ty {
            type Err = ParseError;
            fn from_str(s: &str) -> Result<Self, ParseError> {
                let mut c = Cursor::new(s, $java);
                let v = $read(&mut c)?;
                c.end()?;
                Ok(v)
            }
        }
    )+};
}
pub(crate) use parse_whole;

parse_whole! {
    LocalDate => "java.time.LocalDate", LocalDate::read;
    LocalTime => "java.time.LocalTime", LocalTime::read;
    LocalDateTime => "java.time.LocalDateTime", LocalDateTime::read;
    Year => "java.time.Year", |c: &mut Cursor<'_>| -> Result<Year, ParseError> {
        let sign = c.sign();
        let v = c.digits(1, 10)?;
        Ok(Year { year: c.fit(sign * v)? })
    };
    YearMonth => "java.time.YearMonth", |c: &mut Cursor<'_>| -> Result<YearMonth, ParseError> {
        let year = read_year(c)?;
        c.expect(b'-')?;
        Ok(YearMonth { year, month: c.field(2)? })
    };
    MonthDay => "java.time.MonthDay", |c: &mut Cursor<'_>| -> Result<MonthDay, ParseError> {
        c.expect(b'-')?;
        c.expect(b'-')?;
        let month = c.field(2)?;
        c.expect(b'-')?;
        Ok(MonthDay { month, day: c.field(2)? })
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_javas_to_string_and_parses_back() {
        let cases: [(&str, LocalDate); 4] = [
            (
                "2024-02-29",
                LocalDate {
                    year: 2024,
                    month: 2,
                    day: 29,
                },
            ),
            (
                "-0005-01-01",
                LocalDate {
                    year: -5,
                    month: 1,
                    day: 1,
                },
            ),
            (
                "+10000-12-31",
                LocalDate {
                    year: 10000,
                    month: 12,
                    day: 31,
                },
            ),
            (
                "-999999999-01-01",
                LocalDate {
                    year: -999_999_999,
                    month: 1,
                    day: 1,
                },
            ),
        ];
        for (text, d) in cases {
            assert_eq!(d.to_string(), text);
            assert_eq!(text.parse::<LocalDate>(), Ok(d));
        }
        for (text, nano) in [
            ("13:45:30.123456789", 123_456_789),
            ("13:45:30.123", 123_000_000),
            ("13:45:30.000001", 1000),
        ] {
            let t = LocalTime {
                hour: 13,
                minute: 45,
                second: 30,
                nano,
            };
            assert_eq!(t.to_string(), text);
            assert_eq!(text.parse::<LocalTime>(), Ok(t));
        }
        let midnight = LocalTime {
            hour: 0,
            minute: 0,
            second: 0,
            nano: 0,
        };
        assert_eq!(midnight.to_string(), "00:00");
        assert_eq!("00:00".parse::<LocalTime>(), Ok(midnight));
        assert_eq!(Year { year: 2024 }.to_string(), "2024");
        assert_eq!("-12".parse::<Year>(), Ok(Year { year: -12 }));
        assert_eq!(
            YearMonth {
                year: 2024,
                month: 2
            }
            .to_string(),
            "2024-02"
        );
        assert_eq!(
            "--02-29".parse::<MonthDay>(),
            Ok(MonthDay { month: 2, day: 29 })
        );
    }

    #[test]
    fn bad_text_is_an_error_with_an_offset() {
        assert!(matches!(
            "2024-2-29".parse::<LocalDate>(),
            Err(ParseError::Syntax { at: 6, .. })
        ));
        assert!(matches!(
            "13:45:30.".parse::<LocalTime>(),
            Err(ParseError::Syntax { at: 9, .. })
        ));
        assert!(matches!(
            "9999999999".parse::<Year>(),
            Err(ParseError::OutOfRange { .. })
        ));
        assert!(matches!(
            "99999999999".parse::<Year>(),
            Err(ParseError::OutOfRange { .. })
        ));
        assert!(matches!(
            "--02-299".parse::<MonthDay>(),
            Err(ParseError::Syntax { at: 7, .. })
        ));
    }
}
