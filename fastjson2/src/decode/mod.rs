//! The wire-level decoder: a pull parser that turns bytes into [`Header`]s, with no serde and no
//! dynamic values in it. [`crate::value`] and the serde `Deserializer` are built on it and see
//! byte offsets in every error.
//!
//! # The format, as fastjson2's `JSONReaderJSONB` reads it
//!
//! A JSONB document is one value; every value starts with a code byte ([`crate::marker`]).
//! Scalars are complete after their fixed or length-prefixed bytes. An array is a count and
//! that many values; an object is key/value pairs up to an end code (keys are strings or
//! symbols for POJO fields, any value for map keys). A typed value is a Java class name and the
//! value it applies to (`92 <name> a6 ... a5` is a POJO, `92 <"[I"> 97 ...` an `int[]`).
//!
//! The decoder owns the document's one table: **symbols**. With `WriteNameAsSymbol` (what Dubbo
//! turns on) a field name is written in full once, followed by the number it gets
//! (`7f <string> <n>`), and later as `7f <n>`; type names after `92` follow the same scheme and
//! share the numbering (`92 <string> <n>` / `92 <n>`). Java numbers them 0, 1, 2, ... in the
//! order they first appear; this decoder insists on that order, so a hostile number cannot make
//! it allocate. References (`93 "$.path"`) are paths, kept as strings for the caller.
//!
//! The decoder reads a borrowed slice: Dubbo frames every JSONB document with its length, so a
//! document is whole in memory before it is read. Strings that are ASCII or UTF-8 on the wire
//! are borrowed from it. Every strict prefix of a valid document fails with an
//! [`Error::is_eof`] error; lengths and counts are never trusted beyond the bytes present.

mod ascii;
mod skip;
mod string;
mod symbols;

pub(crate) use string::Name;

use std::borrow::Cow;

use crate::error::{Error, ErrorKind, Result};
use crate::marker::{self, container, float, int, long, number, string as str_code, time};
use crate::types::{BigDecimal, BigInteger, Instant, LocalDate, LocalDateTime, LocalTime};

