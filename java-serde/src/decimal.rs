//! `java.math.BigDecimal` and `BigInteger` as text, of any size: Java's `toString()` and
//! `new BigDecimal(String)`, and the decimal digits of two's complement bytes and back. A
//! format whose wire form is text (hessian-lite writes a `BigDecimal` as its string) and one
//! whose form is bytes and a scale (fastjson2) meet here.

/// Java's `BigDecimal.toString()` of the unscaled value `-digits` (`negative`) or `digits`
/// (decimal digits, no sign) at `scale`: plain notation when the scale is not negative and the
/// adjusted exponent is -6 or more (`1234.50`, `0.000001`), else scientific (`1E-7`,
/// `-1.23E+5`, `0E+3`).
pub fn java_text(negative: bool, digits: &str, scale: i64) -> String {
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

/// A decimal string in Java's `new BigDecimal(String)` syntax as the unscaled value's text (sign
/// and digits, no point) and the scale (`"-1.50E+3"` → `("-150", -1)`). `None` if it is not that
/// syntax or the scale leaves `i64`.
pub fn parse_java_text(s: &str) -> Option<(String, i64)> {
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

/// Java's `BigDecimal.toString()` of `unscaled` (two's complement, big-endian) at `scale`.
pub fn big_decimal_text(unscaled: &[u8], scale: i32) -> String {
    let (negative, digits) = digits_of(unscaled);
    java_text(negative, &digits, scale.into())
}

/// The unscaled bytes (two's complement, big-endian, minimal) and scale of a decimal string in
/// Java's syntax; `None` if it is not that syntax or the scale leaves `i32`.
pub fn big_decimal_of_text(s: &str) -> Option<(Vec<u8>, i32)> {
    let (unscaled, scale) = parse_java_text(s)?;
    Some((integer_bytes(&unscaled)?, i32::try_from(scale).ok()?))
}

/// The bytes (two's complement, big-endian, minimal) of an integer's decimal text with an
/// optional sign; `None` for anything else.
pub fn integer_bytes(text: &str) -> Option<Vec<u8>> {
    let (negative, digits) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // The magnitude in base 2^32, least significant limb first: times 10^9, plus nine digits.
    let mut limbs: Vec<u32> = Vec::with_capacity(digits.len() / 9 + 1);
    for chunk in digits.as_bytes().chunks(9) {
        let mut carry = chunk.iter().fold(0u64, |v, d| v * 10 + u64::from(d - b'0'));
        let factor = 10u64.pow(chunk.len() as u32);
        for limb in &mut limbs {
            let v = u64::from(*limb) * factor + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            limbs.push(carry as u32);
        }
    }
    let mut bytes: Vec<u8> = limbs.iter().rev().flat_map(|l| l.to_be_bytes()).collect();
    bytes.insert(0, 0); // room for the sign bit
    if negative {
        negate(&mut bytes);
    }
    Some(minimal_bytes(&bytes).to_vec())
}

/// Whether two's complement `bytes` are negative, and the decimal digits of their magnitude.
pub fn digits_of(bytes: &[u8]) -> (bool, String) {
    let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
    let mut magnitude = bytes.to_vec();
    if negative {
        negate(&mut magnitude);
    }
    // Base 2^32 limbs, most significant first, divided by 10^9 until zero.
    let pad = (4 - magnitude.len() % 4) % 4;
    let padded: Vec<u8> = std::iter::repeat_n(0, pad).chain(magnitude).collect();
    let mut limbs: Vec<u32> = padded
        .chunks(4)
        .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut chunks = Vec::new();
    while limbs.iter().any(|&l| l != 0) {
        let mut rem = 0u64;
        for limb in &mut limbs {
            let v = (rem << 32) | u64::from(*limb);
            *limb = (v / 1_000_000_000) as u32;
            rem = v % 1_000_000_000;
        }
        chunks.push(rem as u32);
    }
    let mut digits = match chunks.pop() {
        Some(top) => top.to_string(),
        None => return (false, "0".into()),
    };
    for c in chunks.iter().rev() {
        digits.push_str(&format!("{c:09}"));
    }
    (negative, digits)
}

/// Two's complement negation in place.
fn negate(bytes: &mut [u8]) {
    let mut carry = true;
    for b in bytes.iter_mut().rev() {
        let (v, c) = (!*b).overflowing_add(u8::from(carry));
        *b = v;
        carry = c;
    }
}

/// Two's complement big-endian `bytes` without the leading sign bytes Java's
/// `BigInteger.toByteArray()` leaves out (a sign byte stays only where the next byte's top bit
/// differs from it); empty for empty input.
///
/// ```
/// assert_eq!(java_serde::decimal::minimal_bytes(&[0, 0, 0x7f]), [0x7f]);
/// assert_eq!(java_serde::decimal::minimal_bytes(&[0, 0x80]), [0, 0x80]);
/// assert_eq!(java_serde::decimal::minimal_bytes(&[0xff, 0xff, 0x80]), [0x80]);
/// ```
pub fn minimal_bytes(bytes: &[u8]) -> &[u8] {
    let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
    let fill = if negative { 0xff } else { 0 };
    let start = bytes
        .windows(2)
        .position(|w| w[0] != fill || (w[1] & 0x80 != 0) != negative)
        .unwrap_or(bytes.len().saturating_sub(1));
    &bytes[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_cross_between_text_and_bytes() {
        for (text, bytes) in [
            ("0", &[0u8][..]),
            ("127", &[0x7f]),
            ("128", &[0, 0x80]),
            ("-1", &[0xff]),
            ("-128", &[0x80]),
            ("-129", &[0xff, 0x7f]),
            ("4294967296", &[1, 0, 0, 0, 0]),
        ] {
            assert_eq!(integer_bytes(text).as_deref(), Some(bytes), "{text}");
            let (negative, digits) = digits_of(bytes);
            assert_eq!(format!("{}{digits}", if negative { "-" } else { "" }), text);
        }
        assert_eq!(integer_bytes("+5"), Some(vec![5]));
        for bad in ["", "-", "1.5", "12a"] {
            assert_eq!(integer_bytes(bad), None, "{bad}");
        }
    }

    #[test]
    fn big_numbers_match_i128() {
        for v in [i128::MAX, i128::MIN, 10i128.pow(30) + 7, -(10i128.pow(19))] {
            let bytes = integer_bytes(&v.to_string()).unwrap();
            let (negative, digits) = digits_of(&bytes);
            assert_eq!(
                format!("{}{digits}", if negative { "-" } else { "" }),
                v.to_string()
            );
        }
        // Beyond 128 bits: 2^200.
        let big = "1606938044258990275541962092341162602522202993782792835301376";
        let bytes = integer_bytes(big).unwrap();
        assert_eq!(bytes.len(), 26);
        assert_eq!(digits_of(&bytes).1, big);
    }

    #[test]
    fn decimals_keep_unscaled_value_and_scale() {
        for (text, unscaled, scale) in [
            ("1234.50", 123_450i128, 2),
            ("-0.05", -5, 2),
            ("0", 0, 0),
            ("7E+3", 7, -3),
            ("1E-7", 1, 7),
        ] {
            let (bytes, s) = big_decimal_of_text(text).unwrap();
            assert_eq!(
                (digits_of(&bytes).1, s),
                (unscaled.unsigned_abs().to_string(), scale)
            );
            assert_eq!(big_decimal_text(&bytes, s), text);
        }
        assert_eq!(big_decimal_of_text("1.2E-10").unwrap().1, 11);
        assert!(big_decimal_of_text("1e99999999999").is_none());
        assert!(big_decimal_of_text("abc").is_none());
    }
}
