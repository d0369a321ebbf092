//! Points and amounts of time: `Instant`, `Duration` (seconds and nanoseconds) and `Period`
//! (years, months, days).

use std::fmt;
use std::str::FromStr;

use super::handle_serde;
use super::iso::{civil_from_days, days_from_civil, write_nanos, Cursor, ParseError};
use super::local::{parse_whole, LocalDate, LocalDateTime, LocalTime};

const NANOS_PER_SECOND: i128 = 1_000_000_000;

/// A `java.time.Instant` (`InstantHandle`: `seconds` long, `nanos` int).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Instant {
    /// Seconds since 1970-01-01T00:00:00Z.
    pub seconds: i64,
    /// Nanoseconds within the second, 0-999,999,999 (never negative: -0.5 s is -1 s + 500 ms).
    pub nanos: i32,
}

handle_serde!(Instant, "com.alibaba.com.caucho.hessian.io.java8.InstantHandle", {
    nanos: i32 => "nanos",
    seconds: i64 => "seconds",
});

/// A `java.time.Duration` (`DurationHandle`: `seconds` long, `nanos` int), stored as Java does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Duration {
    /// Whole seconds (negative for negative durations).
    pub seconds: i64,
    /// Nanoseconds added to `seconds`, 0-999,999,999.
    pub nanos: i32,
}

#[cfg(feature = "time")]
impl Duration {
    /// From seconds and nanoseconds of the same sign (as the `time` crate counts), kept as Java
    /// keeps them: seconds floored, nanoseconds 0-999,999,999. `None` below `i64::MIN` seconds.
    pub(crate) fn from_signed_parts(seconds: i64, nanos: i32) -> Option<Self> {
        if nanos < 0 {
            return Some(Duration {
                seconds: seconds.checked_sub(1)?,
                nanos: nanos + NANOS_PER_SECOND as i32,
            });
        }
        Some(Duration { seconds, nanos })
    }
}

handle_serde!(Duration, "com.alibaba.com.caucho.hessian.io.java8.DurationHandle", {
    nanos: i32 => "nanos",
    seconds: i64 => "seconds",
});

/// A `java.time.Period` (`PeriodHandle`: `years`, `months`, `days` ints, each with its own sign).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Period {
    /// Years.
    pub years: i32,
    /// Months.
    pub months: i32,
    /// Days.
    pub days: i32,
}

handle_serde!(Period, "com.alibaba.com.caucho.hessian.io.java8.PeriodHandle", {
    days: i32 => "days",
    months: i32 => "months",
    years: i32 => "years",
});

impl Instant {
    /// Seconds and nanoseconds as `(seconds, nanos)` from a count of nanoseconds.
    fn from_nanos(total: i128) -> Option<Self> {
        Some(Instant {
            seconds: i64::try_from(total.div_euclid(NANOS_PER_SECOND)).ok()?,
            nanos: total.rem_euclid(NANOS_PER_SECOND) as i32,
        })
    }

    /// The UTC date and time of day.
    fn utc(self) -> (i64, LocalTime) {
        let in_day = self.seconds.rem_euclid(86_400);
        let time = LocalTime {
            hour: (in_day / 3600) as u8,
            minute: (in_day / 60 % 60) as u8,
            second: (in_day % 60) as u8,
            nano: self.nanos,
        };
        (self.seconds.div_euclid(86_400), time)
    }
}

impl fmt::Display for Instant {
    /// Java's `toString()` (ISO_INSTANT): UTC, seconds always, the fraction in groups of three
    /// digits, `Z`: `2023-11-14T22:13:20.123456789Z`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (days, t) = self.utc();
        let (y, m, d) = civil_from_days(days);
        match i32::try_from(y) {
            Ok(year) => write!(
                f,
                "{}",
                LocalDate {
                    year,
                    month: m as u8,
                    day: d as u8
                }
            )?,
            // Beyond LocalDate's range (seconds near the i64 limits): the plain year.
            Err(_) => write!(f, "{y}-{m:02}-{d:02}")?,
        }
        write!(f, "T{:02}:{:02}:{:02}", t.hour, t.minute, t.second)?;
        write_nanos(f, t.nano)?;
        f.write_str("Z")
    }
}

impl fmt::Display for Duration {
    /// Java's `toString()`: `PT1H1M1.000000005S`, `PT-1.5S`, `PT0S`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A `nanos` outside 0-999,999,999 is no Java value; shown as its seconds alone.
        let nanos = u32::try_from(self.nanos).unwrap_or(0);
        fmt::Display::fmt(
            &java_serde::text::DurationText {
                seconds: self.seconds,
                nanos,
            },
            f,
        )
    }
}

