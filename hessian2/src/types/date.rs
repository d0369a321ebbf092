//! `java.util.Date`.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use super::token;

/// A `java.util.Date`: milliseconds since 1970-01-01T00:00:00Z (negative before).
///
/// Written as a Hessian date (`J`, or the compact minutes form `K` on a whole minute, as Java
/// chooses). Other serde formats see a plain `i64`. Reading accepts a Hessian date, and also a
/// long or int (milliseconds).
///
/// ```
/// use hessian2::types::Date;
///
/// let d = Date(1_700_000_000_000);
/// let bytes = hessian2::to_vec(&d)?;
/// assert_eq!(bytes[0], b'J');
/// assert_eq!(hessian2::from_slice::<Date>(&bytes)?, d);
/// // On a whole minute Java (and we) write the 5-byte form.
/// assert_eq!(hessian2::to_vec(&Date(60_000))?, b"K\x00\x00\x00\x01");
/// # Ok::<(), hessian2::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Date(pub i64);

impl Date {
    /// The date `millis` milliseconds after the epoch.
    pub const fn from_millis(millis: i64) -> Self {
        Date(millis)
    }

    /// Milliseconds since the epoch.
    pub const fn millis(self) -> i64 {
        self.0
    }

    /// The current time, truncated to milliseconds.
    pub fn now() -> Self {
        Date::from(SystemTime::now())
    }
}

impl From<SystemTime> for Date {
    /// Truncates to whole milliseconds (towards the past), saturating at the `i64` range.
    fn from(t: SystemTime) -> Self {
        match t.duration_since(UNIX_EPOCH) {
            Ok(after) => Date(i64::try_from(after.as_millis()).unwrap_or(i64::MAX)),
            Err(before) => {
                let d = before.duration();
                // Round away from zero so that the instant is not after `t`.
                let ms = d.as_millis() + u128::from(d.subsec_nanos() % 1_000_000 != 0);
                Date(i64::try_from(ms).map_or(i64::MIN, |ms| -ms))
            }
        }
    }
}

impl From<Date> for SystemTime {
    fn from(d: Date) -> Self {
        let magnitude = Duration::from_millis(d.0.unsigned_abs());
        if d.0 >= 0 {
            UNIX_EPOCH + magnitude
        } else {
            UNIX_EPOCH - magnitude
        }
    }
}

impl From<i64> for Date {
    fn from(millis: i64) -> Self {
        Date(millis)
    }
}

impl From<Date> for i64 {
    fn from(d: Date) -> Self {
        d.0
    }
}

#[cfg(feature = "chrono")]
mod chrono_impls {
    use super::Date;

    impl From<chrono::DateTime<chrono::Utc>> for Date {
        /// Truncates to milliseconds.
        fn from(t: chrono::DateTime<chrono::Utc>) -> Self {
            Date(t.timestamp_millis())
        }
    }

    impl TryFrom<Date> for chrono::DateTime<chrono::Utc> {
        type Error = Date;
        /// Fails (returning the date) outside chrono's range.
        fn try_from(d: Date) -> Result<Self, Date> {
            chrono::DateTime::from_timestamp_millis(d.0).ok_or(d)
        }
    }
}

impl Serialize for Date {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(token::DATE, &self.0)
    }
}

impl<'de> Deserialize<'de> for Date {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_newtype_struct(token::DATE, DateVisitor)
    }
}

struct DateVisitor;

impl<'de> Visitor<'de> for DateVisitor {
    type Value = Date;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a date (milliseconds since the epoch)")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Date, E> {
        Ok(Date(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Date, E> {
        i64::try_from(v)
            .map(Date)
            .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Date, D::Error> {
        i64::deserialize(d).map(Date)
    }
}
