//! Java's text of its value types: what `toString()` writes and `parse` reads, for the
//! `java.time` values and `java.util.UUID`. fastjson2 sends several of them as that text (a
//! `java.time.Duration` as its `toString()`, an `OffsetDateTime`'s offset as a zone id), and the
//! carriers of the hessian2 and fastjson2 crates, which hold the same fields, are this text in
//! human-readable formats: one implementation for both.
//!
//! Each `...Text` type holds the fields of its Java type, writes Java's text with `Display` and
//! reads it with `FromStr` (strictly, never panicking: a [`ParseError`] names the Java type and
//! the byte offset). [`Cursor`] and the `read` functions compose them into other parsers.
//!
//! ```
//! use java_serde::text::{parse_duration, parse_offset, DurationText, OffsetText};
//!
//! assert_eq!(DurationText { seconds: 3661, nanos: 5 }.to_string(), "PT1H1M1.000000005S");
//! assert_eq!(parse_duration("PT-1.5S"), Some((-2, 500_000_000)));
//! assert_eq!(OffsetText(19_800).to_string(), "+05:30");
//! assert_eq!(parse_offset("Z"), Some(0));
//! ```

use std::fmt;

mod cursor;
mod java_time;

pub use cursor::{
    civil_from_days, days_from_civil, parse_with, Cursor, FromStrVisitor, ParseError,
};
pub use java_time::{
    DateText, DateTimeText, InstantText, MonthDayText, OffsetDateTimeText, OffsetTimeText,
    PeriodText, TimeText, UuidText, YearMonthText, YearText,
};

/// `Display` and `FromStr` of a carrier type through the `...Text` type of the same fields
/// (for the hessian2 and fastjson2 crates' carriers, which are this text):
/// `$to` gives the text value of `$s` (`&self`), `$from` the carrier of a parsed text value `$t`
/// (a `Result<_, ParseError>`).
#[doc(hidden)]
#[macro_export]
macro_rules! __via_text {
    ($($ty:ty => $text:ty, |$s:ident| $to:expr, |$t:ident| $from:expr;)+) => {$(
        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                let $s = self;
                ::std::fmt::Display::fmt(&$to, f)
            }
        }

        impl ::std::str::FromStr for $ty {
            type Err = $crate::text::ParseError;
            fn from_str(s: &str) -> ::std::result::Result<Self, $crate::text::ParseError> {
                let $t: $text = s.parse()?;
                $from
            }
        }
    )+};
}

const NANOS: i128 = 1_000_000_000;

/// Java's offsets are within ±18:00.
pub const MAX_OFFSET_SECONDS: u32 = 18 * 3600;

/// A `java.time.Duration` as Java's `toString()` writes it (`PT1H1M1.000000005S`, `PT-1.5S`,
/// `PT0S`), from the seconds (floored) and nanoseconds Java keeps. `FromStr` reads Java's
/// `Duration.parse` text in upper case with `.` (a [`ParseError`] saying where it stops);
/// [`parse_duration`] is the lenient reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct DurationText {
    /// Whole seconds, floored (negative for a negative duration).
    pub seconds: i64,
    /// 0-999,999,999, added to `seconds`.
    pub nanos: u32,
}

impl fmt::Display for DurationText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (seconds, nanos) = (self.seconds, self.nanos);
        if seconds == 0 && nanos == 0 {
            return f.write_str("PT0S");
        }
        // Java counts whole seconds towards zero, the fraction carrying the sign.
        let negative_fraction = seconds < 0 && nanos > 0;
        let total = i128::from(seconds) + i128::from(negative_fraction);
        let (hours, minutes, secs) = (total / 3600, total % 3600 / 60, total % 60);
        f.write_str("PT")?;
        if hours != 0 {
            write!(f, "{hours}H")?;
        }
        if minutes != 0 {
            write!(f, "{minutes}M")?;
        }
        if secs == 0 && nanos == 0 {
            return Ok(());
        }
        if negative_fraction && secs == 0 {
            f.write_str("-0")?;
        } else {
            write!(f, "{secs}")?;
        }
        if nanos > 0 {
            let fraction = if negative_fraction {
                1_000_000_000 - nanos
            } else {
                nanos
            };
            let digits = format!("{fraction:09}");
            write!(f, ".{}", digits.trim_end_matches('0'))?;
        }
        f.write_str("S")
    }
}

/// Reads Java's `Duration.parse` text, `[-]P[nD][T[nH][nM][n[.f]S]]` (each number may carry a
/// sign), into seconds (floored) and nanoseconds; `None` if it is not that, or beyond an
/// `i64` of seconds.
pub fn parse_duration(text: &str) -> Option<(i64, u32)> {
    let (negate, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let rest = rest.strip_prefix(['P', 'p'])?;
    let (days, time) = match rest.find(['T', 't']) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let mut total: i128 = 0;
    let mut any = false;
    if !days.is_empty() {
        total += whole(days.strip_suffix(['D', 'd'])?)? * 86_400 * NANOS;
        any = true;
    }
    if let Some(mut time) = time {
        if time.is_empty() {
            return None;
        }
        for (unit, seconds) in [('H', 3600), ('M', 60)] {
            if let Some(i) = time.find([unit, unit.to_ascii_lowercase()]) {
                total += whole(&time[..i])? * seconds * NANOS;
                time = &time[i + 1..];
                any = true;
            }
        }
        if !time.is_empty() {
            total += fractional_seconds(time.strip_suffix(['S', 's'])?)?;
            any = true;
        }
    }
    if !any {
        return None;
    }
    let total = if negate { -total } else { total };
    let seconds = i64::try_from(total.div_euclid(NANOS)).ok()?;
    Some((seconds, total.rem_euclid(NANOS) as u32))
}

/// An optionally signed whole number of 1-19 digits.
fn whole(s: &str) -> Option<i128> {
    let (negative, digits) = sign(s);
    if digits.is_empty() || digits.len() > 19 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v: i128 = digits.parse().ok()?;
    Some(if negative { -v } else { v })
}

fn sign(s: &str) -> (bool, &str) {
    match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    }
}

