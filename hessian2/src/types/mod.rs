//! Rust types for Java types that serde has no word for: dates and times, `BigDecimal`, `UUID`,
//! `Locale`, typed lists and maps (Java arrays such as `int[]`, `LinkedList`, `TreeMap`), and
//! zero-copy binaries.
//!
//! They work with every serde format; with this crate's [`Serializer`](crate::Serializer) and
//! [`Deserializer`](crate::Deserializer) they take Java's wire forms, byte for byte what
//! hessian-lite 3.2.13 and 4.0.4 write (checked against Java's vectors). The dates, times and
//! string-valued JDK types are faithful carriers: the parts Java sends, no calendar arithmetic;
//! in human-readable formats (serde_json) they are the text of Java's `toString()`.
//!
//! | Java | Rust | on the wire (hessian-lite) |
//! |---|---|---|
//! | `java.util.Date` | [`Date`] (milliseconds since the epoch) | a date |
//! | `java.time.LocalDate`, `LocalTime`, `LocalDateTime` | [`LocalDate`], [`LocalTime`], [`LocalDateTime`] | `java8.LocalDateHandle`, ... objects |
//! | `java.time.Instant`, `Duration`, `Period` | [`Instant`], [`Duration`], [`Period`] | `java8.*Handle` objects |
//! | `java.time.Year`, `YearMonth`, `MonthDay` | [`Year`], [`YearMonth`], [`MonthDay`] | `java8.*Handle` objects |
//! | `java.time.ZoneOffset`, `ZoneId` | [`ZoneOffset`], [`ZoneId`] | `java8.*Handle` objects |
//! | `java.time.OffsetTime`, `OffsetDateTime`, `ZonedDateTime` | [`OffsetTime`], [`OffsetDateTime`], [`ZonedDateTime`] | `java8.*Handle` objects |
//! | `java.sql.Date`, `Time`, `Timestamp` (as values) | [`sql::Date`], [`sql::Time`], [`sql::Timestamp`] | object, field `value` (a date) |
//! | `java.math.BigDecimal` | [`BigDecimal`] (its decimal string) | object, field `value` |
//! | `java.math.BigInteger` | [`BigInteger`] (any size), or `i128` / `u128` (see [`ser`](crate::ser)) | object with the JDK's fields |
//! | `java.util.UUID` | [`Uuid`] | object, field `value` |
//! | `java.util.Locale` | [`Locale`] | `LocaleHandle` object, field `value` |
//! | `java.util.Currency` | [`Currency`] | object, field `currencyCode` |
//! | `java.lang.Class` | [`JavaClass`] | object, field `name` |
//! | a Java enum | a Rust enum of unit variants named as the constants, serde name = the enum class | object, field `name` |
//! | `java.util.EnumSet` | [`EnumSet<E>`] | `EnumSetHandler` object, fields `objects`, `type` |
//! | `java.util.EnumMap` | a map typed `java.util.EnumMap` ([`Typed`] with [`java::EnumMap`], e.g. around a `BTreeMap` of the enum); hessian-lite reads it back as a `HashMap` | typed map |
//! | `Object[]` of mixed values | `Vec<Value>` or any serde type, typed `[object` ([`java::ObjectArray`]) | typed list |
//! | `java.util.Optional` | none: hessian-lite refuses to write it (not `Serializable`) | |
//! | `int[]`, `long[]`, `double[]`, `String[]`, ... | `Vec<T>` with `#[serde(with = "hessian2::types::java_array")]`, or [`JavaArray<T>`] | typed list |
//! | `LinkedList`, `HashSet`, `TreeMap`, any named list or map type | [`Typed<T, N>`] with a marker from [`java`] or [`java_type!`](crate::java_type) | typed list or map |
//! | `byte[]` read without copying | `bytes::Bytes` with `#[serde(with = "hessian2::types::bytes")]` | binary |
//!
//! Optional features map the carriers to the crates Rust services use, with `serde(with)`
//! modules for DTO fields of those types (all off by default):
//!
//! | feature | Rust type | Java type | module |
//! |---|---|---|---|
//! | `chrono` | `NaiveDate`, `NaiveTime`, `NaiveDateTime`, `DateTime<Utc>`, `DateTime<FixedOffset>`, `TimeDelta` | `LocalDate`, `LocalTime`, `LocalDateTime`, `Instant`, `OffsetDateTime`, `Duration` | `types::chrono` (feature `chrono`) |
//! | `chrono` | `DateTime<Utc>` | `java.util.Date` | `From` / `TryFrom` on [`Date`] |
//! | `time` | `Date`, `Time`, `PrimitiveDateTime`, `OffsetDateTime`, `OffsetDateTime`, `UtcOffset`, `Duration` | `LocalDate`, `LocalTime`, `LocalDateTime`, `Instant`, `OffsetDateTime`, `ZoneOffset`, `Duration` | `types::time::local_date`, `local_time`, `local_date_time`, `instant`, `offset_date_time`, `zone_offset`, `duration` (feature `time`) |
//! | `uuid` | `uuid::Uuid` | `java.util.UUID` | `types::uuid` (feature `uuid`) |
//! | `rust_decimal` | `rust_decimal::Decimal` | `java.math.BigDecimal` | `types::rust_decimal` (feature `rust_decimal`) |
//! | `num-bigint` | `num_bigint::BigInt`, `BigUint` | `java.math.BigInteger` | `types::num_bigint` (feature `num-bigint`) |
//! | `bigdecimal` | `bigdecimal::BigDecimal` | `java.math.BigDecimal` (any size and scale) | `types::bigdecimal` (feature `bigdecimal`) |
//!
//! The hessian-lite handle classes live in `com.alibaba.com.caucho.hessian.io` (`java8.` for
//! `java.time`); [`time::java_type_of_handle`] maps one to the `java.time` type it stands for.
//!
//! One annotation for both serializations: the `serde(with)` modules of the
//! [`java_serde`] crate (`java_serde::chrono::local_date_time`, `java_serde::rust_decimal`,
//! ...) are recognised by this crate and written as this module's carriers, so a DTO
//! annotated with them is byte-identical with Java here and in `fastjson2` alike.

