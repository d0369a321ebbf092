//! `grpc-timeout`: the caller's deadline, sent with the request headers.
//!
//! The value is at most eight ASCII digits and a unit: `H` hours, `M` minutes, `S` seconds,
//! `m` milliseconds, `u` microseconds, `n` nanoseconds (Java Dubbo writes milliseconds,
//! `3000m`). The server stops working on the call when it passes and answers
//! `DEADLINE_EXCEEDED`; the caller stops waiting at the same time.

use std::time::Duration;

/// The largest number a `grpc-timeout` may carry.
const MAX_DIGITS_VALUE: u64 = 99_999_999;

/// Why a `grpc-timeout` value cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("grpc-timeout {value:?} is not 1 to 8 digits and a unit (H, M, S, m, u, n)")]
pub struct TimeoutError {
    /// The value (lossy UTF-8).
    pub value: String,
}

/// Reads a `grpc-timeout` value.
///
/// ```
/// use std::time::Duration;
/// use dubbo_triple::timeout::{format_timeout, parse_timeout};
///
/// assert_eq!(parse_timeout(b"3000m")?, Duration::from_millis(3000));
/// assert_eq!(format_timeout(Duration::from_millis(3000)), "3000000u");
/// assert!(parse_timeout(b"123456789S").is_err());
/// # Ok::<(), dubbo_triple::timeout::TimeoutError>(())
/// ```
pub fn parse_timeout(value: &[u8]) -> Result<Duration, TimeoutError> {
    let err = || TimeoutError {
        value: String::from_utf8_lossy(value).into_owned(),
    };
    let (&unit, digits) = value.split_last().ok_or_else(err)?;
    if digits.is_empty() || digits.len() > 8 || !digits.iter().all(u8::is_ascii_digit) {
        return Err(err());
    }
    let n = digits
        .iter()
        .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
    Ok(match unit {
        b'H' => Duration::from_secs(n * 3600),
        b'M' => Duration::from_secs(n * 60),
        b'S' => Duration::from_secs(n),
        b'm' => Duration::from_millis(n),
        b'u' => Duration::from_micros(n),
        b'n' => Duration::from_nanos(n),
        _ => return Err(err()),
    })
}

/// Writes a deadline as a `grpc-timeout` value: the finest unit whose count fits in eight
/// digits, rounded up so the server never gives up before the caller.
pub fn format_timeout(timeout: Duration) -> String {
    let nanos = timeout.as_nanos();
    let units: [(u128, char); 6] = [
        (1, 'n'),
        (1_000, 'u'),
        (1_000_000, 'm'),
        (1_000_000_000, 'S'),
        (60_000_000_000, 'M'),
        (3_600_000_000_000, 'H'),
    ];
    for (per, unit) in units {
        let n = nanos.div_ceil(per);
        if n <= u128::from(MAX_DIGITS_VALUE) {
            return format!("{n}{unit}");
        }
    }
    format!("{MAX_DIGITS_VALUE}H")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_unit_reads() {
        assert_eq!(parse_timeout(b"1H").unwrap(), Duration::from_secs(3600));
        assert_eq!(parse_timeout(b"2M").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_timeout(b"3S").unwrap(), Duration::from_secs(3));
        assert_eq!(parse_timeout(b"4m").unwrap(), Duration::from_millis(4));
        assert_eq!(parse_timeout(b"5u").unwrap(), Duration::from_micros(5));
        assert_eq!(
            parse_timeout(b"99999999n").unwrap(),
            Duration::from_nanos(99_999_999)
        );
        for bad in [
            &b""[..],
            b"m",
            b"10",
            b"10x",
            b"-1m",
            b"123456789m",
            b"1 m",
            b"\xffm",
        ] {
            assert!(parse_timeout(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn coarse_units_round_up() {
        assert_eq!(format_timeout(Duration::from_nanos(1)), "1n");
        assert_eq!(format_timeout(Duration::from_millis(500)), "500000u");
        assert_eq!(format_timeout(Duration::from_secs(200_000)), "200000S");
        assert_eq!(format_timeout(Duration::from_secs(200_000_000)), "3333334M");
        assert_eq!(format_timeout(Duration::MAX), "99999999H");
    }

    proptest! {
        #[test]
        fn a_written_timeout_is_never_shorter(ms in 0u64..10_000_000_000) {
            let d = Duration::from_millis(ms);
            let back = parse_timeout(format_timeout(d).as_bytes()).unwrap();
            prop_assert!(back >= d);
            // and not much longer: under 0.001% + 1 ns of it
            prop_assert!(back - d <= d / 100_000 + Duration::from_nanos(1));
        }
    }
}