impl fmt::Display for Period {
    /// Java's `toString()`: `P1Y-2M3D`, `P0D`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self
            == (Period {
                years: 0,
                months: 0,
                days: 0,
            })
        {
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

/// `2023-11-14T22:13:20Z`: a UTC date-time with `Z`, fields checked (they index a calendar).
fn read_instant(c: &mut Cursor<'_>) -> Result<Instant, ParseError> {
    let LocalDateTime { date, time } = LocalDateTime::read(c)?;
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
    Ok(Instant {
        seconds,
        nanos: time.nano,
    })
}

/// An optionally signed whole number of up to 18 digits.
fn signed(c: &mut Cursor<'_>) -> Result<i64, ParseError> {
    let sign = c.sign();
    Ok(sign * c.digits(1, 18)?)
}

/// `[-]P[nD][T[nH][nM][n[.f]S]]` (Java's `Duration.parse`, `,` for `.` excepted).
fn read_duration(c: &mut Cursor<'_>) -> Result<Duration, ParseError> {
    let negate = c.eat(b'-');
    c.expect(b'P')?;
    let mut total: i128 = 0;
    let mut any = false;
    if c.peek() != Some(b'T') {
        total += i128::from(signed(c)?) * 86_400 * NANOS_PER_SECOND;
        c.expect(b'D')?;
        any = true;
    }
    if c.eat(b'T') {
        let mut units: &[(u8, i128)] = &[(b'H', 3600), (b'M', 60), (b'S', 1)];
        while c.peek().is_some() {
            let negative = c.peek() == Some(b'-');
            let whole = signed(c)?;
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
    let i = Instant::from_nanos(total).ok_or_else(|| c.out_of_range())?;
    Ok(Duration {
        seconds: i.seconds,
        nanos: i.nanos,
    })
}

/// `[-]P[nY][nM][nW][nD]` (Java's `Period.parse`; weeks count seven days).
fn read_period(c: &mut Cursor<'_>) -> Result<Period, ParseError> {
    let negate: i64 = if c.eat(b'-') { -1 } else { 1 };
    c.expect(b'P')?;
    let mut units: &[u8] = b"YMWD";
    let (mut years, mut months, mut days) = (0i64, 0i64, 0i64);
    while c.peek().is_some() {
        let v = signed(c)? * negate;
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
    Ok(Period {
        years: c.fit(years)?,
        months: c.fit(months)?,
        days: c.fit(days)?,
    })
}

parse_whole! {
    Instant => "java.time.Instant", read_instant;
    Duration => "java.time.Duration", read_duration;
    Period => "java.time.Period", read_period;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instant_text_is_iso_instant() {
        for (text, seconds, nanos) in [
            ("1970-01-01T00:00:00Z", 0, 0),
            ("2023-11-14T22:13:20.123456789Z", 1_700_000_000, 123_456_789),
            ("1969-12-31T23:59:59.999999999Z", -1, 999_999_999),
            ("2023-11-14T22:13:20.500Z", 1_700_000_000, 500_000_000),
        ] {
            let i = Instant { seconds, nanos };
            assert_eq!(i.to_string(), text);
            assert_eq!(text.parse::<Instant>(), Ok(i));
        }
        assert!(matches!(
            "2023-13-14T22:13:20Z".parse::<Instant>(),
            Err(ParseError::OutOfRange { .. })
        ));
    }

    #[test]
    fn duration_text_is_javas() {
        for (text, seconds, nanos) in [
            ("PT0S", 0, 0),
            ("PT1H1M1.000000005S", 3661, 5),
            ("PT-1.5S", -2, 500_000_000),
            ("PT-0.5S", -1, 500_000_000),
            ("PT-1H", -3600, 0),
            ("PT48H", 172_800, 0),
        ] {
            let d = Duration { seconds, nanos };
            assert_eq!(d.to_string(), text, "{seconds} {nanos}");
            assert_eq!(text.parse::<Duration>(), Ok(d), "{text}");
        }
        assert_eq!(
            "P2DT-1M".parse::<Duration>(),
            Ok(Duration {
                seconds: 172_740,
                nanos: 0
            })
        );
        assert!(matches!(
            "PT".parse::<Duration>(),
            Err(ParseError::Syntax { .. })
        ));
        assert!(matches!(
            "PT1S1H".parse::<Duration>(),
            Err(ParseError::Syntax { at: 5, .. })
        ));
    }

    #[test]
    fn period_text_is_javas() {
        let p = Period {
            years: 1,
            months: -2,
            days: 3,
        };
        assert_eq!(p.to_string(), "P1Y-2M3D");
        assert_eq!("P1Y-2M3D".parse::<Period>(), Ok(p));
        assert_eq!(
            Period {
                years: 0,
                months: 0,
                days: 0
            }
            .to_string(),
            "P0D"
        );
        assert_eq!(
            "-P1W2D".parse::<Period>(),
            Ok(Period {
                years: 0,
                months: 0,
                days: -9
            })
        );
        assert!(matches!(
            "P".parse::<Period>(),
            Err(ParseError::Syntax { .. })
        ));
    }
}
