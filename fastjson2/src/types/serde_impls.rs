//! serde for [`crate::types`]: each value travels as its own JSONB bytes (a newtype named
//! `ser::RAW` around them), which this crate's `Serializer` puts out as they are and its
//! `Deserializer` hands over whole (a `java.util.Date` as its milliseconds, `visit_i64`, read
//! once). Other serde formats see opaque bytes.

use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use super::{
    BigDecimal, BigInteger, Date, Instant, LocalDate, LocalDateTime, LocalTime, ZonedDateTime,
};
use crate::decode::{Decoder, Header};
use crate::encode::{date_form, Encoder};
use crate::ser::RAW;

/// Encoded JSONB bytes, serialized as bytes.
struct Raw<'a>(&'a [u8]);

impl Serialize for Raw<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

/// The longest fixed-size form among the dates and times (an `Instant`: 1 + 9 + 5 bytes).
const SMALL: usize = 16;

/// Serializes the bytes `write` produces: on the stack for the fixed-size forms.
fn serialize_small<S: Serializer>(
    s: S,
    write: impl FnOnce(&mut Encoder<&mut [u8]>),
) -> Result<S::Ok, S::Error> {
    let mut buf = [0u8; SMALL];
    // Not dropped: these forms number no symbol, so the encoder's tables are still empty.
    let mut e = ManuallyDrop::new(Encoder::new(&mut buf[..]));
    write(&mut e);
    let left = e.get_ref().len();
    s.serialize_newtype_struct(RAW, &Raw(&buf[..SMALL - left]))
}

fn serialize_vec<S: Serializer>(
    s: S,
    write: impl FnOnce(&mut Encoder<&mut Vec<u8>>),
) -> Result<S::Ok, S::Error> {
    let mut buf = Vec::new();
    write(&mut Encoder::new(&mut buf));
    s.serialize_newtype_struct(RAW, &Raw(&buf))
}

/// Reads a `T` from the raw bytes of one value with `pick`.
struct RawVisitor<T> {
    expecting: &'static str,
    pick: fn(Header<'_>) -> Option<T>,
    _t: PhantomData<T>,
}

impl<'de, T> Visitor<'de> for RawVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }

    /// A `java.util.Date`, which the `Deserializer` decodes itself (in milliseconds).
    fn visit_i64<E: de::Error>(self, millis: i64) -> Result<T, E> {
        let h = Header::Date(millis);
        let found = describe(&h);
        (self.pick)(h)
            .ok_or_else(|| E::custom(format!("found {found}, expected {}", self.expecting)))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<T, E> {
        let mut d = Decoder::new(v);
        let mut h = d.pull().map_err(E::custom)?;
        while let Header::Typed(_) = h {
            h = d.pull().map_err(E::custom)?;
        }
        let found = describe(&h);
        (self.pick)(h)
            .ok_or_else(|| E::custom(format!("found {found}, expected {}", self.expecting)))
    }
}

/// The kind of header, for an error message (cheap: no formatting unless it fails).
fn describe(h: &Header<'_>) -> &'static str {
    match h {
        Header::Null => "null",
        Header::Bool(_) => "a boolean",
        Header::Int(_) | Header::Long(_) | Header::Byte(_) | Header::Short(_) => "an integer",
        Header::Float(_) | Header::Double(_) => "a floating point number",
        Header::String(_) | Header::Symbol(_) | Header::Char(_) => "a string",
        Header::Array(_) => "an array",
        Header::Object | Header::End => "an object",
        _ => "another JSONB value",
    }
}

fn deserialize_raw<'de, D: Deserializer<'de>, T>(
    d: D,
    expecting: &'static str,
    pick: fn(Header<'_>) -> Option<T>,
) -> Result<T, D::Error> {
    d.deserialize_newtype_struct(
        RAW,
        RawVisitor {
            expecting,
            pick,
            _t: PhantomData,
        },
    )
}

/// `Serialize` (through `$write` of the encoder, on the stack or in a `Vec`) and `Deserialize`
/// (the headers `$pick` accepts) of one type. In human-readable formats, with `text`: its
/// `Display` / `FromStr` text (Java's `toString()`, as hessian2's carrier of the same name);
/// with `millis`: the milliseconds as a number (as hessian2's `Date`); else opaque bytes.
macro_rules! raw_serde {
    ($($human:ident)? ; $ty:ty, $buffer:ident, $write:ident, $expecting:literal, $pick:expr) => {
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                $(if s.is_human_readable() {
                    return human::$human::serialize(self, s);
                })?
                $buffer(s, |e| e.$write(self))
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $(if d.is_human_readable() {
                    return human::$human::deserialize(d);
                })?
                deserialize_raw(d, $expecting, $pick)
            }
        }
    };
}

