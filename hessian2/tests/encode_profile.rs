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

use std::hint::black_box;

use hessian2::Serializer;
use interop_model::{alice, mix, page};
use serde::Serialize;

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
        // The bench's `user` (Java's `pojo_user.bin`, 112 bytes).
        "user" => (run(&alice(), iters), 112),
        // 9 users: the bench's smallest page of at least 1 KiB.
        "page" => (run(&page(9), iters), 0),
        other => panic!("no dataset {other}"),
    };
    eprintln!("{dataset}: {len} bytes");
    assert!(expected == 0 || len == expected, "{len}");
}
