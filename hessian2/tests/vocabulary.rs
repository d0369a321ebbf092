//! The `java_serde` vocabulary in hessian2: fields annotated once with `java_serde`'s modules
//! (the annotation that also serves fastjson2 and serde_json) read Java's hessian-lite bytes
//! (`interop/java` vectors, both lite generations) and write them again, byte for byte.

use std::fmt::Debug;
use std::path::Path;

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Utc};
use hessian2::encode::PeerVersion;
use hessian2::{Deserializer, Serializer};
use num_bigint::BigInt;
use proptest::prelude::*;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

const GENERATIONS: [(&str, PeerVersion); 2] =
    [("lite3", PeerVersion::V3), ("lite4", PeerVersion::V4)];

/// Java's stream `name` reads as `expected`; when `rewrites`, `expected` writes Java's bytes.
fn java_writes<T>(name: &str, expected: T, rewrites: bool)
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + Debug,
{
    for (generation, version) in GENERATIONS {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/vectors")
            .join(generation)
            .join(format!("{name}.bin"));
        let java = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut de = Deserializer::from_slice(&java);
        let got: T = de
            .next_value()
            .unwrap_or_else(|e| panic!("{generation}/{name}: {e}"));
        assert_eq!(got, expected, "{generation}/{name}");
        if rewrites {
            let mut ser = Serializer::with_version(Vec::new(), version);
            ser.serialize(&expected).unwrap();
            assert_eq!(ser.into_inner(), java, "{generation}/{name}: Java's bytes");
        }
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "io.github.hessianrs.interop.model.Color")]
#[allow(clippy::upper_case_acronyms)]
enum Color {
    GREEN,
}

/// The Java model's `Event`, its fields annotated with `java_serde`.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "io.github.hessianrs.interop.model.Event")]
struct Event {
    color: Color,
    #[serde(with = "java_serde::rust_decimal")]
    amount: Decimal,
    #[serde(with = "java_serde::chrono::instant")]
    stamp: DateTime<Utc>,
    #[serde(with = "java_serde::chrono::local_date")]
    day: NaiveDate,
    #[serde(with = "java_serde::chrono::local_date_time")]
    at: NaiveDateTime,
    #[serde(with = "java_serde::uuid")]
    id: uuid::Uuid,
}

fn event() -> Event {
    let day = NaiveDate::from_ymd_opt(2024, 2, 29).unwrap();
    Event {
        color: Color::GREEN,
        amount: Decimal::new(123_450, 2),
        stamp: DateTime::from_timestamp(1_700_000_000, 5).unwrap(),
        day,
        at: day.and_hms_nano_opt(13, 45, 30, 123_456_789).unwrap(),
        id: uuid::Uuid::from_u128(0x123e4567_e89b_12d3_a456_426614174000),
    }
}

