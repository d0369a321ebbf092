//! Round trips of every serde mapping, and the exact bytes of the forms Java writes.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Debug;

use bytes::Bytes;
use hessian2::encode::PeerVersion;
use hessian2::types::{java, BigDecimal, Date, JavaArray, Typed};
use hessian2::{Deserializer, Serializer};
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Encodes with both generations; decodes each back (from a slice, from `Bytes`, and from a
/// chunked buffer) and compares.
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(value: &T) -> Vec<u8> {
    for version in [PeerVersion::V3, PeerVersion::V4] {
        let mut ser = Serializer::with_version(Vec::new(), version);
        ser.serialize(value).unwrap();
        let bytes = ser.into_inner();
        assert_eq!(
            &hessian2::from_slice::<T>(&bytes).unwrap(),
            value,
            "{version:?} slice"
        );
        assert_eq!(
            &hessian2::from_bytes::<T>(Bytes::from(bytes.clone())).unwrap(),
            value,
            "{version:?} Bytes"
        );
        let (a, b) = bytes.split_at(bytes.len() / 2);
        let chained = bytes::Buf::chain(a, b);
        assert_eq!(
            &hessian2::from_buf::<T>(chained).unwrap(),
            value,
            "{version:?} chain"
        );
    }
    hessian2::to_vec(value).unwrap()
}

fn esc(b: &[u8]) -> String {
    b.escape_ascii().to_string()
}

#[test]
fn scalars() {
    assert_eq!(round_trip(&true), b"T");
    assert_eq!(round_trip(&false), b"F");
    assert_eq!(round_trip(&0i32), b"\x90");
    assert_eq!(round_trip(&-16i8), b"\x80");
    assert_eq!(round_trip(&300i16), b"\xc9\x2c");
    assert_eq!(round_trip(&255u8), b"\xc8\xff");
    assert_eq!(round_trip(&65535u16), b"\xd4\xff\xff");
    assert_eq!(round_trip(&i32::MIN), b"I\x80\x00\x00\x00");
    // Longs: `i64` and `u32` (Java has no unsigned int).
    assert_eq!(round_trip(&0i64), b"\xe0");
    assert_eq!(round_trip(&u32::MAX), b"L\x00\x00\x00\x00\xff\xff\xff\xff");
    assert_eq!(round_trip(&(i32::MAX as i64)), b"Y\x7f\xff\xff\xff");
    round_trip(&i64::MIN);
    round_trip(&(i64::MAX as u64));
    round_trip(&(i64::MIN as i128));
    // Doubles.
    assert_eq!(round_trip(&0.0f64), b"\x5b");
    assert_eq!(round_trip(&1.0f64), b"\x5c");
    assert_eq!(round_trip(&-128.0f64), b"\x5d\x80");
    assert_eq!(round_trip(&12.25f64), b"\x5f\x00\x00\x2f\xda");
    assert_eq!(round_trip(&1.5f32), b"\x5f\x00\x00\x05\xdc");
    round_trip(&0.1f32);
    round_trip(&f64::MAX);
    round_trip(&f64::NEG_INFINITY);
    let nan: f64 = hessian2::from_slice(&hessian2::to_vec(&f64::NAN).unwrap()).unwrap();
    assert!(nan.is_nan());
    // Characters and strings.
    assert_eq!(round_trip(&'x'), b"\x01x");
    assert_eq!(round_trip(&'😀'), b"\x02\xed\xa0\xbd\xed\xb8\x80");
    assert_eq!(round_trip(&String::new()), b"\x00");
    assert_eq!(round_trip(&"héllo".to_string()), b"\x05h\xc3\xa9llo");
    round_trip(&"中".repeat(1000));
    round_trip(&"a😀".repeat(40_000));
    // Null-likes.
    assert_eq!(round_trip(&()), b"N");
    assert_eq!(round_trip(&None::<i32>), b"N");
    assert_eq!(round_trip(&Some(5)), b"\x95");
}

#[test]
fn integers_beyond_i64_are_big_integers() {
    let bytes = round_trip(&u64::MAX);
    assert!(
        bytes.starts_with(b"C\x14java.math.BigInteger\x96\x03mag"),
        "{}",
        esc(&bytes)
    );
    // mag = [0xffffffff, 0xffffffff] (Java ints, so -1), four zero caches, signum 1.
    assert!(
        bytes.ends_with(b"\x60\x72\x04[int\x8f\x8f\x90\x90\x90\x90\x91"),
        "{}",
        esc(&bytes)
    );
    round_trip(&u128::MAX);
    round_trip(&i128::MIN);
    round_trip(&(-(1i128 << 100)));
    round_trip(&vec![u64::MAX, 1, u64::MAX - 1]);
    // Into a narrower type: a clear error naming the value.
    let err = hessian2::from_slice::<i64>(&bytes).unwrap_err();
    assert!(err.to_string().contains("18446744073709551615"), "{err}");
    let err = hessian2::from_slice::<u64>(&hessian2::to_vec(&-1i128).unwrap()).unwrap_err();
    assert!(err.to_string().contains("-1"), "{err}");
}

#[test]
fn binaries() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Blobs {
        #[serde(with = "serde_bytes")]
        vec: Vec<u8>,
        bytes: Bytes,
        #[serde(with = "hessian2::types::bytes")]
        zero_copy: Bytes,
        buf: serde_bytes::ByteBuf,
    }
    let b = Blobs {
        vec: vec![1, 2, 3],
        bytes: Bytes::from_static(b"xyz"),
        zero_copy: Bytes::from(vec![9u8; 70_000]),
        buf: serde_bytes::ByteBuf::from(vec![0u8; 4094]),
    };
    round_trip(&b);
    assert_eq!(
        round_trip(&serde_bytes::ByteBuf::from(vec![1, 2])),
        b"\x22\x01\x02"
    );
    // A `Vec<u8>` without serde_bytes is a list of ints, but reads a binary too.
    let v: Vec<u8> = hessian2::from_slice(b"\x22\x01\x02").unwrap();
    assert_eq!(v, [1, 2]);
}

