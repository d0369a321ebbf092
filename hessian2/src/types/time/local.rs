//! Dates and times without a zone: `LocalDate`, `LocalTime`, `LocalDateTime`, `Year`,
//! `YearMonth`, `MonthDay`.

use java_serde::text::{DateText, DateTimeText, MonthDayText, TimeText, YearMonthText, YearText};

use super::handle_serde;
use super::iso::via_text;
#[cfg(test)]
use super::iso::ParseError;

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

/// Each carrier is its `java_serde::text` type's fields (the text of both crates' carriers).
macro_rules! same_fields {
    ($($ty:ident <=> $text:ident { $($field:ident),+ };)+) => {$(
        impl From<$ty> for $text {
            #[allow(clippy::useless_conversion)]
            fn from(v: $ty) -> $text {
                $text { $($field: v.$field.into()),+ }
            }
        }

        impl From<$text> for $ty {
            #[allow(clippy::useless_conversion)]
            fn from(v: $text) -> $ty {
                $ty { $($field: v.$field.into()),+ }
            }
        }
    )+};
}
pub(crate) use same_fields;

same_fields! {
    LocalDate <=> DateText { year, month, day };
    LocalTime <=> TimeText { hour, minute, second, nano };
    LocalDateTime <=> DateTimeText { date, time };
    YearMonth <=> YearMonthText { year, month };
    MonthDay <=> MonthDayText { month, day };
}

via_text! {
    LocalDate => DateText, |v| DateText::from(*v), |t| t.into();
    LocalTime => TimeText, |v| TimeText::from(*v), |t| t.into();
    LocalDateTime => DateTimeText, |v| DateTimeText::from(*v), |t| t.into();
    Year => YearText, |v| YearText(v.year), |t| Year { year: t.0 };
    YearMonth => YearMonthText, |v| YearMonthText::from(*v), |t| t.into();
    MonthDay => MonthDayText, |v| MonthDayText::from(*v), |t| t.into();
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