#[test]
fn an_annotated_dto_reads_and_writes_javas_bytes() {
    java_writes("pojo_event", event(), true);
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Clock(#[serde(with = "java_serde::chrono::local_time")] NaiveTime);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Stamp(#[serde(with = "java_serde::chrono::instant")] DateTime<Utc>);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Int(#[serde(with = "java_serde::num_bigint")] BigInt);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Exact(#[serde(with = "java_serde::bigdecimal")] bigdecimal::BigDecimal);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Amount(#[serde(with = "java_serde::rust_decimal")] Decimal);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct TimeDay(#[serde(with = "java_serde::time::local_date")] time::Date);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct TimeAt(#[serde(with = "java_serde::time::local_date_time")] time::PrimitiveDateTime);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct TimeStamp(#[serde(with = "java_serde::time::instant")] time::OffsetDateTime);

#[test]
fn time_crate_fields_read_and_write_javas_bytes() {
    let day = time::Date::from_calendar_date(2024, time::Month::February, 29).unwrap();
    java_writes("time_local_date", TimeDay(day), true);
    let clock = time::Time::from_hms_nano(13, 45, 30, 123_456_789).unwrap();
    java_writes(
        "time_local_date_time",
        TimeAt(time::PrimitiveDateTime::new(day, clock)),
        true,
    );
    let stamp = time::OffsetDateTime::from_unix_timestamp_nanos(1_700_000_000_123_456_789).unwrap();
    java_writes("time_instant", TimeStamp(stamp), true);
}

#[test]
fn each_type_reads_and_writes_javas_bytes() {
    java_writes(
        "time_local_time",
        Clock(NaiveTime::from_hms_nano_opt(13, 45, 30, 123_456_789).unwrap()),
        true,
    );
    java_writes("time_local_time_midnight", Clock(NaiveTime::MIN), true);
    let stamp = DateTime::from_timestamp(1_700_000_000, 123_456_789).unwrap();
    java_writes("time_instant", Stamp(stamp), true);
    let before = DateTime::from_timestamp(-1, 999_999_999).unwrap();
    java_writes("time_instant_before_epoch", Stamp(before), true);
    let big: BigInt = "12345678901234567890".parse().unwrap();
    java_writes("biginteger_12345678901234567890", Int(big), true);
    java_writes("biginteger_-1", Int(BigInt::from(-1)), true);
    java_writes("bigdecimal_123_456", Amount(Decimal::new(123_456, 3)), true);
    // -1E+10 has scale -10, which a Decimal cannot hold: read as -10000000000 (scale 0).
    java_writes(
        "bigdecimal_-1e10",
        Amount(Decimal::new(-10_000_000_000, 0)),
        false,
    );
    // bigdecimal keeps any scale: -1E+10 is unscaled -1 at scale -10, written as Java wrote it.
    java_writes(
        "bigdecimal_-1e10",
        Exact(bigdecimal::BigDecimal::new((-1).into(), -10)),
        true,
    );
    java_writes(
        "bigdecimal_123_456",
        Exact(bigdecimal::BigDecimal::new(123_456.into(), 3)),
        true,
    );
}

/// `hessian2::types`' own modules for the same fields: they write hessian-lite's forms too.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "com.example.Dto")]
struct Own {
    #[serde(with = "hessian2::types::rust_decimal")]
    amount: Decimal,
    #[serde(with = "hessian2::types::chrono::local_date_time")]
    at: NaiveDateTime,
    #[serde(with = "hessian2::types::uuid")]
    id: uuid::Uuid,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "com.example.Dto")]
struct Shared {
    #[serde(with = "java_serde::rust_decimal")]
    amount: Decimal,
    #[serde(with = "java_serde::chrono::local_date_time")]
    at: NaiveDateTime,
    #[serde(with = "java_serde::uuid")]
    id: uuid::Uuid,
}

/// [`Shared`] with each field optional.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "com.example.Dto")]
struct Optional {
    #[serde(with = "java_serde::rust_decimal::option")]
    amount: Option<Decimal>,
    #[serde(with = "java_serde::chrono::local_date_time::option")]
    at: Option<NaiveDateTime>,
    #[serde(with = "java_serde::uuid::option")]
    id: Option<uuid::Uuid>,
}

#[test]
fn optional_fields_are_the_value_or_null() {
    let amount = Decimal::new(-5, 1);
    let at = NaiveDate::from_ymd_opt(2024, 2, 29)
        .unwrap()
        .and_hms_opt(1, 2, 3)
        .unwrap();
    let id = uuid::Uuid::from_u128(7);
    let some = Optional {
        amount: Some(amount),
        at: Some(at),
        id: Some(id),
    };
    let bytes = hessian2::to_vec(&some).unwrap();
    assert_eq!(bytes, hessian2::to_vec(&Shared { amount, at, id }).unwrap());
    assert_eq!(hessian2::from_slice::<Optional>(&bytes).unwrap(), some);
    let none = Optional {
        amount: None,
        at: None,
        id: Some(id),
    };
    let bytes = hessian2::to_vec(&none).unwrap();
    assert_eq!(hessian2::from_slice::<Optional>(&bytes).unwrap(), none);
}

proptest! {
    /// Any value: the shared annotation writes what this crate's own modules write, and reads
    /// it back.
    #[test]
    fn the_shared_annotation_writes_what_the_crates_own_does(
        mantissa in -(1i128 << 95)..(1i128 << 95),
        scale in 0u32..=28,
        seconds in -62_135_596_800i64..253_402_300_799,
        nanos in 0u32..1_000_000_000,
        bits: u128,
    ) {
        let amount = Decimal::from_i128_with_scale(mantissa, scale);
        let at = DateTime::from_timestamp(seconds, nanos).unwrap().naive_utc();
        let id = uuid::Uuid::from_u128(bits);
        let bytes = hessian2::to_vec(&Shared { amount, at, id }).unwrap();
        prop_assert_eq!(&bytes, &hessian2::to_vec(&Own { amount, at, id }).unwrap());
        let back: Shared = hessian2::from_slice(&bytes).unwrap();
        prop_assert_eq!(back, Shared { amount, at, id });
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Offset(#[serde(with = "java_serde::chrono::offset_date_time")] DateTime<FixedOffset>);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Span(#[serde(with = "java_serde::chrono::duration")] TimeDelta);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct TimeSpan(#[serde(with = "java_serde::time::duration")] time::Duration);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct TimeOffset(#[serde(with = "java_serde::time::offset_date_time")] time::OffsetDateTime);

/// `OffsetDateTime` and `Duration` through the shared annotation: hessian-lite's handle
/// objects, read and written.
#[test]
fn offsets_and_durations_read_and_write_javas_bytes() {
    let at = NaiveDate::from_ymd_opt(2024, 2, 29)
        .unwrap()
        .and_hms_nano_opt(13, 45, 30, 123_456_789)
        .unwrap();
    let east8 = FixedOffset::east_opt(8 * 3600).unwrap();
    java_writes(
        "time_offset_date_time",
        Offset(at.and_local_timezone(east8).unwrap()),
        true,
    );
    let day = time::Date::from_calendar_date(2024, time::Month::February, 29).unwrap();
    let local = day.with_hms_nano(13, 45, 30, 123_456_789).unwrap();
    let east8 = time::UtcOffset::from_hms(8, 0, 0).unwrap();
    java_writes(
        "time_offset_date_time",
        TimeOffset(local.assume_offset(east8)),
        true,
    );
    java_writes(
        "time_duration",
        Span(TimeDelta::seconds(3661) + TimeDelta::nanoseconds(5)),
        true,
    );
    // Duration.ofMillis(-1500): Java keeps seconds -2 and nanoseconds 500,000,000.
    java_writes(
        "time_duration_negative",
        Span(TimeDelta::milliseconds(-1500)),
        true,
    );
    java_writes(
        "time_duration_negative",
        TimeSpan(time::Duration::milliseconds(-1500)),
        true,
    );
}