#[test]
fn sequences_are_array_lists() {
    // hessian-lite 3 types every ArrayList; 4 writes it untyped.
    assert_eq!(
        round_trip(&vec![1, 2]),
        b"\x72\x13java.util.ArrayList\x91\x92"
    );
    let mut ser = Serializer::with_version(Vec::new(), PeerVersion::V4);
    ser.serialize(&vec![1, 2]).unwrap();
    assert_eq!(ser.into_inner(), b"\x7a\x91\x92");
    // Longer than 7: `V`, then the type, then the length.
    assert_eq!(
        esc(&round_trip(&vec![0i32; 8])),
        esc(b"V\x13java.util.ArrayList\x98\x90\x90\x90\x90\x90\x90\x90\x90")
    );
    // The type name is written once per stream, then by index.
    assert_eq!(
        round_trip(&vec![vec![1], vec![]]),
        b"\x72\x13java.util.ArrayList\x71\x90\x91\x70\x90"
    );
    round_trip(&[1u8, 2, 3]);
    round_trip(&(1, "two".to_string(), 3.5));
    round_trip(&HashSet::from([1, 2, 3]));
    round_trip(&BTreeSet::from(["a".to_string()]));
    round_trip(&Vec::<String>::new());
    // An iterator of unknown length: a variable-length list.
    let unknown = hessian2::to_vec(&UnknownLength(3)).unwrap();
    assert_eq!(unknown, b"\x55\x13java.util.ArrayList\x90\x91\x92Z");
    assert_eq!(
        hessian2::from_slice::<Vec<i32>>(&unknown).unwrap(),
        [0, 1, 2]
    );
}

struct UnknownLength(i32);

impl Serialize for UnknownLength {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((0..self.0).filter(|_| true))
    }
}

#[test]
fn maps_are_hash_maps() {
    assert_eq!(
        round_trip(&BTreeMap::from([("a".to_string(), 1)])),
        b"H\x01a\x91Z"
    );
    round_trip(&HashMap::from([
        (1, "one".to_string()),
        (-100, "minus".to_string()),
    ]));
    round_trip(&BTreeMap::from([((1, 2), vec![Some(true)])]));
    round_trip(&HashMap::<String, String>::new());
    // A typed map (Java TreeMap).
    let tree: Typed<BTreeMap<String, i32>, java::TreeMap> =
        BTreeMap::from([("z".into(), 26)]).into();
    assert_eq!(round_trip(&tree), b"M\x11java.util.TreeMap\x01z\xaaZ");
}

