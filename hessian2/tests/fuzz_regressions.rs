//! Inputs found by the fuzz targets (`fuzz/`), kept as ordinary tests so that they run in the
//! default `cargo test`. Each says which target found it and what the cause was; a test marked
//! `#[ignore]` is a finding not fixed yet (remove the `ignore` with the fix).

use std::cell::Cell;
use std::fmt;

use hessian2::ErrorKind;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// A list of `n + 1` lists: the first is `[0, 0]`, each later one is `[Q, Q]` with both
/// references to the list before it. As a Java object graph that is `n + 1` small lists
/// sharing their elements (`a1 = [a0, a0]`, `a2 = [a1, a1]`, ...), about 5 bytes each.
fn doubling_references(n: u8) -> Vec<u8> {
    assert!(n <= 46, "indexes are written as single-byte ints");
    let mut bytes = vec![b'X', 0x90 + n + 1, 0x7a, 0x90, 0x90];
    // The outer list is reference 0, the first inner list 1, list i is i + 1.
    for i in 1..=n {
        bytes.extend_from_slice(&[0x7a, b'Q', 0x90 + i, b'Q', 0x90 + i]);
    }
    bytes
}

thread_local! {
    static NODES: Cell<u64> = const { Cell::new(0) };
}

/// Stop counting past this many values: far more than any honest 200-byte input holds.
const BUDGET: u64 = 1 << 20;

/// Deserializes anything (through `deserialize_any`, as `serde_json::Value` does), counting
/// the values the deserializer hands out, and gives up past `BUDGET`.
struct Counted;

impl<'de> Deserialize<'de> for Counted {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CountVisitor)
    }
}

struct CountVisitor;

fn bump<E: de::Error>() -> Result<Counted, E> {
    let n = NODES.with(|c| {
        c.set(c.get() + 1);
        c.get()
    });
    if n > BUDGET {
        Err(E::custom("test budget exceeded"))
    } else {
        Ok(Counted)
    }
}

