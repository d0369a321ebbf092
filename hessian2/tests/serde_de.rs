//! The deserializer's contract: truncation is EOF, unknown fields are skipped (and still
//! counted for references), references give equal values, borrowing and zero-copy, numeric
//! coercions, limits and error offsets.

use std::collections::HashMap;
use std::path::Path;

use bytes::{Buf, Bytes};
use hessian2::{Deserializer, ErrorKind, Serializer};
use interop_model::{Node, User};
use serde::{Deserialize, Serialize};

fn vector(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/vectors/lite3")
            .join(format!("{name}.bin")),
    )
    .unwrap()
}

/// Decodes every value of `bytes` as `T`s, or the first error.
fn decode_all<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> hessian2::Result<Vec<T>> {
    let mut de = Deserializer::from_slice(bytes);
    let mut out = Vec::new();
    loop {
        out.push(de.next_value()?);
        if de.is_end() {
            return Ok(out);
        }
    }
}

#[test]
fn every_strict_prefix_is_eof() {
    fn check<T: for<'de> Deserialize<'de> + std::fmt::Debug>(name: &str, bytes: &[u8]) {
        let n = decode_all::<T>(bytes)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .len();
        // Reads the `n` values of the stream.
        let read_n = |bytes: &[u8]| -> hessian2::Result<Vec<T>> {
            let mut de = Deserializer::from_slice(bytes);
            (0..n).map(|_| de.next_value()).collect()
        };
        // Every cut of small inputs; of large ones, a sample and the last 100 bytes.
        let cuts = (0..bytes.len())
            .filter(|&c| bytes.len() < 4096 || c % 1013 == 0 || c + 100 > bytes.len());
        for cut in cuts {
            let err = read_n(&bytes[..cut]).map(|v| format!("{v:?}")).unwrap_err();
            assert!(err.is_eof(), "{name} cut at {cut}: {err}");
            // The same through Bytes.
            let mut de = Deserializer::from_bytes(Bytes::copy_from_slice(&bytes[..cut]));
            let err = (0..n)
                .try_for_each(|_| de.next_value::<T>().map(drop))
                .unwrap_err();
            assert!(err.is_eof(), "{name} cut at {cut}: {err}");
        }
    }
    check::<User>("multi_two_users", &vector("multi_two_users"));
    check::<Vec<User>>("pojo_list_of_users", &vector("pojo_list_of_users"));
    check::<HashMap<String, serde_json::Value>>("pojo_nested", &vector("pojo_nested"));
    check::<serde_json::Value>("mix_no_self_ref", &vector("mix_no_self_ref"));
    check::<String>(
        "string_emoji_65536_shifted",
        &vector("string_emoji_65536_shifted"),
    );
    check::<serde_bytes::ByteBuf>("binary_8190", &vector("binary_8190"));
    check::<Vec<Vec<String>>>("list_same_object_twice", &vector("list_same_object_twice"));
    check::<u64>(
        "biginteger_12345678901234567890",
        &vector("biginteger_12345678901234567890"),
    );
    check::<serde::de::IgnoredAny>("pojo_nested", &vector("pojo_nested"));
}

#[test]
fn unknown_fields_are_skipped_and_their_containers_still_count_for_references() {
    #[derive(Serialize)]
    #[serde(rename = "Full")]
    struct Full {
        skipped: Vec<Vec<i32>>,
        kept: i32,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(rename = "Full")]
    struct Slim {
        kept: i32,
    }
    // By hand: Full{skipped: [[1]], kept: 2}, then a top-level Q(2) to the inner list [1]
    // (ref 0: the object, 1: the outer list, 2: the inner list).
    let mut bytes = hessian2::to_vec(&Full {
        skipped: vec![vec![1]],
        kept: 2,
    })
    .unwrap();
    bytes.extend_from_slice(b"Q\x92");
    let mut de = Deserializer::from_slice(&bytes);
    assert_eq!(de.next_value::<Slim>().unwrap(), Slim { kept: 2 });
    assert_eq!(de.next_value::<Vec<i32>>().unwrap(), [1]);
    de.end().unwrap();
    // A reference to a skipped object, read into a map.
    let mut bytes = hessian2::to_vec(&Full {
        skipped: vec![],
        kept: 7,
    })
    .unwrap();
    bytes.extend_from_slice(b"Q\x90");
    let mut de = Deserializer::from_slice(&bytes);
    de.skip_value().unwrap();
    let again: HashMap<String, serde_json::Value> = de.next_value().unwrap();
    assert_eq!(again["kept"], 7);
}

