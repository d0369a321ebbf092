//! One vocabulary in both crates (issue 27): for each name `fastjson2::types` shares with
//! `hessian2::types`, the two carriers hold the same fields and are the same text in
//! human-readable formats (Java's `toString()`, from `java_serde::text`), which each reads
//! back; `Display` gives that text too.

use std::fmt::{Debug, Display};

use serde::de::DeserializeOwned;
use serde::Serialize;

/// `h` (hessian2's) and `f` (fastjson2's) are `json` in serde_json, read it back, and display
/// as `display`.
fn same<H, F>(h: H, f: F, json: &str)
where
    H: Serialize + DeserializeOwned + PartialEq + Debug,
    F: Serialize + DeserializeOwned + PartialEq + Debug,
{
    assert_eq!(serde_json::to_string(&h).unwrap(), json, "hessian2 {h:?}");
    assert_eq!(serde_json::to_string(&f).unwrap(), json, "fastjson2 {f:?}");
    assert_eq!(serde_json::from_str::<H>(json).unwrap(), h, "{json}");
    assert_eq!(serde_json::from_str::<F>(json).unwrap(), f, "{json}");
}

/// And both `Display` as the text of `json` (a JSON string).
fn same_text<H, F>(h: H, f: F, text: &str)
where
    H: Serialize + DeserializeOwned + PartialEq + Debug + Display,
    F: Serialize + DeserializeOwned + PartialEq + Debug + Display,
{
    assert_eq!(h.to_string(), text);
    assert_eq!(f.to_string(), text);
    same(h, f, &serde_json::to_string(text).unwrap());
}

/// Builds the carrier of the same name and fields in each crate.
macro_rules! both {
    ($name:ident $($rest:tt)*) => {
        (
            hessian2::types::$name $($rest)*,
            fastjson2::types::$name $($rest)*,
        )
    };
}

#[test]
fn dates_and_times_are_the_same_text() {
    let (h, f) = both!(LocalDate {
        year: -5,
        month: 1,
        day: 1
    });
    same_text(h, f, "-0005-01-01");
    let (h, f) = both!(LocalTime {
        hour: 13,
        minute: 45,
        second: 0,
        nano: 0
    });
    same_text(h, f, "13:45");
    let (h, f) = both!(Instant {
        seconds: 1_700_000_000,
        nanos: 123_000_000
    });
    same_text(h, f, "2023-11-14T22:13:20.123Z");
    let (h, f) = both!(Date(1_700_000_000_000));
    same(h, f, "1700000000000");
    let (h, f) = both!(Year { year: 2024 });
    same_text(h, f, "2024");
    let (h, f) = both!(YearMonth {
        year: 2024,
        month: 2
    });
    same_text(h, f, "2024-02");
    let (h, f) = both!(MonthDay { month: 2, day: 29 });
    same_text(h, f, "--02-29");
    let h = hessian2::types::LocalDateTime {
        date: "2024-02-29".parse().unwrap(),
        time: "13:45:30.000001".parse().unwrap(),
    };
    let f = fastjson2::types::LocalDateTime {
        date: "2024-02-29".parse().unwrap(),
        time: "13:45:30.000001".parse().unwrap(),
    };
    same_text(h, f, "2024-02-29T13:45:30.000001");
    same(
        hessian2::types::sql::Date {
            value: hessian2::types::Date(1_577_836_800_000),
        },
        fastjson2::types::sql::Date {
            value: fastjson2::types::Date(1_577_836_800_000),
        },
        r#"{"value":1577836800000}"#,
    );
}

#[test]
fn amounts_and_zones_are_the_same_text() {
    let (h, f) = both!(Duration {
        seconds: -2,
        nanos: 500_000_000
    });
    same_text(h, f, "PT-1.5S");
    let (h, f) = both!(Period {
        years: 1,
        months: -2,
        days: 3
    });
    same_text(h, f, "P1Y-2M3D");
    let (h, f) = both!(ZoneOffset {
        total_seconds: 3723
    });
    same_text(h, f, "+01:02:03");
    let (h, f) = both!(ZoneId {
        id: "Europe/Paris".into()
    });
    same_text(h, f, "Europe/Paris");
    same_text(
        "13:45:30.123456789-05:00"
            .parse::<hessian2::types::OffsetTime>()
            .unwrap(),
        "13:45:30.123456789-05:00"
            .parse::<fastjson2::types::OffsetTime>()
            .unwrap(),
        "13:45:30.123456789-05:00",
    );
    same_text(
        "2024-05-06T07:08:09Z"
            .parse::<hessian2::types::OffsetDateTime>()
            .unwrap(),
        "2024-05-06T07:08:09Z"
            .parse::<fastjson2::types::OffsetDateTime>()
            .unwrap(),
        "2024-05-06T07:08:09Z",
    );
}

#[test]
fn jdk_values_are_the_same_text() {
    let (h, f) = both!(Uuid(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210));
    same_text(h, f, "01234567-89ab-cdef-fedc-ba9876543210");
    let (h, f) = both!(Locale("zh_CN".into()));
    same_text(h, f, "zh_CN");
    let (h, f) = both!(Currency("EUR".into()));
    same_text(h, f, "EUR");
}

/// Bad text is the same typed error in both crates (`java_serde::text::ParseError`).
#[test]
fn bad_text_is_the_same_error() {
    for bad in ["", "PT", "P1Y2Y", "-P", "PT1.S"] {
        let h = bad.parse::<hessian2::types::Duration>().unwrap_err();
        let f = bad.parse::<fastjson2::types::Duration>().unwrap_err();
        assert_eq!(h, f, "{bad:?}");
    }
    let h = "2024-13".parse::<hessian2::types::YearMonth>();
    let f = "2024-13".parse::<fastjson2::types::YearMonth>();
    assert_eq!(h.map(|v| v.to_string()), f.map(|v| v.to_string()));
    assert!(serde_json::from_str::<fastjson2::types::Period>(r#""P1X""#).is_err());
    assert!(serde_json::from_str::<fastjson2::types::Uuid>(r#""0123""#).is_err());
}
