//! Property tests of the Java value types (`fastjson2::types`): any value of each carrier, typed
//! or as a `Value`, reads back as itself, is written the same way by both paths, and every strict
//! prefix of its bytes is reported as incomplete input, never as a wrong value.

use fastjson2::types::{
    BigDecimal, BigInteger, Date, Instant, LocalDate, LocalDateTime, LocalTime, ZonedDateTime,
};
use fastjson2::value::{self, Value};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

prop_compose! {
    fn date()(year in any::<i16>(), month in 1u8..=12, day in 1u8..=31) -> LocalDate {
        LocalDate { year, month, day }
    }
}

prop_compose! {
    fn time()(hour in 0u8..24, minute in 0u8..60, second in 0u8..60, nano in 0..1_000_000_000)
        -> LocalTime {
        LocalTime { hour, minute, second, nano }
    }
}

prop_compose! {
    fn date_time()(date in date(), time in time()) -> LocalDateTime {
        LocalDateTime { date, time }
    }
}

prop_compose! {
    fn instant()(seconds in any::<i64>(), nanos in 0..1_000_000_000) -> Instant {
        Instant { seconds, nanos }
    }
}

prop_compose! {
    // Region ids and offsets, as Java's `ZoneId.toString()` gives them.
    fn zoned()(date_time in date_time(), zone in "(UTC|Z|[A-Z][a-z]{2,8}/[A-Z][a-z_]{2,12}|[+-][01][0-9]:[0-5][0-9])")
        -> ZonedDateTime {
        ZonedDateTime { date_time, zone }
    }
}

fn big_integer() -> impl Strategy<Value = BigInteger> {
    prop_oneof![
        any::<i64>().prop_map(BigInteger::from),
        proptest::collection::vec(any::<u8>(), 0..40).prop_map(|b| BigInteger::from_be_bytes(&b)),
    ]
}

prop_compose! {
    fn big_decimal()(unscaled in big_integer(), scale in any::<i32>()) -> BigDecimal {
        BigDecimal { unscaled, scale }
    }
}

/// Every Java type the `Value` tree names, as a `Value`.
fn java_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        big_integer().prop_map(Value::BigInteger),
        big_decimal().prop_map(Value::BigDecimal),
        any::<i64>().prop_map(Value::Date),
        instant().prop_map(Value::Instant),
        date().prop_map(Value::LocalDate),
        time().prop_map(Value::LocalTime),
        date_time().prop_map(Value::LocalDateTime),
        zoned().prop_map(Value::ZonedDateTime),
    ]
}

/// One of each carrier, typed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Carriers {
    integer: BigInteger,
    decimal: BigDecimal,
    date: Date,
    instant: Instant,
    day: LocalDate,
    clock: LocalTime,
    moment: LocalDateTime,
    zoned: ZonedDateTime,
}

prop_compose! {
    fn carriers()(
        integer in big_integer(), decimal in big_decimal(), millis in any::<i64>(),
        instant in instant(), day in date(), clock in time(), moment in date_time(), zoned in zoned(),
    ) -> Carriers {
        Carriers { integer, decimal, date: Date(millis), instant, day, clock, moment, zoned }
    }
}

/// Every strict prefix of `bytes` is incomplete input.
fn prefixes_are_eof(bytes: &[u8]) -> Result<(), TestCaseError> {
    for cut in 0..bytes.len() {
        let err = value::from_slice(&bytes[..cut]).unwrap_err();
        prop_assert!(err.is_eof(), "{cut} of {}: {err}", bytes.len());
    }
    Ok(())
}

proptest! {
    #[test]
    fn java_values_round_trip_and_prefixes_are_incomplete(v in java_value()) {
        let bytes = value::to_vec(&v);
        prop_assert_eq!(value::from_slice(&bytes).unwrap(), v);
        prefixes_are_eof(&bytes)?;
    }

    #[test]
    fn carriers_round_trip_typed_and_write_as_their_values(c in carriers()) {
        let bytes = fastjson2::to_vec(&c).unwrap();
        prop_assert_eq!(fastjson2::from_slice::<Carriers>(&bytes).unwrap(), c.clone());
        prefixes_are_eof(&bytes)?;

        // Each field alone is the bytes of its `Value`.
        let alone = [
            (fastjson2::to_vec(&c.integer), Value::BigInteger(c.integer.clone())),
            (fastjson2::to_vec(&c.decimal), Value::BigDecimal(c.decimal.clone())),
            (fastjson2::to_vec(&c.date), Value::Date(c.date.0)),
            (fastjson2::to_vec(&c.instant), Value::Instant(c.instant)),
            (fastjson2::to_vec(&c.day), Value::LocalDate(c.day)),
            (fastjson2::to_vec(&c.clock), Value::LocalTime(c.clock)),
            (fastjson2::to_vec(&c.moment), Value::LocalDateTime(c.moment)),
            (fastjson2::to_vec(&c.zoned), Value::ZonedDateTime(c.zoned.clone())),
        ];
        for (typed, v) in alone {
            prop_assert_eq!(typed.unwrap(), value::to_vec(&v), "{:?}", v);
        }
    }
}
