//! The `chrono`, `uuid` and `rust_decimal` features (enabled for tests by hessian2's
//! dev-dependency on itself): a DTO whose fields are chrono, uuid and rust_decimal types,
//! annotated with `types::chrono::*`, `types::uuid` and `types::rust_decimal`, reads Java's
//! `Event` vector and writes Java's bytes again, in both lite generations; the same DTO is
//! ISO-8601 and decimal text in serde_json.

use std::path::Path;

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Utc};
use hessian2::encode::PeerVersion;
use hessian2::types::{self, ConvertError, LocalDate, LocalTime};
use hessian2::{Deserializer, Serializer};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "io.github.hessianrs.interop.model.Color")]
#[allow(clippy::upper_case_acronyms)]
enum Color {
    GREEN,
}

/// The Java model's `Event` (fields in hessian-lite's wire order) with chrono, uuid and
/// rust_decimal types.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "io.github.hessianrs.interop.model.Event")]
struct Event {
    color: Color,
    #[serde(with = "types::rust_decimal")]
    amount: Decimal,
    #[serde(with = "types::chrono::instant")]
    stamp: DateTime<Utc>,
    #[serde(with = "types::chrono::local_date")]
    day: NaiveDate,
    #[serde(with = "types::chrono::local_date_time")]
    at: NaiveDateTime,
    #[serde(with = "types::uuid")]
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
fn chrono_uuid_and_decimal_fields_read_and_write_javas_bytes() {
    for (generation, version) in [("lite3", PeerVersion::V3), ("lite4", PeerVersion::V4)] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/vectors")
            .join(generation)
            .join("pojo_event.bin");
        let java = std::fs::read(path).unwrap();
        let got: Event = Deserializer::from_slice(&java).next_value().unwrap();
        assert_eq!(got, event(), "{generation}");
        let mut ser = Serializer::with_version(Vec::new(), version);
        ser.serialize(&event()).unwrap();
        assert_eq!(ser.into_inner(), java, "{generation}: Java's bytes");
    }
}

#[test]
fn serde_json_sees_the_text_chrono_uuid_and_rust_decimal_would_write() {
    let json = serde_json::to_value(event()).unwrap();
    assert_eq!(json["stamp"], "2023-11-14T22:13:20.000000005Z");
    assert_eq!(json["day"], "2024-02-29");
    assert_eq!(json["at"], "2024-02-29T13:45:30.123456789");
    assert_eq!(json["id"], "123e4567-e89b-12d3-a456-426614174000");
    assert_eq!(json["amount"], "1234.50");
    // chrono's own serde writes the same text, and reads ours.
    assert_eq!(json["at"], serde_json::to_value(event().at).unwrap());
    assert_eq!(json["stamp"], serde_json::to_value(event().stamp).unwrap());
    let back: Event = serde_json::from_value(json).unwrap();
    assert_eq!(back, event());
}

#[test]
fn conversions_keep_javas_representation_and_refuse_what_does_not_fit() {
    // -1.5 s: Java's seconds floor, the nanoseconds stay positive.
    let d = types::Duration::from(TimeDelta::milliseconds(-1500));
    assert_eq!((d.seconds, d.nanos), (-2, 500_000_000));
    assert_eq!(TimeDelta::try_from(d), Ok(TimeDelta::milliseconds(-1500)));
    // Java's years reach ±999,999,999, chrono's ±262,142.
    let far = LocalDate {
        year: 1_000_000,
        month: 1,
        day: 1,
    };
    assert!(matches!(
        NaiveDate::try_from(far),
        Err(ConvertError::OutOfRange { .. })
    ));
    // February 30th is a carrier's value, not a date.
    let feb30 = LocalDate {
        year: 2024,
        month: 2,
        day: 30,
    };
    assert!(NaiveDate::try_from(feb30).is_err());
    // chrono's leap second has no Java counterpart.
    let leap = NaiveTime::from_hms_nano_opt(23, 59, 59, 1_500_000_000).unwrap();
    assert!(LocalTime::try_from(leap).is_err());
}

