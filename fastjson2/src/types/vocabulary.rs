//! The [`java_serde`] vocabulary in JSONB: a field annotated with one of its `serde(with)`
//! modules (`java_serde::chrono::local_date_time`, ...) reaches the serializer as a newtype
//! named `$java::<class>` around the value's parts, and is written as this crate's carrier of
//! that class, the bytes Java's fastjson2 writes (a `UUID` as the 16-byte binary fastjson2
//! writes with Dubbo's features). Reading, the carrier is read and its parts handed to the
//! field's visitor. The same annotation works in hessian2 and serde_json.

use std::fmt;

use java_serde::{Date as Day, JavaType, Parts, Time as Clock};
use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{self, Serialize, Serializer};

use java_serde::text::{parse_duration, parse_offset, DurationText, OffsetText};

use super::{BigDecimal, BigInteger, Instant, LocalDate, LocalDateTime, LocalTime, ZonedDateTime};

/// The carrier that writes a value of the vocabulary.
pub(crate) enum Carrier {
    LocalDate(LocalDate),
    LocalTime(LocalTime),
    LocalDateTime(LocalDateTime),
    Instant(Instant),
    /// A `java.time.OffsetDateTime`: fastjson2 writes a zoned date-time whose zone is the
    /// offset's id.
    OffsetDateTime(ZonedDateTime),
    /// A `java.time.Duration`: fastjson2 writes its `toString()`.
    Duration(String),
    BigDecimal(BigDecimal),
    BigInteger(BigInteger),
    /// A `java.util.UUID`: its 16 bytes, most significant first.
    Uuid([u8; 16]),
}

impl Carrier {
    /// The carrier of the parts a `$java::` newtype held.
    pub(crate) fn of<E: ser::Error>(parts: Parts) -> Result<Carrier, E> {
        let class = parts.java_type().class();
        let nano = |n: u32| {
            i32::try_from(n).map_err(|_| E::custom(format_args!("{n} nanoseconds in a {class}")))
        };
        let date = |d: Day| -> Result<LocalDate, E> {
            Ok(LocalDate {
                // JSONB's LocalDate has a 16-bit year.
                year: i16::try_from(d.year)
                    .map_err(|_| E::custom(format_args!("year {} in a JSONB {class}", d.year)))?,
                month: d.month,
                day: d.day,
            })
        };
        let time = |t: Clock| -> Result<LocalTime, E> {
            Ok(LocalTime {
                hour: t.hour,
                minute: t.minute,
                second: t.second,
                nano: nano(t.nano)?,
            })
        };
        Ok(match parts {
            Parts::LocalDate(d) => Carrier::LocalDate(date(d)?),
            Parts::LocalTime(t) => Carrier::LocalTime(time(t)?),
            Parts::LocalDateTime(d, t) => Carrier::LocalDateTime(LocalDateTime {
                date: date(d)?,
                time: time(t)?,
            }),
            Parts::Instant { seconds, nanos } => Carrier::Instant(Instant {
                seconds,
                nanos: nano(nanos)?,
            }),
            Parts::OffsetDateTime(d, t, offset) => Carrier::OffsetDateTime(ZonedDateTime {
                date_time: LocalDateTime {
                    date: date(d)?,
                    time: time(t)?,
                },
                zone: OffsetText(offset).to_string(),
            }),
            Parts::Duration { seconds, nanos } => {
                Carrier::Duration(DurationText { seconds, nanos }.to_string())
            }
            Parts::BigDecimal { unscaled, scale } => Carrier::BigDecimal(BigDecimal {
                unscaled: BigInteger::from_be_bytes(&unscaled),
                scale,
            }),
            Parts::BigInteger(bytes) => Carrier::BigInteger(BigInteger::from_be_bytes(&bytes)),
            Parts::Uuid(bits) => Carrier::Uuid(bits.to_be_bytes()),
            p => {
                return Err(E::custom(format_args!(
                    "{} is not written by this version of fastjson2",
                    p.java_type().class()
                )))
            }
        })
    }
}

impl Serialize for Carrier {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Carrier::LocalDate(v) => v.serialize(s),
            Carrier::LocalTime(v) => v.serialize(s),
            Carrier::LocalDateTime(v) => v.serialize(s),
            Carrier::Instant(v) => v.serialize(s),
            Carrier::OffsetDateTime(v) => v.serialize(s),
            Carrier::Duration(v) => s.serialize_str(v),
            Carrier::BigDecimal(v) => v.serialize(s),
            Carrier::BigInteger(v) => v.serialize(s),
            Carrier::Uuid(b) => s.serialize_bytes(b),
        }
    }
}

/// Reads the carrier of `ty` and gives its parts.
pub(crate) fn read<'de, D: Deserializer<'de>>(ty: JavaType, d: D) -> Result<Parts, D::Error> {
    let nanos = |n: i32| {
        u32::try_from(n)
            .map_err(|_| de::Error::custom(format_args!("{n} nanoseconds in a {}", ty.class())))
    };
    let day = |d: LocalDate| Day {
        year: d.year.into(),
        month: d.month,
        day: d.day,
    };
    let clock = |t: LocalTime| -> Result<Clock, D::Error> {
        Ok(Clock {
            hour: t.hour,
            minute: t.minute,
            second: t.second,
            nano: nanos(t.nano)?,
        })
    };
    Ok(match ty {
        JavaType::LocalDate => Parts::LocalDate(day(LocalDate::deserialize(d)?)),
        JavaType::LocalTime => Parts::LocalTime(clock(LocalTime::deserialize(d)?)?),
        JavaType::LocalDateTime => {
            let t = LocalDateTime::deserialize(d)?;
            Parts::LocalDateTime(day(t.date), clock(t.time)?)
        }
        JavaType::Instant => {
            let i = Instant::deserialize(d)?;
            Parts::Instant {
                seconds: i.seconds,
                nanos: nanos(i.nanos)?,
            }
        }
        JavaType::OffsetDateTime => {
            let t = ZonedDateTime::deserialize(d)?;
            let offset = parse_offset(&t.zone)
                .ok_or_else(|| de::Error::custom(format_args!("zone {:?} is no offset", t.zone)))?;
            Parts::OffsetDateTime(day(t.date_time.date), clock(t.date_time.time)?, offset)
        }
        JavaType::Duration => {
            let text = String::deserialize(d)?;
            let (seconds, nanos) = parse_duration(&text).ok_or_else(|| {
                de::Error::custom(format_args!("{text:?} is no java.time.Duration"))
            })?;
            Parts::Duration { seconds, nanos }
        }
        JavaType::BigDecimal => {
            let v = BigDecimal::deserialize(d)?;
            Parts::BigDecimal {
                unscaled: v.unscaled.as_be_bytes().to_vec(),
                scale: v.scale,
            }
        }
        JavaType::BigInteger => {
            Parts::BigInteger(BigInteger::deserialize(d)?.as_be_bytes().to_vec())
        }
        JavaType::Uuid => Parts::Uuid(d.deserialize_bytes(UuidBytes)?),
        other => {
            return Err(de::Error::custom(format_args!(
                "{} is not read by this version of fastjson2",
                other.class()
            )))
        }
    })
}

/// A `java.util.UUID` as fastjson2 writes it: a 16-byte binary.
struct UuidBytes;

impl Visitor<'_> for UuidBytes {
    type Value = u128;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a java.util.UUID (a 16-byte binary)")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<u128, E> {
        let bytes: [u8; 16] = v
            .try_into()
            .map_err(|_| E::invalid_length(v.len(), &self))?;
        Ok(u128::from_be_bytes(bytes))
    }
}
