//! The serde layer against the vectors real Java wrote (`tests/vectors/`, from `interop/java`):
//! Java's bytes decode into Rust structs mirroring the Java model classes, and re-encoding those
//! structs gives Java's bytes exactly (except where Java wrote a `Q` back-reference to the very
//! same Java object, which Rust values, having no identity, cannot reproduce).

use std::collections::HashMap;
use std::path::Path;

use hessian2::encode::PeerVersion;
use hessian2::types::{BigDecimal, Date, JavaArray};
use hessian2::{Deserializer, Serializer};
use interop_model::{alice, mix_no_self_ref, Mix, Node, User};
use serde::{Deserialize, Serialize};

const MODEL: &str = "io.github.hessianrs.interop.model";

fn vector(generation: &str, name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/vectors")
        .join(generation)
        .join(format!("{name}.bin"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const GENERATIONS: [(&str, PeerVersion); 2] =
    [("lite3", PeerVersion::V3), ("lite4", PeerVersion::V4)];

/// Encodes `values` as one stream, as the given hessian-lite generation would.
fn encode<T: Serialize>(version: PeerVersion, values: &[T]) -> Vec<u8> {
    let mut ser = Serializer::with_version(Vec::new(), version);
    for v in values {
        ser.serialize(v).unwrap();
    }
    ser.into_inner()
}

/// Decodes every value of a stream.
fn decode_all<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Vec<T> {
    let mut de = Deserializer::from_slice(bytes);
    let mut out = Vec::new();
    while !de.is_end() {
        out.push(de.next_value().unwrap());
    }
    out
}

/// Decodes the stream `name` of both generations into `T`s, checks them with `check`, and
/// checks that re-encoding gives Java's bytes.
fn round_trip<T>(name: &str, check: impl Fn(&[T]))
where
    T: Serialize + for<'de> Deserialize<'de>,
{
    for (generation, version) in GENERATIONS {
        let java = vector(generation, name);
        let values: Vec<T> = decode_all(&java);
        check(&values);
        assert_eq!(
            escape(&encode(version, &values)),
            escape(&java),
            "{generation}/{name}: re-encoding gives Java's bytes"
        );
    }
}

fn escape(b: &[u8]) -> String {
    b.escape_ascii().to_string()
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "io.github.hessianrs.interop.model.Address")]
struct Address {
    zip: i32,
    city: String,
    street: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
#[serde(rename = "io.github.hessianrs.interop.model.Color")]
#[allow(clippy::upper_case_acronyms)]
enum Color {
    RED,
    GREEN,
    BLUE,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(
    rename = "io.github.hessianrs.interop.model.Order",
    rename_all = "camelCase"
)]
struct Order {
    color: Color,
    items: Vec<String>,
    ship_to: Address,
    buyer: User,
    total: f64,
    order_id: i64,
}

#[allow(non_snake_case)]
#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "io.github.hessianrs.interop.model.AllPrimitives")]
struct AllPrimitives {
    boxedC: Option<char>,
    boxedD: Option<f64>,
    // A boxed `Float` is written by hessian-lite through `String.valueOf`, so 0.1f goes on the
    // wire as the double 0.1: an `f64` reproduces it, an `f32` (widened exactly) would not.
    boxedF: Option<f64>,
    boxedL: Option<i64>,
    boxedI: Option<i32>,
    boxedS: Option<i16>,
    boxedB: Option<i8>,
    boxedZ: Option<bool>,
    c: char,
    d: f64,
    f: f32,
    l: i64,
    i: i32,
    s: i16,
    b: i8,
    z: bool,
}

#[allow(non_snake_case)]
#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "io.github.hessianrs.interop.model.Derived")]
struct Derived {
    baseTags: Vec<String>,
    derivedAttrs: HashMap<String, String>,
    baseName: String,
    baseId: i32,
    derivedName: String,
    derivedId: i32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(
    rename = "io.github.hessianrs.interop.model.WithTransient",
    rename_all = "camelCase"
)]
struct WithTransient {
    also_kept: i32,
    kept: String,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(rename = "io.github.hessianrs.interop.model.Holder")]
struct Holder {
    ints: JavaArray<i32>,
    stamp: Date,
    value: Date,
}

#[test]
fn user() {
    round_trip::<User>("pojo_user", |v| assert_eq!(v, [alice()]));
}

#[test]
fn user_with_nulls_and_defaults() {
    round_trip::<User>("pojo_user_defaults", |v| {
        assert_eq!(
            v,
            [User {
                created: None,
                active: false,
                email: None,
                age: 0,
                name: None,
                id: 0,
            }]
        )
    });
}

#[test]
fn two_users_share_one_class_definition() {
    round_trip::<User>("multi_two_users", |v| {
        assert_eq!(v.len(), 2);
        assert_eq!(v[0], alice());
        assert_eq!(v[1].name.as_deref(), Some("Bob"));
    });
}

#[test]
fn list_of_users() {
    round_trip::<Vec<User>>("pojo_list_of_users", |v| {
        let names: Vec<_> = v[0].iter().map(|u| u.name.clone().unwrap()).collect();
        assert_eq!(names, ["Alice", "Bob", "Carol"]);
    });
}

#[test]
fn array_of_users() {
    round_trip::<JavaArray<User>>("array_user", |v| assert_eq!(v[0].0, [alice()]));
}

#[test]
fn nested_objects_and_enum() {
    round_trip::<Order>("pojo_nested", |v| {
        let o = &v[0];
        assert_eq!(o.color, Color::GREEN);
        assert_eq!(o.items, ["apple", "pear"]);
        assert_eq!(o.ship_to.city, "Springfield");
        assert_eq!(o.buyer.name.as_deref(), Some("Bob"));
        assert_eq!((o.total, o.order_id), (12.25, 42));
    });
}

#[test]
fn interleaved_classes_in_a_stream() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(untagged)]
    enum Pojo {
        User(User),
        Address(Address),
    }
    // Untagged enums go through `deserialize_any` (objects as maps); the order of
    // definitions and instances must come out as Java wrote it.
    round_trip::<Pojo>("multi_mixed_pojos", |v| {
        assert_eq!(v.len(), 4);
        assert_eq!(
            v[1],
            Pojo::Address(Address {
                zip: 1,
                city: "city".into(),
                street: "street".into()
            })
        );
    });
}

#[test]
fn every_primitive() {
    round_trip::<AllPrimitives>("pojo_all_primitives", |v| {
        let p = &v[0];
        assert_eq!(p.c, '中');
        assert_eq!(p.boxedF, Some(0.1));
        assert_eq!((p.f, p.s, p.b, p.i, p.l), (1.25, 300, -5, 70000, 1 << 40));
    });
    round_trip::<AllPrimitives>("pojo_all_primitives_default", |v| {
        assert_eq!((v[0].c, v[0].boxedI), ('\0', None));
    });
}

#[test]
fn superclass_fields() {
    round_trip::<Derived>("pojo_superclass", |v| {
        assert_eq!(v[0].baseTags, ["t"]);
        assert_eq!(v[0].derivedAttrs["k"], "v");
        assert_eq!((v[0].baseId, v[0].derivedId), (1, 2));
    });
}

#[test]
fn transient_fields_are_not_written() {
    round_trip::<WithTransient>("pojo_transient_static", |v| {
        assert_eq!(
            v,
            [WithTransient {
                also_kept: 5,
                kept: "kept".into()
            }]
        )
    });
}

#[test]
fn timestamp_and_object_fields_are_dates() {
    round_trip::<Holder>("pojo_holder_timestamp_field", |v| {
        assert_eq!(
            v,
            [Holder {
                ints: JavaArray(vec![1]),
                stamp: Date(1_700_000_000_123),
                value: Date(5),
            }]
        )
    });
}

#[test]
fn enums_repeat_as_references() {
    round_trip::<Vec<Color>>("enum_list", |v| {
        assert_eq!(v[0], [Color::RED, Color::GREEN, Color::RED, Color::BLUE])
    });
    round_trip::<Color>("multi_enums", |v| {
        assert_eq!(v, [Color::RED, Color::BLUE, Color::RED])
    });
    round_trip::<Color>("enum_value", |v| assert_eq!(v, [Color::RED]));
}

#[test]
fn big_decimals() {
    round_trip::<BigDecimal>("bigdecimal_123_456", |v| {
        assert_eq!(v[0].as_str(), "123.456")
    });
    round_trip::<BigDecimal>("bigdecimal_-1e10", |v| assert_eq!(v[0].as_str(), "-1E+10"));
    round_trip::<Vec<BigDecimal>>("bigdecimal_list", |v| {
        assert_eq!(
            v[0].iter().map(|d| d.as_str()).collect::<Vec<_>>(),
            ["1.5", "2.5"]
        )
    });
}

#[test]
fn big_integers() {
    // Beyond i64: written as Java writes the BigInteger.
    round_trip::<u64>("biginteger_12345678901234567890", |v| {
        assert_eq!(v, [12_345_678_901_234_567_890])
    });
    for (generation, _) in GENERATIONS {
        let small: i64 = hessian2::from_slice(&vector(generation, "biginteger_-1")).unwrap();
        assert_eq!(small, -1);
        let zero: u8 = hessian2::from_slice(&vector(generation, "biginteger_0")).unwrap();
        assert_eq!(zero, 0);
        let big: i128 =
            hessian2::from_slice(&vector(generation, "biginteger_12345678901234567890")).unwrap();
        assert_eq!(big, 12_345_678_901_234_567_890);
        let too_big =
            hessian2::from_slice::<i64>(&vector(generation, "biginteger_12345678901234567890"))
                .unwrap_err();
        assert!(
            too_big.to_string().contains("12345678901234567890"),
            "{too_big}"
        );
    }
}

#[test]
fn java_arrays() {
    round_trip::<JavaArray<i32>>("array_int_3", |v| assert_eq!(v[0].0, [1, -1, 1000]));
    round_trip::<JavaArray<i64>>("array_long", |v| assert_eq!(v[0].0, [0, 1 << 40, -9]));
    round_trip::<JavaArray<f64>>("array_double", |v| {
        assert_eq!(v[0].0, [0.0, 1.5, -2.25, 1e300])
    });
    round_trip::<JavaArray<bool>>("array_boolean", |v| assert_eq!(v[0].0, [true, false, true]));
    round_trip::<JavaArray<Option<String>>>("array_string", |v| {
        assert_eq!(v[0].0, [Some("a".into()), None, Some("中".into())])
    });
    round_trip::<JavaArray<i16>>("array_short", |v| assert_eq!(v[0].0, [1, -300]));
    round_trip::<JavaArray<Option<i32>>>("array_integer_boxed", |v| {
        assert_eq!(v[0].0, [Some(1), Some(2), None])
    });
    round_trip::<JavaArray<Date>>("array_date", |v| {
        assert_eq!(v[0].0, [Date(0), Date(1_700_000_000_123)])
    });
    round_trip::<JavaArray<String>>("array_string_0", |v| assert!(v[0].0.is_empty()));
    round_trip::<JavaArray<i32>>("multi_typed_lists", |v| {
        assert_eq!(v, [JavaArray(vec![1, 2]), JavaArray(vec![3])])
    });
}

#[test]
fn plain_collections() {
    round_trip::<Vec<i32>>("list_ints_9", |v| {
        assert_eq!(v[0], (0..9).collect::<Vec<_>>())
    });
    round_trip::<Vec<i32>>("list_empty", |v| assert!(v[0].is_empty()));
    round_trip::<HashMap<String, i32>>("map_empty", |v| assert!(v[0].is_empty()));
    // Java's HashMap happened to iterate in key order here; a BTreeMap reproduces it.
    round_trip::<std::collections::BTreeMap<String, i32>>("map_string_int", |v| {
        assert_eq!(
            v[0],
            [("a".into(), 1), ("b".into(), 2), ("c".into(), 3)].into()
        )
    });
    for (generation, version) in GENERATIONS {
        let nested: Vec<Vec<serde_json::Value>> =
            hessian2::from_slice(&vector(generation, "list_nested")).unwrap();
        use serde_json::json;
        assert_eq!(nested, [vec![json!(1), json!(2)], vec![json!("x")], vec![]]);

        // Six top-level values of six types in one stream.
        let java = vector(generation, "multi_scalars");
        let mut de = Deserializer::from_slice(&java);
        let a: i32 = de.next_value().unwrap();
        let b: String = de.next_value().unwrap();
        let c: i64 = de.next_value().unwrap();
        let d: f64 = de.next_value().unwrap();
        let e: Option<String> = de.next_value().unwrap();
        let f: bool = de.next_value().unwrap();
        de.end().unwrap();
        assert_eq!((a, &*b, c, d, &e, f), (1, "two", 3, 4.5, &None, true));
        let mut ser = Serializer::with_version(Vec::new(), version);
        ser.serialize(&a).unwrap();
        ser.serialize(&b).unwrap();
        ser.serialize(&c).unwrap();
        ser.serialize(&d).unwrap();
        ser.serialize(&e).unwrap();
        ser.serialize(&f).unwrap();
        assert_eq!(ser.into_inner(), java);
    }
}

#[test]
fn scalars() {
    round_trip::<i32>("int_-262145", |v| assert_eq!(v, [-262_145]));
    round_trip::<i64>("long_2147483648", |v| assert_eq!(v, [2_147_483_648]));
    round_trip::<f64>("double_2147483_647", |v| assert_eq!(v, [2_147_483.647]));
    round_trip::<String>("string_emoji_65536_shifted", |v| {
        assert_eq!(v[0].chars().count(), 32_769)
    });
    round_trip::<String>("string_mixed_40000", |v| {
        assert!(v[0].starts_with("ab中文😀"))
    });
    round_trip::<char>("char_cjk", |v| assert_eq!(v, ['中']));
    round_trip::<serde_bytes::ByteBuf>("binary_65536", |v| assert_eq!(v[0].len(), 65_536));
    round_trip::<Date>("date_2020_minute", |v| {
        assert_eq!(v, [Date(1_577_836_800_000)])
    });
    round_trip::<Date>("date_big_minute", |_| {});
    round_trip::<Option<i32>>("null", |v| assert_eq!(v, [None]));
}

#[test]
fn shared_values_decode_as_equal_copies() {
    // Java wrote the inner list once and a `Q` for the second occurrence.
    for (generation, _) in GENERATIONS {
        let v: Vec<Vec<String>> =
            hessian2::from_slice(&vector(generation, "list_same_object_twice")).unwrap();
        assert_eq!(v, [vec!["s".to_string()], vec!["s".to_string()]]);
        let v: Vec<JavaArray<i32>> =
            hessian2::from_slice(&vector(generation, "list_same_array_twice")).unwrap();
        assert_eq!(v, [JavaArray(vec![5, 6]), JavaArray(vec![5, 6])]);
        let v: HashMap<String, Vec<String>> =
            hessian2::from_slice(&vector(generation, "map_same_value_twice")).unwrap();
        assert_eq!(v["a"], v["b"]);
        let v: Vec<User> =
            hessian2::from_slice(&vector(generation, "pojo_same_user_twice")).unwrap();
        assert_eq!(v[0], v[1]);
        let v: Vec<Vec<i32>> = decode_all(&vector(generation, "multi_same_list_twice"));
        assert_eq!(v, [vec![1, 2, 3], vec![1, 2, 3]]);
    }
}

#[test]
fn mix_decodes_with_its_shared_array() {
    for (generation, version) in GENERATIONS {
        let java = vector(generation, "mix_no_self_ref");
        let mix: Mix = hessian2::from_slice(&java).unwrap();
        // `CD` is a `Q` to the array written inside `D` (as `D["floats"]`).
        assert_eq!(mix, mix_no_self_ref());
        // Java wrote `CD` as a reference to the array inside `D`; we write it again, so the
        // bytes differ by exactly that, and the values are the same.
        let ours = encode(version, &[&mix]);
        let back: Mix = hessian2::from_slice(&ours).unwrap();
        assert_eq!(back, mix);
    }
}

#[test]
fn circular_data_is_a_clear_error() {
    for (generation, _) in GENERATIONS {
        for name in ["pojo_node_self_cycle", "pojo_node_two_cycle"] {
            let err = hessian2::from_slice::<Node>(&vector(generation, name)).unwrap_err();
            assert!(err.to_string().contains("circular"), "{name}: {err}");
            assert!(!err.is_eof());
        }
        let err = hessian2::from_slice::<Mix>(&vector(generation, "mix_self_ref")).unwrap_err();
        assert!(err.to_string().contains("circular"), "{err}");
        let err = hessian2::from_slice::<Vec<serde_json::Value>>(&vector(
            generation,
            "list_self_reference",
        ))
        .unwrap_err();
        assert!(err.to_string().contains("circular"), "{err}");
    }
}

#[test]
fn unknown_java_fields_are_skipped() {
    // Only two of User's six fields.
    #[derive(Deserialize, Debug, PartialEq)]
    struct Slim<'a> {
        name: &'a str,
        id: i64,
    }
    for (generation, _) in GENERATIONS {
        let bytes = vector(generation, "multi_two_users");
        let mut de = Deserializer::from_slice(&bytes);
        let a: Slim = de.next_value().unwrap();
        let b: Slim = de.next_value().unwrap();
        de.end().unwrap();
        assert_eq!(
            (a, b),
            (
                Slim {
                    name: "Alice",
                    id: 1
                },
                Slim { name: "Bob", id: 2 }
            )
        );
        // A skipped field holding a list still counts for later references.
        let order_items: HashMap<String, serde_json::Value> =
            hessian2::from_slice(&vector(generation, "pojo_nested")).unwrap();
        assert_eq!(order_items["items"], serde_json::json!(["apple", "pear"]));
    }
}

#[test]
fn everything_java_wrote_decodes_through_deserialize_any() {
    // Every vector but the circular ones decodes into a self-describing type.
    for (generation, _) in GENERATIONS {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/vectors")
            .join(generation);
        let mut count = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "bin") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let mut de = Deserializer::from_slice(&bytes);
            let mut result = Ok(());
            while !de.is_end() && result.is_ok() {
                result = de.next_value::<serde::de::IgnoredAny>().map(drop);
                if result.is_ok() {
                    continue;
                }
            }
            result.unwrap_or_else(|e| panic!("{}: skipping: {e}", path.display()));
            let mut de = Deserializer::from_slice(&bytes);
            while !de.is_end() {
                if let Err(e) = de.next_value::<serde_json::Value>() {
                    let name = path.file_name().unwrap().to_string_lossy();
                    // Cycles cannot be built; binaries have no JSON form.
                    let expected = e.to_string().contains("circular")
                        || e.to_string().contains("byte array")
                        || e.to_string().contains("expected a string key");
                    assert!(expected, "{name}: {e}");
                    break;
                }
            }
            count += 1;
        }
        assert!(count > 200, "{generation}: {count} vectors");
    }
    let _ = MODEL;
}