#[test]
fn typed_lists() {
    let linked: Typed<Vec<String>, java::LinkedList> = vec!["a".to_string()].into();
    assert_eq!(round_trip(&linked), b"\x71\x14java.util.LinkedList\x01a");
    assert_eq!(
        round_trip(&JavaArray(vec![1i32, 2])),
        b"\x72\x04[int\x91\x92"
    );
    assert_eq!(
        round_trip(&JavaArray(vec![1.5f64])),
        b"\x71\x07[double\x5f\x00\x00\x05\xdc"
    );
    assert_eq!(
        round_trip(&JavaArray(vec!["s".to_string()])),
        b"\x71\x07[string\x01s"
    );
    round_trip(&JavaArray::<Date>(vec![Date(0)]));
    // The type goes on the list through an Option, and not on lists nested inside.
    let nested: Typed<Option<Vec<Vec<i32>>>, java::ObjectArray> = Some(vec![vec![7]]).into();
    assert_eq!(
        round_trip(&nested),
        b"\x71\x07[object\x71\x13java.util.ArrayList\x97"
    );
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
#[serde(rename = "com.example.Point")]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
#[serde(rename = "com.example.Shape", rename_all = "camelCase")]
struct Shape {
    shape_name: String,
    points: Vec<Point>,
    origin: Option<Point>,
    kind: Kind,
    created: Date,
    price: BigDecimal,
    tags: BTreeMap<String, Vec<Point>>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
#[serde(rename = "com.example.Kind")]
enum Kind {
    #[serde(rename = "POLYGON")]
    Polygon,
    #[serde(rename = "CIRCLE")]
    Circle,
}

fn shape() -> Shape {
    Shape {
        shape_name: "tri".into(),
        points: vec![
            Point { x: 0, y: 0 },
            Point { x: 1, y: 0 },
            Point { x: 0, y: 1 },
        ],
        origin: Some(Point { x: -1, y: -1 }),
        kind: Kind::Polygon,
        created: Date(1_577_836_800_000),
        price: "9.99".parse().unwrap(),
        tags: BTreeMap::from([("corners".into(), vec![Point { x: 5, y: 5 }])]),
    }
}

#[test]
fn structs_are_objects_with_one_class_definition_per_stream() {
    let bytes = round_trip(&shape());
    let text = esc(&bytes);
    assert_eq!(text.matches("com.example.Point").count(), 1, "{text}");
    assert!(bytes.starts_with(
        b"C\x11com.example.Shape\x97\x09shapeName\x06points\x06origin\x04kind\x07created\x05price\x04tags\x60\x03tri"
    ));
    // Point is the second class: its instances are 0x61.
    assert!(
        text.contains(r"C\x11com.example.Point\x92\x01x\x01ya\x90\x90a\x91\x90a\x90\x91"),
        "{text}"
    );
    // The enum is Java's: an object with the field `name`.
    assert!(
        text.contains(r"C\x10com.example.Kind\x91\x04name"),
        "{text}"
    );
}

#[test]
fn unit_and_newtype_and_tuple_structs() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Unit;
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Meters(f64);
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Pair(i32, String);
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Empty {}
    assert_eq!(round_trip(&Unit), b"N");
    assert_eq!(round_trip(&Meters(2.0)), b"\x5d\x02");
    assert_eq!(
        round_trip(&Pair(1, "a".into())),
        b"\x72\x13java.util.ArrayList\x91\x01a"
    );
    assert_eq!(round_trip(&Empty {}), b"C\x05Empty\x90\x60");
}

#[test]
fn enum_variants() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    #[serde(rename = "com.example.Op")]
    enum Op {
        Plus,
        Lit(i64),
        Pair(i32, i32),
        Call { name: String, args: Vec<i32> },
    }
    assert_eq!(
        round_trip(&Op::Plus),
        b"C\x0ecom.example.Op\x91\x04name\x60\x04Plus"
    );
    // Data-carrying variants: serde's externally tagged form as a map.
    assert_eq!(round_trip(&Op::Lit(3)), b"H\x03Lit\xe3Z");
    assert_eq!(
        round_trip(&Op::Pair(1, 2)),
        b"H\x04Pair\x72\x13java.util.ArrayList\x91\x92Z"
    );
    assert_eq!(
        esc(&round_trip(&Op::Call {
            name: "f".into(),
            args: vec![]
        })),
        esc(b"H\x04CallH\x04name\x01f\x04args\x70\x13java.util.ArrayListZZ")
    );
    round_trip(&vec![
        Op::Plus,
        Op::Lit(-1),
        Op::Plus,
        Op::Call {
            name: "g".into(),
            args: vec![1],
        },
    ]);
    // The same constant twice in a stream is a reference, like a Java enum singleton.
    assert_eq!(
        esc(&round_trip(&vec![Op::Plus, Op::Plus])),
        esc(b"\x72\x13java.util.ArrayListC\x0ecom.example.Op\x91\x04name\x60\x04PlusQ\x91")
    );
    // A plain string reads as a unit variant too.
    assert_eq!(hessian2::from_slice::<Op>(b"\x04Plus").unwrap(), Op::Plus);
    let err =
        hessian2::from_slice::<Op>(b"C\x0ecom.example.Op\x91\x04name\x60\x03Lit").unwrap_err();
    assert!(err.to_string().contains("unit variants"), "{err}");
}

