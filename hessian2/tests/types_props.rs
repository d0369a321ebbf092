//! Round trips of the Java type carriers: any value through Hessian (both lite generations)
//! comes back equal, and through its ISO-8601 text (serde_json) when its fields are in Java's
//! ranges (the text has no room for a 13th month).

use std::fmt::Debug;

use hessian2::encode::PeerVersion;
use hessian2::types::{
    BigInteger, Duration, Instant, LocalDate, LocalDateTime, LocalTime, MonthDay, OffsetDateTime,
    OffsetTime, Period, Uuid, Year, YearMonth, ZoneId, ZoneOffset, ZonedDateTime,
};
use hessian2::{Deserializer, Serializer};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

fn hessian_round_trip<T>(v: &T) -> Result<(), TestCaseError>
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + Debug,
{
    for version in [PeerVersion::V3, PeerVersion::V4] {
        let mut ser = Serializer::with_version(Vec::new(), version);
        ser.serialize(v).unwrap();
        let bytes = ser.into_inner();
        let back: T = Deserializer::from_slice(&bytes).next_value().unwrap();
        prop_assert_eq!(&back, v);
    }
    Ok(())
}

fn text_round_trip<T>(v: &T) -> Result<(), TestCaseError>
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + Debug,
{
    let json = serde_json::to_string(v).unwrap();
    let back: T =
        serde_json::from_str(&json).map_err(|e| TestCaseError::fail(format!("{json}: {e}")))?;
    prop_assert_eq!(&back, v);
    Ok(())
}

/// Java's year range.
const YEARS: std::ops::RangeInclusive<i32> = -999_999_999..=999_999_999;
/// Java's `Instant` range in seconds.
const INSTANT_SECONDS: std::ops::RangeInclusive<i64> =
    -31_557_014_167_219_200..=31_556_889_864_403_199;

prop_compose! {
    fn date()(year in YEARS, month in 1u8..=12, day in 1u8..=31) -> LocalDate {
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
    fn offset()(total_seconds in -64_800..=64_800) -> ZoneOffset {
        ZoneOffset { total_seconds }
    }
}

proptest! {
    #[test]
    fn any_fields_survive_hessian(
        year in any::<i32>(), month in any::<u8>(), day in any::<u8>(),
        hour in any::<u8>(), nano in any::<i32>(), seconds in any::<i64>(), zone in ".*",
    ) {
        let date = LocalDate { year, month, day };
        let time = LocalTime { hour, minute: month, second: day, nano };
        let date_time = LocalDateTime { date, time };
        let offset = ZoneOffset { total_seconds: nano };
        hessian_round_trip(&date)?;
        hessian_round_trip(&time)?;
        hessian_round_trip(&date_time)?;
        hessian_round_trip(&Instant { seconds, nanos: nano })?;
        hessian_round_trip(&Duration { seconds, nanos: nano })?;
        hessian_round_trip(&Period { years: year, months: nano, days: -year })?;
        hessian_round_trip(&Year { year })?;
        hessian_round_trip(&YearMonth { year, month })?;
        hessian_round_trip(&MonthDay { month, day })?;
        hessian_round_trip(&offset)?;
        hessian_round_trip(&ZoneId { id: zone.clone() })?;
        hessian_round_trip(&OffsetTime { time, offset })?;
        hessian_round_trip(&OffsetDateTime { date_time, offset })?;
        hessian_round_trip(&ZonedDateTime { date_time, offset, zone })?;
        hessian_round_trip(&Uuid(u128::from(seconds as u64) << 64 | u128::from(nano as u32)))?;
    }

    #[test]
    fn values_in_javas_ranges_survive_their_text(
        date in date(), time in time(), date_time in date_time(), offset in offset(),
        seconds in INSTANT_SECONDS, any_seconds in any::<i64>(), nanos in 0..1_000_000_000,
        period in any::<(i32, i32, i32)>(), zone in "[A-Za-z_]{1,12}(/[A-Za-z_]{1,12})?",
        uuid in any::<u128>(),
    ) {
        text_round_trip(&date)?;
        text_round_trip(&time)?;
        text_round_trip(&date_time)?;
        text_round_trip(&offset)?;
        text_round_trip(&Instant { seconds, nanos })?;
        text_round_trip(&Duration { seconds: any_seconds, nanos })?;
        text_round_trip(&Period { years: period.0, months: period.1, days: period.2 })?;
        text_round_trip(&Year { year: date.year })?;
        text_round_trip(&YearMonth { year: date.year, month: date.month })?;
        text_round_trip(&MonthDay { month: date.month, day: date.day })?;
        text_round_trip(&ZoneId { id: zone.clone() })?;
        text_round_trip(&OffsetTime { time, offset })?;
        text_round_trip(&OffsetDateTime { date_time, offset })?;
        text_round_trip(&ZonedDateTime { date_time, offset, zone })?;
        text_round_trip(&Uuid(uuid))?;
    }

    /// A `BigInteger` of any size comes back through Java's fields, and equal numbers given
    /// with redundant sign bytes are equal.
    #[test]
    fn big_integers_survive_hessian(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        let n = BigInteger::from_be_bytes(&bytes);
        hessian_round_trip(&n)?;
        let fill = if bytes.first().is_some_and(|b| b & 0x80 != 0) { 0xff } else { 0 };
        let mut longer = vec![fill; 3];
        longer.extend_from_slice(&bytes);
        prop_assert_eq!(BigInteger::from_be_bytes(&longer), n);
    }

    /// Parsing any text fails cleanly or gives a value whose text parses to it again.
    #[test]
    fn parsing_never_panics(text in "[-+PTZHMSDYW:.0-9\\[\\]a-z]{0,40}") {
        if let Ok(d) = text.parse::<Duration>() {
            prop_assert_eq!(d.to_string().parse::<Duration>(), Ok(d));
        }
        if let Ok(p) = text.parse::<Period>() {
            prop_assert_eq!(p.to_string().parse::<Period>(), Ok(p));
        }
        let _ = text.parse::<ZonedDateTime>();
        let _ = text.parse::<Instant>();
        let _ = text.parse::<OffsetTime>();
        let _ = text.parse::<Uuid>();
    }
}
