//! The `java_serde` vocabulary in fastjson2: fields annotated once with `java_serde`'s modules
//! (the annotation that also serves hessian2 and serde_json) read the documents Java's
//! fastjson2 2.0.52 and 2.0.56 wrote (`interop/fastjson2-java`) and write them again, byte for
//! byte.

use std::fmt::Debug;
use std::path::Path;

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Utc};
use num_bigint::BigInt;
use proptest::prelude::*;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Java's document `name` (both versions) reads as `expected`; when `rewrites`, `expected`
/// writes Java's bytes.
fn java_writes<T>(name: &str, expected: T, rewrites: bool)
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + Debug,
{
    for dir in ["vectors", "vectors-2.0.56"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests")
            .join(dir)
            .join(format!("{name}.bin"));
        let java = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let got: T = fastjson2::from_slice(&java).unwrap_or_else(|e| panic!("{dir}/{name}: {e}"));
        assert_eq!(got, expected, "{dir}/{name}");
        if rewrites {
            let bytes = fastjson2::to_vec(&expected).unwrap();
            assert_eq!(bytes, java, "{dir}/{name}: Java's bytes");
        }
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Day(#[serde(with = "java_serde::chrono::local_date")] NaiveDate);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Clock(#[serde(with = "java_serde::chrono::local_time")] NaiveTime);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct At(#[serde(with = "java_serde::chrono::local_date_time")] NaiveDateTime);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Stamp(#[serde(with = "java_serde::chrono::instant")] DateTime<Utc>);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Id(#[serde(with = "java_serde::uuid")] uuid::Uuid);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Amount(#[serde(with = "java_serde::rust_decimal")] Decimal);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Exact(#[serde(with = "java_serde::bigdecimal")] bigdecimal::BigDecimal);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Int(#[serde(with = "java_serde::num_bigint")] BigInt);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct TimeClock(#[serde(with = "java_serde::time::local_time")] time::Time);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct TimeAt(#[serde(with = "java_serde::time::local_date_time")] time::PrimitiveDateTime);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct TimeStamp(#[serde(with = "java_serde::time::instant")] time::OffsetDateTime);

#[test]
fn time_crate_fields_read_and_write_javas_bytes() {
    let clock = time::Time::from_hms_nano(13, 45, 30, 123_456_789).unwrap();
    java_writes("local_time", TimeClock(clock), true);
    let day = time::Date::from_calendar_date(2024, time::Month::December, 31).unwrap();
    let at = time::PrimitiveDateTime::new(day, time::Time::from_hms_milli(23, 59, 58, 1).unwrap());
    java_writes("local_datetime", TimeAt(at), true);
    let stamp = time::OffsetDateTime::from_unix_timestamp_nanos(1_700_000_000_000_000_500).unwrap();
    java_writes("instant", TimeStamp(stamp), true);
}

#[test]
fn each_type_reads_and_writes_javas_bytes() {
    java_writes(
        "local_date",
        Day(NaiveDate::from_ymd_opt(2024, 2, 29).unwrap()),
        true,
    );
    let time = NaiveTime::from_hms_nano_opt(13, 45, 30, 123_456_789).unwrap();
    java_writes("local_time", Clock(time), true);
    java_writes(
        "local_time_whole",
        Clock(NaiveTime::from_hms_opt(8, 0, 0).unwrap()),
        true,
    );
    let at = NaiveDate::from_ymd_opt(2024, 12, 31)
        .unwrap()
        .and_hms_milli_opt(23, 59, 58, 1)
        .unwrap();
    java_writes("local_datetime", At(at), true);
    let stamp = DateTime::from_timestamp(1_700_000_000, 500).unwrap();
    java_writes("instant", Stamp(stamp), true);
    let id = uuid::Uuid::from_u128(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
    java_writes("uuid", Id(id), true);
    java_writes("decimal_1_23", Amount(Decimal::new(123, 2)), true);
    java_writes("decimal_m0_5", Amount(Decimal::new(-5, 1)), true);
    // 1E+5 has scale -5, which a Decimal cannot hold: read as 100000 (scale 0).
    java_writes("decimal_1e5", Amount(Decimal::new(100_000, 0)), false);
    // bigdecimal keeps any scale: 1E+5 is unscaled 1 at scale -5, written as Java wrote it.
    java_writes(
        "decimal_1e5",
        Exact(bigdecimal::BigDecimal::new(1.into(), -5)),
        true,
    );
    let twenty: BigInt = "12345678901234567890".parse().unwrap();
    java_writes(
        "decimal_20_digits",
        Exact(bigdecimal::BigDecimal::new(twenty, 0)),
        true,
    );
    java_writes("bigint_small", Int(BigInt::from(12345)), true);
    java_writes("bigint_neg", Int(-(BigInt::from(1) << 50u32)), true);
    java_writes("bigint_2_100", Int(BigInt::from(1) << 100u32), true);
}

/// One struct, both serializations and serde_json: what the annotation is for.
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

/// `fastjson2::types`' own modules for the same fields: they write fastjson2's forms too.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "com.example.Dto")]
struct Own {
    #[serde(with = "fastjson2::types::rust_decimal")]
    amount: Decimal,
    #[serde(with = "fastjson2::types::chrono::local_date_time")]
    at: NaiveDateTime,
    #[serde(with = "fastjson2::types::uuid")]
    id: uuid::Uuid,
}

#[test]
fn serde_json_sees_the_text_of_the_mapped_crates() {
    let dto = Shared {
        amount: Decimal::new(123_450, 2),
        at: NaiveDate::from_ymd_opt(2024, 2, 29)
            .unwrap()
            .and_hms_nano_opt(13, 45, 30, 5)
            .unwrap(),
        id: uuid::Uuid::from_u128(0x123e4567_e89b_12d3_a456_426614174000),
    };
    let json = serde_json::to_value(&dto).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "amount": "1234.50",
            "at": "2024-02-29T13:45:30.000000005",
            "id": "123e4567-e89b-12d3-a456-426614174000",
        })
    );
    assert_eq!(serde_json::from_value::<Shared>(json).unwrap(), dto);
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
    let bytes = fastjson2::to_vec(&some).unwrap();
    assert_eq!(
        bytes,
        fastjson2::to_vec(&Shared { amount, at, id }).unwrap()
    );
    assert_eq!(fastjson2::from_slice::<Optional>(&bytes).unwrap(), some);
    let none = Optional {
        amount: None,
        at: None,
        id: Some(id),
    };
    let bytes = fastjson2::to_vec(&none).unwrap();
    assert_eq!(fastjson2::from_slice::<Optional>(&bytes).unwrap(), none);
}

proptest! {
    /// Any value (years JSONB's 16 bits hold): the shared annotation writes what this crate's
    /// own modules write, and reads it back.
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
        let bytes = fastjson2::to_vec(&Shared { amount, at, id }).unwrap();
        prop_assert_eq!(&bytes, &fastjson2::to_vec(&Own { amount, at, id }).unwrap());
        let back: Shared = fastjson2::from_slice(&bytes).unwrap();
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

/// `OffsetDateTime` and `Duration` through the shared annotation: fastjson2's zoned date-time
/// with the offset as its zone, and its `Duration` text, read and written.
#[test]
fn offsets_and_durations_read_and_write_javas_bytes() {
    let at = NaiveDate::from_ymd_opt(2024, 5, 6)
        .unwrap()
        .and_hms_opt(7, 8, 9)
        .unwrap();
    let west5 = FixedOffset::west_opt(5 * 3600).unwrap();
    java_writes(
        "offset_datetime",
        Offset(at.and_local_timezone(west5).unwrap()),
        true,
    );
    let day = time::Date::from_calendar_date(2024, time::Month::May, 6).unwrap();
    let west5 = time::UtcOffset::from_hms(-5, 0, 0).unwrap();
    java_writes(
        "offset_datetime",
        TimeOffset(day.with_hms(7, 8, 9).unwrap().assume_offset(west5)),
        true,
    );
    let span = TimeDelta::seconds(3661) + TimeDelta::nanoseconds(5);
    java_writes("duration", Span(span), true);
    java_writes(
        "duration",
        TimeSpan(time::Duration::seconds(3661) + time::Duration::nanoseconds(5)),
        true,
    );
}
