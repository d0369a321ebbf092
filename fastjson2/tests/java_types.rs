//! The Java types of `interop/fastjson2-java`'s README table, typed: each document fastjson2
//! 2.0.52 and 2.0.56 wrote (Dubbo's writer features) reads into the Rust type the crate
//! documents for it, with the values Java had, and that value writes Java's bytes again. The
//! `Value` side of the same documents is `tests/java_vectors.rs`.

use std::fmt::Debug;
use std::path::Path;

use fastjson2::types::{
    sql, Currency, Date, Declared, Duration, LocalDate, LocalDateTime, LocalTime, Locale, MonthDay,
    OffsetDateTime, OffsetTime, Period, Uuid, Year, YearMonth, ZoneId, ZoneOffset, ZonedDateTime,
};
use interop_model::jsonb::{alice, User};
use serde::{Deserialize, Serialize};

/// Java's document `name` reads as `expected` and `expected` writes Java's bytes, in both
/// fastjson2 versions.
fn java_writes<T>(name: &str, expected: T)
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + Debug,
{
    for set in ["vectors", "vectors-2.0.56"] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests")
            .join(set);
        let java = std::fs::read(dir.join(format!("{name}.bin"))).unwrap();
        let got: T = fastjson2::from_slice(&java)
            .unwrap_or_else(|e| panic!("{}/{name}: {e}", dir.display()));
        assert_eq!(got, expected, "{}/{name}", dir.display());
        let bytes = fastjson2::to_vec(&expected).unwrap();
        assert_eq!(bytes, java, "{}/{name}: Java's bytes", dir.display());
    }
}

fn text(s: &str) -> String {
    s.to_owned()
}

/// `Duration`, `Period`, `ZoneId`, `ZoneOffset`, `Locale` and `java.sql.Time` are their
/// `toString()` (a `java.sql.Time` in the JVM's zone, UTC for the vectors): a `String` takes
/// them, and so does the carrier of each, which writes the same bytes.
#[test]
fn types_java_writes_as_text() {
    java_writes("duration", text("PT1H1M1.000000005S"));
    java_writes(
        "duration",
        Duration {
            seconds: 3661,
            nanos: 5,
        },
    );
    java_writes("period", text("P1Y-2M3D"));
    java_writes(
        "period",
        Period {
            years: 1,
            months: -2,
            days: 3,
        },
    );
    java_writes("zone_id", text("Europe/Paris"));
    java_writes(
        "zone_id",
        ZoneId {
            id: text("Europe/Paris"),
        },
    );
    java_writes("zone_offset", text("+05:30"));
    java_writes(
        "zone_offset",
        ZoneOffset {
            total_seconds: 19_800,
        },
    );
    java_writes("locale", text("zh_CN"));
    java_writes("locale", Locale(text("zh_CN")));
    java_writes("sql_time", text("12:34:56"));
    java_writes(
        "sql_time",
        sql::Time {
            value: LocalTime {
                hour: 12,
                minute: 34,
                second: 56,
                nano: 0,
            },
        },
    );
}

#[test]
fn currency_is_its_class_name_and_code() {
    java_writes("currency", Currency("EUR".into()));
}

/// A `java.util.UUID` is a 16-byte binary, most significant byte first.
#[test]
fn uuid_is_sixteen_bytes() {
    java_writes("uuid", Uuid(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210));
}

/// `java.sql.Date` is a date; `java.sql.Timestamp` a local date-time (in the JVM's zone).
#[test]
fn sql_dates() {
    java_writes("sql_date", Date(1_577_836_800_000));
    java_writes(
        "sql_date",
        sql::Date {
            value: Date(1_577_836_800_000),
        },
    );
    let at = LocalDateTime {
        date: LocalDate {
            year: 2023,
            month: 11,
            day: 14,
        },
        time: LocalTime {
            hour: 22,
            minute: 13,
            second: 20,
            nano: 123_000_000,
        },
    };
    java_writes("sql_timestamp", at);
    java_writes("sql_timestamp", sql::Timestamp { value: at });
}

