//! The vectors real Java wrote (`interop/fastjson2-java`: fastjson2 2.0.52 with Dubbo's write
//! features, committed under `tests/vectors/`): every one decodes to the value fastjson2's own
//! reader sees in it (`manifest.json`'s wire canon), re-encodes to Java's exact bytes, is
//! skipped whole, and every strict prefix of it is an end-of-input error. Then Java reads our
//! encodings back (`check`), when the jar can be built.
//!
//! The wire canon (see `interop/fastjson2-java/README.md`): `null`, `true`/`false` and strings
//! as themselves; `{"i": n}` int32, `{"l": n}` int64, `{"b": n}` byte, `{"s": n}` short,
//! `{"f": bits}` / `{"d": bits}` float / double (signed raw bits), `{"c": unit}` char,
//! `{"sym": s}` symbol, `{"bin": hex}`, `{"bigint": hex}`, `{"dec": hex, "scale": n}`,
//! `{"date": ms}`, `{"instant": [s, n]}`, `{"ld": [y, m, d]}`, `{"lt": [h, m, s, n]}`,
//! `{"ldt": [...7]}`, `{"zdt": [...7, zone]}`, arrays as arrays, `{"obj": [[k, v], ...]}`,
//! `{"type": class, "value": v}`, `{"ref": path}`.

mod common;

use common::{vectors, vectors_2_0_56};
use fastjson2::decode::Decoder;
use fastjson2::encode::PeerVersion;
use fastjson2::frame::read_framed;
use fastjson2::value::{self, Value};
use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};

fn hex(b: &[u8]) -> String {
    b.iter().map(|b| format!("{b:02x}")).collect()
}

fn canon(v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => json!(b),
        Value::Int(n) => json!({ "i": n }),
        Value::Long(n) => json!({ "l": n }),
        Value::Byte(n) => json!({ "b": n }),
        Value::Short(n) => json!({ "s": n }),
        Value::Float(f) => json!({ "f": f.to_bits() as i32 }),
        Value::Double(d) => json!({ "d": d.to_bits() as i64 }),
        Value::Char(c) => json!({ "c": c }),
        Value::String(s) => json!(s),
        Value::Symbol(s) => json!({ "sym": s.as_str() }),
        Value::Binary(b) => json!({ "bin": hex(b) }),
        Value::BigInteger(b) => json!({ "bigint": hex(b.as_be_bytes()) }),
        Value::BigDecimal(d) => {
            json!({ "dec": hex(d.unscaled.as_be_bytes()), "scale": d.scale })
        }
        Value::Date(ms) => json!({ "date": ms }),
        Value::Instant(i) => json!({ "instant": [i.seconds, i.nanos] }),
        Value::LocalDate(d) => json!({ "ld": [d.year, d.month, d.day] }),
        Value::LocalTime(t) => json!({ "lt": [t.hour, t.minute, t.second, t.nano] }),
        Value::LocalDateTime(dt) => json!({ "ldt": date_time(dt) }),
        Value::ZonedDateTime(z) => {
            let mut a = date_time(&z.date_time);
            a.push(json!(z.zone));
            json!({ "zdt": a })
        }
        Value::Array(items) => Json::Array(items.iter().map(canon).collect()),
        Value::Object(entries) => {
            json!({ "obj": entries.iter().map(|(k, v)| json!([canon(k), canon(v)])).collect::<Vec<_>>() })
        }
        Value::Typed(t) => json!({ "type": t.class, "value": canon(&t.value) }),
        Value::Ref(p) => json!({ "ref": p }),
        other => panic!("no canon for {other:?}"),
    }
}

fn date_time(dt: &fastjson2::types::LocalDateTime) -> Vec<Json> {
    let (d, t) = (dt.date, dt.time);
    vec![
        json!(d.year),
        json!(d.month),
        json!(d.day),
        json!(t.hour),
        json!(t.minute),
        json!(t.second),
        json!(t.nano),
    ]
}

