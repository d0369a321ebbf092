//! `hessian2` (the serde layer, and `Value` where it matters) against `serde_json` and
//! `rmp-serde` on the same Rust values.
//!
//! Groups are `<dataset>/<op>` (`mix/encode`, `mix/decode`, `user/encode`, ...); functions are
//! implementations: `hessian2`, `serde_json`, `rmp-serde`, and variants of `hessian2`
//! (`hessian2-to_vec`, `hessian2-reused`, `hessian2-value`, `hessian2-skip`, ...); and one
//! reference, `owned-floor` (a clone of the decoded value: the floor under typed decoding). See
//! `benches/README.md` for what each measures. Before timing, every decode is checked to give
//! back the input, and every encode to decode back to it; allocations per operation (and the
//! encoded size) are counted with the counting allocator and recorded with
//! `benches::report::record` (stderr, and the file named by `BENCH_ALLOCS`).
//!
//! ```sh
//! cargo bench -p benches --bench hessian2 -- --warm-up-time 1 --measurement-time 3
//! cargo bench -p benches --bench hessian2 -- 'mix/'
//! ```

use std::fmt::Debug;
use std::hint::black_box;

use benches::alloc::{count, CountingAlloc};
use benches::report;
use bytes::Bytes;
use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, SamplingMode};
use hessian2::encode::Encoder;
use hessian2::input::SliceInput;
use hessian2::value::{self, Value, ValueDecoder};
use hessian2::{Deserializer, Serializer};
use interop_model::borrowed::{mix_borrowed, user_borrowed};
use interop_model::{alice, mix, page, UserPage};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

// ---------------------------------------------------------------------------------------------
// Data (`mix` and `alice`, the values the peers measure, come with their types from the
// `interop-model` crate)
// ---------------------------------------------------------------------------------------------

/// The smallest page whose Hessian encoding is at least `target` bytes.
fn page_of_size(target: usize) -> UserPage {
    let size = |n| hessian2::to_vec(&page(n)).unwrap().len();
    let (s10, s20) = (size(10), size(20));
    let per = (s20 - s10) as f64 / 10.0;
    let mut n = (10.0 + (target as f64 - s10 as f64) / per).ceil().max(1.0) as usize;
    while n > 1 && size(n - 1) >= target {
        n -= 1;
    }
    while size(n) < target {
        n += 1;
    }
    page(n)
}

/// A 1 MiB (or other size) binary, zero-copy from a `Bytes` input with `hessian2::from_bytes`.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Blob(#[serde(with = "hessian2::types::bytes")] Bytes);

fn blob(len: usize) -> Blob {
    Blob((0..len).map(|i| (i * 31 % 251) as u8).collect())
}

/// 100k longs of every size: small ids, timestamps, full 64-bit values.
fn longs() -> Vec<i64> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..100_000)
        .map(|_| {
            // splitmix64
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            (z as i64) >> (z % 64)
        })
        .collect()
}

fn text(unit: &str, bytes: usize) -> String {
    unit.repeat(bytes.div_ceil(unit.len()))
}

/// `hessian2-borrowed-reused`: a borrowed decode (`B<'_>`, its text `&str` slices of the input)
/// with one `Deserializer` reset per message, as the `hessian2-reused` row; and its floor,
/// `borrowed-floor`, a clone of the expected value (what a borrowed decode must still
/// allocate: `Mix`'s `double[]`s and nested box), as `owned-floor` is the owned rows'.
fn borrowed_reused<'a, B>(g: &mut Group, h: &'a [u8], expected: &B)
where
    B: Deserialize<'a> + PartialEq + Debug + Clone,
{
    let mut de = Deserializer::from_slice(h);
    g.decode("hessian2-borrowed-reused", h.len(), expected, || {
        de.reset(black_box(h));
        de.next_value::<B>().unwrap()
    });
    g.run("borrowed-floor", None, || black_box(expected).clone());
}

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

const DATASETS: [&str; 11] = [
    "mix_self_ref",
    "mix",
    "user",
    "payload_1k",
    "payload_64k",
    "string_ascii_1k",
    "string_cjk_1k",
    "string_emoji_1k",
    "binary_4k",
    "binary_1m",
    "vec_i64_100k",
];

/// The positional arguments (criterion's filters, read here as plain substrings, or prefixes
/// when they start with `^`), as (text, anchored).
fn filters() -> Vec<(String, bool)> {
    // Criterion options that take a value.
    const WITH_VALUE: [&str; 16] = [
        "--warm-up-time",
        "--measurement-time",
        "--sample-size",
        "--profile-time",
        "--save-baseline",
        "--baseline",
        "--load-baseline",
        "--nresamples",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--output-format",
        "--color",
        "--plotting-backend",
        "--format",
        "--logfile",
    ];
    let mut out = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if WITH_VALUE.contains(&a.as_str()) {
            args.next();
        } else if !a.starts_with('-') {
            let anchored = a.starts_with('^');
            out.push((
                a.trim_start_matches('^').trim_end_matches('$').to_string(),
                anchored,
            ));
        }
    }
    out
}

