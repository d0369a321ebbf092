//! A driver for counting instructions of decoding and encoding under callgrind (not a test of
//! behaviour; `#[ignore]`d). `PROFILE_CASE` picks the operation: `user` (`from_slice` of the
//! interop model's `User`), `user_reused` (one `Deserializer`, `reset` per message), `mix` and
//! `mix_reused` (the benches' nested `Mix`), `value` (`value::from_slice` of Java's
//! self-referencing Mix, `tests/vectors/mix_self_ref.bin`), `value_encode` (`value::to_vec` of
//! that `Value`), `user_encode` and `mix_encode` (`to_vec` of `alice()` and `mix()`),
//! `user_encode_reused` and `mix_encode_reused` (one `Serializer`, `reset` and its buffer
//! cleared per message, as the benches' `fastjson2-serializer`); `user_floor`, `mix_floor` and
//! `value_floor` clone and drop the value instead (the benches' floors). `PROFILE_ITERS` is
//! the number of operations; instructions per operation are the difference of two runs
//! divided by the difference of their iteration counts:
//!
//! ```sh
//! cargo test --release -p fastjson2 --test decode_profile --no-run
//! PROFILE_CASE=user PROFILE_ITERS=10000 valgrind --tool=callgrind \
//!     target/release/deps/decode_profile-* --ignored --exact profile --test-threads 1
//! ```

use std::hint::black_box;

use fastjson2::value;
use interop_model::jsonb::{alice, mix, Mix, User};
use serde::Serialize;

const SELF_REF: &[u8] = include_bytes!("vectors/mix_self_ref.bin");

/// Runs `f` `iters` times on a black-boxed `input`.
fn repeat<'a, T: ?Sized, R>(iters: usize, input: &'a T, mut f: impl FnMut(&'a T) -> R) {
    for _ in 0..iters {
        drop(black_box(f(black_box(input))));
    }
}

#[test]
#[ignore = "a callgrind driver, run by hand"]
fn profile() {
    let iters: usize = std::env::var("PROFILE_ITERS").map_or(1, |v| v.parse().unwrap());
    let case = std::env::var("PROFILE_CASE").unwrap_or_else(|_| "user".into());
    let user = fastjson2::to_vec(&alice()).unwrap();
    let nested = fastjson2::to_vec(&mix()).unwrap();
    let tree = value::from_slice(SELF_REF).unwrap();
    let mut de = fastjson2::Deserializer::new(&[]);
    let mut ser = fastjson2::Serializer::new(Vec::with_capacity(256));
    let (alice, mix) = (alice(), mix());
    let (user, nested) = (user.as_slice(), nested.as_slice());
    match case.as_str() {
        "user" => repeat(iters, user, |b| fastjson2::from_slice::<User>(b).unwrap()),
        "user_reused" => repeat(iters, user, |b| {
            de.reset(b);
            de.next_value::<User>().unwrap()
        }),
        "mix" => repeat(iters, nested, |b| fastjson2::from_slice::<Mix>(b).unwrap()),
        "mix_reused" => repeat(iters, nested, |b| {
            de.reset(b);
            de.next_value::<Mix>().unwrap()
        }),
        "value" => repeat(iters, SELF_REF, |b| value::from_slice(b).unwrap()),
        "value_encode" => repeat(iters, &tree, value::to_vec),
        "user_encode" => repeat(iters, &alice, |v| fastjson2::to_vec(v).unwrap()),
        "user_encode_reused" => repeat(iters, &alice, |v| {
            ser.reset();
            ser.get_mut().clear();
            v.serialize(&mut ser).unwrap();
            ser.get_ref().len()
        }),
        "mix_encode" => repeat(iters, &mix, |v| fastjson2::to_vec(v).unwrap()),
        "mix_encode_reused" => repeat(iters, &mix, |v| {
            ser.reset();
            ser.get_mut().clear();
            v.serialize(&mut ser).unwrap();
            ser.get_ref().len()
        }),
        "user_floor" => repeat(iters, &alice, User::clone),
        "mix_floor" => repeat(iters, &mix, Mix::clone),
        "value_floor" => repeat(iters, &tree, value::Value::clone),
        other => panic!("unknown PROFILE_CASE {other}"),
    }
}