#[test]
fn dates_and_decimals() {
    assert_eq!(round_trip(&Date(1_577_836_800_000)), b"K\x01\x91\x43\xc0");
    assert_eq!(round_trip(&Date(-1)), b"J\xff\xff\xff\xff\xff\xff\xff\xff");
    assert_eq!(
        hessian2::to_vec(&Date::from(std::time::UNIX_EPOCH)).unwrap(),
        b"K\x00\x00\x00\x00"
    );
    // A date reads as an i64 of milliseconds.
    assert_eq!(
        hessian2::from_slice::<i64>(b"K\x00\x00\x00\x01").unwrap(),
        60_000
    );
    for s in ["0", "-1E+10", "123.456", "1e-3", ".5", "5."] {
        round_trip(&s.parse::<BigDecimal>().unwrap());
    }
    for s in ["", "-", "1e", "1.2.3", "abc", "1 "] {
        assert!(s.parse::<BigDecimal>().is_err(), "{s:?}");
    }
    assert_eq!(
        hessian2::from_slice::<BigDecimal>(b"\x031.5")
            .unwrap()
            .as_str(),
        "1.5"
    );
}

#[test]
fn skipped_fields_are_written_as_null() {
    #[derive(Serialize, Deserialize, PartialEq, Debug, Default)]
    #[serde(rename = "com.example.Opt")]
    struct Opt {
        #[serde(skip_serializing_if = "Option::is_none")]
        a: Option<i32>,
        #[serde(skip_serializing_if = "Vec::is_empty", default)]
        b: Vec<i32>,
        #[serde(skip)]
        c: i32,
        d: i32,
    }
    let full = Opt {
        a: Some(1),
        b: vec![2],
        c: 0,
        d: 3,
    };
    let empty = Opt {
        d: 4,
        ..Opt::default()
    };
    let mut ser = Serializer::new(Vec::new());
    ser.serialize(&full).unwrap();
    ser.serialize(&empty).unwrap();
    let bytes = ser.into_inner();
    // One class definition for both, the skipped fields as `N`.
    assert_eq!(
        esc(&bytes),
        esc(b"C\x0fcom.example.Opt\x93\x01a\x01b\x01d\x60\x91\x71\x13java.util.ArrayList\x92\x93\x60NN\x94")
    );
    let mut de = Deserializer::from_slice(&bytes);
    assert_eq!(de.next_value::<Opt>().unwrap(), full);
    assert_eq!(de.next_value::<Opt>().unwrap(), empty);
}

#[test]
fn flattened_structs_are_maps() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Outer {
        id: i32,
        #[serde(flatten)]
        rest: BTreeMap<String, i32>,
    }
    let o = Outer {
        id: 1,
        rest: BTreeMap::from([("x".into(), 2)]),
    };
    assert_eq!(round_trip(&o), b"H\x02id\x91\x01x\x92Z");
}