#[test]
fn missing_fields_follow_serde_defaults() {
    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(rename = "io.github.hessianrs.interop.model.User")]
    struct Future {
        id: i64,
        nickname: Option<String>,
        #[serde(default)]
        tags: Vec<String>,
        #[serde(default = "seven")]
        level: i32,
    }
    fn seven() -> i32 {
        7
    }
    let f: Future = hessian2::from_slice(&vector("pojo_user")).unwrap();
    assert_eq!(
        f,
        Future {
            id: 1,
            nickname: None,
            tags: vec![],
            level: 7
        }
    );
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Strict {
        id: i64,
        required: String,
    }
    let err = hessian2::from_slice::<Strict>(&vector("pojo_user")).unwrap_err();
    assert!(
        err.to_string().contains("missing field `required`"),
        "{err}"
    );
    assert_eq!(err.offset(), 0);
    // `deny_unknown_fields` names the field.
    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Exact {
        id: i64,
    }
    let err = hessian2::from_slice::<Exact>(&vector("pojo_user")).unwrap_err();
    assert!(err.to_string().contains("unknown field `created`"), "{err}");
}

#[test]
fn structs_from_maps_and_lists() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct P {
        x: i32,
        y: String,
    }
    let from_map: P = hessian2::from_slice(b"H\x01y\x01s\x01x\x91\x01z\x92Z").unwrap();
    assert_eq!(
        from_map,
        P {
            x: 1,
            y: "s".into()
        }
    );
    let from_typed_map: P = hessian2::from_slice(b"M\x01Q\x01x\x92\x01y\x00Z").unwrap();
    assert_eq!(from_typed_map, P { x: 2, y: "".into() });
    let from_list: P = hessian2::from_slice(b"\x7a\x93\x01t").unwrap();
    assert_eq!(
        from_list,
        P {
            x: 3,
            y: "t".into()
        }
    );
}

#[test]
fn references_give_equal_values() {
    // [m, Q(1)] where m is a map holding a list: both elements equal.
    let bytes = b"\x7aH\x01a\x79\x91ZQ\x91";
    let v: Vec<HashMap<String, Vec<i32>>> = hessian2::from_slice(bytes).unwrap();
    assert_eq!(v[0], v[1]);
    assert_eq!(v[1]["a"], [1]);
    // A reference inside a replayed value (Q(2) inside the referenced map).
    let bytes = b"\x7b\x7a\x91\x92H\x01aQ\x91ZQ\x92";
    type Three = (
        Vec<i32>,
        HashMap<String, Vec<i32>>,
        HashMap<String, Vec<i32>>,
    );
    let v: Three = hessian2::from_slice(bytes).unwrap();
    assert_eq!(v.1, v.2);
    assert_eq!(v.2["a"], [1, 2]);
    // An object referring back to a class defined inside the referenced region.
    let user = vector("pojo_same_user_twice");
    let users: Vec<User> = hessian2::from_slice(&user).unwrap();
    assert_eq!(users[0], users[1]);
    // Out of range.
    let err = hessian2::from_slice::<Vec<Vec<i32>>>(b"\x79Q\x95").unwrap_err();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::BadReference {
                table: "value",
                index: 5,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.offset(), 1);
}

#[test]
fn cycles_are_errors_even_through_skipped_values() {
    // Node{next: Q(0)}: decoding the reference while the object is open.
    let err = hessian2::from_slice::<Node>(&vector("pojo_node_self_cycle")).unwrap_err();
    assert!(err.to_string().contains("circular"), "{err}");
    assert_eq!(err.offset(), 54); // the `Q`
                                  // Skipping the cyclic field is fine.
    #[derive(Deserialize, Debug, PartialEq)]
    struct ValueOnly {
        value: i32,
    }
    let v: ValueOnly = hessian2::from_slice(&vector("pojo_node_two_cycle")).unwrap();
    assert_eq!(v, ValueOnly { value: 1 });
}