/// `[-]n[.f]` seconds (up to nine fraction digits, `,` as Java also takes) in nanoseconds; the
/// sign covers the fraction too.
fn fractional_seconds(s: &str) -> Option<i128> {
    let (negative, body) = sign(s);
    let (int, fraction) = match body.find(['.', ',']) {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => (body, ""),
    };
    let mut nanos = whole(int)? * NANOS;
    if !fraction.is_empty() || body.len() != int.len() {
        if fraction.is_empty()
            || fraction.len() > 9
            || !fraction.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let scaled: i128 = format!("{fraction:0<9}").parse().ok()?;
        nanos += scaled;
    }
    Some(if negative { -nanos } else { nanos })
}

/// A `java.time.ZoneOffset` as its id: `Z`, `+05:30`, `-08:00`, `+01:02:03`; `FromStr` reads
/// `Z` or a sign and `HH`, `HH:MM` or `HH:MM:SS` (any total that fits an `i32`; see
/// [`parse_offset`] for Java's ±18:00 check).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct OffsetText(pub i32);

impl fmt::Display for OffsetText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return f.write_str("Z");
        }
        let sign = if self.0 < 0 { '-' } else { '+' };
        let abs = self.0.unsigned_abs();
        write!(f, "{sign}{:02}:{:02}", abs / 3600, abs / 60 % 60)?;
        if abs % 60 != 0 {
            write!(f, ":{:02}", abs % 60)?;
        }
        Ok(())
    }
}

/// Reads an offset id (`Z`, `+05:30`, `-08:00:15`, `+05`) into seconds; `None` if it is not
/// one, or beyond ±18:00.
pub fn parse_offset(text: &str) -> Option<i32> {
    if text == "Z" || text == "z" {
        return Some(0);
    }
    let negative = match text.as_bytes().first()? {
        b'+' => false,
        b'-' => true,
        _ => return None,
    };
    let mut parts = text[1..].split(':');
    let mut seconds: u32 = 0;
    for (i, unit) in [3600, 60, 1].into_iter().enumerate() {
        match parts.next() {
            Some(p) if p.len() == 2 && p.bytes().all(|b| b.is_ascii_digit()) => {
                let v: u32 = p.parse().ok()?;
                if i > 0 && v > 59 {
                    return None;
                }
                seconds += v * unit;
            }
            None if i > 0 => break,
            _ => return None,
        }
    }
    if parts.next().is_some() || seconds > MAX_OFFSET_SECONDS {
        return None;
    }
    let seconds = seconds as i32;
    Some(if negative { -seconds } else { seconds })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_back_what_java_writes() {
        for (text, seconds, nanos) in [
            ("PT0S", 0, 0),
            ("PT1H1M1.000000005S", 3661, 5),
            ("PT-1.5S", -2, 500_000_000),
            ("PT-0.5S", -1, 500_000_000),
            ("PT24H", 86_400, 0),
            ("PT-8H-6M-12.345S", -29_173, 655_000_000),
            ("PT2562047788015215H30M7.999999999S", i64::MAX, 999_999_999),
        ] {
            assert_eq!(DurationText { seconds, nanos }.to_string(), text);
            assert_eq!(parse_duration(text), Some((seconds, nanos)), "{text}");
        }
        assert_eq!(parse_duration("P2D"), Some((172_800, 0)));
        assert_eq!(parse_duration("-PT1M"), Some((-60, 0)));
        assert_eq!(parse_duration("PT1,5S"), Some((1, 500_000_000)));
        for bad in [
            "",
            "P",
            "PT",
            "T1S",
            "PT1",
            "PT1.S",
            "PT.5S",
            "PT1.0000000001S",
            "PT1S2M",
            "P1DT",
        ] {
            assert_eq!(parse_duration(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn offsets_are_java_ids() {
        for (text, seconds) in [
            ("Z", 0),
            ("+05:30", 19_800),
            ("-08:00", -28_800),
            ("+01:02:03", 3723),
        ] {
            assert_eq!(OffsetText(seconds).to_string(), text);
            assert_eq!(parse_offset(text), Some(seconds), "{text}");
        }
        assert_eq!(parse_offset("+05"), Some(18_000));
        for bad in [
            "",
            "+",
            "05:00",
            "+5:00",
            "+05:60",
            "+18:00:01",
            "+05:00:00:00",
            "UTC",
        ] {
            assert_eq!(parse_offset(bad), None, "{bad:?}");
        }
    }
}
