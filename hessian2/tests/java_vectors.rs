//! The vectors real Java wrote (`interop/java`, committed under `tests/vectors/`): for every
//! case of both hessian-lite generations, we decode Java's bytes to the value Java described in
//! the manifest, and re-encoding gives Java's bytes exactly. A second test hands our encodings
//! back to Java (the `compare-dir` command of the interop tool) and checks Java decodes them to
//! the same values as its own bytes.

use std::path::{Path, PathBuf};
use std::process::Command;

use hessian2::encode::{Encoder, PeerVersion};
use hessian2::value::{Stream, Value};
use serde_json::{json, Value as Json};

const GENERATIONS: [(&str, PeerVersion); 2] =
    [("lite3", PeerVersion::V3), ("lite4", PeerVersion::V4)];

fn vectors_dir(generation: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/vectors")
        .join(generation)
}

struct Case {
    name: String,
    bytes: Vec<u8>,
    expected: Vec<Json>,
}

fn cases(generation: &str) -> Vec<Case> {
    let dir = vectors_dir(generation);
    let text = std::fs::read_to_string(dir.join("manifest.json")).expect("vectors manifest");
    let manifest: Json =
        serde_json::from_str(&mark_lone_surrogates(&text)).expect("manifest is JSON");
    manifest
        .as_array()
        .expect("manifest is an array")
        .iter()
        .map(|case| Case {
            name: case["name"].as_str().expect("name").to_owned(),
            bytes: std::fs::read(dir.join(case["file"].as_str().expect("file"))).expect("vector"),
            expected: case["values"].as_array().expect("values").clone(),
        })
        .collect()
}