/// The forms of the carriers in human-readable formats.
mod human {
    pub(super) mod text {
        use std::fmt::Display;
        use std::str::FromStr;

        use serde::{Deserializer, Serializer};

        pub(crate) fn serialize<T: Display, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
            s.collect_str(v)
        }

        pub(crate) fn deserialize<'de, T, D>(d: D) -> Result<T, D::Error>
        where
            T: FromStr<Err: Display>,
            D: Deserializer<'de>,
        {
            d.deserialize_str(java_serde::text::FromStrVisitor::new())
        }
    }

    pub(super) mod millis {
        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        use crate::types::Date;

        pub(crate) fn serialize<S: Serializer>(v: &Date, s: S) -> Result<S::Ok, S::Error> {
            v.0.serialize(s)
        }

        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Date, D::Error> {
            i64::deserialize(d).map(Date)
        }
    }
}

impl Serialize for Date {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return human::millis::serialize(self, s);
        }
        // Its bytes straight from the milliseconds, without an encoder.
        let (form, len) = date_form(self.0);
        s.serialize_newtype_struct(RAW, &Raw(form.get(..len).unwrap_or(&form)))
    }
}

impl<'de> Deserialize<'de> for Date {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if d.is_human_readable() {
            return human::millis::deserialize(d);
        }
        deserialize_raw(d, "a java.util.Date", |h| match h {
            Header::Date(ms) | Header::Long(ms) => Some(Date(ms)),
            _ => None,
        })
    }
}

raw_serde!(
    text;
    Instant,
    serialize_small,
    write_instant,
    "a java.time.Instant",
    |h| match h {
        Header::Instant(v) => Some(v),
        _ => None,
    }
);
raw_serde!(
    text;
    LocalDate,
    serialize_small,
    write_local_date,
    "a java.time.LocalDate",
    |h| match h {
        Header::LocalDate(v) => Some(v),
        _ => None,
    }
);
raw_serde!(
    text;
    LocalTime,
    serialize_small,
    write_local_time,
    "a java.time.LocalTime",
    |h| match h {
        Header::LocalTime(v) => Some(v),
        _ => None,
    }
);
raw_serde!(
    text;
    LocalDateTime,
    serialize_small,
    write_local_date_time,
    "a java.time.LocalDateTime",
    |h| {
        match h {
            Header::LocalDateTime(v) => Some(v),
            _ => None,
        }
    }
);
raw_serde!(
    ;
    ZonedDateTime,
    serialize_vec,
    write_zoned_date_time,
    "a java.time.ZonedDateTime",
    |h| {
        match h {
            Header::ZonedDateTime(date_time, zone) => Some(ZonedDateTime {
                date_time,
                zone: zone.into_owned(),
            }),
            _ => None,
        }
    }
);
raw_serde!(
    ;
    BigInteger,
    serialize_vec,
    write_big_integer,
    "a java.math.BigInteger",
    |h| {
        match h {
            Header::BigInteger(v) => Some(v),
            Header::Int(v) => Some(BigInteger::from(i64::from(v))),
            Header::Long(v) => Some(BigInteger::from(v)),
            _ => None,
        }
    }
);
raw_serde!(
    ;
    BigDecimal,
    serialize_vec,
    write_big_decimal,
    "a java.math.BigDecimal",
    |h| {
        match h {
            Header::BigDecimal(v) => Some(v),
            _ => None,
        }
    }
);
