//! The Java value types that the body layer's [`Value`](Hv) carries as hessian-lite writes
//! them (a `java.time` value as its `java8.*Handle` object, a `BigDecimal` or `UUID` as an
//! object of its text) and JSONB as kinds of its own, converted each way, so that a value
//! given or shown once (`dubbo-call`'s JSON, a proxy's rewrite) travels as the Java type in
//! both serializations: `LocalDate`, `LocalTime`, `LocalDateTime`, `Instant`, `BigDecimal`
//! (any size) and `UUID` (JSONB's 16-byte binary, which is all
//! fastjson2 writes for one: read back, it is a binary).

use fastjson2::types as f2;
use fastjson2::value::Value as Jv;
use hessian2::types as h2;
use hessian2::value::{java, Object, Value as Hv};
use java_serde::decimal;
use serde::Serialize;

/// The JSONB kind of a hessian-lite object of a Java value type; `None` for other objects
/// and for values out of JSONB's range (a year beyond 16 bits).
pub(super) fn to_jsonb(o: &Object) -> Option<Jv> {
    let text = || o.java_text();
    Some(match o.java_type() {
        "java.math.BigDecimal" => Jv::BigDecimal(parse_decimal(o.as_big_decimal()?)?),
        "java.util.UUID" => {
            let id: h2::Uuid = text()?.parse().ok()?;
            Jv::Binary(id.0.to_be_bytes().to_vec().into())
        }
        "java.time.LocalDate" => Jv::LocalDate(date(text()?.parse().ok()?)?),
        "java.time.LocalTime" => Jv::LocalTime(time(text()?.parse().ok()?)),
        "java.time.LocalDateTime" => {
            let t: h2::LocalDateTime = text()?.parse().ok()?;
            Jv::LocalDateTime(f2::LocalDateTime {
                date: date(t.date)?,
                time: time(t.time),
            })
        }
        "java.time.Instant" => {
            let i: h2::Instant = text()?.parse().ok()?;
            Jv::Instant(f2::Instant {
                seconds: i.seconds,
                nanos: i.nanos,
            })
        }
        _ => return None,
    })
}

/// The hessian-lite object of a JSONB value type (as Hessian's decoder gives it); `None` for
/// other values.
pub(super) fn to_hessian(v: &Jv) -> Option<Hv> {
    match v {
        Jv::BigDecimal(d) => Some(java::big_decimal(&decimal_text(d))),
        Jv::LocalDate(d) => handle(&h2_date(*d)),
        Jv::LocalTime(t) => handle(&h2_time(*t)),
        Jv::LocalDateTime(t) => handle(&h2::LocalDateTime {
            date: h2_date(t.date),
            time: h2_time(t.time),
        }),
        Jv::Instant(i) => handle(&h2::Instant {
            seconds: i.seconds,
            nanos: i.nanos,
        }),
        _ => None,
    }
}

/// A hessian2 carrier as the `Value` Hessian's decoder reads from its bytes.
fn handle<T: Serialize>(carrier: &T) -> Option<Hv> {
    let bytes = hessian2::to_vec(carrier).ok()?;
    hessian2::value::from_slice(&bytes).ok()
}

fn date(d: h2::LocalDate) -> Option<f2::LocalDate> {
    Some(f2::LocalDate {
        year: i16::try_from(d.year).ok()?,
        month: d.month,
        day: d.day,
    })
}

fn time(t: h2::LocalTime) -> f2::LocalTime {
    f2::LocalTime {
        hour: t.hour,
        minute: t.minute,
        second: t.second,
        nano: t.nano,
    }
}

fn h2_date(d: f2::LocalDate) -> h2::LocalDate {
    h2::LocalDate {
        year: d.year.into(),
        month: d.month,
        day: d.day,
    }
}

fn h2_time(t: f2::LocalTime) -> h2::LocalTime {
    h2::LocalTime {
        hour: t.hour,
        minute: t.minute,
        second: t.second,
        nano: t.nano,
    }
}

/// Java's decimal text (`1234.50`, `-1E+5`, `1.2E-10`) as unscaled value and scale.
fn parse_decimal(s: &str) -> Option<f2::BigDecimal> {
    let (unscaled, scale) = decimal::big_decimal_of_text(s)?;
    Some(f2::BigDecimal {
        unscaled: f2::BigInteger::from_be_bytes(&unscaled),
        scale,
    })
}

/// A decimal's text that Java's `new BigDecimal(String)` reads back with the same unscaled
/// value and scale (Java's own `toString()`).
fn decimal_text(d: &f2::BigDecimal) -> String {
    decimal::big_decimal_text(d.unscaled.as_be_bytes(), d.scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_keep_unscaled_value_and_scale() {
        for (text, unscaled, scale) in [
            ("1234.50", 123_450i128, 2),
            ("-0.05", -5, 2),
            ("0", 0, 0),
            ("7E+3", 7, -3),
            ("-170141183460469231731687303715884105728", i128::MIN, 0),
        ] {
            let d = parse_decimal(text).unwrap();
            assert_eq!(
                d,
                f2::BigDecimal {
                    unscaled: f2::BigInteger::from_be_bytes(&unscaled.to_be_bytes()),
                    scale
                },
                "{text}"
            );
            assert_eq!(decimal_text(&d), text);
        }
        assert_eq!(parse_decimal("1.2E-10").unwrap().scale, 11);
        assert!(parse_decimal("1e99999999999").is_none());
        // Beyond 128 bits, as Java's BigDecimal goes.
        let big = "-1234567890123456789012345678901234567890123.45";
        assert_eq!(decimal_text(&parse_decimal(big).unwrap()), big);
    }

    #[cfg(feature = "json")]
    #[test]
    fn java_time_values_and_uuid_cross_over() {
        let amount = java::big_decimal("1234.50");
        assert_eq!(
            to_hessian(&to_jsonb(amount.as_object().unwrap()).unwrap()),
            Some(amount)
        );
        for (ty, text) in [
            ("java.time.LocalDate", "2024-12-31"),
            ("java.time.LocalTime", "13:45:30.123456789"),
            ("java.time.LocalDateTime", "2024-02-29T13:45:30.000000001"),
            ("java.time.Instant", "2023-11-14T22:13:20.000005Z"),
        ] {
            let v = crate::json::to_hessian(ty, &serde_json::json!(text)).unwrap();
            let o = v.as_object().unwrap();
            let jsonb = to_jsonb(o).unwrap_or_else(|| panic!("{ty}"));
            let back = to_hessian(&jsonb).unwrap();
            assert_eq!(back.as_object().unwrap().java_text().as_deref(), Some(text));
        }
        let id = "123e4567-e89b-12d3-a456-426614174000";
        let v = crate::json::to_hessian("java.util.UUID", &serde_json::json!(id)).unwrap();
        let Some(Jv::Binary(b)) = to_jsonb(v.as_object().unwrap()) else {
            panic!("a UUID is 16 bytes in JSONB")
        };
        assert_eq!(b.as_ref(), uuid_bytes(id));
    }

    #[cfg(feature = "json")]
    fn uuid_bytes(id: &str) -> Vec<u8> {
        u128::from_str_radix(&id.replace('-', ""), 16)
            .unwrap()
            .to_be_bytes()
            .to_vec()
    }
}
