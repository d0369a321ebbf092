//! The `chrono`, `uuid` and `rust_decimal` features (enabled for tests by fastjson2's
//! dev-dependency on itself) against the documents fastjson2 2.0.52 and 2.0.56 wrote
//! (`interop/fastjson2-java`): a field of a chrono, uuid or rust_decimal type annotated with
//! `types::chrono::*`, `types::uuid` or `types::rust_decimal` reads Java's bytes into the value
//! Java had and writes Java's bytes again.

use std::fmt::Debug;
use std::path::Path;

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

fn vectors(name: &str) -> [Vec<u8>; 2] {
    ["vectors", "vectors-2.0.56"].map(|dir| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests")
            .join(dir)
            .join(format!("{name}.bin"));
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    })
}

/// Java's document `name` reads as `expected`; when `rewrites`, `expected` writes Java's bytes.
fn java_writes<T>(name: &str, expected: T, rewrites: bool)
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + Debug,
{
    for java in vectors(name) {
        let got: T = fastjson2::from_slice(&java).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got, expected, "{name}");
        if rewrites {
            assert_eq!(
                fastjson2::to_vec(&expected).unwrap(),
                java,
                "{name}: Java's bytes"
            );
        }
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Date(#[serde(with = "fastjson2::types::chrono::local_date")] NaiveDate);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Time(#[serde(with = "fastjson2::types::chrono::local_time")] NaiveTime);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct DateTimeField(#[serde(with = "fastjson2::types::chrono::local_date_time")] NaiveDateTime);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct InstantField(#[serde(with = "fastjson2::types::chrono::instant")] DateTime<Utc>);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Id(#[serde(with = "fastjson2::types::uuid")] uuid::Uuid);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Amount(#[serde(with = "fastjson2::types::rust_decimal")] Decimal);

#[test]
fn chrono_fields() {
    let day = NaiveDate::from_ymd_opt(2024, 2, 29).unwrap();
    java_writes("local_date", Date(day), true);
    let time = NaiveTime::from_hms_nano_opt(13, 45, 30, 123_456_789).unwrap();
    java_writes("local_time", Time(time), true);
    java_writes(
        "local_time_whole",
        Time(NaiveTime::from_hms_opt(8, 0, 0).unwrap()),
        true,
    );
    let at = NaiveDate::from_ymd_opt(2024, 12, 31)
        .unwrap()
        .and_hms_milli_opt(23, 59, 58, 1)
        .unwrap();
    java_writes("local_datetime", DateTimeField(at), true);
    let stamp = DateTime::from_timestamp(1_700_000_000, 500).unwrap();
    java_writes("instant", InstantField(stamp), true);
}

#[test]
fn uuid_fields() {
    let id = uuid::Uuid::from_u128(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
    java_writes("uuid", Id(id), true);
}

#[test]
fn decimal_fields() {
    java_writes("decimal_1_23", Amount(Decimal::new(123, 2)), true);
    java_writes("decimal_m0_5", Amount(Decimal::new(-5, 1)), true);
    java_writes(
        "decimal_long_scale",
        Amount(Decimal::new(12_345_678_901_234_567, 6)),
        true,
    );
    // 1E+5 has scale -5, which a Decimal cannot hold: read as 100000 (scale 0).
    java_writes("decimal_1e5", Amount(Decimal::new(100_000, 0)), false);
}

#[test]
fn serde_json_sees_the_text_chrono_uuid_and_rust_decimal_write() {
    let at = NaiveDate::from_ymd_opt(2024, 12, 31)
        .unwrap()
        .and_hms_milli_opt(23, 59, 58, 1)
        .unwrap();
    assert_eq!(
        serde_json::to_string(&DateTimeField(at)).unwrap(),
        r#""2024-12-31T23:59:58.001""#
    );
    let stamp = DateTime::from_timestamp(1_700_000_000, 500).unwrap();
    let json = serde_json::to_string(&InstantField(stamp)).unwrap();
    assert_eq!(json, r#""2023-11-14T22:13:20.000000500Z""#);
    assert_eq!(
        serde_json::from_str::<InstantField>(&json).unwrap(),
        InstantField(stamp)
    );
    assert_eq!(
        serde_json::from_str::<Amount>(r#""-0.50""#).unwrap(),
        Amount(Decimal::new(-50, 2))
    );
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Int(#[serde(with = "fastjson2::types::num_bigint")] num_bigint::BigInt);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Uint(#[serde(with = "fastjson2::types::num_bigint::biguint")] num_bigint::BigUint);

#[test]
fn num_bigint_fields() {
    use num_bigint::{BigInt, BigUint};
    let two_100 = BigInt::from(1) << 100u32;
    java_writes("bigint_small", Int(BigInt::from(12345)), true);
    java_writes("bigint_neg", Int(-(BigInt::from(1) << 50u32)), true);
    java_writes("bigint_2_100", Int(two_100.clone()), true);
    java_writes("bigint_neg_2_100", Int(-two_100.clone()), true);
    java_writes("bigint_2_100", Uint(BigUint::from(1u8) << 100u32), true);
    // A negative BigInteger is no BigUint: an error, not a panic.
    let neg = &vectors("bigint_neg")[0];
    assert!(fastjson2::from_slice::<Uint>(neg).is_err());
    // serde_json: the decimal text, both ways.
    let json = serde_json::to_string(&Int(-two_100.clone())).unwrap();
    assert_eq!(json, r#""-1267650600228229401496703205376""#);
    assert_eq!(serde_json::from_str::<Int>(&json).unwrap(), Int(-two_100));
    assert!(serde_json::from_str::<Int>(r#""12x""#).is_err());
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Exact(#[serde(with = "fastjson2::types::bigdecimal")] bigdecimal::BigDecimal);

fn exact(unscaled: &str, scale: i64) -> Exact {
    Exact(bigdecimal::BigDecimal::new(
        unscaled.parse().unwrap(),
        scale,
    ))
}

#[test]
fn bigdecimal_fields_keep_unscaled_value_and_scale() {
    java_writes("decimal_1_23", exact("123", 2), true);
    java_writes("decimal_100", exact("100", 0), true);
    java_writes("decimal_m0_5", exact("-5", 1), true);
    // A negative scale, which rust_decimal cannot hold, is kept and written back.
    java_writes("decimal_1e5", exact("1", -5), true);
    java_writes("decimal_long_scale", exact("12345678901234567", 6), true);
    java_writes("decimal_20_digits", exact("12345678901234567890", 0), true);
    java_writes(
        "decimal_19_digits_scale",
        exact("12345678901234567895", 1),
        true,
    );
    java_writes(
        "decimal_huge",
        exact("123456789012345678901234567890123456789", 9),
        true,
    );
    // bigdecimal's equality ignores the scale; the scale read is Java's.
    let java = &vectors("decimal_1e5")[0];
    let got: Exact = fastjson2::from_slice(java).unwrap();
    assert_eq!(got.0.as_bigint_and_exponent(), (1.into(), -5));
    // serde_json: Java's toString(), read back at the same scale.
    for (text, unscaled, scale) in [
        ("1.50", "150", 2),
        ("1E+5", "1", -5),
        ("-1.23E-7", "-123", 9),
    ] {
        let json = serde_json::to_string(&exact(unscaled, scale)).unwrap();
        assert_eq!(json, format!("\"{text}\""));
        let back: Exact = serde_json::from_str(&json).unwrap();
        assert_eq!(
            back.0.as_bigint_and_exponent(),
            (unscaled.parse().unwrap(), scale)
        );
    }
    // A scale beyond Java's int is an error, not a panic.
    assert!(fastjson2::to_vec(&exact("1", 1 << 40)).is_err());
    assert!(serde_json::from_str::<Exact>(r#""1E-99999999999""#).is_err());
}

mod time_feature {
    use super::*;
    use ::time::{Date, Month, PrimitiveDateTime, Time};

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Day(#[serde(with = "fastjson2::types::time::local_date")] Date);

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Clock(#[serde(with = "fastjson2::types::time::local_time")] Time);

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct At(#[serde(with = "fastjson2::types::time::local_date_time")] PrimitiveDateTime);

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Stamp(#[serde(with = "fastjson2::types::time::instant")] ::time::OffsetDateTime);

    /// Java's `OffsetDateTime`, `ZoneOffset` and `Duration` carriers convert to `time`'s types
    /// and back, as hessian2's do.
    #[test]
    fn offset_date_time_zone_offset_and_duration_convert() {
        use ::time::UtcOffset;
        use fastjson2::types::{Duration, OffsetDateTime, ZoneOffset};

        let [java, _] = vectors("offset_datetime");
        let at: OffsetDateTime = fastjson2::from_slice(&java).unwrap();
        let time_at = ::time::OffsetDateTime::try_from(at).unwrap();
        assert_eq!(time_at.offset().whole_seconds(), -18_000);
        assert_eq!(time_at.unix_timestamp(), 1_714_997_289);
        assert_eq!(OffsetDateTime::try_from(time_at), Ok(at));

        let [java, _] = vectors("zone_offset");
        let offset: ZoneOffset = fastjson2::from_slice(&java).unwrap();
        let utc_offset = UtcOffset::try_from(offset).unwrap();
        assert_eq!(utc_offset.whole_seconds(), 19_800);
        assert_eq!(ZoneOffset::try_from(utc_offset), Ok(offset));
        assert!(UtcOffset::try_from(ZoneOffset {
            total_seconds: 18 * 3600 + 1
        })
        .is_err());

        let [java, _] = vectors("duration");
        let d: Duration = fastjson2::from_slice(&java).unwrap();
        let time_d = ::time::Duration::try_from(d).unwrap();
        assert_eq!(time_d, ::time::Duration::new(3661, 5));
        assert_eq!(Duration::try_from(time_d), Ok(d));
        // Java floors the seconds of a negative duration; `time` counts towards zero.
        let half = Duration::try_from(::time::Duration::milliseconds(-500)).unwrap();
        assert_eq!((half.seconds, half.nanos), (-1, 500_000_000));
        assert_eq!(
            ::time::Duration::try_from(half),
            Ok(::time::Duration::milliseconds(-500))
        );
    }

    #[test]
    fn time_fields_read_and_write_javas_bytes() {
        let day = Date::from_calendar_date(2024, Month::February, 29).unwrap();
        java_writes("local_date", Day(day), true);
        let clock = Time::from_hms_nano(13, 45, 30, 123_456_789).unwrap();
        java_writes("local_time", Clock(clock), true);
        java_writes(
            "local_time_whole",
            Clock(Time::from_hms(8, 0, 0).unwrap()),
            true,
        );
        let at = Date::from_calendar_date(2024, Month::December, 31)
            .unwrap()
            .with_hms_milli(23, 59, 58, 1)
            .unwrap();
        java_writes("local_datetime", At(at), true);
        let stamp =
            ::time::OffsetDateTime::from_unix_timestamp_nanos(1_700_000_000_000_000_500).unwrap();
        java_writes("instant", Stamp(stamp), true);
    }

    #[test]
    fn edges_and_errors() {
        for d in [Date::MIN, Date::MAX] {
            let bytes = fastjson2::to_vec(&Day(d)).unwrap();
            assert_eq!(fastjson2::from_slice::<Day>(&bytes).unwrap(), Day(d));
        }
        let last = PrimitiveDateTime::new(
            Date::MAX,
            Time::from_hms_nano(23, 59, 59, 999_999_999).unwrap(),
        );
        let bytes = fastjson2::to_vec(&At(last)).unwrap();
        assert_eq!(fastjson2::from_slice::<At>(&bytes).unwrap(), At(last));
        let feb30 = fastjson2::types::LocalDate {
            year: 2024,
            month: 2,
            day: 30,
        };
        assert!(Date::try_from(feb30).is_err());
        let bad = fastjson2::types::LocalTime {
            hour: 24,
            minute: 0,
            second: 0,
            nano: 0,
        };
        assert!(Time::try_from(bad).is_err());
        let late = fastjson2::types::Instant {
            seconds: i64::MAX,
            nanos: 0,
        };
        assert!(::time::OffsetDateTime::try_from(late).is_err());
        // serde_json: time's own text, both ways.
        let stamp = Stamp(::time::OffsetDateTime::from_unix_timestamp(1_700_000_000).unwrap());
        let json = serde_json::to_string(&stamp).unwrap();
        assert_eq!(json, r#""2023-11-14T22:13:20Z""#);
        assert_eq!(serde_json::from_str::<Stamp>(&json).unwrap(), stamp);
        let json = serde_json::to_string(&At(last)).unwrap();
        assert_eq!(serde_json::from_str::<At>(&json).unwrap(), At(last));
    }
}

/// The carriers of Java's `OffsetDateTime` and `Duration` convert to chrono's
/// `DateTime<FixedOffset>` and `TimeDelta`, and back, as hessian2's do.
#[test]
fn chrono_offset_date_time_and_duration() {
    use chrono::{FixedOffset, TimeDelta};
    use fastjson2::types::{Duration, OffsetDateTime};

    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
    let read = |name: &str| std::fs::read(dir.join(format!("{name}.bin"))).unwrap();
    let at: OffsetDateTime = fastjson2::from_slice(&read("offset_datetime")).unwrap();
    let chrono_at = DateTime::<FixedOffset>::try_from(at).unwrap();
    assert_eq!(chrono_at.to_rfc3339(), "2024-05-06T07:08:09-05:00");
    assert_eq!(OffsetDateTime::try_from(chrono_at), Ok(at));

    let d: Duration = fastjson2::from_slice(&read("duration")).unwrap();
    let delta = TimeDelta::try_from(d).unwrap();
    assert_eq!(delta, TimeDelta::new(3661, 5).unwrap());
    assert_eq!(Duration::from(delta), d);
    // Java floors the seconds of a negative duration; chrono counts towards zero.
    let half = Duration::from(TimeDelta::milliseconds(-500));
    assert_eq!((half.seconds, half.nanos), (-1, 500_000_000));
    assert_eq!(TimeDelta::try_from(half), Ok(TimeDelta::milliseconds(-500)));
    assert!(TimeDelta::try_from(Duration {
        seconds: 0,
        nanos: -1
    })
    .is_err());
}
