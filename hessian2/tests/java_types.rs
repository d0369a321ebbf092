//! `hessian2::types`' Java types against the vectors hessian-lite 3.2.13 and 4.0.4 wrote
//! (`interop/java`, cases `time_*`, `uuid`, `locale_*`, `sql_*`, `currency_eur`, `class_string`,
//! `pojo_event`): Java's bytes decode into the typed carrier with the values Java had, and
//! encoding that carrier gives Java's bytes exactly, in both generations.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::Path;

use hessian2::encode::PeerVersion;
use hessian2::types::{java, Typed};
use hessian2::types::{
    sql, BigDecimal, BigInteger, Currency, Date, Duration, EnumSet, Instant, JavaClass, LocalDate,
    LocalDateTime, LocalTime, Locale, MonthDay, OffsetDateTime, OffsetTime, Period, Uuid, Year,
    YearMonth, ZoneId, ZoneOffset, ZonedDateTime,
};
use hessian2::{Deserializer, Serializer};
use serde::{Deserialize, Serialize};

const GENERATIONS: [(&str, PeerVersion); 2] =
    [("lite3", PeerVersion::V3), ("lite4", PeerVersion::V4)];

fn vector(generation: &str, name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/vectors")
        .join(generation)
        .join(format!("{name}.bin"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Java's stream `name` (one value) decodes to `expected`, and `expected` encodes to Java's
/// bytes, in both generations.
fn java_writes<T>(name: &str, expected: T)
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + Debug,
{
    for (generation, version) in GENERATIONS {
        let java = vector(generation, name);
        let mut de = Deserializer::from_slice(&java);
        let got: T = de
            .next_value()
            .unwrap_or_else(|e| panic!("{generation}/{name}: {e}"));
        assert!(de.is_end(), "{generation}/{name}: one value");
        assert_eq!(got, expected, "{generation}/{name}");
        let mut ser = Serializer::with_version(Vec::new(), version);
        ser.serialize(&expected).unwrap();
        assert_eq!(ser.into_inner(), java, "{generation}/{name}: Java's bytes");
    }
}

const DAY: LocalDate = LocalDate {
    year: 2024,
    month: 2,
    day: 29,
};
const TIME: LocalTime = LocalTime {
    hour: 13,
    minute: 45,
    second: 30,
    nano: 123_456_789,
};
const DATE_TIME: LocalDateTime = LocalDateTime {
    date: DAY,
    time: TIME,
};

fn offset(total_seconds: i32) -> ZoneOffset {
    ZoneOffset { total_seconds }
}

#[test]
fn local_dates_and_times() {
    java_writes("time_local_date", DAY);
    java_writes(
        "time_local_date_min",
        LocalDate {
            year: -999_999_999,
            month: 1,
            day: 1,
        },
    );
    java_writes("time_local_time", TIME);
    java_writes(
        "time_local_time_midnight",
        LocalTime {
            hour: 0,
            minute: 0,
            second: 0,
            nano: 0,
        },
    );
    java_writes("time_local_date_time", DATE_TIME);
    java_writes("time_year", Year { year: 2024 });
    java_writes(
        "time_year_month",
        YearMonth {
            year: 2024,
            month: 2,
        },
    );
    java_writes("time_month_day", MonthDay { month: 2, day: 29 });
}

#[test]
fn instants_durations_periods() {
    java_writes(
        "time_instant",
        Instant {
            seconds: 1_700_000_000,
            nanos: 123_456_789,
        },
    );
    java_writes(
        "time_instant_before_epoch",
        Instant {
            seconds: -1,
            nanos: 999_999_999,
        },
    );
    java_writes(
        "time_duration",
        Duration {
            seconds: 3661,
            nanos: 5,
        },
    );
    // Duration.ofMillis(-1500): Java keeps the nanoseconds positive.
    java_writes(
        "time_duration_negative",
        Duration {
            seconds: -2,
            nanos: 500_000_000,
        },
    );
    java_writes(
        "time_period",
        Period {
            years: 1,
            months: -2,
            days: 3,
        },
    );
}

#[test]
fn zones_and_zoned_values() {
    java_writes("time_zone_offset", offset(19_800));
    java_writes("time_zone_offset_utc", offset(0));
    java_writes(
        "time_zone_id",
        ZoneId {
            id: "Europe/Paris".into(),
        },
    );
    java_writes(
        "time_offset_time",
        OffsetTime {
            time: TIME,
            offset: offset(-18_000),
        },
    );
    java_writes(
        "time_offset_date_time",
        OffsetDateTime {
            date_time: DATE_TIME,
            offset: offset(28_800),
        },
    );
    java_writes(
        "time_zoned_date_time",
        ZonedDateTime {
            date_time: DATE_TIME,
            offset: offset(28_800),
            zone: "Asia/Shanghai".into(),
        },
    );
    java_writes(
        "time_zoned_date_time_utc",
        ZonedDateTime {
            date_time: DATE_TIME,
            offset: offset(0),
            zone: "Z".into(),
        },
    );
}

/// The same `LocalDate` twice in a list is two handle objects (no back-reference): Rust values
/// without identity give the same bytes. lite3 types the `ArrayList`, lite4 does not.
#[test]
fn a_list_of_java_time_values() {
    let epoch = Instant {
        seconds: 0,
        nanos: 0,
    };
    for (generation, _) in GENERATIONS {
        let java = vector(generation, "time_list");
        let got: (LocalDate, LocalDate, LocalDateTime, Instant) =
            hessian2::from_slice(&java).unwrap();
        assert_eq!(got, (DAY, DAY, DATE_TIME, epoch), "{generation}");
    }
}

/// In human-readable formats the carriers are Java's `toString()` text.
#[test]
fn serde_json_sees_iso_8601_text() {
    let zoned = ZonedDateTime {
        date_time: DATE_TIME,
        offset: offset(28_800),
        zone: "Asia/Shanghai".into(),
    };
    let json = serde_json::to_string(&zoned).unwrap();
    assert_eq!(
        json,
        r#""2024-02-29T13:45:30.123456789+08:00[Asia/Shanghai]""#
    );
    assert_eq!(serde_json::from_str::<ZonedDateTime>(&json).unwrap(), zoned);
    let duration = Duration {
        seconds: -2,
        nanos: 500_000_000,
    };
    assert_eq!(serde_json::to_string(&duration).unwrap(), r#""PT-1.5S""#);
    assert!(serde_json::from_str::<LocalDate>(r#""2024-02-30x""#).is_err());
}

#[test]
fn jdk_string_objects() {
    java_writes("uuid", Uuid(0x123e4567_e89b_12d3_a456_426614174000));
    java_writes("locale_zh_cn", Locale("zh_CN".into()));
    java_writes("locale_en", Locale("en".into()));
    // A fresh LocaleHandle per occurrence: two objects, no back-reference.
    java_writes(
        "locale_twice",
        vec![Locale("en_US".into()), Locale("en_US".into())],
    );
    java_writes("currency_eur", Currency("EUR".into()));
    java_writes("class_string", JavaClass("java.lang.String".into()));
}

#[test]
fn sql_dates() {
    java_writes("sql_date", sql::Date::from(Date(1_577_836_800_000)));
    java_writes("sql_time", sql::Time::from(Date(45_296_789)));
    java_writes(
        "sql_timestamp",
        sql::Timestamp::from(Date(1_700_000_000_123)),
    );
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename = "io.github.hessianrs.interop.model.Color")]
#[allow(clippy::upper_case_acronyms)]
enum Color {
    RED,
    GREEN,
    BLUE,
}

/// The Java model's `Event`, fields in hessian-lite's wire order (reverse declaration order).
#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "io.github.hessianrs.interop.model.Event")]
struct Event {
    color: Color,
    amount: BigDecimal,
    stamp: Instant,
    day: LocalDate,
    at: LocalDateTime,
    id: Uuid,
}

#[test]
fn a_dto_with_java_types() {
    java_writes(
        "pojo_event",
        Event {
            color: Color::GREEN,
            amount: "1234.50".parse().unwrap(),
            stamp: Instant {
                seconds: 1_700_000_000,
                nanos: 5,
            },
            day: DAY,
            at: DATE_TIME,
            id: Uuid(0x123e4567_e89b_12d3_a456_426614174000),
        },
    );
}

/// hessian-lite writes the JDK's fields of a `BigInteger` (JDK 17: `mag`, four cached fields,
/// `signum`); a fresh one has the cached fields 0, as Java's vectors do.
#[test]
fn big_integers_of_any_size() {
    java_writes("biginteger_0", BigInteger::from(0));
    java_writes("biginteger_-1", BigInteger::from(-1));
    java_writes(
        "biginteger_12345678901234567890",
        BigInteger::from_be_bytes(&12_345_678_901_234_567_890i128.to_be_bytes()),
    );
}

/// An `EnumSet` is a fresh `EnumSetHandler`: the constants as an `[object` list, then the
/// enum's `Class` (also for an empty set).
#[test]
fn enum_sets() {
    const COLOR: &str = "io.github.hessianrs.interop.model.Color";
    java_writes(
        "enumset_colors",
        EnumSet {
            class: COLOR.into(),
            constants: vec![Color::RED, Color::BLUE],
        },
    );
    java_writes(
        "enumset_empty",
        EnumSet::<Color> {
            class: COLOR.into(),
            constants: vec![],
        },
    );
}

/// An `EnumMap` is a map typed `java.util.EnumMap` whose keys are the constants as enum objects,
/// in the enum's order: a `BTreeMap` of a Rust enum declared in Java's order writes it.
#[test]
fn enum_maps() {
    java_writes(
        "enummap",
        Typed::<BTreeMap<Color, i32>, java::EnumMap>::new(BTreeMap::from([
            (Color::GREEN, 2),
            (Color::RED, 1),
        ])),
    );
}