impl<'de> Visitor<'de> for CountVisitor {
    type Value = Counted;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("anything")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Counted, E> {
        bump()
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Counted, E> {
        bump()
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Counted, E> {
        bump()
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Counted, E> {
        bump()
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Counted, E> {
        bump()
    }
    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<Counted, E> {
        bump()
    }
    fn visit_unit<E: de::Error>(self) -> Result<Counted, E> {
        bump()
    }
    fn visit_none<E: de::Error>(self) -> Result<Counted, E> {
        bump()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Counted, D::Error> {
        Counted::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Counted, A::Error> {
        bump::<A::Error>()?;
        while seq.next_element::<Counted>()?.is_some() {}
        Ok(Counted)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Counted, A::Error> {
        bump::<A::Error>()?;
        while map.next_entry::<Counted, Counted>()?.is_some() {}
        Ok(Counted)
    }
}

/// Found while writing `fuzz/fuzz_targets/typed_decode.rs`, which reports this input
/// (`doubling_references(40)`: hex `58b97a9090`, then `7a51xx51xx` with xx = `91`..`b8`) as a
/// libFuzzer timeout when decoding into `serde_json::Value`. The serde layer resolves a `Q`
/// reference by decoding the referenced bytes again, and the referenced list may itself hold
/// references, so the work doubles with each level: 40 levels (205 bytes) ask for 2^40
/// values, which never finishes (and into `serde_json::Value` exhausts memory). Java builds a
/// shared graph instead. Hostile bytes must not cost more than some multiple of their length:
/// replays need a budget (e.g. values or bytes replayed bounded by a multiple of the input
/// length), past which decoding fails with an error. Fixed: `de` keeps a replay budget of 256
/// bytes per input byte (at least 64 KiB).
#[test]
fn nested_references_do_not_expand_exponentially() {
    let bytes = doubling_references(40);
    NODES.with(|c| c.set(0));
    let result = hessian2::from_slice::<Counted>(&bytes);
    let nodes = NODES.with(|c| c.get());
    if let Err(e) = &result {
        assert!(
            !e.to_string().contains("test budget exceeded"),
            "{} bytes made the deserializer hand out more than {BUDGET} values",
            bytes.len()
        );
    }
    assert!(
        nodes <= 1000 * bytes.len() as u64,
        "{nodes} values from {} bytes",
        bytes.len()
    );
}

/// The same shape with a few levels is ordinary shared data and must keep decoding.
#[test]
fn a_few_levels_of_shared_lists_decode() {
    let bytes = doubling_references(3);
    let v: serde_json::Value = hessian2::from_slice(&bytes).unwrap();
    let a0 = serde_json::json!([0, 0]);
    let a1 = serde_json::json!([a0, a0]);
    let a2 = serde_json::json!([a1, a1]);
    let a3 = serde_json::json!([a2, a2]);
    assert_eq!(v, serde_json::json!([a0, a1, a2, a3]));
    // The dynamic Value keeps references as they are: no expansion at all.
    let stream = hessian2::value::Stream::from_slice(&doubling_references(46)).unwrap();
    assert_eq!(stream.values.len(), 1);
}

/// Found by `value_decode` after 1.8 million runs (an 8 KiB run of `V`, `R` and NUL bytes, a
/// stack overflow under AddressSanitizer). A list's type, a class definition's name and field
/// count, an object's class index and a chunk's length are scalars read with
/// `Decoder::expect`, which pulled whatever header came next: a `V` there started another
/// list, whose type was read the same way, so each byte recursed once more, past the depth
/// limit (which counts only values) until the stack ran out. Fixed: `expect` refuses a list,
/// map, class definition, object or reference before pulling it.
#[test]
fn nested_headers_in_lengths_and_names_do_not_recurse() {
    for (start, filler) in [
        (b'V', b'V'), // list type read as a type reference
        (b'U', b'U'),
        (b'X', b'X'), // a fixed untyped list's length
        (b'M', b'M'), // map type
        (b'C', b'C'), // class name
        (b'O', b'O'), // object class index
        (b'V', b'C'),
        (b'C', b'V'),
        (b'R', b'V'), // a string chunk followed by a list where the next chunk belongs
    ] {
        let mut bytes = vec![start];
        bytes.resize(200_000, filler);
        let what = format!("{} then {}", start as char, filler as char);
        assert!(
            hessian2::value::Stream::from_slice(&bytes).is_err(),
            "{what}: Value"
        );
        assert!(
            hessian2::from_slice::<serde_json::Value>(&bytes).is_err(),
            "{what}: serde"
        );
        let mut d = hessian2::decode::Decoder::new(hessian2::input::SliceInput::new(&bytes));
        assert!(d.skip().is_err(), "{what}: skip");
    }
}

/// Found by `value_encode`, `value_roundtrip` and `chunked_input` within minutes of each other,
/// after a speed-up of one-chunk text (a `prefix_of_units` in decode/string.rs): to find where
/// non-ASCII text ends, the decoder counted its UTF-16 units, then stepped over every byte that
/// looked like a UTF-8 continuation (`0x80..=0xbf`). But the bytes after the text belong to
/// the next value, and an int 0..=47 is written as one byte `0x90 + n`: after `é` in a class
/// name, the field count `0x91` was taken as part of the name, which then failed UTF-8
/// validation, so our own encoding of any object with a non-ASCII class name did not decode
/// (and an empty string swallowed the same way). `chunked_input` also found that on malformed
/// text it ended the string elsewhere than the chunked path, so the two reported different
/// offsets. Fixed: one-chunk text is found by `scan` again, which steps over each character by
/// its lead byte's width, as the chunked path does (the speed-up had measured 1% on CJK).
#[test]
fn text_followed_by_continuation_like_bytes() {
    use bytes::Buf;
    use hessian2::value::{Object, Stream, Value};

    for class in ["é", "ߩ", "中", "😀", "a.b.Cé", "\0\0ߩK*/"] {
        let v = Value::Object(Object::new(class, [("f0", Value::Null)]));
        let bytes = hessian2::value::to_vec(&v);
        assert_eq!(
            hessian2::value::from_slice(&bytes).unwrap(),
            v,
            "{class}: {bytes:02x?}"
        );
    }
    // A string, then the int 1 (`0x91`); an empty string, then the same.
    for (bytes, text) in [(&b"\x01\xc3\xa9\x91"[..], "é"), (&b"\x00\x91"[..], "")] {
        let stream = Stream::from_slice(bytes).unwrap();
        assert_eq!(
            stream.values,
            [Value::String(text.into()), Value::Int(1)],
            "{bytes:02x?}"
        );
    }
    // Malformed text (a 3-byte lead followed by ASCII): the same error at the same offset
    // from a slice and from a chain cut anywhere (`chunked_input`'s input, its class name).
    let bad = b"\x43\x30\x24\x69\xef\x2e\x67\x68\x75\x62\x2e\x68\x65\x73\x65\x73\x73\x69\x61\x6e\x72\x73\x2e\x69\x6e\x74\x65\x72\x6f\x70\x2e\x6d\x6c\x65\x4f\x2e\x6f\x64\x70\x91\x04\x6e\x61\x6d\x65\x60\x04\x50\x4c\x55\x53";
    fn first_error<'de>(input: impl hessian2::input::Input<'de>) -> hessian2::Error {
        let mut d = hessian2::value::ValueDecoder::new(input);
        loop {
            match d.next_value() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("no error"),
                Err(e) => return e,
            }
        }
    }
    let whole = first_error(hessian2::input::SliceInput::new(bad));
    for cut in 0..=bad.len() {
        let chain = (&bad[..cut]).chain(&bad[cut..]);
        let split = first_error(hessian2::input::BufInput::new(chain));
        assert_eq!(
            (split.offset(), split.to_string()),
            (whole.offset(), whole.to_string()),
            "cut at {cut}"
        );
    }
    // The same inside a list, from a slice and from every two-piece chain of it.
    let list = b"\x7a\x01\xc3\xa9\x91";
    let want = serde_json::json!(["é", 1]);
    assert_eq!(
        hessian2::from_slice::<serde_json::Value>(list).unwrap(),
        want
    );
    for cut in 0..=list.len() {
        let chain = (&list[..cut]).chain(&list[cut..]);
        assert_eq!(
            hessian2::from_buf::<serde_json::Value>(chain).unwrap(),
            want,
            "cut at {cut}"
        );
    }
}

/// Guards the fast end of one-chunk text (`utf8_prefix` and `cesu_units` in decode/string.rs,
/// which find where its units end without `scan`; first written as a count of lead bytes
/// eight at a time): text over several 8-byte words, in UTF-8 and in Java's CESU-8, followed
/// by a continuation-like int (`0x91`, `0xbf`) or by more text (which a miscount would take in
/// as valid UTF-8), decodes the same from a slice and from every
/// two-piece chain; and the same text with any one byte corrupted gives the same values or the
/// same first error (offset and message) from both.
#[test]
fn multi_word_text_ends_and_fails_alike_from_slices_and_chains() {
    use bytes::Buf;
    use hessian2::value::{Value, ValueDecoder};

    fn values<'de>(input: impl hessian2::input::Input<'de>) -> Result<Vec<Value>, String> {
        let mut d = ValueDecoder::new(input);
        let mut out = Vec::new();
        loop {
            match d.next_value() {
                Ok(Some(v)) => out.push(v),
                Ok(None) => return Ok(out),
                Err(e) => return Err(format!("{} at {}", e, e.offset())),
            }
        }
    }
    fn agree(wire: &[u8]) -> Result<Vec<Value>, String> {
        let whole = values(hessian2::input::SliceInput::new(wire));
        for cut in 0..=wire.len() {
            let chain = (&wire[..cut]).chain(&wire[cut..]);
            let split = values(hessian2::input::BufInput::new(chain));
            assert_eq!(split, whole, "cut at {cut} of {wire:02x?}");
        }
        whole
    }
    // A one-chunk string of `units` UTF-16 units with the raw text `bytes`, then `next`.
    fn wire(units: usize, bytes: &[u8], next: &[u8]) -> Vec<u8> {
        let mut w = match units {
            0..=31 => vec![units as u8],
            _ => vec![0x30 + (units >> 8) as u8, units as u8],
        };
        w.extend_from_slice(bytes);
        w.extend_from_slice(next);
        w
    }
    let cesu_grin = b"\xed\xa0\xbd\xed\xb8\x80"; // U+1F600 as Java writes it
    let cases: Vec<(String, usize, Vec<u8>)> = [1, 3, 8, 11, 21]
        .into_iter()
        .flat_map(|k| {
            let cjk = "中é".repeat(k);
            let utf8 = format!("a{}", "😀".repeat(k));
            let cesu: Vec<u8> = [&b"a"[..], &cesu_grin.repeat(k)].concat();
            [
                (cjk.clone(), 2 * k, cjk.into_bytes()),
                (utf8.clone(), 1 + 2 * k, utf8.into_bytes()),
                (format!("a{}", "😀".repeat(k)), 1 + 2 * k, cesu),
            ]
        })
        .collect();
    for (text, units, bytes) in &cases {
        let nexts = [
            (&b"\x91"[..], Value::Int(1)),
            (b"\xbf", Value::Int(47)),
            (
                b"\x10abcdefghijklmnop",
                Value::String("abcdefghijklmnop".into()),
            ),
        ];
        for (next, then) in nexts {
            let w = wire(*units, bytes, next);
            let want = vec![Value::String(text.clone()), then];
            assert_eq!(agree(&w), Ok(want), "{text}");
            for at in 0..bytes.len() {
                for bad in [0x80u8, 0x91, 0xc3, 0xe4, 0xed, 0xf0, 0xff, b'a'] {
                    let mut corrupt = bytes.clone();
                    corrupt[at] = bad;
                    // Values or an error: either, as long as slice and chains agree.
                    let _ = agree(&wire(*units, &corrupt, next));
                }
            }
        }
    }
}

/// Where one value ended, or the kind and offset of its error.
type Outcome = Result<u64, (ErrorKind, u64)>;

/// Every way this crate steps over or reads one value of `wire`: the error kind and offset of
/// `ValueDecoder`, `Decoder::skip`, the serde layer's skip (`IgnoredAny`, and the deserializer's
/// own `skip_value`) and a serde decode into `serde_json::Value`; all must be the same.
fn one_value_everywhere(wire: &[u8]) -> Vec<(&'static str, Outcome)> {
    use hessian2::decode::Decoder;
    use hessian2::input::SliceInput;
    use hessian2::value::ValueDecoder;
    fn end(r: Result<u64, hessian2::Error>) -> Outcome {
        r.map_err(|e| (e.kind().clone(), e.offset()))
    }
    let mut full = ValueDecoder::new(SliceInput::new(wire));
    let full = full.next_value().map(|_| full.decoder().offset());
    let mut skipper = Decoder::new(SliceInput::new(wire));
    let skipped = skipper.skip().map(|()| skipper.offset());
    let mut de = hessian2::de::Deserializer::from_slice(wire);
    let ignored = de.next_value::<de::IgnoredAny>().map(|_| de.offset());
    let mut de = hessian2::de::Deserializer::from_slice(wire);
    let serde_skip = de.skip_value().map(|()| de.offset());
    let mut de = hessian2::de::Deserializer::from_slice(wire);
    let any = de.next_value::<Counted>().map(|_| de.offset());
    vec![
        ("ValueDecoder", end(full)),
        ("Decoder::skip", end(skipped)),
        ("serde IgnoredAny", end(ignored)),
        ("serde skip_value", end(serde_skip)),
        ("serde deserialize_any", end(any)),
    ]
}

/// Found by `skip_agrees` (`fuzz/run-all 10`, after 68,490 executions; minimized to
/// `48 43 00 90 5a`: a map, a class definition `C "" 0` in its first key position, then `Z`).
/// `pull` reads class definitions on its way to the next header, and the skip loops of maps
/// and variable-length lists (`Decoder::skip_rest`, and the serde layer's `skip_rest` /
/// `skip_to_end`) took any `End` it returned as the container's end, so a definition
/// directly before the `Z` was stepped over. `ValueDecoder` (like Java's
/// `Hessian2Input.readObject`) only ends a container at a `Z` where an item or key would begin;
/// a definition must be followed by the value it introduces, so it fails at the `Z` with
/// `Unexpected { found: 0x5a, expected: "a value" }` (at the offset after the `Z`). The proxy
/// steps over arguments with `skip`, so it took as one value bytes that every decoder rejects.
/// Fixed: the skip loops look for the `Z` as the next byte, as `ValueDecoder` does; and the
/// serde layer reports a `Z` where a value should be as the same structural error (it said
/// "invalid type: end of list or map" at the offset of the definition).
#[test]
fn definition_before_end_marker() {
    let z = |at: u64| {
        Err((
            ErrorKind::Unexpected {
                found: 0x5a,
                expected: "a value",
            },
            at,
        ))
    };
    let eof = |at: u64| Err((ErrorKind::Eof { needed: 1 }, at));
    // `C "" 0`: the empty class with no fields; `C "a" 1 "f"`: class `a` with field `f`.
    let cases: Vec<(&str, Vec<u8>, Outcome)> = vec![
        (
            "the finding: map key",
            b"\x48\x43\x00\x90\x5a".to_vec(),
            z(5),
        ),
        ("map value", b"\x48\x91\x43\x00\x90\x5a".to_vec(), z(6)),
        ("typed map key", b"\x4d\x01t\x43\x00\x90\x5a".to_vec(), z(7)),
        ("variable list item", b"\x57\x43\x00\x90\x5a".to_vec(), z(5)),
        (
            "typed list item",
            b"\x55\x01t\x43\x00\x90\x5a".to_vec(),
            z(7),
        ),
        ("fixed list item", b"\x79\x43\x00\x90\x5a".to_vec(), z(5)),
        ("after an item", b"\x57\x91\x43\x00\x90\x5a".to_vec(), z(6)),
        (
            "two definitions",
            b"\x48\x43\x00\x90\x43\x01a\x90\x5a".to_vec(),
            z(9),
        ),
        ("nested map", b"\x57\x48\x43\x00\x90\x5a\x5a".to_vec(), z(6)),
        (
            "object field",
            b"\x43\x01a\x91\x01f\x60\x43\x00\x90\x5a".to_vec(),
            z(11),
        ),
        ("top level", b"\x43\x00\x90\x5a".to_vec(), z(4)),
        (
            "end of input in a map",
            b"\x48\x43\x00\x90".to_vec(),
            eof(4),
        ),
        (
            "end of input in a list",
            b"\x57\x43\x00\x90".to_vec(),
            eof(4),
        ),
        // Controls: a definition followed by its object, and a plain `Z`, are fine.
        (
            "object as key",
            b"\x48\x43\x00\x90\x60\x91\x5a".to_vec(),
            Ok(7),
        ),
        (
            "object as item",
            b"\x57\x43\x00\x90\x60\x5a".to_vec(),
            Ok(6),
        ),
        ("empty map", b"\x48\x5a".to_vec(), Ok(2)),
    ];
    for (what, wire, want) in cases {
        for (reader, got) in one_value_everywhere(&wire) {
            assert_eq!(got, want, "{what} ({wire:02x?}): {reader}");
        }
    }
    // Typed decodes meet the `Z` in a key, an item or a field and report it the same way.
    let finding = b"\x48\x43\x00\x90\x5a";
    let e = hessian2::from_slice::<std::collections::HashMap<String, i32>>(finding).unwrap_err();
    assert_eq!((e.kind().clone(), e.offset()), z(5).unwrap_err());
    let e = hessian2::from_slice::<Vec<i32>>(b"\x57\x43\x00\x90\x5a").unwrap_err();
    assert_eq!((e.kind().clone(), e.offset()), z(5).unwrap_err());
    let e = hessian2::from_slice::<(String,)>(b"\x79\x43\x00\x90\x5a").unwrap_err();
    assert_eq!((e.kind().clone(), e.offset()), z(5).unwrap_err());
}
