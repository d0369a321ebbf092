//! The [`java_serde`] vocabulary in Hessian: a field annotated with one of its `serde(with)`
//! modules (`java_serde::chrono::local_date_time`, ...) reaches the serializer as a newtype
//! named `$java::<class>` around the value's parts, and is written as this crate's carrier of
//! that class — the very bytes hessian-lite writes. Reading, the carrier is read from Java's
//! bytes and its parts handed to the field's visitor. The same annotation works in fastjson2
//! and serde_json.

use java_serde::{decimal, Date as Day, JavaType, Parts, Time as Clock};
use serde::de::{self, Deserialize, Deserializer};
use serde::ser::{self, Serialize, Serializer};

use super::{
    BigDecimal, BigInteger, Duration, Instant, LocalDate, LocalDateTime, LocalTime, OffsetDateTime,
    Uuid, ZoneOffset,
};

/// The carrier that writes a value of the vocabulary.
pub(crate) enum Carrier {
    LocalDate(LocalDate),
    LocalTime(LocalTime),
    LocalDateTime(LocalDateTime),
    Instant(Instant),
    OffsetDateTime(OffsetDateTime),
    Duration(Duration),
    BigDecimal(BigDecimal),
    BigInteger(BigInteger),
    Uuid(Uuid),
}

impl Carrier {
    /// The carrier of the parts a `$java::` newtype held.
    pub(crate) fn of<E: ser::Error>(parts: Parts) -> Result<Carrier, E> {
        let nano = |n: u32| i32::try_from(n).map_err(E::custom);
        Ok(match parts {
            Parts::LocalDate(d) => Carrier::LocalDate(date(d)),
            Parts::LocalTime(t) => Carrier::LocalTime(time(t)?),
            Parts::LocalDateTime(d, t) => Carrier::LocalDateTime(LocalDateTime {
                date: date(d),
                time: time(t)?,
            }),
            Parts::Instant { seconds, nanos } => Carrier::Instant(Instant {
                seconds,
                nanos: nano(nanos)?,
            }),
            Parts::OffsetDateTime(d, t, total_seconds) => Carrier::OffsetDateTime(OffsetDateTime {
                date_time: LocalDateTime {
                    date: date(d),
                    time: time(t)?,
                },
                offset: ZoneOffset { total_seconds },
            }),
            Parts::Duration { seconds, nanos } => Carrier::Duration(Duration {
                seconds,
                nanos: nano(nanos)?,
            }),
            Parts::BigDecimal { unscaled, scale } => Carrier::BigDecimal(
                BigDecimal::new_unchecked(decimal::big_decimal_text(&unscaled, scale)),
            ),
            Parts::BigInteger(bytes) => Carrier::BigInteger(BigInteger::from_be_bytes(&bytes)),
            Parts::Uuid(bits) => Carrier::Uuid(Uuid(bits)),
            p => {
                return Err(E::custom(format_args!(
                    "{} is not written by this version of hessian2",
                    p.java_type().class()
                )))
            }
        })
    }
}

fn date(d: Day) -> LocalDate {
    LocalDate {
        year: d.year,
        month: d.month,
        day: d.day,
    }
}

fn time<E: ser::Error>(t: Clock) -> Result<LocalTime, E> {
    Ok(LocalTime {
        hour: t.hour,
        minute: t.minute,
        second: t.second,
        nano: i32::try_from(t.nano).map_err(E::custom)?,
    })
}

impl Serialize for Carrier {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Carrier::LocalDate(v) => v.serialize(s),
            Carrier::LocalTime(v) => v.serialize(s),
            Carrier::LocalDateTime(v) => v.serialize(s),
            Carrier::Instant(v) => v.serialize(s),
            Carrier::OffsetDateTime(v) => v.serialize(s),
            Carrier::Duration(v) => v.serialize(s),
            Carrier::BigDecimal(v) => v.serialize(s),
            Carrier::BigInteger(v) => v.serialize(s),
            Carrier::Uuid(v) => v.serialize(s),
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
        year: d.year,
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
            let t = OffsetDateTime::deserialize(d)?;
            let local = t.date_time;
            Parts::OffsetDateTime(day(local.date), clock(local.time)?, t.offset.total_seconds)
        }
        JavaType::Duration => {
            let v = Duration::deserialize(d)?;
            Parts::Duration {
                seconds: v.seconds,
                nanos: nanos(v.nanos)?,
            }
        }
        JavaType::BigDecimal => {
            let text = BigDecimal::deserialize(d)?;
            let (unscaled, scale) = decimal::big_decimal_of_text(text.as_str())
                .ok_or_else(|| de::Error::custom(format_args!("{text} is no BigDecimal")))?;
            Parts::BigDecimal { unscaled, scale }
        }
        JavaType::BigInteger => {
            Parts::BigInteger(BigInteger::deserialize(d)?.as_be_bytes().to_vec())
        }
        JavaType::Uuid => Parts::Uuid(Uuid::deserialize(d)?.0),
        other => {
            return Err(de::Error::custom(format_args!(
                "{} is not read by this version of hessian2",
                other.class()
            )))
        }
    })
}