#[test]
fn generic_and_same_named_structs() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    #[serde(rename = "com.example.Box")]
    struct Wrapper<T> {
        value: T,
    }
    // One class for every T: the class name and fields are equal.
    let mut ser = Serializer::new(Vec::new());
    ser.serialize(&Wrapper { value: 1 }).unwrap();
    ser.serialize(&Wrapper { value: "s" }).unwrap();
    ser.serialize(&Some(Box::new(Wrapper { value: 2.5 })))
        .unwrap();
    assert_eq!(
        esc(ser.get_ref()),
        esc(b"C\x0fcom.example.Box\x91\x05value\x60\x91\x60\x01s\x60\x5f\x00\x00\x09\xc4")
    );

    // Two Rust types naming the same Java class with other fields: two definitions.
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    #[serde(rename = "com.example.Box")]
    struct Other {
        a: i32,
        b: i32,
    }
    ser.serialize(&Other { a: 1, b: 2 }).unwrap();
    ser.serialize(&Wrapper { value: 3 }).unwrap();
    let bytes = ser.into_inner();
    assert!(
        esc(&bytes).ends_with(r"C\x0fcom.example.Box\x92\x01a\x01ba\x91\x92`\x93"),
        "{}",
        esc(&bytes)
    );
    let mut de = Deserializer::from_slice(&bytes);
    assert_eq!(de.next_value::<Wrapper<i32>>().unwrap().value, 1);
    assert_eq!(de.next_value::<Wrapper<String>>().unwrap().value, "s");
    assert_eq!(de.next_value::<Wrapper<f64>>().unwrap().value, 2.5);
    assert_eq!(de.next_value::<Other>().unwrap(), Other { a: 1, b: 2 });
    assert_eq!(de.next_value::<Wrapper<i32>>().unwrap().value, 3);
    de.end().unwrap();
}

#[test]
fn recursive_structs_reuse_their_definition() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    #[serde(rename = "Node")]
    struct Node {
        next: Option<Box<Node>>,
        value: i32,
    }
    let list = Node {
        next: Some(Box::new(Node {
            next: None,
            value: 2,
        })),
        value: 1,
    };
    assert_eq!(
        round_trip(&list),
        b"C\x04Node\x92\x04next\x05value\x60\x60N\x92\x91"
    );
}

#[test]
fn a_stream_of_values_and_reset() {
    let mut ser = Serializer::new(Vec::new());
    ser.serialize(&Point { x: 1, y: 2 }).unwrap();
    ser.serialize(&Point { x: 3, y: 4 }).unwrap();
    let first = ser.get_ref().clone();
    assert_eq!(
        first,
        b"C\x11com.example.Point\x92\x01x\x01y\x60\x91\x92\x60\x93\x94"
    );
    // After a reset the definition is written again.
    ser.reset();
    ser.get_mut().clear();
    ser.serialize(&Point { x: 1, y: 2 }).unwrap();
    assert_eq!(ser.get_ref()[..], first[..first.len() - 3]);

    let mut de = Deserializer::from_slice(&first);
    assert_eq!(de.next_value::<Point>().unwrap(), Point { x: 1, y: 2 });
    assert!(!de.is_end());
    assert!(de.end().is_err());
    assert_eq!(de.next_value::<Point>().unwrap(), Point { x: 3, y: 4 });
    assert!(de.is_end());
    de.end().unwrap();
    assert!(de.next_value::<Point>().unwrap_err().is_eof());
    // A reused deserializer starts clean: class 0 is unknown in the new stream.
    de.reset(b"\x60\x91\x92");
    let err = de.next_value::<Point>().unwrap_err();
    assert!(
        matches!(
            err.kind(),
            hessian2::ErrorKind::BadReference { table: "class", .. }
        ),
        "{err}"
    );
}

#[test]
fn to_writer_appends() {
    let mut buf = bytes::BytesMut::from(&b"head"[..]);
    hessian2::to_writer(&mut buf, &Point { x: 1, y: 1 }).unwrap();
    hessian2::to_writer(&mut buf, &Point { x: 2, y: 2 }).unwrap();
    // Each call is a stream of its own: both carry the definition.
    let def = b"C\x11com.example.Point\x92\x01x\x01y";
    assert_eq!(&buf[..4], b"head");
    assert_eq!(&buf[4..4 + def.len()], def);
    assert_eq!(esc(&buf).matches("com.example.Point").count(), 2);
    // A Serializer over the BytesMut writes straight into it.
    let mut ser = Serializer::new(&mut buf);
    ser.serialize(&1).unwrap();
    assert_eq!(buf.last(), Some(&0x91));
}