#[test]
fn borrowed_strings_and_binaries() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Borrowed<'a> {
        s: &'a str,
        #[serde(with = "serde_bytes")]
        b: &'a [u8],
    }
    let bytes = hessian2::to_vec(&Borrowed {
        s: "héllo",
        b: &[1, 2, 3],
    })
    .unwrap();
    let v: Borrowed = hessian2::from_slice(&bytes).unwrap();
    let range = bytes.as_ptr_range();
    assert!(range.contains(&v.s.as_ptr()) && range.contains(&v.b.as_ptr()));
    assert_eq!(
        v,
        Borrowed {
            s: "héllo",
            b: &[1, 2, 3]
        }
    );
    // Two chunks cannot be borrowed.
    let long = "x".repeat(40_000);
    let bytes = hessian2::to_vec(&long).unwrap();
    let err = hessian2::from_slice::<&str>(&bytes).unwrap_err();
    assert!(err.to_string().contains("borrowed string"), "{err}");
    assert_eq!(hessian2::from_slice::<String>(&bytes).unwrap(), long);
    // Bytes input: strings are copied, so `&str` is not possible, `String` is.
    assert!(hessian2::from_bytes::<String>(Bytes::from(bytes)).is_ok());
}

#[test]
fn bytes_fields_are_zero_copy_slices_of_a_bytes_input() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Frame {
        id: i32,
        #[serde(with = "hessian2::types::bytes")]
        small: Bytes,
        #[serde(with = "hessian2::types::bytes")]
        large: Bytes,
        #[serde(with = "hessian2::types::bytes")]
        chunked: Bytes,
    }
    let frame = Frame {
        id: 1,
        small: Bytes::from_static(b"abc"),
        large: Bytes::from(vec![5u8; 4093]),
        chunked: Bytes::from(vec![6u8; 10_000]),
    };
    let input = Bytes::from(hessian2::to_vec(&frame).unwrap());
    let back: Frame = hessian2::from_bytes(input.clone()).unwrap();
    assert_eq!(back, frame);
    let range = input.as_ptr_range();
    let inside = |b: &Bytes| range.contains(&b.as_ptr()) && b.as_ptr_range().end <= range.end;
    assert!(inside(&back.small));
    assert!(inside(&back.large));
    // More than one chunk (4093 bytes each in hessian-lite 3) is gathered: a copy.
    assert!(!inside(&back.chunked));
    // From a slice the same type copies.
    let copied: Frame = hessian2::from_slice(&input).unwrap();
    assert!(!inside(&copied.small));
    // from_buf: a BytesMut is taken whole; a chain is gathered first.
    let back: Frame = hessian2::from_buf(bytes::BytesMut::from(&input[..])).unwrap();
    assert_eq!(back, frame);
    let (a, b) = input.split_at(10);
    let back: Frame = hessian2::from_buf(a.chain(b)).unwrap();
    assert_eq!(back, frame);
}

#[test]
fn numeric_coercions() {
    // int into wider and float types.
    assert_eq!(hessian2::from_slice::<i64>(b"\x91").unwrap(), 1);
    assert_eq!(hessian2::from_slice::<f64>(b"\x91").unwrap(), 1.0);
    assert_eq!(hessian2::from_slice::<u8>(b"\xc8\xff").unwrap(), 255);
    // long into int when it fits.
    assert_eq!(hessian2::from_slice::<i32>(b"\xe1").unwrap(), 1);
    assert_eq!(hessian2::from_slice::<f32>(b"\xe1").unwrap(), 1.0);
    let err = hessian2::from_slice::<i32>(b"L\x00\x00\x00\x01\x00\x00\x00\x00").unwrap_err();
    assert!(err.to_string().contains("4294967296"), "{err}");
    let err = hessian2::from_slice::<u16>(b"\x8f").unwrap_err();
    assert!(err.to_string().contains("-1"), "{err}");
    // Whole doubles into integers; fractions are errors.
    assert_eq!(hessian2::from_slice::<i32>(b"\x5d\x02").unwrap(), 2);
    let err = hessian2::from_slice::<i32>(b"\x5f\x00\x00\x09\xc4").unwrap_err();
    assert!(err.to_string().contains("2.5"), "{err}");
    // Not a number at all.
    let err = hessian2::from_slice::<i32>(b"\x01x").unwrap_err();
    assert!(err.to_string().contains("invalid type: string"), "{err}");
    // Strings of one character into char.
    assert_eq!(hessian2::from_slice::<char>(b"\x01x").unwrap(), 'x');
    assert!(hessian2::from_slice::<char>(b"\x02xy").is_err());
}

