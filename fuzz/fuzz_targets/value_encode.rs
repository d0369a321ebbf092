//! Structured: arbitrary `Value` streams (built with `arbitrary`, references always to a
//! container already started, nesting within the decoder's limit) encode without panicking and
//! decode back equal, in both hessian-lite generations; decoding with `skip` ends each value
//! where the encoder ended it.
#![no_main]

use std::sync::Arc;

use arbitrary::Arbitrary;
use bytes::Bytes;
use hessian2::decode::Decoder;
use hessian2::encode::{Encoder, PeerVersion};
use hessian2::input::SliceInput;
use hessian2::value::{List, Map, Object, Stream, Value};
use libfuzzer_sys::fuzz_target;

/// Nesting kept below the decoder's default limit of 128.
const MAX_DEPTH: usize = 100;

#[derive(Arbitrary, Debug)]
enum AValue {
    Null,
    Bool(bool),
    Int(i32),
    Long(i64),
    Double(f64),
    Date(i64),
    String(String),
    /// A long string made of a repeated piece.
    LongString(String, u16),
    Binary(Vec<u8>),
    /// A long binary (across the 4093/8189-byte chunk sizes) of one repeated byte.
    LongBinary(u8, u16),
    List(Option<TypeName>, Vec<AValue>),
    Map(Option<TypeName>, Vec<(AValue, AValue)>),
    Object(TypeName, Vec<(FieldName, AValue)>),
    Ref(u32),
}

/// Type and class names from a small set (so that the type and class tables get reused), or
/// free text.
#[derive(Arbitrary, Debug)]
enum TypeName {
    Known(u8),
    Free(String),
}

impl TypeName {
    fn get(&self) -> String {
        const KNOWN: [&str; 6] = [
            "java.util.ArrayList",
            "[int",
            "[object",
            "com.example.User",
            "java.util.HashMap",
            "",
        ];
        match self {
            TypeName::Known(i) => KNOWN[*i as usize % KNOWN.len()].to_owned(),
            TypeName::Free(s) => s.clone(),
        }
    }
}

#[derive(Arbitrary, Debug)]
struct FieldName(u8);

struct Build {
    containers: u32,
    /// Bytes left for long strings and binaries, to keep executions fast.
    budget: usize,
}

impl Build {
    fn spend(&mut self, n: usize) -> bool {
        let ok = n <= self.budget;
        if ok {
            self.budget -= n;
        }
        ok
    }

    fn value(&mut self, v: &AValue, depth: usize) -> Value {
        match v {
            AValue::Null => Value::Null,
            AValue::Bool(b) => Value::Bool(*b),
            AValue::Int(i) => Value::Int(*i),
            AValue::Long(l) => Value::Long(*l),
            AValue::Double(d) => Value::Double(*d),
            AValue::Date(d) => Value::Date(*d),
            AValue::String(s) => Value::String(s.clone()),
            AValue::LongString(s, n) => {
                // 1024..=66559 UTF-16 units: past the compact forms and across 0x8000-unit
                // chunks, where a surrogate pair may straddle a chunk end.
                let piece = if s.is_empty() { "x" } else { s.as_str() };
                let units = 1024 + *n as usize;
                let piece_units = piece.encode_utf16().count();
                let text = piece.repeat(units.div_ceil(piece_units));
                if !self.spend(text.len()) {
                    return Value::Null;
                }
                Value::String(text)
            }
            AValue::Binary(b) => Value::Binary(Bytes::copy_from_slice(b)),
            AValue::LongBinary(b, n) => {
                let len = 1024 + *n as usize % 20_000;
                if !self.spend(len) {
                    return Value::Null;
                }
                Value::Binary(Bytes::from(vec![*b; len]))
            }
            _ if depth >= MAX_DEPTH => Value::Null,
            AValue::List(ty, items) => {
                self.containers += 1;
                Value::List(List {
                    ty: ty.as_ref().map(|t| Arc::from(t.get())),
                    items: items.iter().map(|i| self.value(i, depth + 1)).collect(),
                })
            }
            AValue::Map(ty, entries) => {
                self.containers += 1;
                Value::Map(Map {
                    ty: ty.as_ref().map(|t| Arc::from(t.get())),
                    entries: entries
                        .iter()
                        .map(|(k, v)| (self.value(k, depth + 1), self.value(v, depth + 1)))
                        .collect(),
                })
            }
            AValue::Object(class, fields) => {
                self.containers += 1;
                let names: Vec<Arc<str>> = fields
                    .iter()
                    .map(|(f, _)| Arc::from(format!("f{}", f.0 % 8)))
                    .collect();
                Value::Object(Object {
                    class: Arc::from(class.get()),
                    fields: names.into(),
                    values: fields
                        .iter()
                        .map(|(_, v)| self.value(v, depth + 1))
                        .collect(),
                })
            }
            AValue::Ref(n) => match self.containers {
                0 => Value::Null,
                started => Value::Ref(n % started),
            },
        }
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    v4: bool,
    values: Vec<AValue>,
}

fuzz_target!(|input: Input| {
    let mut build = Build {
        containers: 0,
        budget: 300_000,
    };
    let values: Vec<Value> = input.values.iter().map(|v| build.value(v, 0)).collect();
    let version = if input.v4 {
        PeerVersion::V4
    } else {
        PeerVersion::V3
    };

    // Encode value by value, remembering where each ends.
    let mut enc = Encoder::with_version(Vec::new(), version);
    let mut ends = Vec::new();
    for v in &values {
        v.encode(&mut enc);
        ends.push(enc.get_ref().len() as u64);
    }
    let bytes = enc.into_inner();
    let whole = Stream { values: values.clone() };
    assert_eq!(bytes, whole.to_vec_with(version));

    let decoded = match Stream::from_slice(&bytes) {
        Ok(s) => s.values,
        Err(e) => panic!("our encoding does not decode: {e:?}\nvalues: {values:?}"),
    };
    assert!(
        fuzz_support::values_eq(&values, &decoded),
        "decode(encode(v)) != v:\n v:       {values:?}\n decoded: {decoded:?}"
    );

    let mut skipper = Decoder::new(SliceInput::new(&bytes));
    for end in ends {
        skipper.skip().expect("skip over our own encoding");
        assert_eq!(
            skipper.offset(),
            end,
            "skip ends a value elsewhere than the encoder"
        );
    }
    assert!(skipper.is_empty());
});
