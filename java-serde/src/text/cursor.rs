//! The pieces every parser of Java's text is made of: a byte cursor whose errors name the Java
//! type and the offset, Java's forms of years and fractions of a second, and the proleptic
//! Gregorian day count. Parsing is strict and never panics.

use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

use serde::de::{self, Visitor};

/// A string that is not the text of a Java type (as Java's `parse` reads it), or a value
/// outside that type's range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// The text does not follow the syntax; `at` is the byte offset where it stops making sense.
    #[error("invalid {java_type} {input:?} at byte {at}")]
    Syntax {
        /// The Java type being parsed, e.g. `java.time.LocalDate`.
        java_type: &'static str,
        /// The text.
        input: String,
        /// Byte offset of the first unexpected character (the length when the text is short).
        at: usize,
    },
    /// The syntax is right but a number does not fit the type.
    #[error("{java_type} {input:?} is out of range")]
    OutOfRange {
        /// The Java type being parsed.
        java_type: &'static str,
        /// The text.
        input: String,
    },
}

/// A byte cursor over the text of one Java type, for parsers built from the `read` functions
/// of this module's text types ([`DateTimeText::read`](super::DateTimeText::read),
/// [`OffsetText::read`](super::OffsetText::read), ...).
///
/// ```
/// use java_serde::text::{Cursor, DateTimeText, OffsetText, ParseError};
///
/// // A date-time with an offset and a zone in brackets.
/// let text = "2024-02-29T13:45:30+08:00[Asia/Shanghai]";
/// let mut c = Cursor::new(text, "java.time.ZonedDateTime");
/// let at = DateTimeText::read(&mut c)?;
/// let offset = OffsetText::read(&mut c)?;
/// c.expect(b'[')?;
/// let zone = c.take_rest().strip_suffix(']').ok_or_else(|| c.syntax())?;
/// assert_eq!((at.to_string().as_str(), offset.0, zone), ("2024-02-29T13:45:30", 28_800, "Asia/Shanghai"));
/// # Ok::<(), ParseError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    text: &'a str,
    at: usize,
    java_type: &'static str,
}

impl<'a> Cursor<'a> {
    /// At the start of `text`, which is the text of `java_type` (named in errors).
    pub fn new(text: &'a str, java_type: &'static str) -> Self {
        Cursor {
            text,
            at: 0,
            java_type,
        }
    }

    /// A syntax error at the current offset.
    pub fn syntax(&self) -> ParseError {
        ParseError::Syntax {
            java_type: self.java_type,
            input: self.text.to_owned(),
            at: self.at,
        }
    }

    /// An out-of-range error.
    pub fn out_of_range(&self) -> ParseError {
        ParseError::OutOfRange {
            java_type: self.java_type,
            input: self.text.to_owned(),
        }
    }