#[test]
fn null_into_collections_is_empty_and_into_scalars_an_error() {
    assert_eq!(
        hessian2::from_slice::<Vec<i32>>(b"N").unwrap(),
        Vec::<i32>::new()
    );
    assert!(hessian2::from_slice::<HashMap<String, i32>>(b"N")
        .unwrap()
        .is_empty());
    assert!(hessian2::from_slice::<i32>(b"N").is_err());
    assert!(hessian2::from_slice::<String>(b"N").is_err());
    assert_eq!(
        hessian2::from_slice::<Option<Vec<i32>>>(b"N").unwrap(),
        None
    );
}

#[test]
fn deserialize_any_describes_objects_as_maps() {
    let v: serde_json::Value = hessian2::from_slice(&vector("pojo_nested")).unwrap();
    assert_eq!(v["orderId"], 42);
    assert_eq!(v["color"]["name"], "GREEN");
    assert_eq!(v["buyer"]["created"], 1_700_000_120_000i64);
    assert_eq!(v["items"], serde_json::json!(["apple", "pear"]));
}

#[test]
fn depth_limit() {
    // 200 nested untyped lists of one item.
    let mut deep = vec![0x79; 200];
    deep.push(0x90);
    let err = hessian2::from_slice::<serde_json::Value>(&deep).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::DepthLimit(128)), "{err}");
    let mut de = Deserializer::from_slice(&deep).with_max_depth(300);
    de.next_value::<serde_json::Value>().unwrap();
    let mut de = Deserializer::from_slice(&deep).with_max_depth(300);
    de.skip_value().unwrap();
    de.end().unwrap();
}

#[test]
fn errors_carry_offsets() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct P {
        x: i32,
        y: i32,
    }
    // y (at byte 10) is a string.
    let bytes = b"C\x01P\x92\x01x\x01y\x60\x91\x01s";
    let err = hessian2::from_slice::<P>(bytes).unwrap_err();
    assert_eq!(err.offset(), 10, "{err}");
    // Trailing bytes after the one value.
    let err = hessian2::from_slice::<i32>(b"\x91\x92").unwrap_err();
    assert_eq!(err.offset(), 1);
    assert!(matches!(
        err.kind(),
        ErrorKind::Unexpected { found: 0x92, .. }
    ));
    // A list longer than the tuple.
    let err = hessian2::from_slice::<(i32,)>(b"\x7a\x91\x92").unwrap_err();
    assert!(err.to_string().contains("invalid length"), "{err}");
}

#[test]
fn multi_value_body_with_shared_tables() {
    // What a Dubbo request body looks like: strings, then arguments sharing the class table.
    let mut ser = Serializer::new(Vec::new());
    let alice = User {
        created: None,
        active: true,
        email: None,
        age: 1,
        name: Some("a".into()),
        id: 1,
    };
    ser.serialize("2.0.2").unwrap();
    ser.serialize("com.example.Service").unwrap();
    ser.serialize(&alice).unwrap();
    ser.serialize(&vec![alice.clone()]).unwrap();
    ser.serialize(&HashMap::from([("k", "v")])).unwrap();
    let body = Bytes::from(ser.into_inner());
    let mut de = Deserializer::from_bytes(body.clone());
    assert_eq!(de.next_value::<String>().unwrap(), "2.0.2");
    assert_eq!(de.next_value::<String>().unwrap(), "com.example.Service");
    assert_eq!(de.next_value::<User>().unwrap(), alice);
    assert_eq!(
        de.next_value::<Vec<User>>().unwrap(),
        std::slice::from_ref(&alice)
    );
    de.skip_value().unwrap();
    assert!(de.is_end());
    // Reuse: reset to a new body.
    de.reset(body);
    assert_eq!(de.next_value::<String>().unwrap(), "2.0.2");
}