/// The two vector sets: fastjson2 2.0.52 (Dubbo 3.2.19) and 2.0.56 (Dubbo 3.3.5), with the
/// encoder version that must give their bytes.
fn sets() -> [(PathBuf, PeerVersion, &'static str); 2] {
    [
        (vectors(), PeerVersion::V2_0_52, "2.0.52"),
        (vectors_2_0_56(), PeerVersion::V2_0_56, "2.0.56"),
    ]
}

fn manifest_of(dir: &Path, version: &str) -> Vec<Json> {
    let text = std::fs::read_to_string(dir.join("manifest.json")).unwrap();
    let m: Json = serde_json::from_str(&text).unwrap();
    assert_eq!(m["fastjson2"], version);
    m["cases"].as_array().unwrap().clone()
}

/// Cut points to try: all of a small file, a sample of a large one (each cut decodes up to
/// the cut, so all cuts of the 300 kB string would be quadratic).
fn cuts(len: usize) -> Vec<usize> {
    if len <= 4096 {
        (0..len).collect()
    } else {
        (0..64)
            .chain((64..len).step_by(997))
            .chain(len - 64..len)
            .collect()
    }
}

#[test]
fn java_vectors_decode_to_javas_values_and_reencode_to_javas_bytes() {
    for (dir, version, name) in sets() {
        let checked = check_set(&dir, version, name);
        assert!(checked >= 150, "{name}: only {checked} vectors");
    }
}

fn check_set(dir: &Path, version: PeerVersion, set: &str) -> usize {
    let mut checked = 0;
    for case in manifest_of(dir, set) {
        let name = case["name"].as_str().unwrap();
        let Some(wire) = case.get("wire") else {
            continue;
        };
        let bytes = std::fs::read(dir.join(format!("{name}.bin"))).unwrap();
        let v = value::from_slice(&bytes).unwrap_or_else(|e| panic!("{set} {name}: {e}"));
        assert_eq!(&canon(&v), wire, "{set} {name}");
        let again = value::to_vec_with(&v, version);
        assert_eq!(hex(&again), hex(&bytes), "{set} {name}: re-encoding");

        let mut d = Decoder::new(&bytes);
        d.skip()
            .unwrap_or_else(|e| panic!("{set} {name}: skip: {e}"));
        assert!(d.is_end(), "{set} {name}: skip stopped at {}", d.offset());

        for cut in cuts(bytes.len()) {
            let err = value::from_slice(&bytes[..cut]).expect_err(name);
            assert!(err.is_eof(), "{set} {name} cut at {cut}: {err}");
            assert!(
                err.offset() <= cut as u64,
                "{set} {name} cut at {cut}: {err}"
            );
            let err = Decoder::new(&bytes[..cut]).skip().expect_err(name);
            assert!(err.is_eof(), "{set} {name} skip cut at {cut}: {err}");
        }
        checked += 1;
    }
    checked
}

#[test]
fn dubbo_framed_objects_decode_one_by_one() {
    let case = manifest_of(&vectors(), "2.0.52")
        .into_iter()
        .find(|c| c["name"] == "dubbo_frames")
        .unwrap();
    let expected = case["framed"].as_array().unwrap();
    let body = std::fs::read(vectors().join("dubbo_frames.framed")).unwrap();
    let mut rest = &body[..];
    let mut got = Vec::new();
    while !rest.is_empty() {
        let (doc, tail) = read_framed(rest).unwrap();
        got.push(canon(&value::from_slice(doc).unwrap()));
        rest = tail;
    }
    assert_eq!(&got, expected);
}

/// fastjson2 reads our re-encodings as it reads its own bytes (the check compares the objects
/// it gets by writing both again), for both vector sets.
#[test]
fn java_reads_our_encodings_back() {
    for (dir, version, set) in sets() {
        let mut files = Vec::new();
        for case in manifest_of(&dir, set) {
            let name = case["name"].as_str().unwrap();
            if case.get("wire").is_none() {
                continue;
            }
            let bytes = std::fs::read(dir.join(format!("{name}.bin"))).unwrap();
            let v = value::from_slice(&bytes).unwrap();
            files.push((format!("{name}.bin"), value::to_vec_with(&v, version)));
        }
        common::java_reads_back(set, &dir, &files);
    }
}