/// Whether the setup of `dataset` (encodings, allocation counts) is needed under the
/// filters: a filter that starts with another dataset's name excludes it.
fn relevant(dataset: &str) -> bool {
    let filters = filters();
    filters.is_empty()
        || filters.iter().any(|(f, _)| {
            let names =
                |d: &str| f == d || f.starts_with(&format!("{d}/")) || d.starts_with(f.as_str());
            names(dataset) || !DATASETS.iter().any(|d| names(d))
        })
}

/// Whether the benchmark `id` (`group/function`) passes the filters.
fn wanted(id: &str) -> bool {
    let filters = filters();
    filters.is_empty()
        || filters.iter().any(|(f, anchored)| {
            if *anchored {
                id.starts_with(f.as_str())
            } else {
                id.contains(f.as_str())
            }
        })
}

/// One criterion group with allocation records.
struct Group<'a> {
    name: String,
    g: BenchmarkGroup<'a, WallTime>,
}

impl<'a> Group<'a> {
    /// A group; datasets of 64 KiB and more (milliseconds per operation for the slow peers)
    /// take 30 flat samples instead of criterion's 100 growing ones.
    fn new(c: &'a mut Criterion, name: &str) -> Self {
        let mut g = c.benchmark_group(name);
        if ["payload_64k", "binary_1m", "vec_i64_100k"]
            .iter()
            .any(|big| name.starts_with(big))
        {
            g.sample_size(30).sampling_mode(SamplingMode::Flat);
        }
        Group {
            name: name.into(),
            g,
        }
    }

    /// Times `f`, after counting the allocations of one call (made after two warm-up calls,
    /// so that lazily built state is not counted).
    fn run<R>(&mut self, function: &str, bytes: Option<usize>, mut f: impl FnMut() -> R) {
        if !wanted(&format!("{}/{function}", self.name)) {
            return;
        }
        black_box(f());
        black_box(f());
        let ((), allocs) = count(|| drop(black_box(f())));
        report::record(&self.name, function, allocs, bytes);
        self.g.bench_function(function, |b| b.iter(&mut f));
    }

    /// Checks that `f` decodes `expected`, then times it.
    fn decode<T: PartialEq + Debug>(
        &mut self,
        function: &str,
        bytes: usize,
        expected: &T,
        mut f: impl FnMut() -> T,
    ) {
        if !wanted(&format!("{}/{function}", self.name)) {
            return;
        }
        let got = f();
        assert!(
            &got == expected,
            "{}/{function}: the decode differs from the input:\n{got:?}\n{expected:?}",
            self.name
        );
        self.run(function, Some(bytes), f);
    }

    fn finish(self) {
        self.g.finish();
    }
}

/// The encoding of `value` by each implementation, checked to decode back to `value`.
struct Encoded {
    hessian: Vec<u8>,
    json: Vec<u8>,
    msgpack: Vec<u8>,
}

fn encoded<T: Serialize + DeserializeOwned + PartialEq + Debug>(value: &T) -> Encoded {
    let e = Encoded {
        hessian: hessian2::to_vec(value).unwrap(),
        json: serde_json::to_vec(value).unwrap(),
        msgpack: rmp_serde::to_vec(value).unwrap(),
    };
    assert_eq!(&hessian2::from_slice::<T>(&e.hessian).unwrap(), value);
    assert_eq!(&serde_json::from_slice::<T>(&e.json).unwrap(), value);
    assert_eq!(&rmp_serde::from_slice::<T>(&e.msgpack).unwrap(), value);
    e
}

/// `<dataset>/encode`: each implementation into a reused buffer (and `hessian2-to_vec`, a new
/// `Vec` per call).
fn encode_group<T: Serialize>(c: &mut Criterion, dataset: &str, value: &T, e: &Encoded) {
    let mut g = Group::new(c, &format!("{dataset}/encode"));
    let mut ser = Serializer::new(Vec::with_capacity(e.hessian.len()));
    g.run("hessian2", Some(e.hessian.len()), || {
        ser.reset();
        ser.get_mut().clear();
        ser.serialize(black_box(value)).unwrap();
        ser.get_ref().len()
    });
    // The reused serializer's last output (none when a filter skipped the function).
    assert!(
        ser.get_ref().is_empty() || ser.get_ref() == &e.hessian,
        "{dataset}: a reused Serializer writes other bytes than to_vec"
    );
    g.run("hessian2-to_vec", Some(e.hessian.len()), || {
        hessian2::to_vec(black_box(value)).unwrap()
    });
    let mut buf = Vec::with_capacity(e.json.len());
    g.run("serde_json", Some(e.json.len()), || {
        buf.clear();
        serde_json::to_writer(&mut buf, black_box(value)).unwrap();
        buf.len()
    });
    let mut buf = Vec::with_capacity(e.msgpack.len());
    g.run("rmp-serde", Some(e.msgpack.len()), || {
        buf.clear();
        rmp_serde::encode::write(&mut buf, black_box(value)).unwrap();
        buf.len()
    });
    g.finish();
}

