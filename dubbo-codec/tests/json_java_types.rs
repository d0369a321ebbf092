//! `dubbo_codec::json` against the objects hessian-lite 3.2.13 wrote (`hessian2/tests/vectors`,
//! not in the package): `java.time`, `UUID`, `Locale` and `Currency` values show as their text,
//! and that text given for the Java type builds exactly the object Java wrote.

use dubbo_codec::json::{to_hessian, to_json};
use hessian2::value::Stream;
use serde_json::Value as Json;

#[test]
fn java_types_are_their_text_both_ways() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../hessian2/tests/vectors/lite3/"
    );
    for (vector, ty, text) in [
        ("time_local_date", "java.time.LocalDate", "2024-02-29"),
        (
            "time_local_date_time",
            "java.time.LocalDateTime",
            "2024-02-29T13:45:30.123456789",
        ),
        (
            "time_instant",
            "java.time.Instant",
            "2023-11-14T22:13:20.123456789Z",
        ),
        ("time_duration_negative", "java.time.Duration", "PT-1.5S"),
        ("time_period", "java.time.Period", "P1Y-2M3D"),
        ("time_month_day", "java.time.MonthDay", "--02-29"),
        ("time_zone_offset", "java.time.ZoneOffset", "+05:30"),
        ("time_zone_id", "java.time.ZoneId", "Europe/Paris"),
        (
            "time_offset_time",
            "java.time.OffsetTime",
            "13:45:30.123456789-05:00",
        ),
        (
            "time_zoned_date_time",
            "java.time.ZonedDateTime",
            "2024-02-29T13:45:30.123456789+08:00[Asia/Shanghai]",
        ),
        (
            "uuid",
            "java.util.UUID",
            "123e4567-e89b-12d3-a456-426614174000",
        ),
        ("locale_zh_cn", "java.util.Locale", "zh_CN"),
        ("currency_eur", "java.util.Currency", "EUR"),
    ] {
        let bytes = std::fs::read(format!("{dir}{vector}.bin")).unwrap();
        let stream = Stream::from_slice(&bytes).unwrap();
        let java = &stream.values[0];
        assert_eq!(to_json(java, &stream), Json::from(text), "{vector}");
        assert_eq!(
            &to_hessian(ty, &Json::from(text)).unwrap(),
            java,
            "{vector}"
        );
    }
    assert!(to_hessian("java.time.LocalDate", &serde_json::json!("2024-02-30x")).is_err());
    assert!(to_hessian("java.util.UUID", &serde_json::json!(7)).is_err());
}
