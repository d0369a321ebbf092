//! Numbers across Java's forms: an int, long, double, date or `java.math.BigInteger` read into
//! any Rust integer or float it fits exactly.

use serde::de::{self, Deserialize, Unexpected, Visitor};

use super::{relocate, Deserializer, Source};
use crate::decode::Header;
use crate::error::Result;

impl<'de, S: Source<'de>> Deserializer<'de, S> {
    /// The integer a header holds (reading a `BigInteger` object whole).
    pub(super) fn integer(
        &mut self,
        header: Header,
        at: u64,
        exp: &dyn de::Expected,
    ) -> Result<Integer> {
        match header {
            Header::Int(v) => Ok(Integer::from_i64(v.into())),
            // A date is its milliseconds.
            Header::Long(v) | Header::Date(v) => Ok(Integer::from_i64(v)),
            Header::Double(v) => {
                if v.fract() == 0.0 && v.abs() < 1.7e38 {
                    let v = v as i128;
                    Ok(Integer {
                        negative: v < 0,
                        magnitude: v.unsigned_abs(),
                    })
                } else {
                    Err(relocate(
                        de::Error::invalid_type(Unexpected::Float(v), exp),
                        at,
                    ))
                }
            }
            Header::Object { class } if &*self.dec.class(class).name == "java.math.BigInteger" => {
                self.big_integer(class)
            }
            Header::Ref(n) => self.replay(n, at, |de| {
                let at = de.dec.offset();
                let header = de.dec.pull()?;
                de.integer(header, at, exp)
            }),
            other => Err(self.invalid(other, exp, at)),
        }
    }

    /// A `java.math.BigInteger` object: its `signum` and `mag` fields.
    fn big_integer(&mut self, class: usize) -> Result<Integer> {
        let fields = self.dec.class(class).fields.clone();
        let slot = self.open()?;
        let mut signum = 0i32;
        let mut magnitude = 0u128;
        for field in fields.iter() {
            match &**field {
                "signum" => signum = i32::deserialize(&mut *self)?,
                "mag" => magnitude = Magnitude::deserialize(&mut *self)?.0,
                _ => self.skip_value()?,
            }
        }
        self.close(slot);
        Ok(Integer {
            negative: signum < 0,
            magnitude,
        })
    }

    pub(super) fn float(&mut self, header: Header, at: u64, exp: &dyn de::Expected) -> Result<f64> {
        match header {
            Header::Double(v) => Ok(v),
            Header::Int(v) => Ok(v.into()),
            Header::Long(v) => Ok(v as f64),
            Header::Ref(n) => self.replay(n, at, |de| {
                let at = de.dec.offset();
                let header = de.dec.pull()?;
                de.float(header, at, exp)
            }),
            other => Err(self.invalid(other, exp, at)),
        }
    }
}

/// The `mag` of a `BigInteger`: 32-bit words, most significant first, read without a `Vec`.
pub(super) struct Magnitude(u128);

impl<'de> Deserialize<'de> for Magnitude {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Words;
        impl<'de> Visitor<'de> for Words {
            type Value = Magnitude;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("the int[] magnitude of a BigInteger of at most 128 bits")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Magnitude, A::Error> {
                let mut value = 0u128;
                while let Some(word) = seq.next_element::<i32>()? {
                    if value >> 96 != 0 {
                        return Err(de::Error::invalid_value(
                            Unexpected::Other("a BigInteger beyond 128 bits"),
                            &self,
                        ));
                    }
                    value = (value << 32) | u128::from(word as u32);
                }
                Ok(Magnitude(value))
            }
        }
        d.deserialize_seq(Words)
    }
}

/// An integer of any width: sign and magnitude.
#[derive(Debug, Clone, Copy)]
pub(super) struct Integer {
    negative: bool,
    magnitude: u128,
}

impl Integer {
    pub(super) fn from_i64(v: i64) -> Self {
        Integer {
            negative: v < 0,
            magnitude: v.unsigned_abs().into(),
        }
    }

    pub(super) fn to_i128(self) -> Option<i128> {
        if self.negative {
            if self.magnitude <= 1 << 127 {
                Some((self.magnitude as i128).wrapping_neg())
            } else {
                None
            }
        } else {
            i128::try_from(self.magnitude).ok()
        }
    }

    pub(super) fn to_u128(self) -> Option<u128> {
        if self.negative && self.magnitude != 0 {
            None
        } else {
            Some(self.magnitude)
        }
    }

    pub(super) fn unexpected(self) -> Unexpected<'static> {
        match self.to_i128().and_then(|v| i64::try_from(v).ok()) {
            Some(v) => Unexpected::Signed(v),
            None => match u64::try_from(self.magnitude) {
                Ok(v) if !self.negative => Unexpected::Unsigned(v),
                _ => Unexpected::Other("an integer beyond 64 bits"),
            },
        }
    }
}