/// `<dataset>/decode`: `from_slice` of each implementation, and `hessian2-reused` (one
/// `Deserializer` reset per message, as Java's `Hessian2Input` is reused).
fn decode_group<T: DeserializeOwned + PartialEq + Debug>(
    c: &mut Criterion,
    dataset: &str,
    value: &T,
    e: &Encoded,
) {
    let mut g = Group::new(c, &format!("{dataset}/decode"));
    decode_functions(&mut g, value, e);
    g.finish();
}

fn decode_functions<T: DeserializeOwned + PartialEq + Debug>(
    g: &mut Group,
    value: &T,
    e: &Encoded,
) {
    let h = &e.hessian[..];
    g.decode("hessian2", h.len(), value, || {
        hessian2::from_slice::<T>(black_box(h)).unwrap()
    });
    let mut de = Deserializer::from_slice(h);
    g.decode("hessian2-reused", h.len(), value, || {
        de.reset(black_box(h));
        de.next_value::<T>().unwrap()
    });
    g.decode("serde_json", e.json.len(), value, || {
        serde_json::from_slice::<T>(black_box(&e.json)).unwrap()
    });
    g.decode("rmp-serde", e.msgpack.len(), value, || {
        rmp_serde::from_slice::<T>(black_box(&e.msgpack)).unwrap()
    });
}

/// `owned-floor`: a reference, not a decoder. Cloning the expected value makes the allocations
/// and copies that any decoder returning it owned must make (for `Mix`, its 8 allocations:
/// strings, vectors, the box), and nothing else: the floor under the typed decode rows.
fn owned_floor<T: Clone>(g: &mut Group, value: &T) {
    g.run("owned-floor", None, || black_box(value).clone());
}

/// Steps over the value without building it.
fn skip(bytes: &[u8]) -> u64 {
    let mut de = Deserializer::from_slice(bytes);
    de.skip_value().unwrap();
    de.offset()
}

fn value_of(bytes: &[u8]) -> Value {
    value::from_slice(bytes).unwrap()
}

// ---------------------------------------------------------------------------------------------
// Datasets
// ---------------------------------------------------------------------------------------------

fn bench_mix(c: &mut Criterion) {
    if relevant("mix") || relevant("mix_self_ref") {
        bench_mix_typed(c);
    }
}

fn bench_mix_typed(c: &mut Criterion) {
    let v = mix();
    let e = encoded(&v);
    encode_group(c, "mix", &v, &e);

    let mut g = Group::new(c, "mix/decode");
    decode_functions(&mut g, &v, &e);
    let h = &e.hessian[..];
    borrowed_reused(&mut g, h, &mix_borrowed(&v));
    let expected = value_of(h);
    g.decode("hessian2-value", h.len(), &expected, || {
        value::from_slice(black_box(h)).unwrap()
    });
    g.decode("hessian2-skip", h.len(), &(h.len() as u64), || {
        skip(black_box(h))
    });
    owned_floor(&mut g, &v);
    g.finish();

    // Java's own bytes of the self-referencing Mix (`D["m"]` is the Mix itself, a `Q`): what
    // the Go and Java peers measure. Only `Value` can hold a cycle.
    let java = include_bytes!("../../hessian2/tests/vectors/lite3/mix_self_ref.bin");
    let java_value = value_of(java);
    let mut g = Group::new(c, "mix_self_ref/decode");
    g.decode("hessian2-value", java.len(), &java_value, || {
        value::from_slice(black_box(java)).unwrap()
    });
    // One `ValueDecoder` reset per message, as Java's peer reuses its `Hessian2Input`.
    let mut decoder = ValueDecoder::new(SliceInput::new(java));
    g.decode("hessian2-value-reused", java.len(), &java_value, || {
        decoder.reset(SliceInput::new(black_box(java)));
        decoder.next_value().unwrap().unwrap()
    });
    g.decode("hessian2-skip", java.len(), &(java.len() as u64), || {
        skip(black_box(java))
    });
    // The `Value`'s own floor: its allocations and copies (a clone), then its drop.
    g.run("value-floor", None, || black_box(&java_value).clone());
    g.finish();
    let mut g = Group::new(c, "mix_self_ref/encode");
    assert_eq!(
        value::to_vec(&java_value),
        java,
        "Value re-encodes Java's bytes"
    );
    // A reused encoder (as Java's peer reuses its Hessian2Output), and a new one per call.
    let mut enc = Encoder::new(Vec::with_capacity(256));
    g.run("hessian2-value", Some(java.len()), || {
        enc.reset();
        enc.get_mut().clear();
        black_box(&java_value).encode(&mut enc);
        enc.get_ref().len()
    });
    assert!(
        enc.get_ref().is_empty() || enc.get_ref() == java,
        "a reused Encoder does not re-encode Java's bytes"
    );
    g.run("hessian2-value-to_vec", Some(java.len()), || {
        value::to_vec(black_box(&java_value))
    });
    g.finish();
}