    /// The next byte.
    pub fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    /// The text not read yet.
    pub fn rest(&self) -> &'a str {
        self.text.get(self.at..).unwrap_or("")
    }

    /// Consumes `b` if it is next.
    pub fn eat(&mut self, b: u8) -> bool {
        let found = self.peek() == Some(b);
        self.at += usize::from(found);
        found
    }

    /// Consumes `b`, or fails.
    pub fn expect(&mut self, b: u8) -> Result<(), ParseError> {
        if self.eat(b) {
            Ok(())
        } else {
            Err(self.syntax())
        }
    }

    /// Consumes the rest of the text.
    pub fn take_rest(&mut self) -> &'a str {
        let rest = self.rest();
        self.at = self.text.len();
        rest
    }

    /// Fails unless the whole text has been read.
    pub fn end(&self) -> Result<(), ParseError> {
        if self.at == self.text.len() {
            Ok(())
        } else {
            Err(self.syntax())
        }
    }

    /// `+` or `-` if next: -1 for `-`, else 1.
    pub fn sign(&mut self) -> i64 {
        if self.eat(b'-') {
            -1
        } else {
            self.eat(b'+');
            1
        }
    }

    /// Between `min` and `max` ASCII digits (`max` at most 18, so the value fits an `i64`).
    pub fn digits(&mut self, min: usize, max: usize) -> Result<i64, ParseError> {
        let start = self.at;
        let max = max.min(18);
        let mut v: i64 = 0;
        while self.at - start < max {
            match self.peek() {
                Some(c @ b'0'..=b'9') => {
                    v = v * 10 + i64::from(c - b'0');
                    self.at += 1;
                }
                _ => break,
            }
        }
        if self.at - start < min {
            return Err(self.syntax());
        }
        Ok(v)
    }

    /// Exactly `n` digits as a field of a narrow type.
    pub fn field<T: TryFrom<i64>>(&mut self, n: usize) -> Result<T, ParseError> {
        let v = self.digits(n, n)?;
        T::try_from(v).map_err(|_| self.out_of_range())
    }

    /// A value that must fit `T`.
    pub fn fit<T: TryFrom<i64>>(&self, v: i64) -> Result<T, ParseError> {
        T::try_from(v).map_err(|_| self.out_of_range())
    }

    /// A fraction of a second after a `.`: 1 to 9 digits, as nanoseconds.
    pub fn nanos(&mut self) -> Result<i32, ParseError> {
        let start = self.at;
        let v = self.digits(1, 9)?;
        let scale = 10i64.pow(u32::try_from(9 - (self.at - start)).unwrap_or(0));
        self.fit(v * scale)
    }

    /// An optionally signed whole number of up to 18 digits.
    pub fn signed(&mut self) -> Result<i64, ParseError> {
        let sign = self.sign();
        Ok(sign * self.digits(1, 18)?)
    }

    /// A year as dates carry it: an optional sign and 4 to 10 digits.
    pub fn year(&mut self) -> Result<i32, ParseError> {
        let sign = self.sign();
        let v = self.digits(4, 10)?;
        self.fit(sign * v)
    }
}

/// Parses the whole of `text` (the text of `java_type`) with `read`.
pub fn parse_with<T>(
    text: &str,
    java_type: &'static str,
    read: impl FnOnce(&mut Cursor<'_>) -> Result<T, ParseError>,
) -> Result<T, ParseError> {
    let mut c = Cursor::new(text, java_type);
    let v = read(&mut c)?;
    c.end()?;
    Ok(v)
}

/// Writes Java's year form in dates: at least four digits, `-` before negative years, and `+`
/// before years over 9999 when `plus` (as `LocalDate` does; `YearMonth` writes none).
pub(crate) fn write_year(f: &mut fmt::Formatter<'_>, year: i32, plus: bool) -> fmt::Result {
    if year < 0 {
        write!(f, "-{:04}", year.unsigned_abs())
    } else if plus && year > 9999 {
        write!(f, "+{year}")
    } else {
        write!(f, "{year:04}")
    }
}

/// Writes a fraction of a second as Java does: nothing for 0, else 3, 6 or 9 digits.
pub(crate) fn write_nanos(f: &mut fmt::Formatter<'_>, nanos: i32) -> fmt::Result {
    if nanos == 0 {
        Ok(())
    } else if nanos % 1_000_000 == 0 {
        write!(f, ".{:03}", nanos / 1_000_000)
    } else if nanos % 1000 == 0 {
        write!(f, ".{:06}", nanos / 1000)
    } else {
        write!(f, ".{nanos:09}")
    }
}

/// Howard Hinnant's `civil_from_days`: (year, month, day) of a day count from 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Howard Hinnant's `days_from_civil`: the day count from 1970-01-01 of a (year, month, day).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = y - i64::from(m <= 2);
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A serde visitor that reads a `T` from a string with its `FromStr` (the human-readable form
/// of the Java carriers).
pub struct FromStrVisitor<T>(PhantomData<T>);

impl<T> FromStrVisitor<T> {
    /// The visitor.
    pub fn new() -> Self {
        FromStrVisitor(PhantomData)
    }
}

impl<T> Default for FromStrVisitor<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: FromStr<Err: fmt::Display>> Visitor<'_> for FromStrVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string in the Java type's text form")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        v.parse().map_err(E::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_counts_round_trip() {
        for days in [-719_468 * 3, -1, 0, 1, 19_782, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    }

    #[test]
    fn cursor_errors_carry_the_offset() {
        let mut c = Cursor::new("12x", "java.time.Year");
        assert_eq!(c.digits(1, 4), Ok(12));
        assert_eq!(
            c.end(),
            Err(ParseError::Syntax {
                java_type: "java.time.Year",
                input: "12x".into(),
                at: 2
            })
        );
    }
}
