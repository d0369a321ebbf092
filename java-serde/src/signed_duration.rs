//! What the `Duration` mappings of chrono and time share: both count seconds and nanoseconds
//! of the same sign, while Java floors the seconds and always adds the nanoseconds.

use std::fmt;

use crate::text::{parse_duration, DurationText};
use crate::{ConvertError, Parts};

const NANOS: i32 = 1_000_000_000;

/// The parts of a duration counted as chrono and time count it.
pub(crate) fn parts(seconds: i64, signed_nanos: i32) -> Parts {
    let (seconds, nanos) = if signed_nanos < 0 {
        (seconds - 1, signed_nanos + NANOS)
    } else {
        (seconds, signed_nanos)
    };
    Parts::Duration {
        seconds,
        nanos: nanos as u32,
    }
}

/// The value `make` builds of a `java.time.Duration`'s parts (`None`: out of its range).
pub(crate) fn from_parts<T>(
    parts: Parts,
    to: &'static str,
    make: impl FnOnce(i64, u32) -> Option<T>,
) -> Result<T, ConvertError> {
    match parts {
        Parts::Duration { seconds, nanos } => {
            make(seconds, nanos).ok_or(ConvertError::new("java.time.Duration", to))
        }
        p => Err(ConvertError::new(p.java_type().class(), to)),
    }
}

/// Java's text of the duration whose parts are `parts`.
pub(crate) fn text(parts: Parts, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match parts {
        Parts::Duration { seconds, nanos } => {
            fmt::Display::fmt(&DurationText { seconds, nanos }, f)
        }
        _ => Err(fmt::Error),
    }
}

/// Reads Java's text of a duration into what `make` builds.
pub(crate) fn parse<T>(text: &str, make: impl FnOnce(i64, u32) -> Option<T>) -> Result<T, String> {
    parse_duration(text)
        .and_then(|(seconds, nanos)| make(seconds, nanos))
        .ok_or_else(|| format!("not a java.time.Duration this type holds: {text:?}"))
}
