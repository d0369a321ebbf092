//! Human-readable formats (serde_json) see each mapped value as the text its own crate's serde
//! writes, and read it back.

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Dto {
    #[serde(with = "java_serde::chrono::local_date_time")]
    chrono_at: chrono::NaiveDateTime,
    #[serde(with = "java_serde::chrono::instant")]
    chrono_stamp: chrono::DateTime<chrono::Utc>,
    #[serde(with = "java_serde::time::local_date_time")]
    time_at: time::PrimitiveDateTime,
    #[serde(with = "java_serde::time::instant")]
    time_stamp: time::OffsetDateTime,
    #[serde(with = "java_serde::time::local_date")]
    time_day: time::Date,
    #[serde(with = "java_serde::rust_decimal")]
    amount: rust_decimal::Decimal,
    #[serde(with = "java_serde::bigdecimal")]
    exact: bigdecimal::BigDecimal,
    #[serde(with = "java_serde::num_bigint")]
    big: num_bigint::BigInt,
    #[serde(with = "java_serde::uuid")]
    id: uuid::Uuid,
    #[serde(with = "java_serde::chrono::offset_date_time")]
    chrono_offset: chrono::DateTime<chrono::FixedOffset>,
    #[serde(with = "java_serde::chrono::duration")]
    chrono_span: chrono::TimeDelta,
    #[serde(with = "java_serde::time::duration")]
    time_span: time::Duration,
    #[serde(with = "java_serde::time::offset_date_time")]
    time_offset: time::OffsetDateTime,
}

#[test]
fn each_value_is_its_crates_text() {
    let at = chrono::NaiveDate::from_ymd_opt(2024, 2, 29)
        .unwrap()
        .and_hms_milli_opt(13, 45, 30, 500)
        .unwrap();
    let day = time::Date::from_calendar_date(2024, time::Month::February, 29).unwrap();
    let time_at = day.with_hms_milli(13, 45, 30, 500).unwrap();
    let dto = Dto {
        chrono_at: at,
        chrono_stamp: at.and_utc(),
        time_at,
        time_stamp: time_at.assume_utc(),
        time_day: day,
        amount: rust_decimal::Decimal::new(123_450, 2),
        exact: bigdecimal::BigDecimal::new(1.into(), -5),
        big: num_bigint::BigInt::from(-12345),
        id: uuid::Uuid::from_u128(0x123e4567_e89b_12d3_a456_426614174000),
        chrono_offset: at
            .and_local_timezone(chrono::FixedOffset::east_opt(8 * 3600).unwrap())
            .unwrap(),
        chrono_span: chrono::TimeDelta::milliseconds(-1500),
        time_span: time::Duration::seconds(3661) + time::Duration::nanoseconds(5),
        time_offset: time_at.assume_offset(time::UtcOffset::from_hms(8, 0, 0).unwrap()),
    };
    let json = serde_json::to_value(&dto).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "chrono_at": "2024-02-29T13:45:30.500",
            "chrono_stamp": "2024-02-29T13:45:30.500Z",
            "time_at": "2024-02-29 13:45:30.5",
            "time_stamp": "2024-02-29T13:45:30.5Z",
            "time_day": "2024-02-29",
            "amount": "1234.50",
            "exact": "1E+5",
            "big": "-12345",
            "id": "123e4567-e89b-12d3-a456-426614174000",
            "chrono_offset": "2024-02-29T13:45:30.500+08:00",
            "chrono_span": "PT-1.5S",
            "time_span": "PT1H1M1.000000005S",
            "time_offset": "2024-02-29T13:45:30.5+08:00",
        })
    );
    // chrono's own serde writes the same text.
    assert_eq!(json["chrono_at"], serde_json::to_value(at).unwrap());
    assert_eq!(
        json["chrono_offset"],
        serde_json::to_value(dto.chrono_offset).unwrap()
    );
    assert_eq!(serde_json::from_value::<Dto>(json).unwrap(), dto);
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Maybe {
    #[serde(with = "java_serde::chrono::local_date::option")]
    due: Option<chrono::NaiveDate>,
    #[serde(with = "java_serde::num_bigint::biguint::option")]
    count: Option<num_bigint::BigUint>,
}

#[test]
fn an_option_is_the_text_or_null() {
    let m = Maybe {
        due: chrono::NaiveDate::from_ymd_opt(2024, 12, 31),
        count: None,
    };
    let json = serde_json::to_value(&m).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"due": "2024-12-31", "count": null})
    );
    assert_eq!(serde_json::from_value::<Maybe>(json).unwrap(), m);
}