/// Default limit of nested arrays, objects and typed values.
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// What a value starts with: scalars complete, containers as a head whose contents follow.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Header<'de> {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// Any int32 form (Java `int`).
    Int(i32),
    /// Any int64 form (Java `long`).
    Long(i64),
    /// `0xbd` (Java `byte`).
    Byte(i8),
    /// `0xbc` (Java `short`).
    Short(i16),
    /// `0xb6` / `0xb7` (Java `float`).
    Float(f32),
    /// `0xb2`-`0xb5` (Java `double`).
    Double(f64),
    /// `0x90`: a Java `char`, one UTF-16 code unit.
    Char(u16),
    /// A string (ASCII and UTF-8 are borrowed from the input).
    String(Cow<'de, str>),
    /// A string written as a symbol (`0x7f`), defined here or referred to.
    Symbol(Cow<'de, str>),
    /// `0x91`: bytes.
    Binary(&'de [u8]),
    /// `0xba` / `0xbb`.
    BigInteger(BigInteger),
    /// `0xb8` / `0xb9`.
    BigDecimal(BigDecimal),
    /// `0xab` / `0xac` / `0xad`: a `java.util.Date` in milliseconds.
    Date(i64),
    /// `0xae`.
    Instant(Instant),
    /// `0xa9`.
    LocalDate(LocalDate),
    /// `0xa7`.
    LocalTime(LocalTime),
    /// `0xa8`.
    LocalDateTime(LocalDateTime),
    /// `0xaa`: local date and time, and the zone id.
    ZonedDateTime(LocalDateTime, Cow<'de, str>),
    /// An array of this many items, which follow.
    Array(usize),
    /// `0xa6`: key/value pairs follow until [`Header::End`].
    Object,
    /// `0xa5`: the end of an object.
    End,
    /// `0x92`: the Java class name of the value that follows.
    Typed(Cow<'de, str>),
    /// `0x93`: a reference to an earlier value, by its path.
    Ref(Cow<'de, str>),
}

/// Pull decoder over one JSONB document (or several back to back).
pub struct Decoder<'de> {
    data: &'de [u8],
    pos: usize,
    depth: usize,
    max_depth: usize,
    symbols: symbols::Symbols,
}

impl<'de> Decoder<'de> {
    /// A decoder reading `data` from its start, with the default depth limit.
    pub fn new(data: &'de [u8]) -> Self {
        Decoder {
            data,
            pos: 0,
            depth: 0,
            max_depth: DEFAULT_MAX_DEPTH,
            symbols: symbols::Symbols::default(),
        }
    }

    /// Starts over on a new document in `data`: offset 0, no symbols (each JSONB document
    /// has its own table), keeping the table's memory and the depth limit.
    pub fn reset(&mut self, data: &'de [u8]) {
        self.data = data;
        self.pos = 0;
        self.depth = 0;
        self.symbols.clear();
    }

    /// Sets the limit of nested arrays, objects and typed values.
    pub fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// Bytes read so far (the offset of the next byte).
    #[inline]
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// True when every byte was read.
    pub fn is_end(&self) -> bool {
        self.pos == self.data.len()
    }

    /// Fails with [`ErrorKind::TrailingBytes`] unless every byte was read.
    pub fn end(&self) -> Result<()> {
        if self.is_end() {
            Ok(())
        } else {
            Err(self.error(ErrorKind::TrailingBytes))
        }
    }

    /// The input bytes from `start` to the current offset (a value just read or skipped).
    pub fn raw(&self, start: usize) -> &'de [u8] {
        &self.data[start.min(self.pos)..self.pos]
    }

    /// An error of `kind` at the current offset.
    #[cold]
    pub fn error(&self, kind: ErrorKind) -> Error {
        Error::new(kind, self.pos as u64)
    }

    /// Enters a nested array, object or typed value; fails past the depth limit. Every layer
    /// that descends calls it, and [`leave`](Self::leave) on the way out.
    #[inline]
    pub fn enter(&mut self) -> Result<()> {
        if self.depth >= self.max_depth {
            return Err(self.error(ErrorKind::DepthLimit(self.max_depth)));
        }
        self.depth += 1;
        Ok(())
    }

    /// Leaves a nested value entered with [`enter`](Self::enter).
    #[inline]
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// The next code byte, not consumed.
    #[inline]
    pub fn peek(&self) -> Result<u8> {
        self.data.get(self.pos).copied().ok_or_else(|| self.eof(1))
    }

    #[cold]
    fn eof(&self, needed: usize) -> Error {
        Error::new(ErrorKind::Eof { needed }, self.data.len() as u64)
    }

    /// Consumes `n` bytes, failing with EOF (nothing consumed) when fewer are left.
    #[inline]
    fn take(&mut self, n: usize) -> Result<&'de [u8]> {
        let rest = self.remaining();
        if n > rest {
            return Err(self.eof(n - rest));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    #[inline]
    fn byte(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    #[inline]
    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    /// Reads the next value's header.
    #[inline]
    pub fn pull(&mut self) -> Result<Header<'de>> {
        let start = self.pos;
        let code = self.byte()?;
        let h = match code {
            0xf0..=0xff | 0x00..=0x48 => Header::Int(self.int32_after(code)?),
            0xbe..=0xef => Header::Long(self.int64_after(code)?),
            str_code::FIX_FIRST..=str_code::GB18030 => Header::String(self.string_after(code)?),
            str_code::SYMBOL => Header::Symbol(self.symbol_after()?),
            marker::NULL => Header::Null,
            marker::FALSE => Header::Bool(false),
            marker::TRUE => Header::Bool(true),
            float::DOUBLE_0 => Header::Double(0.0),
            float::DOUBLE_1 => Header::Double(1.0),
            float::DOUBLE_LONG => Header::Double(self.int64()? as f64),
            float::DOUBLE => Header::Double(f64::from_be_bytes(self.array()?)),
            container::ARRAY_FIX_FIRST..=container::ARRAY_FIX_LAST => {
                Header::Array(usize::from(code - container::ARRAY_FIX_FIRST))
            }
            container::ARRAY => Header::Array(self.len("array length")?),
            container::OBJECT => Header::Object,
            container::OBJECT_END => Header::End,
            marker::TYPED => Header::Typed(self.type_name()?),
            marker::REFERENCE => Header::Ref(self.text("a reference path")?),
            _ => return self.pull_rare(start, code),
        };
        Ok(h)
    }

    /// The rest of [`pull`](Self::pull): `byte`, `short`, `float`, big numbers, chars,
    /// binaries, dates and times, out of the way of the most common codes (whose match stays
    /// small enough to be cheap to enter).
    #[inline(never)]
    fn pull_rare(&mut self, start: usize, code: u8) -> Result<Header<'de>> {
        Ok(match code {
            int::INT8 => Header::Byte(self.byte()? as i8),
            int::INT16 => Header::Short(i16::from_be_bytes(self.array()?)),
            float::FLOAT_INT => Header::Float(self.int32()? as f32),
            float::FLOAT => Header::Float(f32::from_be_bytes(self.array()?)),
            number::BIGINT_LONG => Header::BigInteger(BigInteger::from(self.int64()?)),
            number::BIGINT => Header::BigInteger(self.big_integer_after()?),
            number::DECIMAL_LONG => Header::BigDecimal(BigDecimal {
                unscaled: BigInteger::from(self.int64()?),
                scale: 0,
            }),
            number::DECIMAL => {
                let scale = self.int32()?;
                let unscaled = self.integer()?;
                Header::BigDecimal(BigDecimal { unscaled, scale })
            }
            marker::CHAR => Header::Char(self.int32()? as u16),
            marker::BINARY => {
                let len = self.len("binary length")?;
                Header::Binary(self.take(len)?)
            }
            time::MILLIS => Header::Date(i64::from_be_bytes(self.array()?)),
            time::SECONDS => Header::Date(i64::from(i32::from_be_bytes(self.array()?)) * 1000),
            time::MINUTES => Header::Date(i64::from(i32::from_be_bytes(self.array()?)) * 60_000),
            time::INSTANT => Header::Instant(Instant {
                seconds: self.int64()?,
                nanos: self.int32()?,
            }),
            time::LOCAL_DATE => Header::LocalDate(self.local_date()?),
            time::LOCAL_TIME => Header::LocalTime(self.local_time()?),
            time::LOCAL_DATETIME => Header::LocalDateTime(self.local_date_time()?),
            time::ZONED_DATETIME => {
                let dt = self.local_date_time()?;
                let zone = self.text("a zone id")?;
                Header::ZonedDateTime(dt, zone)
            }
            _ => {
                self.pos = start;
                return Err(self.error(ErrorKind::Unexpected {
                    found: code,
                    expected: "a value",
                }));
            }
        })
    }

    /// Consumes the one-byte value just [`peek`](Self::peek)ed (a fast path's `null`, boolean
    /// or small number, an object's end).
    #[inline]
    pub(crate) fn bump(&mut self) {
        self.pos += 1;
    }

    /// The next value if it is a `java.util.Date`, consumed, in milliseconds; `None` (nothing
    /// consumed) for anything else. A `Date` field without the general [`Header`] path.
    #[inline]
    pub(crate) fn next_if_date(&mut self) -> Result<Option<i64>> {
        let millis = match self.peek()? {
            time::SECONDS => {
                self.pos += 1;
                i64::from(i32::from_be_bytes(self.array()?)) * 1000
            }
            time::MILLIS => {
                self.pos += 1;
                i64::from_be_bytes(self.array()?)
            }
            time::MINUTES => {
                self.pos += 1;
                i64::from(i32::from_be_bytes(self.array()?)) * 60_000
            }
            _ => return Ok(None),
        };
        Ok(Some(millis))
    }

    /// An int32 value (any int32 form), as lengths, scales, nanos and symbol numbers are.
    #[inline]
    pub fn int32(&mut self) -> Result<i32> {
        let code = self.byte()?;
        if !int::is_int32(code) {
            self.pos -= 1;
            return Err(self.error(ErrorKind::Unexpected {
                found: code,
                expected: "an int32",
            }));
        }
        self.int32_after(code)
    }

    #[inline]
    fn int32_after(&mut self, code: u8) -> Result<i32> {
        Ok(match code {
            0xf0..=0xff | 0x00..=0x2f => i32::from(code as i8),
            int::BYTE_FIRST..=int::BYTE_LAST => {
                ((i32::from(code) - i32::from(int::BYTE_ZERO)) << 8) | i32::from(self.byte()?)
            }
            int::SHORT_FIRST..=int::SHORT_LAST => {
                let [b1, b2] = self.array()?;
                ((i32::from(code) - i32::from(int::SHORT_ZERO)) << 16)
                    | (i32::from(b1) << 8)
                    | i32::from(b2)
            }
            _ => i32::from_be_bytes(self.array()?),
        })
    }

    /// An int64 value (any int64 form).
    pub fn int64(&mut self) -> Result<i64> {
        let code = self.byte()?;
        if !long::is_int64(code) {
            self.pos -= 1;
            return Err(self.error(ErrorKind::Unexpected {
                found: code,
                expected: "an int64",
            }));
        }
        self.int64_after(code)
    }

    #[inline]
    fn int64_after(&mut self, code: u8) -> Result<i64> {
        Ok(match code {
            long::DIRECT_FIRST..=long::DIRECT_LAST => {
                i64::from(code) - i64::from(long::DIRECT_ZERO)
            }
            long::BYTE_FIRST..=long::BYTE_LAST => {
                ((i64::from(code) - i64::from(long::BYTE_ZERO)) << 8) | i64::from(self.byte()?)
            }
            long::SHORT_FIRST..=long::SHORT_LAST => {
                let [b1, b2] = self.array()?;
                ((i64::from(code) - i64::from(long::SHORT_ZERO)) << 16)
                    | (i64::from(b1) << 8)
                    | i64::from(b2)
            }
            long::INT => i64::from(i32::from_be_bytes(self.array()?)),
            _ => i64::from_be_bytes(self.array()?),
        })
    }

    /// The unscaled value of a BigDecimal: any integer form, as Java's `readBigInteger` takes.
    fn integer(&mut self) -> Result<BigInteger> {
        let code = self.peek()?;
        match code {
            _ if int::is_int32(code) => Ok(BigInteger::from(i64::from(self.int32()?))),
            _ if long::is_int64(code) => Ok(BigInteger::from(self.int64()?)),
            number::BIGINT_LONG => {
                self.pos += 1;
                Ok(BigInteger::from(self.int64()?))
            }
            number::BIGINT => {
                self.pos += 1;
                self.big_integer_after()
            }
            _ => Err(self.error(ErrorKind::Unexpected {
                found: code,
                expected: "an integer",
            })),
        }
    }

    fn big_integer_after(&mut self) -> Result<BigInteger> {
        let len = self.len("BigInteger length")?;
        Ok(BigInteger::from_be_bytes(self.take(len)?))
    }

    /// A non-negative int32 length or count.
    fn len(&mut self, what: &'static str) -> Result<usize> {
        let at = self.pos;
        let v = self.int32()?;
        usize::try_from(v).map_err(|_| {
            Error::new(
                ErrorKind::InvalidLength {
                    what,
                    value: i64::from(v),
                },
                at as u64,
            )
        })
    }

    fn local_date(&mut self) -> Result<LocalDate> {
        let [y1, y2, month, day] = self.array()?;
        Ok(LocalDate {
            year: i16::from_be_bytes([y1, y2]),
            month,
            day,
        })
    }

    fn local_time(&mut self) -> Result<LocalTime> {
        let [hour, minute, second] = self.array()?;
        Ok(LocalTime {
            hour,
            minute,
            second,
            nano: self.int32()?,
        })
    }

    fn local_date_time(&mut self) -> Result<LocalDateTime> {
        let date = self.local_date()?;
        let time = self.local_time()?;
        Ok(LocalDateTime { date, time })
    }
}
