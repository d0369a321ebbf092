//! [`Parts`]: a Java value as the numbers that make it, the one shape every format sees.
//!
//! On the serde data model a value of the vocabulary is a newtype struct named after its type
//! ([`JavaType::newtype_name`]) around a tuple of its parts, each in its natural Rust type:
//!
//! | type | tuple |
//! |---|---|
//! | `LocalDate` | `(year: i32, month: u8, day: u8)` |
//! | `LocalTime` | `(hour: u8, minute: u8, second: u8, nano: u32)` |
//! | `LocalDateTime` | the date's three, then the time's four |
//! | `Instant` | `(seconds: i64, nanos: u32)` since 1970-01-01T00:00:00Z |
//! | `OffsetDateTime` | the local date-time's seven, then the offset in seconds (`i32`) |
//! | `Duration` | `(seconds: i64, nanos: u32)`: seconds floored, as Java keeps them |
//! | `BigDecimal` | `(unscaled: bytes, scale: i32)`: value = unscaled × 10^-scale |
//! | `BigInteger` | `(bytes,)` |
//! | `UUID` | `(most significant: u64, least significant: u64)` |
//!
//! The bytes are Java's `BigInteger.toByteArray()`: two's complement, big-endian, minimal.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeTuple, Serializer};

use crate::scalar::{Kind, KindSeed, Scalar, Scalars};
use crate::JavaType;

/// A calendar date as `java.time.LocalDate` holds it (not checked to be a real date).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Date {
    /// The proleptic year (`0` is 1 BC).
    pub year: i32,
    /// 1-12.
    pub month: u8,
    /// 1-31.
    pub day: u8,
}

/// A time of day as `java.time.LocalTime` holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Time {
    /// 0-23.
    pub hour: u8,
    /// 0-59.
    pub minute: u8,
    /// 0-59.
    pub second: u8,
    /// 0-999,999,999.
    pub nano: u32,
}

/// An offset from UTC in seconds (`+05:30` is 19,800), as `java.time.ZoneOffset` holds it.
pub type OffsetSeconds = i32;

/// A value of the vocabulary, as its parts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Parts {
    /// `java.time.LocalDate`.
    LocalDate(Date),
    /// `java.time.LocalTime`.
    LocalTime(Time),
    /// `java.time.LocalDateTime`.
    LocalDateTime(Date, Time),
    /// `java.time.Instant`.
    Instant {
        /// Seconds since 1970-01-01T00:00:00Z.
        seconds: i64,
        /// 0-999,999,999.
        nanos: u32,
    },
    /// `java.time.OffsetDateTime`: the local date-time and its offset from UTC.
    OffsetDateTime(Date, Time, OffsetSeconds),
    /// `java.time.Duration`, as Java keeps it: `seconds` floored (negative for a negative
    /// duration), `nanos` always added.
    Duration {
        /// Whole seconds, floored.
        seconds: i64,
        /// 0-999,999,999.
        nanos: u32,
    },
    /// `java.math.BigDecimal`: `unscaled × 10^-scale`.
    BigDecimal {
        /// Two's complement, big-endian (Java's `unscaledValue().toByteArray()`).
        unscaled: Vec<u8>,
        /// Java's scale (negative for `1E+5`).
        scale: i32,
    },
    /// `java.math.BigInteger`: two's complement, big-endian (`toByteArray()`).
    BigInteger(Vec<u8>),
    /// `java.util.UUID`: its 128 bits, most significant first.
    Uuid(u128),
}

/// Parts that do not make the value they are said to: too few or too many, or a number out of
/// its part's range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the parts of a {class} do not fit it: {why}")]
pub struct PartsError {
    class: &'static str,
    why: Cow<'static, str>,
}

impl PartsError {
    pub(crate) fn new(ty: JavaType, why: impl Into<Cow<'static, str>>) -> Self {
        PartsError {
            class: ty.class(),
            why: why.into(),
        }
    }

    /// An error a serializer's value reported while its parts were taken.
    pub(crate) fn custom(why: String) -> Self {
        PartsError {
            class: "Java value",
            why: why.into(),
        }
    }
}

