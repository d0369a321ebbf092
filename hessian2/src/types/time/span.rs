//! Points and amounts of time: `Instant`, `Duration` (seconds and nanoseconds) and `Period`
//! (years, months, days).

use java_serde::text::{DurationText, InstantText, PeriodText};

use super::handle_serde;
use super::iso::via_text;
#[cfg(test)]
use super::iso::ParseError;
use super::local::same_fields;

#[cfg(feature = "time")]
const NANOS_PER_SECOND: i32 = 1_000_000_000;

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
                nanos: nanos + NANOS_PER_SECOND,
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

same_fields! {
    Instant <=> InstantText { seconds, nanos };
    Period <=> PeriodText { years, months, days };
}

via_text! {
    Instant => InstantText, |v| InstantText::from(*v), |t| t.into();
    // A `nanos` outside 0-999,999,999 is no Java value; shown as its seconds alone.
    Duration => DurationText,
        |v| DurationText { seconds: v.seconds, nanos: u32::try_from(v.nanos).unwrap_or(0) },
        |t| Duration { seconds: t.seconds, nanos: t.nanos as i32 };
    Period => PeriodText, |v| PeriodText::from(*v), |t| t.into();
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