/// `OffsetDateTime` and `OffsetTime` are zoned date-times whose zone is the offset
/// (`OffsetTime` on 1970-01-01).
#[test]
fn offsets_are_zoned_date_times() {
    let at = |year, month, day, hour, minute, second, nano| LocalDateTime {
        date: LocalDate { year, month, day },
        time: LocalTime {
            hour,
            minute,
            second,
            nano,
        },
    };
    let minus_five = ZoneOffset {
        total_seconds: -18_000,
    };
    java_writes(
        "offset_datetime",
        ZonedDateTime {
            date_time: at(2024, 5, 6, 7, 8, 9, 0),
            zone: "-05:00".into(),
        },
    );
    java_writes(
        "offset_datetime",
        OffsetDateTime {
            date_time: at(2024, 5, 6, 7, 8, 9, 0),
            offset: minus_five,
        },
    );
    java_writes(
        "offset_time",
        ZonedDateTime {
            date_time: at(1970, 1, 1, 13, 45, 30, 123_456_789),
            zone: "-05:00".into(),
        },
    );
    java_writes(
        "offset_time",
        OffsetTime {
            time: at(1970, 1, 1, 13, 45, 30, 123_456_789).time,
            offset: minus_five,
        },
    );
}

/// `Year`, `YearMonth` and `MonthDay` have no writer of their own: POJOs of their private
/// fields, in name order; the carriers write the same.
#[test]
fn year_month_and_day_are_pojos() {
    java_writes("year", Year { year: 2024 });
    java_writes(
        "year_month",
        YearMonth {
            year: 2024,
            month: 2,
        },
    );
    java_writes("month_day", MonthDay { month: 2, day: 29 });
}

/// A carrier read from what Java wrote for another type is an error, not a panic or a guess.
#[test]
fn a_carrier_refuses_another_types_bytes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
    let read = |name: &str| std::fs::read(dir.join(format!("{name}.bin"))).unwrap();
    assert!(fastjson2::from_slice::<Duration>(&read("period")).is_err());
    assert!(fastjson2::from_slice::<ZoneOffset>(&read("zone_id")).is_err());
    assert!(fastjson2::from_slice::<OffsetDateTime>(&read("local_datetime")).is_err());
    assert!(fastjson2::from_slice::<Uuid>(&read("binary_3")).is_err());
    assert!(fastjson2::from_slice::<YearMonth>(&read("month_day")).is_err());
    assert!(fastjson2::from_slice::<sql::Time>(&read("zone_offset")).is_err());
}

/// An `Object[]` of mixed values is typed `[O`: a newtype named so, around a tuple.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "[O")]
struct Objects((i32, String));

#[test]
fn an_object_array_of_mixed_values() {
    java_writes("object_array", Objects((1, "two".into())));
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "io.github.hessianrs.interop.model.Address")]
struct Address {
    city: String,
    street: String,
    zip: i32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "UPPERCASE")]
enum Color {
    Red,
    Green,
    Blue,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "io.github.hessianrs.interop.model.Order")]
struct Order {
    buyer: Declared<User>,
    color: Declared<Color>,
    items: Vec<String>,
    #[serde(rename = "orderId")]
    order_id: i64,
    #[serde(rename = "shipTo")]
    ship_to: Declared<Address>,
    total: f64,
}

/// A `User[]`: its items' class is the array's.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "[io.github.hessianrs.interop.model.User")]
struct Users(Vec<Option<Declared<User>>>);

/// Where the declared type names the class (a field declared `User`, an item of a `User[]`),
/// Java writes no class name, and an enum field as its ordinal: `Declared` writes the same.
#[test]
fn declared_classes_are_left_out_as_java_does() {
    let eve = User {
        email: Some("eve@example.com".into()),
        id: 5,
        name: Some("Eve".into()),
        ..alice()
    };
    java_writes(
        "order",
        Order {
            buyer: Declared(eve),
            color: Declared(Color::Blue),
            items: vec![text("apple"), text("pear")],
            order_id: 42,
            ship_to: Declared(Address {
                city: text("Springfield"),
                street: text("Main St 1"),
                zip: 12345,
            }),
            total: 12.5,
        },
    );
    java_writes("user_array", Users(vec![Some(Declared(alice())), None]));
    // Anywhere else a struct keeps its class name: in the items of a `Vec` inside `Declared`,
    // after a `Declared` value that was not a struct.
    let nested = fastjson2::to_vec(&Declared(vec![alice()])).unwrap();
    assert_eq!(nested, fastjson2::to_vec(&vec![alice()]).unwrap());
    let after = fastjson2::to_vec(&(Declared(1), alice())).unwrap();
    assert_eq!(after, fastjson2::to_vec(&(1, alice())).unwrap());
    // Other serde formats see the value itself.
    assert_eq!(
        serde_json::to_string(&Declared(Color::Green)).unwrap(),
        "\"GREEN\""
    );
}