impl Parts {
    /// The Java type of the value.
    pub fn java_type(&self) -> JavaType {
        match self {
            Parts::LocalDate(_) => JavaType::LocalDate,
            Parts::LocalTime(_) => JavaType::LocalTime,
            Parts::LocalDateTime(..) => JavaType::LocalDateTime,
            Parts::Instant { .. } => JavaType::Instant,
            Parts::OffsetDateTime(..) => JavaType::OffsetDateTime,
            Parts::Duration { .. } => JavaType::Duration,
            Parts::BigDecimal { .. } => JavaType::BigDecimal,
            Parts::BigInteger(_) => JavaType::BigInteger,
            Parts::Uuid(_) => JavaType::Uuid,
        }
    }

    /// The tuple of parts, each in its natural type (see the module docs).
    pub(crate) fn scalars(self) -> Scalars {
        let mut s = Scalars::default();
        let date = |s: &mut Scalars, d: Date| {
            s.push(Scalar::I32(d.year));
            s.push(Scalar::U8(d.month));
            s.push(Scalar::U8(d.day));
        };
        let time = |s: &mut Scalars, t: Time| {
            s.push(Scalar::U8(t.hour));
            s.push(Scalar::U8(t.minute));
            s.push(Scalar::U8(t.second));
            s.push(Scalar::U32(t.nano));
        };
        match self {
            Parts::LocalDate(d) => date(&mut s, d),
            Parts::LocalTime(t) => time(&mut s, t),
            Parts::LocalDateTime(d, t) => {
                date(&mut s, d);
                time(&mut s, t);
            }
            Parts::Instant { seconds, nanos } | Parts::Duration { seconds, nanos } => {
                s.push(Scalar::I64(seconds));
                s.push(Scalar::U32(nanos));
            }
            Parts::OffsetDateTime(d, t, offset) => {
                date(&mut s, d);
                time(&mut s, t);
                s.push(Scalar::I32(offset));
            }
            Parts::BigDecimal { unscaled, scale } => {
                s.push(Scalar::Bytes(unscaled));
                s.push(Scalar::I32(scale));
            }
            Parts::BigInteger(bytes) => s.push(Scalar::Bytes(bytes)),
            Parts::Uuid(bits) => {
                s.push(Scalar::U64((bits >> 64) as u64));
                s.push(Scalar::U64(bits as u64));
            }
        }
        s
    }

    /// The value of type `ty` made of `scalars` (any integer type for a number part).
    pub(crate) fn from_scalars(ty: JavaType, mut s: Scalars) -> Result<Parts, PartsError> {
        if s.len() != layout(ty).len() {
            return Err(PartsError::new(ty, "not the number of parts of this type"));
        }
        Ok(match ty {
            JavaType::LocalDate => Parts::LocalDate(date(ty, &s, 0)?),
            JavaType::LocalTime => Parts::LocalTime(time(ty, &s, 0)?),
            JavaType::LocalDateTime => Parts::LocalDateTime(date(ty, &s, 0)?, time(ty, &s, 3)?),
            JavaType::Instant => Parts::Instant {
                seconds: num(ty, &s, 0)?,
                nanos: nano(ty, &s, 1)?,
            },
            JavaType::OffsetDateTime => {
                Parts::OffsetDateTime(date(ty, &s, 0)?, time(ty, &s, 3)?, offset(ty, &s, 7)?)
            }
            JavaType::Duration => Parts::Duration {
                seconds: num(ty, &s, 0)?,
                nanos: nano(ty, &s, 1)?,
            },
            JavaType::BigDecimal => Parts::BigDecimal {
                scale: num(ty, &s, 1)?,
                unscaled: bytes(ty, s.take(0))?,
            },
            JavaType::BigInteger => Parts::BigInteger(bytes(ty, s.take(0))?),
            JavaType::Uuid => {
                Parts::Uuid((u128::from(half(ty, &s, 0)?) << 64) | u128::from(half(ty, &s, 1)?))
            }
        })
    }
}

/// The kinds of the parts of a value of `ty`, in order.
pub(crate) fn layout(ty: JavaType) -> &'static [Kind] {
    use Kind::*;
    match ty {
        JavaType::LocalDate => &[I32, U8, U8],
        JavaType::LocalTime => &[U8, U8, U8, U32],
        JavaType::LocalDateTime => &[I32, U8, U8, U8, U8, U8, U32],
        JavaType::Instant | JavaType::Duration => &[I64, U32],
        JavaType::OffsetDateTime => &[I32, U8, U8, U8, U8, U8, U32, I32],
        JavaType::BigDecimal => &[Bytes, I32],
        JavaType::BigInteger => &[Bytes],
        JavaType::Uuid => &[U64, U64],
    }
}

