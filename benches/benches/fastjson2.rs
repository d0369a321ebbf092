//! `fastjson2` (JSONB, Dubbo's serialization 23) on the interop model's `User` and `Mix` as
//! fastjson2 writes them (`interop_model::jsonb`), with `hessian2` on the same Java objects
//! (`interop_model::{alice, mix}`) as the in-run reference: the two serializations a Dubbo 3
//! body can be in.
//!
//! Groups are `fastjson2_<dataset>/<op>`; functions: `fastjson2` (`to_vec` / `from_slice`),
//! `fastjson2-reused` (encode: `to_writer` into a cleared buffer; decode: one `Deserializer`,
//! `reset` then `next_value`), `fastjson2-serializer` (one `Serializer`, `reset`, its buffer
//! cleared: what a codec reusing its writer does), `fastjson2-value` (`value::from_slice` /
//! `to_vec`), `fastjson2-skip` (`Decoder::skip`), `hessian2` (`to_vec` / `from_slice`), and
//! the floors, references rather than implementations: `owned-floor` (a clone of the typed
//! value, then drop: what any decoder returning it owned must allocate and copy) and
//! `value-floor` (the same for the `Value` of Java's self-referencing Mix). Each decode is
//! checked to give the input back before it is timed; allocations per operation are recorded
//! with `benches::report::record`.
//!
//! ```sh
//! cargo bench -p benches --bench fastjson2 -- --warm-up-time 1 --measurement-time 3
//! ```

use std::fmt::Debug;
use std::hint::black_box;

use benches::alloc::{count, CountingAlloc};
use benches::report;
use criterion::{criterion_group, criterion_main, Criterion};
use fastjson2::decode::Decoder;
use fastjson2::value;
use interop_model::jsonb;
use serde::de::DeserializeOwned;
use serde::Serialize;

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// Records the allocations of one call of `f` (after a warm-up call), then times it.
fn timed<R>(
    c: &mut Criterion,
    group: &str,
    function: &str,
    bytes: usize,
    mut f: impl FnMut() -> R,
) {
    black_box(f());
    let ((), allocs) = count(|| drop(black_box(f())));
    report::record(group, function, allocs, Some(bytes));
    c.benchmark_group(group)
        .bench_function(function, |b| b.iter(&mut f));
}

/// Encode and decode `jsonb_value` with fastjson2 and `hessian_value` (the same Java object)
/// with hessian2.
fn dataset<J, H>(c: &mut Criterion, name: &str, jsonb_value: &J, hessian_value: &H)
where
    J: Serialize + DeserializeOwned + PartialEq + Debug + Clone,
    H: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let bytes = fastjson2::to_vec(jsonb_value).unwrap();
    assert_eq!(&fastjson2::from_slice::<J>(&bytes).unwrap(), jsonb_value);
    let hessian = hessian2::to_vec(hessian_value).unwrap();
    assert_eq!(&hessian2::from_slice::<H>(&hessian).unwrap(), hessian_value);
    let tree = value::from_slice(&bytes).unwrap();
    assert_eq!(value::to_vec(&tree), bytes);

    let encode = format!("fastjson2_{name}/encode");
    timed(c, &encode, "fastjson2", bytes.len(), || {
        fastjson2::to_vec(black_box(jsonb_value)).unwrap()
    });
    let mut out = Vec::with_capacity(256);
    timed(c, &encode, "fastjson2-reused", bytes.len(), || {
        out.clear();
        fastjson2::to_writer(&mut out, black_box(jsonb_value)).unwrap();
        out.len()
    });
    let mut ser = fastjson2::Serializer::new(Vec::with_capacity(256));
    timed(c, &encode, "fastjson2-serializer", bytes.len(), || {
        ser.reset();
        ser.get_mut().clear();
        black_box(jsonb_value).serialize(&mut ser).unwrap();
        ser.get_ref().len()
    });
    timed(c, &encode, "fastjson2-value", bytes.len(), || {
        value::to_vec(black_box(&tree))
    });
    timed(c, &encode, "hessian2", hessian.len(), || {
        hessian2::to_vec(black_box(hessian_value)).unwrap()
    });

    let decode = format!("fastjson2_{name}/decode");
    timed(c, &decode, "fastjson2", bytes.len(), || {
        fastjson2::from_slice::<J>(black_box(&bytes)).unwrap()
    });
    let mut de = fastjson2::Deserializer::new(&bytes);
    timed(c, &decode, "fastjson2-reused", bytes.len(), || {
        de.reset(black_box(&bytes));
        de.next_value::<J>().unwrap()
    });
    timed(c, &decode, "owned-floor", bytes.len(), || {
        black_box(jsonb_value).clone()
    });
    timed(c, &decode, "fastjson2-value", bytes.len(), || {
        value::from_slice(black_box(&bytes)).unwrap()
    });
    timed(c, &decode, "fastjson2-skip", bytes.len(), || {
        let mut d = Decoder::new(black_box(&bytes));
        d.skip().unwrap();
        d.offset()
    });
    timed(c, &decode, "hessian2", hessian.len(), || {
        hessian2::from_slice::<H>(black_box(&hessian)).unwrap()
    });
}

fn bench_user(c: &mut Criterion) {
    dataset(c, "user", &jsonb::alice(), &interop_model::alice());
}

fn bench_mix(c: &mut Criterion) {
    dataset(c, "mix", &jsonb::mix(), &interop_model::mix());
}

/// Java's own bytes of the self-referencing Mix (`D["m"]` is the Mix itself, a `$ref`): what
/// the Java peer (`benches/peers/java`, `Fastjson2Bench`) measures. Only `Value` holds a cycle.
fn bench_mix_self_ref(c: &mut Criterion) {
    let java: &[u8] = include_bytes!("../../fastjson2/tests/vectors/mix_self_ref.bin");
    let tree = value::from_slice(java).unwrap();
    assert_eq!(value::to_vec(&tree), java);
    let group = "fastjson2_mix_self_ref/decode";
    timed(c, group, "fastjson2-value", java.len(), || {
        value::from_slice(black_box(java)).unwrap()
    });
    timed(c, group, "value-floor", java.len(), || {
        black_box(&tree).clone()
    });
    timed(c, group, "fastjson2-skip", java.len(), || {
        let mut d = Decoder::new(black_box(java));
        d.skip().unwrap();
        d.offset()
    });
    timed(
        c,
        "fastjson2_mix_self_ref/encode",
        "fastjson2-value",
        java.len(),
        || value::to_vec(black_box(&tree)),
    );
}

criterion_group!(benches, bench_user, bench_mix, bench_mix_self_ref);
criterion_main!(benches);
