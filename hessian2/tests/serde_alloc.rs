//! Allocations of the serde layer in steady state, counted by a global allocator.
//!
//! Counts are per thread: the test harness's main thread allocates while the test runs (it
//! waits on a channel for the result), and a process-wide count once saw 4 of those
//! allocations land inside a measured loop on a loaded CI machine.

use std::collections::BTreeMap;

use bytes::{Bytes, BytesMut};
use dubbo_test_support::alloc::{count, CountingAlloc};
use hessian2::types::{BigDecimal, Date};
use hessian2::{Deserializer, Serializer};
use serde::{Deserialize, Serialize};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// Allocations made by `f` on this thread.
fn allocations(f: impl FnMut()) -> usize {
    count(f).1 as usize
}

#[allow(non_snake_case)]
#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "io.github.hessianrs.interop.model.Mix")]
struct Mix<'a> {
    #[serde(borrow)]
    D: BTreeMap<&'a str, Inner<'a>>,
    #[serde(with = "hessian2::types::java_array")]
    CD: Vec<f64>,
    CA: Date,
    CC: &'a str,
    CB: i64,
    B: &'a str,
    A: i32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "com.example.Inner")]
struct Inner<'a> {
    label: &'a str,
    kind: Kind,
    price: Option<&'a str>,
    ids: Vec<u64>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
#[serde(rename = "com.example.Kind")]
enum Kind {
    Small,
    Large,
}

fn mix() -> Mix<'static> {
    Mix {
        D: BTreeMap::from([
            (
                "first",
                Inner {
                    label: "one",
                    kind: Kind::Small,
                    price: Some("1.5"),
                    ids: vec![1, 2, u64::MAX],
                },
            ),
            (
                "second",
                Inner {
                    label: "two",
                    kind: Kind::Small,
                    price: None,
                    ids: vec![],
                },
            ),
        ]),
        CD: vec![1.0, 2.0, 3.5],
        CA: Date(1_700_000_000_000),
        CC: "world",
        CB: 1 << 40,
        B: "hello",
        A: 97,
    }
}

#[test]
fn steady_state_allocations() {
    let value = mix();
    let decimal: BigDecimal = "123.456".parse().unwrap();

    // A reused Serializer over a Vec: nothing, once the buffer has grown and the types are
    // known.
    let mut ser = Serializer::new(Vec::with_capacity(1024));
    let mut encode = || {
        ser.reset();
        ser.get_mut().clear();
        ser.serialize("2.0.2").unwrap();
        ser.serialize(&value).unwrap();
        ser.serialize(&decimal).unwrap();
        ser.serialize(&Kind::Large).unwrap();
    };
    encode();
    encode();
    let n = allocations(|| {
        for _ in 0..100 {
            encode();
        }
    });
    assert_eq!(
        n, 0,
        "reused Serializer<Vec<u8>>: {n} allocations for 100 bodies"
    );

    // Straight into a reused BytesMut.
    let mut buf = BytesMut::with_capacity(1024);
    let mut ser = Serializer::new(&mut buf);
    ser.serialize(&value).unwrap();
    let n = allocations(|| {
        for _ in 0..100 {
            ser.reset();
            ser.get_mut().clear();
            ser.serialize(&value).unwrap();
        }
    });
    assert_eq!(n, 0, "reused Serializer<&mut BytesMut>: {n} allocations");

    // to_writer: the per-thread pooled serializer, then one copy into the caller's buffer.
    let mut out = BytesMut::with_capacity(1024);
    hessian2::to_writer(&mut out, &value).unwrap();
    let n = allocations(|| {
        for _ in 0..100 {
            out.clear();
            hessian2::to_writer(&mut out, &value).unwrap();
        }
    });
    assert_eq!(n, 0, "to_writer: {n} allocations");

    // to_vec: the output only (one allocation, sized from the previous call).
    let bytes = hessian2::to_vec(&value).unwrap();
    let n = allocations(|| {
        for _ in 0..100 {
            drop(hessian2::to_vec(&value).unwrap());
        }
    });
    assert_eq!(n, 100, "to_vec: {n} allocations for 100 calls");

    // `from_slice` makes a Deserializer per call, whose tables come from the per-thread pool
    // (while no other Deserializer holds them), and checks for the end of the input without
    // building an error: the output's own containers only, as below.
    let from_slice = || {
        let back: Mix = hessian2::from_slice(&bytes).unwrap();
        assert_eq!(back, value);
    };
    from_slice();
    let n = allocations(from_slice);
    assert_eq!(n, 3, "from_slice of Mix: {n} allocations");

    // Decoding borrowed fields with a reused Deserializer: the output's own containers only
    // (the BTreeMap's node, `CD` and the first `ids`), since the decoder shares the strings
    // of class definitions and type names it read before.
    let mut de = Deserializer::from_slice(&bytes[..]);
    let data: &[u8] = &bytes;
    let mut decode = || {
        de.reset(data);
        let back: Mix = de.next_value().unwrap();
        assert_eq!(back, value);
    };
    decode();
    let n = allocations(&mut decode);
    assert_eq!(
        n, 3,
        "decode of Mix with a reused Deserializer: {n} allocations"
    );

    let input = Bytes::from(bytes.clone());
    let n = allocations(|| {
        let mut de = Deserializer::from_bytes(input.clone());
        de.skip_value().unwrap();
    });
    println!("skip of Mix from Bytes with a new Deserializer: {n} allocations");
}