/// Java's top-level vector `name` of both lite generations reads as `expected` and `expected`
/// writes Java's bytes again.
fn java_writes<T>(name: &str, expected: T)
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    for (generation, version) in [("lite3", PeerVersion::V3), ("lite4", PeerVersion::V4)] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/vectors")
            .join(generation)
            .join(format!("{name}.bin"));
        let java = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let got: T = Deserializer::from_slice(&java).next_value().unwrap();
        assert_eq!(got, expected, "{generation} {name}");
        let mut ser = Serializer::with_version(Vec::new(), version);
        ser.serialize(&expected).unwrap();
        assert_eq!(ser.into_inner(), java, "{generation} {name}: Java's bytes");
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(transparent)]
struct Int(#[serde(with = "types::num_bigint")] num_bigint::BigInt);

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(transparent)]
struct Uint(#[serde(with = "types::num_bigint::biguint")] num_bigint::BigUint);

#[test]
fn num_bigint_fields_read_and_write_javas_bytes() {
    use num_bigint::{BigInt, BigUint};
    let big: BigInt = "12345678901234567890".parse().unwrap();
    java_writes("biginteger_12345678901234567890", Int(big.clone()));
    java_writes("biginteger_0", Int(BigInt::ZERO));
    java_writes("biginteger_-1", Int(BigInt::from(-1)));
    java_writes(
        "biginteger_12345678901234567890",
        Uint(BigUint::try_from(big).unwrap()),
    );
    java_writes("biginteger_0", Uint(BigUint::ZERO));
    // -1 is no BigUint: an error, not a panic.
    let java = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/lite3/biginteger_-1.bin"),
    )
    .unwrap();
    assert!(Deserializer::from_slice(&java)
        .next_value::<Uint>()
        .is_err());
    // Far beyond 128 bits, both signs, through the carrier and back.
    for n in [
        (BigInt::from(7) << 4000u32) + 1,
        -(BigInt::from(3) << 777u32),
    ] {
        let bytes = hessian2::to_vec(&Int(n.clone())).unwrap();
        assert_eq!(hessian2::from_slice::<Int>(&bytes).unwrap(), Int(n.clone()));
        let json = serde_json::to_string(&Int(n.clone())).unwrap();
        assert_eq!(json, format!("\"{n}\""));
        assert_eq!(serde_json::from_str::<Int>(&json).unwrap(), Int(n));
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(transparent)]
struct Exact(#[serde(with = "types::bigdecimal")] bigdecimal::BigDecimal);

fn exact(unscaled: &str, scale: i64) -> Exact {
    Exact(bigdecimal::BigDecimal::new(
        unscaled.parse().unwrap(),
        scale,
    ))
}

#[test]
fn bigdecimal_fields_read_and_write_javas_bytes_scale_and_all() {
    java_writes("bigdecimal_123_456", exact("123456", 3));
    java_writes("bigdecimal_0", exact("0", 0));
    // Java's -1E+10 is unscaled -1 at scale -10, and is written back so.
    java_writes("bigdecimal_-1e10", exact("-1", -10));
    let got: Exact = Deserializer::from_slice(
        &std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/lite3/bigdecimal_-1e10.bin"),
        )
        .unwrap(),
    )
    .next_value()
    .unwrap();
    assert_eq!(got.0.as_bigint_and_exponent(), ("-1".parse().unwrap(), -10));
    // Trailing zeros are scale, not noise: 1.50 stays 1.50.
    let json = serde_json::to_string(&exact("150", 2)).unwrap();
    assert_eq!(json, r#""1.50""#);
    let back: Exact = serde_json::from_str(&json).unwrap();
    assert_eq!(back.0.as_bigint_and_exponent(), ("150".parse().unwrap(), 2));
    assert_eq!(serde_json::to_string(&exact("5", -3)).unwrap(), r#""5E+3""#);
    // A scale Java's int cannot hold is an error, not a panic, both ways.
    assert!(hessian2::to_vec(&exact("1", 1 << 40)).is_err());
    let far = hessian2::to_vec(&types::BigDecimal::new_unchecked("1E-99999999999")).unwrap();
    assert!(hessian2::from_slice::<Exact>(&far).is_err());
}

mod time_feature {
    use super::*;
    use ::time::{Date, Month, PrimitiveDateTime, Time, UtcOffset};

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(transparent)]
    struct Day(#[serde(with = "types::time::local_date")] Date);

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(transparent)]
    struct Clock(#[serde(with = "types::time::local_time")] Time);

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(transparent)]
    struct At(#[serde(with = "types::time::local_date_time")] PrimitiveDateTime);

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(transparent)]
    struct Stamp(#[serde(with = "types::time::instant")] ::time::OffsetDateTime);

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(transparent)]
    struct Zoned(#[serde(with = "types::time::offset_date_time")] ::time::OffsetDateTime);

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(transparent)]
    struct Offset(#[serde(with = "types::time::zone_offset")] UtcOffset);

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(transparent)]
    struct Span(#[serde(with = "types::time::duration")] ::time::Duration);

    fn day() -> Date {
        Date::from_calendar_date(2024, Month::February, 29).unwrap()
    }

    fn clock() -> Time {
        Time::from_hms_nano(13, 45, 30, 123_456_789).unwrap()
    }

    #[test]
    fn time_fields_read_and_write_javas_bytes() {
        java_writes("time_local_date", Day(day()));
        java_writes("time_local_time", Clock(clock()));
        java_writes("time_local_time_midnight", Clock(Time::MIDNIGHT));
        java_writes(
            "time_local_date_time",
            At(PrimitiveDateTime::new(day(), clock())),
        );
        let stamp =
            ::time::OffsetDateTime::from_unix_timestamp_nanos(1_700_000_000_123_456_789).unwrap();
        java_writes("time_instant", Stamp(stamp));
        let before = ::time::OffsetDateTime::from_unix_timestamp_nanos(-1).unwrap();
        java_writes("time_instant_before_epoch", Stamp(before));
        let east8 = UtcOffset::from_hms(8, 0, 0).unwrap();
        let zoned = PrimitiveDateTime::new(day(), clock()).assume_offset(east8);
        java_writes("time_offset_date_time", Zoned(zoned));
        java_writes(
            "time_zone_offset",
            Offset(UtcOffset::from_hms(5, 30, 0).unwrap()),
        );
        java_writes("time_zone_offset_utc", Offset(UtcOffset::UTC));
        java_writes("time_duration", Span(::time::Duration::new(3661, 5)));
        // Duration.ofMillis(-1500): Java floors the seconds, time counts both parts negative.
        java_writes(
            "time_duration_negative",
            Span(::time::Duration::milliseconds(-1500)),
        );
        // Read at its offset, not at UTC.
        let got: Zoned = hessian2::from_slice(&hessian2::to_vec(&Zoned(zoned)).unwrap()).unwrap();
        assert_eq!(got.0.offset(), east8);
    }

    #[test]
    fn serde_json_sees_javas_text() {
        let at = PrimitiveDateTime::new(day(), clock());
        assert_eq!(
            serde_json::to_string(&At(at)).unwrap(),
            r#""2024-02-29T13:45:30.123456789""#
        );
        let zoned = at.assume_offset(UtcOffset::from_hms(-5, 0, 0).unwrap());
        let json = serde_json::to_string(&Zoned(zoned)).unwrap();
        assert_eq!(json, r#""2024-02-29T13:45:30.123456789-05:00""#);
        assert_eq!(serde_json::from_str::<Zoned>(&json).unwrap(), Zoned(zoned));
        let span = Span(::time::Duration::milliseconds(-1500));
        let json = serde_json::to_string(&span).unwrap();
        assert_eq!(json, r#""PT-1.5S""#);
        assert_eq!(serde_json::from_str::<Span>(&json).unwrap(), span);
    }

    #[test]
    fn edges_convert_and_what_time_cannot_hold_is_an_error() {
        // time's own limits (±9999 without its large-dates feature) both ways.
        for d in [Date::MIN, Date::MAX] {
            let bytes = hessian2::to_vec(&Day(d)).unwrap();
            assert_eq!(hessian2::from_slice::<Day>(&bytes).unwrap(), Day(d));
        }
        let last = PrimitiveDateTime::new(
            Date::MAX,
            Time::from_hms_nano(23, 59, 59, 999_999_999).unwrap(),
        );
        for offset in [
            UtcOffset::from_hms(18, 0, 0).unwrap(),
            UtcOffset::from_hms(-18, 0, 0).unwrap(),
        ] {
            let z = Zoned(last.assume_offset(offset));
            let bytes = hessian2::to_vec(&z).unwrap();
            assert_eq!(hessian2::from_slice::<Zoned>(&bytes).unwrap(), z);
        }
        for span in [
            ::time::Duration::MAX,
            ::time::Duration::new(i64::MIN, 0),
            ::time::Duration::nanoseconds(-1),
        ] {
            let bytes = hessian2::to_vec(&Span(span)).unwrap();
            assert_eq!(hessian2::from_slice::<Span>(&bytes).unwrap(), Span(span));
        }
        // Java's LocalDate.MIN is far below time's years.
        let min = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/vectors/lite3/time_local_date_min.bin"),
        )
        .unwrap();
        assert!(hessian2::from_slice::<Day>(&min).is_err());
        let far = LocalDate {
            year: 10_000,
            month: 1,
            day: 1,
        };
        assert!(matches!(
            Date::try_from(far),
            Err(ConvertError::OutOfRange { .. })
        ));
        let feb30 = LocalDate {
            year: 2024,
            month: 2,
            day: 30,
        };
        assert!(Date::try_from(feb30).is_err());
        let month13 = LocalDate {
            year: 2024,
            month: 13,
            day: 1,
        };
        assert!(Date::try_from(month13).is_err());
        let bad_nano = LocalTime {
            hour: 1,
            minute: 0,
            second: 0,
            nano: 1_000_000_000,
        };
        assert!(Time::try_from(bad_nano).is_err());
        // One nanosecond below Java's Duration minimum.
        assert!(types::Duration::try_from(::time::Duration::MIN).is_err());
        assert!(hessian2::to_vec(&Span(::time::Duration::MIN)).is_err());
        // Offsets past Java's ±18:00, both ways.
        let wide = UtcOffset::from_hms(19, 0, 0).unwrap();
        assert!(types::ZoneOffset::try_from(wide).is_err());
        assert!(hessian2::to_vec(&Offset(wide)).is_err());
        assert!(UtcOffset::try_from(types::ZoneOffset {
            total_seconds: 64_801
        })
        .is_err());
        // An instant beyond time's years.
        let late = types::Instant {
            seconds: i64::MAX,
            nanos: 0,
        };
        assert!(::time::OffsetDateTime::try_from(late).is_err());
    }
}
