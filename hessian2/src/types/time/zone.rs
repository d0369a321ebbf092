//! Zones and the values that carry one: `ZoneOffset`, `ZoneId`, `OffsetTime`,
//! `OffsetDateTime`, `ZonedDateTime`.

use std::fmt;
use std::str::FromStr;

use java_serde::text::{parse_with, DateTimeText, OffsetDateTimeText, OffsetText, OffsetTimeText};

use super::handle_serde;
use super::iso::{via_text, Cursor, ParseError};
use super::local::{LocalDateTime, LocalTime};

/// A `java.time.ZoneOffset` (`ZoneOffsetHandle`: `seconds`, the total offset from UTC).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ZoneOffset {
    /// Seconds east of UTC (Java allows ±18 hours).
    pub total_seconds: i32,
}

handle_serde!(ZoneOffset, "com.alibaba.com.caucho.hessian.io.java8.ZoneOffsetHandle", {
    total_seconds: i32 => "seconds",
});

/// A `java.time.ZoneId` (`ZoneIdHandle`: `zoneId`, its id): a region such as `Europe/Paris`
/// or an offset id. hessian-lite writes a `ZoneOffset` value as a [`ZoneOffset`], not as this.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ZoneId {
    /// The id, as Java's `getId()` gives it.
    pub id: String,
}

handle_serde!(ZoneId, "com.alibaba.com.caucho.hessian.io.java8.ZoneIdHandle", {
    id: String => "zoneId",
});

/// A `java.time.OffsetTime` (`OffsetTimeHandle`: a `LocalTime` and a `ZoneOffset` handle).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OffsetTime {
    /// The local time.
    pub time: LocalTime,
    /// Its offset from UTC.
    pub offset: ZoneOffset,
}

handle_serde!(OffsetTime, "com.alibaba.com.caucho.hessian.io.java8.OffsetTimeHandle", {
    offset: ZoneOffset => "zoneOffset",
    time: LocalTime => "localTime",
});

/// A `java.time.OffsetDateTime` (`OffsetDateTimeHandle`: `LocalDateTime` and `ZoneOffset`
/// handles).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OffsetDateTime {
    /// The local date and time.
    pub date_time: LocalDateTime,
    /// Its offset from UTC.
    pub offset: ZoneOffset,
}

handle_serde!(OffsetDateTime, "com.alibaba.com.caucho.hessian.io.java8.OffsetDateTimeHandle", {
    offset: ZoneOffset => "offset",
    date_time: LocalDateTime => "dateTime",
});

/// A `java.time.ZonedDateTime` (`ZonedDateTimeHandle`: `LocalDateTime` and `ZoneOffset`
/// handles and the zone id string). The offset travels with the value, so Java rebuilds
/// exactly this instant even across a daylight-saving overlap.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ZonedDateTime {
    /// The local date and time in the zone.
    pub date_time: LocalDateTime,
    /// The offset in force at that time.
    pub offset: ZoneOffset,
    /// The zone id (`Asia/Shanghai`, or an offset id such as `Z` or `+08:00`).
    pub zone: String,
}

handle_serde!(ZonedDateTime, "com.alibaba.com.caucho.hessian.io.java8.ZonedDateTimeHandle", {
    offset: ZoneOffset => "offset",
    date_time: LocalDateTime => "dateTime",
    zone: String => "zoneId",
});

via_text! {
    ZoneOffset => OffsetText, |v| OffsetText(v.total_seconds), |t| ZoneOffset { total_seconds: t.0 };
    OffsetTime => OffsetTimeText,
        |v| OffsetTimeText { time: v.time.into(), offset: OffsetText(v.offset.total_seconds) },
        |t| OffsetTime { time: t.time.into(), offset: ZoneOffset { total_seconds: t.offset.0 } };
    OffsetDateTime => OffsetDateTimeText,
        |v| OffsetDateTimeText {
            date_time: v.date_time.into(),
            offset: OffsetText(v.offset.total_seconds),
        },
        |t| OffsetDateTime {
            date_time: t.date_time.into(),
            offset: ZoneOffset { total_seconds: t.offset.0 },
        };
}

impl fmt::Display for ZoneId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id)
    }
}

impl FromStr for ZoneId {
    type Err = ParseError;
    /// Any id but the empty one.
    fn from_str(s: &str) -> Result<Self, ParseError> {
        match s {
            "" => Err(Cursor::new(s, "java.time.ZoneId").syntax()),
            id => Ok(ZoneId { id: id.to_owned() }),
        }
    }
}

impl fmt::Display for ZonedDateTime {
    /// Java's `toString()`: `2024-02-29T13:45:30+08:00[Asia/Shanghai]`; the zone in brackets
    /// only when it is not the offset itself.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.date_time, self.offset)?;
        let offset = self.offset.to_string();
        if self.zone != offset {
            write!(f, "[{}]", self.zone)?;
        }
        Ok(())
    }
}

/// A date-time, its offset, and the zone in brackets (the offset's id without them).
fn read_zoned_date_time(c: &mut Cursor<'_>) -> Result<ZonedDateTime, ParseError> {
    let date_time = DateTimeText::read(c)?.into();
    let offset = ZoneOffset {
        total_seconds: OffsetText::read(c)?.0,
    };
    let zone = if c.eat(b'[') {
        let rest = c.take_rest();
        match rest.strip_suffix(']') {
            Some(zone) if !zone.is_empty() => zone.to_owned(),
            _ => return Err(c.syntax()),
        }
    } else {
        offset.to_string()
    };
    Ok(ZonedDateTime {
        date_time,
        offset,
        zone,
    })
}

impl FromStr for ZonedDateTime {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        parse_with(s, "java.time.ZonedDateTime", read_zoned_date_time)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_java_ids() {
        for (text, total_seconds) in [
            ("Z", 0),
            ("+05:30", 19_800),
            ("-08:00", -28_800),
            ("+01:02:03", 3723),
        ] {
            let o = ZoneOffset { total_seconds };
            assert_eq!(o.to_string(), text);
            assert_eq!(text.parse::<ZoneOffset>(), Ok(o));
        }
        assert_eq!(
            "+08".parse::<ZoneOffset>(),
            Ok(ZoneOffset {
                total_seconds: 28_800
            })
        );
        assert!(matches!(
            "08:00".parse::<ZoneOffset>(),
            Err(ParseError::Syntax { at: 0, .. })
        ));
    }

    #[test]
    fn zoned_text_names_the_zone_unless_it_is_the_offset() {
        let date_time: LocalDateTime = "2024-02-29T13:45:30.123456789".parse().unwrap();
        let shanghai = ZonedDateTime {
            date_time,
            offset: ZoneOffset {
                total_seconds: 28_800,
            },
            zone: "Asia/Shanghai".into(),
        };
        let text = "2024-02-29T13:45:30.123456789+08:00[Asia/Shanghai]";
        assert_eq!(shanghai.to_string(), text);
        assert_eq!(text.parse::<ZonedDateTime>(), Ok(shanghai));
        let utc = ZonedDateTime {
            date_time,
            offset: ZoneOffset::default(),
            zone: "Z".into(),
        };
        assert_eq!(utc.to_string(), "2024-02-29T13:45:30.123456789Z");
        assert_eq!(utc.to_string().parse::<ZonedDateTime>(), Ok(utc));
        assert!(matches!(
            "2024-02-29T13:45Z[".parse::<ZonedDateTime>(),
            Err(ParseError::Syntax { .. })
        ));
        assert!(matches!(
            "".parse::<ZoneId>(),
            Err(ParseError::Syntax { at: 0, .. })
        ));
    }
}