fn bench_user(c: &mut Criterion) {
    if !relevant("user") {
        return;
    }
    let v = alice();
    let e = encoded(&v);
    encode_group(c, "user", &v, &e);
    let mut g = Group::new(c, "user/decode");
    decode_functions(&mut g, &v, &e);
    borrowed_reused(&mut g, &e.hessian, &user_borrowed(&v));
    owned_floor(&mut g, &v);
    g.finish();
}

fn bench_payloads(c: &mut Criterion) {
    for (dataset, target) in [("payload_1k", 1024), ("payload_64k", 64 * 1024)] {
        if !relevant(dataset) {
            continue;
        }
        let v = page_of_size(target);
        let e = encoded(&v);
        eprintln!(
            "{dataset}: {} users; hessian2 {} bytes, serde_json {}, rmp-serde {}",
            v.users.len(),
            e.hessian.len(),
            e.json.len(),
            e.msgpack.len()
        );
        encode_group(c, dataset, &v, &e);
        let mut g = Group::new(c, &format!("{dataset}/decode"));
        decode_functions(&mut g, &v, &e);
        let h = &e.hessian[..];
        g.decode("hessian2-skip", h.len(), &(h.len() as u64), || {
            skip(black_box(h))
        });
        g.finish();
    }
}

fn bench_strings(c: &mut Criterion) {
    let cases = [
        (
            "string_ascii_1k",
            text("The quick brown fox jumps over the lazy dog. ", 1024),
        ),
        ("string_cjk_1k", text("汉字かなカナ한글", 1024)),
        ("string_emoji_1k", text("😀🚀🎉👍", 1024)),
    ];
    for (dataset, s) in cases {
        if !relevant(dataset) {
            continue;
        }
        let e = encoded(&s);
        encode_group(c, dataset, &s, &e);
        let mut g = Group::new(c, &format!("{dataset}/decode"));
        decode_functions(&mut g, &s, &e);
        // Borrowed `&str` where the wire form allows (no surrogate pairs).
        if !s.chars().any(|ch| ch as u32 > 0xffff) {
            let h = &e.hessian[..];
            g.decode("hessian2-borrowed", h.len(), &s.as_str(), || {
                hessian2::from_slice::<&str>(black_box(h)).unwrap()
            });
            let j = &e.json[..];
            g.decode("serde_json-borrowed", j.len(), &s.as_str(), || {
                serde_json::from_slice::<&str>(black_box(j)).unwrap()
            });
        }
        g.finish();
    }
}

fn bench_binary(c: &mut Criterion) {
    // 4093 bytes: the largest binary hessian-lite 3 writes as one chunk (zero-copy); 1 MiB:
    // 257 chunks (one gather copy into the output `Bytes`).
    for (dataset, len) in [("binary_4k", 4093), ("binary_1m", 1 << 20)] {
        if !relevant(dataset) {
            continue;
        }
        let v = blob(len);
        let e = encoded(&v);
        encode_group(c, dataset, &v, &e);
        let mut g = Group::new(c, &format!("{dataset}/decode"));
        let input = Bytes::from(e.hessian.clone());
        let inside = input.as_ptr_range();
        let zero_copy = inside.contains(
            &hessian2::from_bytes::<Blob>(input.clone())
                .unwrap()
                .0
                .as_ptr(),
        );
        eprintln!("{dataset}: hessian2::from_bytes output is a slice of the input: {zero_copy}");
        g.decode("hessian2-from_bytes", input.len(), &v, || {
            hessian2::from_bytes::<Blob>(black_box(input.clone())).unwrap()
        });
        decode_functions(&mut g, &v, &e);
        g.finish();
    }
}

fn bench_longs(c: &mut Criterion) {
    if !relevant("vec_i64_100k") {
        return;
    }
    let v = longs();
    let e = encoded(&v);
    encode_group(c, "vec_i64_100k", &v, &e);
    decode_group(c, "vec_i64_100k", &v, &e);
}

criterion_group!(
    benches,
    bench_mix,
    bench_user,
    bench_payloads,
    bench_strings,
    bench_binary,
    bench_longs
);
criterion_main!(benches);
