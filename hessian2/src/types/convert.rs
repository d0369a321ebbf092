//! The error of converting a Java type carrier to or from another crate's type.

/// A value that the target type cannot hold: outside its range (chrono's years stop at
/// ±262,142, Java's at ±999,999,999), or fields that are not a real date, time or offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// The value has no counterpart in the target type.
    #[error("this {from} has no {to}")]
    OutOfRange {
        /// The type converted from, e.g. `java.time.LocalDate`.
        from: &'static str,
        /// The type converted to, e.g. `chrono::NaiveDate`.
        to: &'static str,
    },
}

#[cfg(any(
    feature = "chrono",
    feature = "rust_decimal",
    feature = "num-bigint",
    feature = "bigdecimal",
    feature = "time"
))]
impl ConvertError {
    pub(crate) const fn new(from: &'static str, to: &'static str) -> Self {
        ConvertError::OutOfRange { from, to }
    }
}

/// Java's `BigDecimal.toString()` of the unscaled value `-digits` (`negative`) or `digits`
/// (decimal digits, no sign) at `scale`: plain notation when the scale is not negative and the
/// adjusted exponent is -6 or more (`1234.50`, `0.000001`), else scientific (`1E-7`,
/// `-1.23E+5`, `0E+3`).
#[cfg(any(feature = "rust_decimal", feature = "bigdecimal"))]
pub(crate) fn java_decimal_text(negative: bool, digits: &str, scale: i64) -> String {
    let mut s = String::with_capacity(digits.len() + scale.unsigned_abs().min(64) as usize + 8);
    if negative {
        s.push('-');
    }
    let adjusted = digits.len() as i64 - 1 - scale;
    if scale >= 0 && adjusted >= -6 {
        let scale = scale as usize;
        if scale == 0 {
            s.push_str(digits);
        } else if digits.len() > scale {
            let (int, frac) = digits.split_at(digits.len() - scale);
            s.extend([int, ".", frac]);
        } else {
            s.push_str("0.");
            s.extend(std::iter::repeat_n('0', scale - digits.len()));
            s.push_str(digits);
        }
    } else {
        let (first, rest) = digits.split_at(1);
        s.push_str(first);
        if !rest.is_empty() {
            s.extend([".", rest]);
        }
        let sign = if adjusted > 0 { "+" } else { "" };
        s.push_str(&format!("E{sign}{adjusted}"));
    }
    s
}

/// The parts of a decimal string in Java's `new BigDecimal(String)` syntax: the unscaled
/// value's text (sign and digits, no point) and the scale (`"-1.50E+3"` → `("-150", -1)`).
/// `None` if it is not that syntax or the scale leaves `i64`.
#[cfg(feature = "bigdecimal")]
pub(crate) fn java_decimal_parts(s: &str) -> Option<(String, i64)> {
    let (coefficient, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], s[i + 1..].parse::<i64>().ok()?),
        None => (s, 0),
    };
    let (int, frac) = coefficient.split_once('.').unwrap_or((coefficient, ""));
    let unsigned = int.strip_prefix(['+', '-']).unwrap_or(int);
    let all_digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if unsigned.len() + frac.len() == 0 || !all_digits(unsigned) || !all_digits(frac) {
        return None;
    }
    let scale = i64::try_from(frac.len()).ok()?.checked_sub(exponent)?;
    Some(([int, frac].concat(), scale))
}

/// Java's nanoseconds of a second as a `u32`, if they are one (0-999,999,999).
#[cfg(any(feature = "chrono", feature = "time"))]
pub(crate) fn nanos_of_second(nanos: i32) -> Option<u32> {
    u32::try_from(nanos).ok().filter(|&n| n < 1_000_000_000)
}

/// A `serde(with)` module for the type `$rust` (chrono's, time's) travelling as the carrier
/// `$java`: `TryFrom` both ways, the carrier's serde (its Java text in human-readable formats).
#[cfg(any(feature = "chrono", feature = "time"))]
macro_rules! with_module {
    ($(#[$doc:meta])* $name:ident, $rust:ty, $java:ty) => {
        $(#[$doc])*
        pub mod $name {
            use serde::{de, ser, Deserialize, Deserializer, Serialize, Serializer};

            /// Serializes as the Java type.
            pub fn serialize<S: Serializer>(v: &$rust, s: S) -> Result<S::Ok, S::Error> {
                <$java>::try_from(*v).map_err(ser::Error::custom)?.serialize(s)
            }

            /// Deserializes the Java type.
            pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<$rust, D::Error> {
                <$rust>::try_from(<$java>::deserialize(d)?).map_err(de::Error::custom)
            }
        }
    };
}
#[cfg(any(feature = "chrono", feature = "time"))]
pub(crate) use with_module;
