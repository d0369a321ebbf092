//! The parts of every type through a format that does not know the vocabulary (serde_json's
//! `Value` as a stand-in: a newtype around a tuple, bytes as numbers), and the capture a format
//! that knows it makes: both give back what went in, and malformed parts are refused.

use java_serde::{Date, JavaType, Parts, PartsSeed, Time};
use serde::de::DeserializeSeed;

fn samples() -> Vec<Parts> {
    let date = Date {
        year: -4,
        month: 2,
        day: 29,
    };
    let time = Time {
        hour: 23,
        minute: 59,
        second: 58,
        nano: 999_999_999,
    };
    vec![
        Parts::LocalDate(date),
        Parts::LocalTime(time),
        Parts::LocalDateTime(date, time),
        Parts::Instant {
            seconds: -1,
            nanos: 5,
        },
        Parts::OffsetDateTime(date, time, -18 * 3600),
        Parts::Duration {
            seconds: i64::MIN,
            nanos: 999_999_999,
        },
        Parts::BigDecimal {
            unscaled: vec![0xff, 0x7f],
            scale: -3,
        },
        Parts::BigInteger(vec![1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        Parts::Uuid(u128::MAX - 1),
    ]
}

#[test]
fn every_type_comes_back_from_a_format_that_does_not_know_it() {
    let samples = samples();
    assert_eq!(samples.len(), JavaType::ALL.len(), "a sample of each type");
    for p in samples {
        let json = serde_json::to_value(&p).unwrap();
        assert!(json.is_array(), "{p:?}: a tuple, {json}");
        let back = PartsSeed(p.java_type()).deserialize(json).unwrap();
        assert_eq!(back, p);
    }
}

#[test]
fn a_format_that_knows_the_names_captures_the_parts() {
    for p in samples() {
        assert_eq!(Parts::capture(p.java_type(), &p).unwrap(), p);
    }
}

#[test]
fn malformed_parts_are_refused() {
    // Too few parts, a string, a nano out of range, a month beyond u8.
    let bad = [
        (JavaType::LocalDate, serde_json::json!([2024, 2])),
        (JavaType::Uuid, serde_json::json!(["a", 1])),
        (JavaType::Instant, serde_json::json!([0, 1_000_000_000])),
        (JavaType::LocalDate, serde_json::json!([2024, 300, 1])),
        (
            JavaType::OffsetDateTime,
            serde_json::json!([2024, 1, 1, 0, 0, 0, 0, 18 * 3600 + 1]),
        ),
    ];
    for (ty, json) in bad {
        assert!(
            PartsSeed(ty).deserialize(json.clone()).is_err(),
            "{ty:?} {json}"
        );
    }
    // Capturing the parts of one type as another.
    let date = Parts::LocalDate(Date {
        year: 2024,
        month: 1,
        day: 1,
    });
    let err = Parts::capture(JavaType::Instant, &date).unwrap_err();
    assert!(err.to_string().contains("java.time.Instant"), "{err}");
    assert!(Parts::capture(JavaType::LocalDate, "2024-01-01").is_err());
}