/// The allocations of each decode row of the benches (`benches/benches/hessian2.rs`): the
/// output's own and nothing else, once the thread's decoder tables have seen the messages'
/// class definitions and type names. (`Mix` holds 8: `B`, `CC`, `CD`, `D.floats`, the box of
/// `D.m` and its `B`, `CC`, `CD`; borrowed, its text is `&str`: 4. `User`: `name`, `email`.)
#[test]
fn bench_rows_allocate_only_their_output() {
    use interop_model::borrowed::{mix_borrowed, MixBorrowed};
    use interop_model::{mix, user, Mix, User};

    let mix_value = mix();
    let mix_wire = hessian2::to_vec(&mix_value).unwrap();
    let user_wire = hessian2::to_vec(&user(1)).unwrap();
    let java_mix = include_bytes!("vectors/lite3/mix_self_ref.bin");

    fn twice_then_count<T>(mut decode: impl FnMut() -> T) -> usize {
        drop(decode());
        drop(decode());
        allocations(|| drop(decode()))
    }
    /// A `T` decoded from `wire` by a `Deserializer` reset per message.
    fn reused<'a, T: Deserialize<'a>>(wire: &'a [u8]) -> usize {
        let mut de = Deserializer::from_slice(wire);
        twice_then_count(|| {
            de.reset(wire);
            de.next_value::<T>().unwrap()
        })
    }

    let n = twice_then_count(|| hessian2::from_slice::<Mix>(&mix_wire).unwrap());
    assert_eq!(n, 8, "Mix from_slice");
    assert_eq!(reused::<Mix>(&mix_wire), 8, "Mix, reused Deserializer");
    let borrowed: MixBorrowed = hessian2::from_slice(&mix_wire).unwrap();
    assert_eq!(borrowed, mix_borrowed(&mix_value));
    assert_eq!(
        reused::<MixBorrowed>(&mix_wire),
        4,
        "borrowed Mix, reused Deserializer"
    );
    let n = twice_then_count(|| hessian2::from_slice::<User>(&user_wire).unwrap());
    assert_eq!(n, 2, "User from_slice");
    assert_eq!(reused::<User>(&user_wire), 2, "User, reused Deserializer");
    // The `Value` of Java's self-referencing Mix (`CD` and `D["m"]` are references): the
    // object's values, `B`, `CC`, `D`'s entries, its keys `A`, `floats`, `m`, and the items of
    // `D["floats"]`.
    let n = twice_then_count(|| hessian2::value::from_slice(java_mix).unwrap());
    assert_eq!(n, 8, "Value of Java's Mix");
}