#[test]
fn a_reused_deserializer_shares_only_equal_class_definitions() {
    // The decoder keeps the strings of definitions across streams; a definition with the same
    // class name but other fields must not be taken for the earlier one.
    let a = b"C\x01P\x92\x01x\x01y\x60\x91\x92";
    let b = b"C\x01P\x92\x01x\x01z\x60\x93\x94";
    let c = b"C\x01P\x91\x01x\x60\x95";
    let mut de = Deserializer::from_slice(&a[..]);
    for _ in 0..2 {
        de.reset(&a[..]);
        let v: serde_json::Value = de.next_value().unwrap();
        assert_eq!(v, serde_json::json!({"x": 1, "y": 2}));
        de.reset(&b[..]);
        let v: serde_json::Value = de.next_value().unwrap();
        assert_eq!(v, serde_json::json!({"x": 3, "z": 4}));
        de.reset(&c[..]);
        let v: serde_json::Value = de.next_value().unwrap();
        assert_eq!(v, serde_json::json!({"x": 5}));
    }
    let names: Vec<String> = de
        .decoder()
        .class(0)
        .fields
        .iter()
        .map(|f| f.to_string())
        .collect();
    assert_eq!(names, ["x"]);
}

/// A reused `Deserializer` takes a class definition it met in the same slot of the previous
/// message without parsing it, and only when the bytes are the same: a message that defines
/// another class (or the same class with other fields) there is read by its own definition.
#[test]
fn a_reused_deserializer_reads_each_message_by_its_own_class_definitions() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(rename = "com.example.Point")]
    struct Point {
        x: i32,
        y: i32,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(rename = "com.example.Point")]
    struct Swapped {
        y: i32,
        x: i32,
    }
    let point = hessian2::to_vec(&Point { x: 1, y: 2 }).unwrap();
    let swapped = hessian2::to_vec(&Swapped { y: 2, x: 1 }).unwrap();
    let pair = hessian2::to_vec(&(Swapped { y: 5, x: 6 }, Point { x: 3, y: 4 })).unwrap();
    assert_ne!(point, swapped);
    let mut de = Deserializer::from_slice(&point);
    for _ in 0..3 {
        de.reset(&point);
        assert_eq!(de.next_value::<Point>().unwrap(), Point { x: 1, y: 2 });
        de.reset(&point);
        assert_eq!(de.next_value::<Point>().unwrap(), Point { x: 1, y: 2 });
        // Same class, fields in the other order: read as written, into either Rust type.
        de.reset(&swapped);
        assert_eq!(de.next_value::<Point>().unwrap(), Point { x: 1, y: 2 });
        de.reset(&pair);
        let (a, b): (Point, Point) = de.next_value().unwrap();
        assert_eq!((a, b), (Point { x: 6, y: 5 }, Point { x: 3, y: 4 }));
    }
    // An object whose class index the message never defined is an error at its offset, even
    // though an earlier message defined that slot.
    de.reset(b"\x60\x91\x92");
    let err = de.next_value::<Point>().unwrap_err();
    assert_eq!(err.offset(), 0, "{err}");
}

/// Java's `Mix` writes `CD` as a `Q` reference to the `double[]` in `D`: decoding it again
/// must find the list's type name where it was the first time, also when a reused
/// `Deserializer` took that name from the previous message's slot without parsing it.
#[test]
fn references_to_typed_lists_replay_in_reused_deserializers() {
    let java = vector("mix_no_self_ref");
    let mut de = Deserializer::from_slice(&java);
    for _ in 0..3 {
        de.reset(&java);
        let mix: interop_model::Mix = de.next_value().unwrap();
        de.end().unwrap();
        assert_eq!(mix, interop_model::mix_no_self_ref());
    }
}