mod big_decimal;
#[cfg(feature = "bigdecimal")]
pub mod bigdecimal;
mod biginteger;
#[cfg(feature = "chrono")]
pub mod chrono;
mod convert;
mod date;
mod enum_set;
pub mod java_array;
mod jdk;
#[cfg(feature = "num-bigint")]
pub mod num_bigint;
#[cfg(feature = "rust_decimal")]
pub mod rust_decimal;
pub mod sql;
pub mod time;
mod typed;
#[cfg(feature = "uuid")]
pub mod uuid;
pub(crate) mod vocabulary;

pub use big_decimal::{BigDecimal, ParseBigDecimalError};
pub use biginteger::BigInteger;
pub use convert::ConvertError;
pub use date::Date;
pub use enum_set::EnumSet;
pub use java_array::{ArrayElement, JavaArray};
pub use jdk::{Currency, JavaClass, Locale, Uuid};
pub use time::{
    Duration, Instant, LocalDate, LocalDateTime, LocalTime, MonthDay, OffsetDateTime, OffsetTime,
    ParseError, Period, Year, YearMonth, ZoneId, ZoneOffset, ZonedDateTime,
};
pub use typed::{java, JavaType, Typed};

/// Names of the private newtypes through which the types of this module talk to the Hessian
/// serializer and deserializer. Other formats treat them as ordinary newtype structs.
pub(crate) mod token {
    /// `Date`: the inner `i64` is written as a Hessian date.
    pub const DATE: &str = "$hessian2::Date";
    /// A `bytes::Bytes` field that wants a zero-copy read (see [`super::bytes`]).
    pub const BYTES: &str = "$hessian2::Bytes";
    /// `$hessian2::type:` followed by a Java type name: the list or map that the inner value
    /// serializes as is written with that type.
    pub const TYPE: &str = "$hessian2::type:";
}

/// `#[serde(with = "hessian2::types::bytes")]` for a `bytes::Bytes` field: written as a Hessian
/// binary, and read **without copying** when decoding with [`from_bytes`](crate::from_bytes)
/// (the field is a slice of the input `Bytes`) when the binary is one chunk: Java writes
/// binaries up to 4093 bytes (hessian-lite 3) as one chunk, hessian-lite 4 those that fit in
/// what is left of its 8192-byte buffer (up to 8189 bytes), and longer ones in chunks, which are
/// gathered into one buffer (one copy). Other inputs and formats copy.
///
/// ```
/// use bytes::Bytes;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize)]
/// struct Blob {
///     #[serde(with = "hessian2::types::bytes")]
///     data: Bytes,
/// }
///
/// let input = Bytes::from(hessian2::to_vec(&Blob { data: Bytes::from(vec![7u8; 1000]) })?);
/// let blob: Blob = hessian2::from_bytes(input.clone())?;
/// // The field points into `input`.
/// let inside = input.as_ptr_range();
/// assert!(inside.contains(&blob.data.as_ptr()));
/// # Ok::<(), hessian2::Error>(())
/// ```
pub mod bytes {
    use std::cell::RefCell;
    use std::fmt;

    use bytes::Bytes;
    use serde::de::{self, Deserializer, SeqAccess, Visitor};
    use serde::ser::Serializer;

    thread_local! {
        /// The `Bytes` the Hessian deserializer is handing to [`deserialize`]'s visitor: serde
        /// visitors only take slices, so the owned handle goes beside the call. The visitor
        /// takes it only if it holds exactly the slice it was given.
        static HANDOFF: RefCell<Option<Bytes>> = const { RefCell::new(None) };
    }

    /// Called by the Hessian deserializer around `visitor.visit_bytes(&bytes)`.
    pub(crate) fn hand_off<R>(bytes: Bytes, visit: impl FnOnce(&[u8]) -> R) -> R {
        let view = bytes.clone();
        HANDOFF.with(|h| *h.borrow_mut() = Some(bytes));
        let result = visit(&view);
        HANDOFF.with(|h| h.borrow_mut().take());
        result
    }

    fn take_handoff(v: &[u8]) -> Option<Bytes> {
        HANDOFF.with(|h| {
            let mut slot = h.borrow_mut();
            match &*slot {
                Some(b) if b.as_ptr() == v.as_ptr() && b.len() == v.len() => slot.take(),
                _ => None,
            }
        })
    }

    /// Serializes `bytes` as a binary.
    pub fn serialize<S: Serializer>(bytes: &Bytes, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(bytes)
    }

    /// Deserializes a binary, zero-copy from a `Bytes` input of the Hessian deserializer.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Bytes, D::Error> {
        deserializer.deserialize_newtype_struct(super::token::BYTES, BytesVisitor)
    }

    struct BytesVisitor;

    impl<'de> Visitor<'de> for BytesVisitor {
        type Value = Bytes;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a binary")
        }

        fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
            Ok(take_handoff(v).unwrap_or_else(|| Bytes::copy_from_slice(v)))
        }

        fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Bytes, E> {
            Ok(Bytes::from(v))
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Bytes, E> {
            Ok(Bytes::copy_from_slice(v.as_bytes()))
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Bytes, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
            while let Some(b) = seq.next_element::<u8>()? {
                out.push(b);
            }
            Ok(Bytes::from(out))
        }

        fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Bytes, D::Error> {
            d.deserialize_byte_buf(self)
        }
    }
}