#[test]
fn structs_serialized_directly_before_any_probe_are_typed_maps() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    #[serde(rename = "com.example.NeverSeen")]
    struct NeverSeen {
        a: i32,
        #[serde(skip_serializing_if = "Option::is_none")]
        b: Option<i32>,
    }
    let mut ser = Serializer::new(Vec::new());
    // `value.serialize(&mut ser)`: the serializer cannot know the Rust type of the top value.
    NeverSeen { a: 1, b: None }.serialize(&mut ser).unwrap();
    NeverSeen { a: 2, b: Some(3) }.serialize(&mut ser).unwrap();
    let bytes = ser.into_inner();
    assert_eq!(
        esc(&bytes),
        esc(b"M\x15com.example.NeverSeen\x01a\x91ZC\x15com.example.NeverSeen\x92\x01a\x01b\x60\x92\x93")
    );
    let mut de = Deserializer::from_slice(&bytes);
    assert_eq!(
        de.next_value::<NeverSeen>().unwrap(),
        NeverSeen { a: 1, b: None }
    );
    assert_eq!(
        de.next_value::<NeverSeen>().unwrap(),
        NeverSeen { a: 2, b: Some(3) }
    );
}

#[test]
fn non_deterministic_serialize_impls_are_errors() {
    use std::cell::Cell;
    struct Flip(Cell<bool>);
    impl Serialize for Flip {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeStruct;
            self.0.set(!self.0.get());
            let mut st = s.serialize_struct("com.example.Flip", 1)?;
            st.serialize_field(if self.0.get() { "a" } else { "b" }, &1)?;
            st.end()
        }
    }
    let flip = Flip(Cell::new(false));
    let err = hessian2::to_vec(&flip)
        .and_then(|_| hessian2::to_vec(&flip))
        .unwrap_err();
    assert!(err.to_string().contains("com.example.Flip"), "{err}");
}

#[test]
fn borrowed_and_owned_strings() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Text<'a> {
        plain: &'a str,
        #[serde(borrow)]
        maybe: Cow<'a, str>,
        owned: String,
    }
    let t = Text {
        plain: "abc",
        maybe: Cow::Borrowed("x😀"),
        owned: "o".into(),
    };
    let bytes = hessian2::to_vec(&t).unwrap();
    let back: Text = hessian2::from_slice(&bytes).unwrap();
    assert_eq!(back, t);
    let range = bytes.as_ptr_range();
    assert!(range.contains(&back.plain.as_ptr()));
    // Java's surrogate pair (CESU-8) cannot be borrowed: the Cow owns it.
    assert!(matches!(back.maybe, Cow::Owned(_)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn arbitrary_records_round_trip(
        records in proptest::collection::vec(
            (any::<i64>(), ".{0,40}", proptest::option::of(any::<f64>().prop_filter("not NaN", |f| !f.is_nan())), any::<u64>(), proptest::collection::vec(any::<i32>(), 0..10)),
            0..8,
        )
    ) {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        #[serde(rename = "prop.Record")]
        struct Record { id: i64, name: String, score: Option<f64>, big: u64, ints: Vec<i32> }
        let records: Vec<Record> = records
            .into_iter()
            .map(|(id, name, score, big, ints)| Record { id, name, score, big, ints })
            .collect();
        let bytes = hessian2::to_vec(&records).unwrap();
        prop_assert_eq!(hessian2::from_slice::<Vec<Record>>(&bytes).unwrap(), records);
        // Every strict prefix is "need more bytes".
        for cut in 0..bytes.len() {
            let err = hessian2::from_slice::<Vec<Record>>(&bytes[..cut]).unwrap_err();
            prop_assert!(err.is_eof(), "cut {}: {}", cut, err);
        }
    }
}

#[cfg(feature = "chrono")]
#[test]
fn chrono_conversions() {
    let t = chrono::DateTime::<chrono::Utc>::from_timestamp_millis(1_700_000_000_123).unwrap();
    let d = Date::from(t);
    assert_eq!(d, Date(1_700_000_000_123));
    let back: Date = hessian2::from_slice(&hessian2::to_vec(&d).unwrap()).unwrap();
    assert_eq!(chrono::DateTime::<chrono::Utc>::try_from(back).unwrap(), t);
}
