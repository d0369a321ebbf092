//! A driver for counting the instructions of a typed encode with callgrind (ignored by default):
//! the bench's values (benches/benches/hessian2.rs: `mix`, `user`, and `page`, its 1 KiB
//! `payload_1k`), written into a reused `Serializer` as the `<dataset>/encode` bench does.
//!
//! ```sh
//! cargo test --release -p hessian2 --test encode_profile --no-run
//! ENCODE_PROFILE=mix ENCODE_PROFILE_ITERS=1000 valgrind --tool=callgrind \
//!     --toggle-collect='*encode_once*' <test binary> --ignored --exact encode_for_callgrind
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

#[derive(Serialize)]
#[serde(rename = "io.github.hessianrs.interop.model.User")]
struct User {
    created: Option<Date>,
    active: bool,
    email: Option<String>,
    age: i32,
    name: Option<String>,
    id: i64,
}

fn user(i: i64) -> User {
    User {
        created: Some(Date(1_700_000_000_000 + i * 1_000)),
        active: i % 3 != 0,
        email: Some(format!("user{i}@example.com")),
        age: 20 + (i % 50) as i32,
        name: Some(format!("User {i}")),
        id: 100_000 + i,
    }
}

#[derive(Serialize)]
#[serde(rename = "io.github.hessianrs.bench.UserPage")]
struct UserPage {
    users: Vec<User>,
    next: Option<String>,
    total: i64,
}

#[inline(never)]
fn encode_once<T: Serialize>(ser: &mut Serializer<Vec<u8>>, value: &T) -> usize {
    ser.reset();
    ser.get_mut().clear();
    ser.serialize(black_box(value)).unwrap();
    ser.get_ref().len()
}

/// Encodes `value` the given number of times; returns the encoded size.
fn run<T: Serialize>(value: &T, iters: usize) -> usize {
    let mut ser = Serializer::new(Vec::with_capacity(4096));
    // The first encode probes the structs' layouts; it is not what is measured.
    ser.serialize(value).unwrap();
    let mut len = 0;
    for _ in 0..iters {
        len = encode_once(&mut ser, value);
    }
    len
}

#[test]
#[ignore = "a callgrind driver, not a check"]
fn encode_for_callgrind() {
    let iters: usize = std::env::var("ENCODE_PROFILE_ITERS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000);
    let dataset = std::env::var("ENCODE_PROFILE").unwrap_or_else(|_| "mix".into());
    let (len, expected) = match dataset.as_str() {
        "mix" => (run(&mix(), iters), 169),
        "user" => (run(&user(1), iters), 112),
        // 9 users: the bench's smallest page of at least 1 KiB.
        "page" => {
            let page = UserPage {
                users: (0..9).map(user).collect(),
                next: Some("cursor-0001".into()),
                total: 1_000_000,
            };
            (run(&page, iters), 0)
        }
        other => panic!("no dataset {other}"),
    };
    eprintln!("{dataset}: {len} bytes");
    assert!(expected == 0 || len == expected, "{len}");
}
