//! A driver for counting instructions of typed decoding under callgrind (not a test of
//! behaviour; `#[ignore]`d). `PROFILE_CASE` picks the data (`mix`, `mix_reused`, `cjk`,
//! `emoji`), `PROFILE_ITERS` the number of decodes; instructions per decode are the difference
//! of two runs divided by the difference of their iteration counts:
//!
//! ```sh
//! PROFILE_CASE=mix PROFILE_ITERS=10000 valgrind --tool=callgrind \
//!     target/release/deps/decode_profile-* --ignored --exact profile --test-threads 1
//! ```
//!
//! `Mix` is the benches' `Mix` (benches/benches/hessian2.rs), copied.

#![allow(non_snake_case)]

use std::fmt;
use std::hint::black_box;

use hessian2::types::{Date, JavaArray};
use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
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

#[derive(Debug, Clone, PartialEq)]
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

impl<'de> Deserialize<'de> for MixD {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        enum Key {
            A,
            #[serde(rename = "floats")]
            Floats,
            #[serde(rename = "m")]
            M,
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MixD;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("the map Mix.D")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<MixD, M::Error> {
                let (mut a, mut floats, mut m) = (None, None, None);
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::A => a = Some(map.next_value()?),
                        Key::Floats => floats = Some(map.next_value()?),
                        Key::M => m = Some(map.next_value()?),
                    }
                }
                Ok(MixD {
                    a: a.ok_or_else(|| de::Error::missing_field("A"))?,
                    floats: floats.ok_or_else(|| de::Error::missing_field("floats"))?,
                    m,
                })
            }
        }
        d.deserialize_map(V)
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

fn text(unit: &str, bytes: usize) -> String {
    unit.repeat(bytes.div_ceil(unit.len()))
}

#[test]
#[ignore = "a callgrind driver, run by hand"]
fn profile() {
    let iters: usize = std::env::var("PROFILE_ITERS").map_or(1, |v| v.parse().unwrap());
    let case = std::env::var("PROFILE_CASE").unwrap_or_else(|_| "mix".into());
    match case.as_str() {
        "mix" | "mix_reused" => {
            let value = mix();
            let wire = hessian2::to_vec(&value).unwrap();
            assert_eq!(wire.len(), 169);
            if case == "mix" {
                for _ in 0..iters {
                    let m: Mix = hessian2::from_slice(black_box(&wire)).unwrap();
                    assert_eq!(black_box(m).A, 97);
                }
            } else {
                let mut de = hessian2::Deserializer::from_slice(&wire);
                for _ in 0..iters {
                    de.reset(black_box(&wire));
                    let m: Mix = de.next_value().unwrap();
                    assert_eq!(black_box(m).A, 97);
                }
            }
        }
        "cjk" | "emoji" => {
            let s = match case.as_str() {
                "cjk" => text("汉字かなカナ한글", 1024),
                _ => text("😀🚀🎉👍", 1024),
            };
            let wire = hessian2::to_vec(&s).unwrap();
            for _ in 0..iters {
                let t: String = hessian2::from_slice(black_box(&wire)).unwrap();
                assert_eq!(t.len(), s.len());
            }
        }
        other => panic!("unknown PROFILE_CASE {other}"),
    }
}
