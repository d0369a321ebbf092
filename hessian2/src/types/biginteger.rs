//! `java.math.BigInteger` of any size.

use serde::de::{self, Deserialize, Deserializer};
use serde::ser::{Serialize, SerializeStruct, Serializer};

use super::JavaArray;

/// A `java.math.BigInteger` of any size, as its two's complement big-endian bytes, minimal
/// (Java's `toByteArray()`; zero is `[0]`): the same carrier as `fastjson2::types::BigInteger`.
/// (`i128` and `u128` fields take the ones that fit 128 bits.)
///
/// hessian-lite has no serializer of its own for `BigInteger` in either generation: it writes
/// the JDK's fields. This type writes them as a fresh Java `BigInteger` has them (JDK 9+
/// names): `mag` (`[int`, the magnitude's 32-bit words, most significant first), the four
/// cached fields as 0, and `signum`; reading takes `mag` and `signum` and ignores the rest (so
/// JDK 8's field names read too).
///
/// ```
/// use hessian2::types::BigInteger;
///
/// let n = BigInteger::from_be_bytes(&[0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
/// let bytes = hessian2::to_vec(&n)?;
/// assert!(bytes.starts_with(b"C\x14java.math.BigInteger\x96\x03mag"));
/// assert_eq!(hessian2::from_slice::<BigInteger>(&bytes)?, n);
/// assert_eq!(BigInteger::from(-129).as_be_bytes(), [0xff, 0x7f]);
/// # Ok::<(), hessian2::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BigInteger(Vec<u8>);

const CLASS: &str = "java.math.BigInteger";

impl BigInteger {
    /// From two's complement big-endian bytes (`toByteArray()`); redundant sign bytes are
    /// dropped so equal numbers compare equal. Empty bytes are zero.
    pub fn from_be_bytes(bytes: &[u8]) -> Self {
        match java_serde::decimal::minimal_bytes(bytes) {
            [] => BigInteger(vec![0]),
            rest => BigInteger(rest.to_vec()),
        }
    }

    /// The bytes of `toByteArray()`.
    pub fn as_be_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The value as an `i64`, if it fits.
    pub fn to_i64(&self) -> Option<i64> {
        if self.0.len() > 8 {
            return None;
        }
        let fill = if self.0[0] & 0x80 != 0 { 0xff } else { 0 };
        let mut wide = [fill; 8];
        wide[8 - self.0.len()..].copy_from_slice(&self.0);
        Some(i64::from_be_bytes(wide))
    }

    fn is_negative(&self) -> bool {
        self.0[0] & 0x80 != 0
    }

    /// Java's `signum` and `mag`.
    fn to_java(&self) -> (i32, Vec<i32>) {
        let mut magnitude = self.0.clone();
        if self.is_negative() {
            negate(&mut magnitude);
        }
        let first = magnitude.iter().position(|&b| b != 0);
        let Some(first) = first else {
            return (0, Vec::new());
        };
        let digits = &magnitude[first..];
        let mut padded = vec![0u8; (4 - digits.len() % 4) % 4];
        padded.extend_from_slice(digits);
        let mag = padded
            .chunks_exact(4)
            .map(|w| i32::from_be_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        (if self.is_negative() { -1 } else { 1 }, mag)
    }

    /// From Java's `signum` and `mag`.
    fn from_java(signum: i32, mag: &[i32]) -> Self {
        // A leading zero byte keeps the magnitude positive in two's complement.
        let mut bytes = vec![0u8];
        bytes.extend(mag.iter().flat_map(|w| w.to_be_bytes()));
        if signum < 0 {
            negate(&mut bytes);
        }
        if signum == 0 {
            bytes = vec![0];
        }
        BigInteger::from_be_bytes(&bytes)
    }
}

/// Two's complement negation in place (invert, add one).
fn negate(bytes: &mut [u8]) {
    let mut carry = true;
    for b in bytes.iter_mut().rev() {
        let (v, overflow) = (!*b).overflowing_add(u8::from(carry));
        *b = v;
        carry = carry && overflow;
    }
}

impl From<i64> for BigInteger {
    fn from(v: i64) -> Self {
        BigInteger::from_be_bytes(&v.to_be_bytes())
    }
}

impl Serialize for BigInteger {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (signum, mag) = self.to_java();
        let mut st = s.serialize_struct(CLASS, 6)?;
        st.serialize_field("mag", &JavaArray(mag))?;
        st.serialize_field("firstNonzeroIntNumPlusTwo", &0)?;
        st.serialize_field("lowestSetBitPlusTwo", &0)?;
        st.serialize_field("bitLengthPlusOne", &0)?;
        st.serialize_field("bitCountPlusOne", &0)?;
        st.serialize_field("signum", &signum)?;
        st.end()
    }
}

impl<'de> Deserialize<'de> for BigInteger {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(rename = "java.math.BigInteger")]
        struct Wire {
            mag: Vec<i32>,
            signum: i32,
        }
        let w = Wire::deserialize(d)?;
        if !(-1..=1).contains(&w.signum) || (w.signum == 0) != w.mag.iter().all(|&m| m == 0) {
            return Err(de::Error::custom(format_args!(
                "a BigInteger with signum {} and a magnitude of {} words",
                w.signum,
                w.mag.len()
            )));
        }
        Ok(BigInteger::from_java(w.signum, &w.mag))
    }
}

#[cfg(test)]
mod tests {
    use super::BigInteger;

    #[test]
    fn bytes_are_minimal_and_java_fields_round_trip() {
        for v in [
            0i128,
            1,
            -1,
            127,
            128,
            -128,
            -129,
            1 << 40,
            i128::MIN,
            i128::MAX,
        ] {
            let b = BigInteger::from_be_bytes(&v.to_be_bytes());
            let java_len =
                (128 - if v < 0 {
                    (!v).leading_zeros()
                } else {
                    v.leading_zeros()
                }) / 8
                    + 1;
            assert_eq!(b.as_be_bytes().len(), java_len as usize, "{v}");
            let (signum, mag) = b.to_java();
            assert_eq!(BigInteger::from_java(signum, &mag), b, "{v}");
            if let Ok(small) = i64::try_from(v) {
                assert_eq!(b.to_i64(), Some(small));
            }
        }
        assert_eq!(BigInteger::from(-1).to_java(), (-1, vec![1]));
        assert_eq!(BigInteger::from(0).to_java(), (0, vec![]));
        assert_eq!(BigInteger::from_be_bytes(&[]).as_be_bytes(), [0]);
        assert_eq!(BigInteger::from_be_bytes(&[0, 0, 1]).as_be_bytes(), [1]);
        assert_eq!(
            BigInteger::from_be_bytes(&[0xff, 0xff, 0x80]).as_be_bytes(),
            [0x80]
        );
        assert_eq!(
            BigInteger::from_be_bytes(&[0, 0x80]).as_be_bytes(),
            [0, 0x80]
        );
        assert_eq!(BigInteger::from_be_bytes(&[1; 9]).to_i64(), None);
    }
}
