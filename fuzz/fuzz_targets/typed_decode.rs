//! The serde layer on hostile bytes: `hessian2::from_slice` into the `Mix` and `User` structs
//! of the Java interop model, a stream of `User`s, and `serde_json::Value` (every
//! `deserialize_any` path). Never a panic; errors within the input; `from_bytes` agrees with
//! `from_slice`; whatever decodes re-encodes (`to_vec`) and decodes back equal; and what decodes
//! whole into `serde_json::Value` also decodes as a `hessian2::value::Value`.
#![no_main]

use bytes::Bytes;
use hessian2::Deserializer;
use interop_model::{Mix, User};
use libfuzzer_sys::fuzz_target;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// The model's `Mix`, compared with its doubles by bits, where the model's derived `PartialEq`
/// calls every NaN unequal to itself: a fuzzed NaN must come back as the same NaN. `-0.0` counts
/// as `0.0`, since the encoder (as Java's) writes both as the one-byte `0.0`.
#[derive(Serialize, Deserialize, Debug)]
#[serde(transparent)]
struct BitMix(Mix);

impl PartialEq for BitMix {
    fn eq(&self, o: &Self) -> bool {
        same_mix(&self.0, &o.0)
    }
}

fn same_mix(a: &Mix, b: &Mix) -> bool {
    let bits = |v: &[f64]| -> Vec<u64> {
        v.iter()
            .map(|&x| if x == 0.0 { 0 } else { x.to_bits() })
            .collect()
    };
    let same_d = match (&a.D, &b.D) {
        (Some(x), Some(y)) => {
            x.a == y.a
                && bits(&x.floats.0) == bits(&y.floats.0)
                && match (&x.m, &y.m) {
                    (Some(p), Some(q)) => same_mix(p, q),
                    (p, q) => p.is_none() && q.is_none(),
                }
        }
        (x, y) => x.is_none() && y.is_none(),
    };
    same_d
        && bits(&a.CD) == bits(&b.CD)
        && a.CA == b.CA
        && a.CC == b.CC
        && a.CB == b.CB
        && a.B == b.B
        && a.A == b.A
}

fuzz_target!(|data: &[u8]| {
    typed::<BitMix>(data);
    typed::<User>(data);
    typed::<Vec<User>>(data);
    user_stream(data);
    let json = typed::<serde_json::Value>(data);
    if json {
        if let Err(e) = hessian2::value::from_slice(data) {
            panic!("serde decodes it into serde_json::Value, hessian2::value does not: {e:?}");
        }
    }
});

/// Decodes `data` as one `T`; returns whether it decoded.
fn typed<T>(data: &[u8]) -> bool
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let from_slice = hessian2::from_slice::<T>(data);
    let from_bytes = hessian2::from_bytes::<T>(Bytes::copy_from_slice(data));
    match (&from_slice, &from_bytes) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "from_slice and from_bytes decode differently"),
        (Err(a), Err(b)) => {
            assert!(
                a.offset() <= data.len() as u64,
                "error past the input: {a:?}"
            );
            assert_eq!(
                (a.kind(), a.offset()),
                (b.kind(), b.offset()),
                "from_slice and from_bytes fail differently"
            );
        }
        _ => panic!("from_slice {from_slice:?} but from_bytes {from_bytes:?}"),
    }
    let Ok(value) = from_slice else {
        return false;
    };
    let bytes = match hessian2::to_vec(&value) {
        Ok(b) => b,
        Err(e) => panic!("decoded {value:?} but cannot encode it: {e:?}"),
    };
    match hessian2::from_slice::<T>(&bytes) {
        Ok(again) => assert_eq!(value, again, "round trip through to_vec changed the value"),
        Err(e) => panic!("to_vec of {value:?} does not decode: {e:?}"),
    }
    true
}

/// Several `User`s in one stream, as `multi_two_users` (shared class definition).
fn user_stream(data: &[u8]) {
    let mut de = Deserializer::from_slice(data);
    let mut users = Vec::new();
    while !de.is_end() && users.len() < 64 {
        match de.next_value::<User>() {
            Ok(u) => users.push(u),
            Err(e) => {
                assert!(
                    e.offset() <= data.len() as u64,
                    "error past the input: {e:?}"
                );
                return;
            }
        }
    }
    let mut ser = hessian2::Serializer::new(Vec::new());
    for u in &users {
        ser.serialize(u).expect("encode a decoded User");
    }
    let bytes = ser.into_inner();
    let mut de = Deserializer::from_slice(&bytes);
    for u in &users {
        assert_eq!(&de.next_value::<User>().expect("decode our own User"), u);
    }
    assert!(de.is_end());
}
