//! A driver for counting the instructions of a typed encode with callgrind (ignored by default):
//! the bench's `Mix` (benches/benches/hessian2.rs), written into a reused `Serializer` as the
//! `mix/encode` bench does.
//!
//! ```sh
//! cargo test --release -p hessian2 --test encode_profile --no-run
//! ENCODE_PROFILE_ITERS=1000 valgrind --tool=callgrind --toggle-collect='*encode_once*' \
//!     <test binary> --ignored --exact mix_encode_for_callgrind
//! ```
//! Instructions per encode = the total `Ir` / the iterations.

#![allow(non_snake_case)]

use std::hint::black_box;

use hessian2::types::{Date, JavaArray};
use hessian2::Serializer;
use serde::ser::SerializeMap;
use serde::Serialize;

#[derive(Serialize, Clone)]
#[serde(rename = "io.github.hessianrs.interop.model.Mix")]
struct Mix {
    D: Option<MixD>,
    #[serde(with = "hessian2::types::java_array")]
    CD: Vec<f64>,
    CA: Date,
    CC: String,
    CB: i64,
    B: String,
    A: i32,
}

#[derive(Clone)]
struct MixD {
    a: i32,
    floats: JavaArray<f64>,
    m: Option<Box<Mix>>,
}

impl Serialize for MixD {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2 + usize::from(self.m.is_some())))?;
        map.serialize_entry("A", &self.a)?;
        map.serialize_entry("floats", &self.floats)?;
        if let Some(m) = &self.m {
            map.serialize_entry("m", m)?;
        }
        map.end()
    }
}

fn mix() -> Mix {
    let inner = Mix {
        D: None,
        CD: vec![1.0, 2.0, 3.0],
        CA: Date(1_700_000_000_000),
        CC: "world".into(),
        CB: 1 << 40,
        B: "hello".into(),
        A: 97,
    };
    Mix {
        D: Some(MixD {
            a: 97,
            floats: JavaArray(inner.CD.clone()),
            m: Some(Box::new(inner.clone())),
        }),
        ..inner
    }
}

#[inline(never)]
fn encode_once(ser: &mut Serializer<Vec<u8>>, value: &Mix) -> usize {
    ser.reset();
    ser.get_mut().clear();
    ser.serialize(black_box(value)).unwrap();
    ser.get_ref().len()
}

#[test]
#[ignore = "a callgrind driver, not a check"]
fn mix_encode_for_callgrind() {
    let iters: usize = std::env::var("ENCODE_PROFILE_ITERS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000);
    let value = mix();
    let mut ser = Serializer::new(Vec::with_capacity(256));
    // The first encode probes the struct's layout; it is not what is measured.
    ser.serialize(&value).unwrap();
    let mut len = 0;
    for _ in 0..iters {
        len = encode_once(&mut ser, &value);
    }
    assert_eq!(len, 169);
}