/// The manifest with each lone surrogate escape (`\\udXXX` without its partner, which
/// `serde_json` refuses) written as the text `\\u{dxxx}`, as [`lone_marked`] writes them.
fn mark_lone_surrogates(json: &str) -> String {
    let unit_at = |i: usize| -> Option<u16> {
        let escape = json.get(i..i + 6)?;
        let hex = escape.strip_prefix("\\u")?;
        u16::from_str_radix(hex, 16).ok()
    };
    let mut out = String::with_capacity(json.len());
    let mut i = 0;
    while let Some(c) = json[i..].chars().next() {
        let unit = if c == '\\' { unit_at(i) } else { None };
        match unit {
            Some(0xd800..=0xdbff)
                if unit_at(i + 6).is_some_and(|low| (0xdc00..0xe000).contains(&low)) =>
            {
                out.push_str(&json[i..i + 12]);
                i += 12;
            }
            Some(lone @ 0xd800..=0xdfff) => {
                out.push_str(&format!("\\\\u{{{lone:x}}}"));
                i += 6;
            }
            _ if c == '\\' => {
                // Any other escape, kept whole (`\\\\` must not start a `\\u` here).
                let n = if unit.is_some() { 6 } else { 2 };
                out.push_str(&json[i..i + n]);
                i += n;
            }
            _ => {
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    out
}

/// Java's text of UTF-16 units, lone surrogates written as `\\u{dxxx}`.
fn lone_marked(units: &[u16]) -> String {
    char::decode_utf16(units.iter().copied())
        .map(|c| match c {
            Ok(c) => c.to_string(),
            Err(e) => format!("\\u{{{:x}}}", e.unpaired_surrogate()),
        })
        .collect()
}

/// The canonical JSON of the interop tool (see `interop/java/README.md`).
fn canonical(v: &Value) -> Json {
    let ty = |t: &Option<std::sync::Arc<str>>| t.as_deref().map_or(Json::Null, |t| json!(t));
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => json!(b),
        Value::Int(i) => json!({ "int": i }),
        Value::Long(l) => json!({ "long": l }),
        Value::Double(d) => json!({ "double": format!("{:016x}", d.to_bits()) }),
        Value::Date(ms) => json!({ "date": ms }),
        Value::String(s) => json!({ "string": s }),
        Value::Utf16(units) => json!({ "string": lone_marked(units) }),
        Value::Binary(b) => {
            json!({ "binary": b.iter().map(|x| format!("{x:02x}")).collect::<String>() })
        }
        Value::List(l) => {
            json!({ "list": l.items.iter().map(canonical).collect::<Vec<_>>(), "type": ty(&l.ty) })
        }
        Value::Map(m) => json!({
            "map": m.entries.iter().map(|(k, v)| json!([canonical(k), canonical(v)])).collect::<Vec<_>>(),
            "type": ty(&m.ty),
        }),
        Value::Object(o) => json!({
            "object": &*o.class,
            "fields": o.iter().map(|(n, v)| json!([n, canonical(v)])).collect::<Vec<_>>(),
        }),
        Value::Ref(n) => json!({ "ref": n }),
    }
}

fn reencode(stream: &Stream, version: PeerVersion) -> Vec<u8> {
    let mut enc = Encoder::with_version(Vec::new(), version);
    for v in &stream.values {
        v.encode(&mut enc);
    }
    enc.into_inner()
}

#[test]
fn java_vectors_decode_to_javas_values_and_reencode_to_javas_bytes() {
    let mut failures = Vec::new();
    let mut count = 0;
    for (generation, version) in GENERATIONS {
        for case in cases(generation) {
            count += 1;
            let stream = match Stream::from_slice(&case.bytes) {
                Ok(s) => s,
                Err(e) => {
                    failures.push(format!("{generation}/{}: decode failed: {e}", case.name));
                    continue;
                }
            };
            let got: Vec<Json> = stream.values.iter().map(canonical).collect();
            if got != case.expected {
                failures.push(format!(
                    "{generation}/{}: decoded\n  {}\nJava says\n  {}",
                    case.name,
                    Json::from(got),
                    Json::from(case.expected.clone())
                ));
                continue;
            }
            let ours = reencode(&stream, version);
            if ours != case.bytes {
                let at = ours
                    .iter()
                    .zip(&case.bytes)
                    .take_while(|(a, b)| a == b)
                    .count();
                failures.push(format!(
                    "{generation}/{}: re-encoding differs at byte {at} (ours {} bytes, Java {})",
                    case.name,
                    ours.len(),
                    case.bytes.len()
                ));
            }
        }
    }
    assert!(
        count >= 300,
        "expected at least 150 vectors per generation, found {count}"
    );
    assert!(
        failures.is_empty(),
        "{} of {count} vectors failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Builds the interop jar with Maven when it is not there yet (CI starts from a clean clone).
fn interop_jar(generation: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../interop/java");
    let jar = root
        .join("target")
        .join(generation)
        .join("hessian-interop.jar");
    if !jar.exists() {
        let status = Command::new("bash")
            .arg(root.join("build"))
            .status()
            .expect("run interop/java/build (needs Java and Maven)");
        assert!(status.success(), "interop/java/build failed");
    }
    jar
}

#[test]
fn java_decodes_our_encodings_to_the_same_values() {
    for (generation, version) in GENERATIONS {
        let ours =
            std::env::temp_dir().join(format!("hessian2-ours-{generation}-{}", std::process::id()));
        std::fs::create_dir_all(&ours).unwrap();
        for case in cases(generation) {
            let stream = Stream::from_slice(&case.bytes).expect("decodes (see the other test)");
            std::fs::write(
                ours.join(format!("{}.bin", case.name)),
                reencode(&stream, version),
            )
            .unwrap();
        }
        let output = Command::new("java")
            .arg("-jar")
            .arg(interop_jar(generation))
            .arg("compare-dir")
            .arg(vectors_dir(generation))
            .arg(&ours)
            .output()
            .expect("run java");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let oks = stdout.lines().filter(|l| l.starts_with("ok ")).count();
        std::fs::remove_dir_all(&ours).ok();
        assert!(
            output.status.success() && oks >= 150,
            "{generation}: Java disagreed ({oks} ok):\n{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
