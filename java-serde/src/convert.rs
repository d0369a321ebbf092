//! The error of mapping a Java value to another crate's type or back, and the two's complement
//! bytes Java gives big numbers in.

/// A value the target type cannot hold: out of its range (chrono's years stop at ±262,142,
/// `rust_decimal` at 96 bits), or parts that are not a real date or time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("this {from} has no {to}")]
pub struct ConvertError {
    /// The type converted from, e.g. `java.time.LocalDate`.
    pub from: &'static str,
    /// The type converted to, e.g. `chrono::NaiveDate`.
    pub to: &'static str,
}

impl ConvertError {
    #[cfg(any(
        feature = "chrono",
        feature = "rust_decimal",
        feature = "uuid",
        feature = "num-bigint",
        feature = "bigdecimal",
        feature = "time"
    ))]
    pub(crate) const fn new(from: &'static str, to: &'static str) -> Self {
        ConvertError { from, to }
    }
}

/// `v` as Java's `BigInteger.toByteArray()`: two's complement, big-endian, minimal.
#[cfg(feature = "rust_decimal")]
pub(crate) fn be_bytes(v: i128) -> Vec<u8> {
    let bytes = v.to_be_bytes();
    let fill = if v < 0 { 0xff } else { 0 };
    // Drop sign bytes while the next byte keeps the sign.
    let mut start = 0;
    while start + 1 < bytes.len()
        && bytes[start] == fill
        && (bytes[start + 1] & 0x80 != 0) == (v < 0)
    {
        start += 1;
    }
    bytes[start..].to_vec()
}

/// Two's complement big-endian bytes as an `i128`, if they fit.
#[cfg(feature = "rust_decimal")]
pub(crate) fn from_be_bytes(bytes: &[u8]) -> Option<i128> {
    let first = *bytes.first()?;
    let fill = if first & 0x80 != 0 { 0xff } else { 0 };
    let skip = bytes.iter().take_while(|&&b| b == fill).count();
    // More than 16 bytes fit only when the extra ones are sign bytes.
    let bytes = &bytes[skip.min(bytes.len().saturating_sub(16))..];
    if bytes.len() > 16 {
        return None;
    }
    let mut wide = [fill; 16];
    wide[16 - bytes.len()..].copy_from_slice(bytes);
    let v = i128::from_be_bytes(wide);
    // A sign byte dropped above must not change the sign.
    ((v < 0) == (fill == 0xff)).then_some(v)
}

#[cfg(all(test, feature = "rust_decimal"))]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_minimal_and_read_back() {
        for (v, b) in [
            (0i128, &[0u8][..]),
            (127, &[0x7f]),
            (128, &[0, 0x80]),
            (-1, &[0xff]),
            (-128, &[0x80]),
            (-129, &[0xff, 0x7f]),
        ] {
            assert_eq!(be_bytes(v), b, "{v}");
            assert_eq!(from_be_bytes(b), Some(v));
        }
        for v in [i128::MIN, i128::MAX, 123_450, -5] {
            assert_eq!(from_be_bytes(&be_bytes(v)), Some(v));
        }
        assert_eq!(
            from_be_bytes(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
            Some(1)
        );
        assert_eq!(from_be_bytes(&[1; 17]), None);
        assert_eq!(from_be_bytes(&[]), None);
    }
}