/// Part `i` as a `T`.
fn num<T: TryFrom<i128>>(ty: JavaType, s: &Scalars, i: usize) -> Result<T, PartsError> {
    let v = s
        .get(i)
        .int()
        .ok_or(PartsError::new(ty, "a number part is not a number"))?;
    T::try_from(v).map_err(|_| PartsError::new(ty, "a number is out of its part's range"))
}

fn nano(ty: JavaType, s: &Scalars, i: usize) -> Result<u32, PartsError> {
    let n: u32 = num(ty, s, i)?;
    if n < 1_000_000_000 {
        Ok(n)
    } else {
        Err(PartsError::new(ty, "nanoseconds out of range"))
    }
}

/// Java's offsets are within ±18:00.
fn offset(ty: JavaType, s: &Scalars, i: usize) -> Result<OffsetSeconds, PartsError> {
    let seconds: i32 = num(ty, s, i)?;
    if seconds.unsigned_abs() <= crate::text::MAX_OFFSET_SECONDS {
        Ok(seconds)
    } else {
        Err(PartsError::new(ty, "an offset beyond ±18:00"))
    }
}

/// A UUID half: a `u64`, or an `i64` of the same bits (Java's `long`).
fn half(ty: JavaType, s: &Scalars, i: usize) -> Result<u64, PartsError> {
    num::<u64>(ty, s, i).or_else(|_| num::<i64>(ty, s, i).map(|v| v as u64))
}

fn date(ty: JavaType, s: &Scalars, from: usize) -> Result<Date, PartsError> {
    Ok(Date {
        year: num(ty, s, from)?,
        month: num(ty, s, from + 1)?,
        day: num(ty, s, from + 2)?,
    })
}

fn time(ty: JavaType, s: &Scalars, from: usize) -> Result<Time, PartsError> {
    Ok(Time {
        hour: num(ty, s, from)?,
        minute: num(ty, s, from + 1)?,
        second: num(ty, s, from + 2)?,
        nano: nano(ty, s, from + 3)?,
    })
}

fn bytes(ty: JavaType, s: Scalar) -> Result<Vec<u8>, PartsError> {
    match s {
        Scalar::Bytes(b) if !b.is_empty() => Ok(b),
        _ => Err(PartsError::new(ty, "the number is not its bytes")),
    }
}

/// Serializes as the newtype of the value's type around the tuple of its parts.
impl Serialize for Parts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(self.java_type().newtype_name(), &Tuple(self))
    }
}

/// The tuple inside the newtype.
struct Tuple<'a>(&'a Parts);

impl Serialize for Tuple<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let scalars = self.0.clone().scalars();
        let mut t = s.serialize_tuple(scalars.len())?;
        for v in scalars.iter() {
            t.serialize_element(v)?;
        }
        t.end()
    }
}

/// Deserializes the parts of a value of one type: the newtype around the tuple, from a format
/// that knows the name (it hands the tuple over with `visit_seq`) or from any other.
#[derive(Debug, Clone, Copy)]
pub struct PartsSeed(pub JavaType);

impl<'de> DeserializeSeed<'de> for PartsSeed {
    type Value = Parts;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Parts, D::Error> {
        d.deserialize_newtype_struct(self.0.newtype_name(), self)
    }
}

impl<'de> Visitor<'de> for PartsSeed {
    type Value = Parts;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a {}", self.0.class())
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Parts, D::Error> {
        d.deserialize_tuple(layout(self.0).len(), self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Parts, A::Error> {
        let mut s = Scalars::default();
        for &kind in layout(self.0) {
            match seq.next_element_seed(KindSeed(kind))? {
                Some(v) => s.push(v),
                None => return Err(de::Error::invalid_length(s.len(), &self)),
            }
        }
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(s.len() + 1, &self));
        }
        Parts::from_scalars(self.0, s).map_err(de::Error::custom)
    }
}
