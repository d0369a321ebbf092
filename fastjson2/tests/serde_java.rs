//! serde against Java's own bytes: the interop model's `User` and `Mix` encode to exactly what
//! fastjson2 wrote with Dubbo's features, Java's vectors decode into typed Rust values (with
//! borrowed strings where the wire allows), and fastjson2 reads our typed encodings back.

use std::borrow::Cow;
use std::collections::HashMap;

mod common;

use common::vectors;
use fastjson2::types::{
    BigDecimal, Date, EnumMap, EnumSet, Instant, LocalDate, LocalDateTime, LocalTime, ZonedDateTime,
};
use interop_model::jsonb::{alice, mix_no_self_ref, Mix, User};
use serde::{Deserialize, Serialize};

fn vector(name: &str) -> Vec<u8> {
    std::fs::read(vectors().join(format!("{name}.bin"))).unwrap()
}

#[test]
fn user_and_mix_encode_to_javas_bytes_and_decode_back() {
    assert_eq!(fastjson2::to_vec(&alice()).unwrap(), vector("user"));
    assert_eq!(
        fastjson2::from_slice::<User>(&vector("user")).unwrap(),
        alice()
    );
    assert_eq!(
        fastjson2::to_vec(&mix_no_self_ref()).unwrap(),
        vector("mix")
    );
    assert_eq!(
        fastjson2::from_slice::<Mix>(&vector("mix")).unwrap(),
        mix_no_self_ref()
    );
    let users: Vec<User> = fastjson2::from_slice(&vector("users_list")).unwrap();
    assert_eq!(users.len(), 2);
    assert_eq!(users[0], alice());
    assert_eq!(users[1], bob());
    assert_eq!(fastjson2::to_vec(&users).unwrap(), vector("users_list"));
    // Only `id` was written for a user of nulls and zeros.
    let empty: User = fastjson2::from_slice(&vector("user_nulls")).unwrap();
    assert_eq!((empty.id, empty.name, empty.active), (2, None, false));
}

#[derive(Deserialize, Debug, PartialEq)]
struct Borrowed<'a> {
    email: &'a str,
    #[serde(borrow)]
    name: Cow<'a, str>,
}

#[test]
fn strings_borrow_from_the_input() {
    let bytes = vector("user");
    let b: Borrowed = fastjson2::from_slice(&bytes).unwrap();
    assert_eq!(b.email, "alice@example.com");
    assert!(matches!(b.name, Cow::Borrowed("Alice")));
    // Latin-1 with chars above U+007F is converted: a `&str` cannot borrow it.
    let latin = vector("string_latin1");
    assert_eq!(
        fastjson2::from_slice::<String>(&latin).unwrap(),
        "caf\u{e9} \u{fc}\u{df}\u{ff}"
    );
    assert!(fastjson2::from_slice::<&str>(&latin).is_err());
    assert_eq!(
        fastjson2::from_slice::<&str>(&vector("string_emoji")).unwrap(),
        "smile \u{1f600}!"
    );
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
#[serde(rename_all = "UPPERCASE")]
enum Color {
    Red,
    Green,
    Blue,
}

#[derive(Deserialize, Debug, PartialEq)]
struct Order {
    buyer: User,
    color: Color,
    items: Vec<String>,
    #[serde(rename = "orderId")]
    order_id: i64,
    total: f64,
}

#[test]
fn java_values_decode_into_rust_types() {
    let order: Order = fastjson2::from_slice(&vector("order")).unwrap();
    // Java writes an enum field as its ordinal, a top-level enum as its class and name.
    assert_eq!(order.color, Color::Blue);
    assert_eq!(order.items, ["apple", "pear"]);
    assert_eq!((order.order_id, order.total), (42, 12.5));
    assert_eq!(order.buyer.name.as_deref(), Some("Eve"));
    assert_eq!(
        fastjson2::from_slice::<Color>(&vector("enum")).unwrap(),
        Color::Green
    );
    assert_eq!(
        fastjson2::to_vec(&Color::Green).unwrap(),
        [0x4e, b'G', b'R', b'E', b'E', b'N']
    );

    assert_eq!(
        fastjson2::from_slice::<Vec<i32>>(&vector("int_array")).unwrap(),
        [1, 2, 300]
    );
    assert_eq!(
        fastjson2::from_slice::<Vec<i64>>(&vector("long_array")).unwrap(),
        [1, 2, 1 << 40]
    );
    let strings: Vec<Option<String>> = fastjson2::from_slice(&vector("string_array")).unwrap();
    assert_eq!(strings, [Some("a".into()), None, Some("b".into())]);
    let map: HashMap<i32, String> = fastjson2::from_slice(&vector("map_int_keys")).unwrap();
    assert_eq!(map[&2], "two");
    let bytes: serde_bytes_like::Bytes = fastjson2::from_slice(&vector("binary_3")).unwrap();
    assert_eq!(bytes.0, [1, 2, 0xff]);
    assert_eq!(
        fastjson2::from_slice::<char>(&vector("char_cjk")).unwrap(),
        '\u{4e2d}'
    );
    assert_eq!(
        fastjson2::from_slice::<i8>(&vector("byte_m128")).unwrap(),
        -128
    );
    assert_eq!(
        fastjson2::from_slice::<f32>(&vector("float_1_5")).unwrap(),
        1.5
    );
    assert_eq!(
        fastjson2::from_slice::<i64>(&vector("bigint_small")).unwrap(),
        12345
    );

    let d: Date = fastjson2::from_slice(&vector("date_millis")).unwrap();
    assert_eq!(d, Date(1_700_000_000_123));
    let dec: BigDecimal = fastjson2::from_slice(&vector("decimal_1_23")).unwrap();
    assert_eq!((dec.unscaled.to_i64(), dec.scale), (Some(123), 2));
    let ld: LocalDate = fastjson2::from_slice(&vector("local_date")).unwrap();
    assert_eq!(ld.to_string(), "2024-02-29");
    let lt: LocalTime = fastjson2::from_slice(&vector("local_time")).unwrap();
    assert_eq!(lt.to_string(), "13:45:30.123456789");
    let ldt: LocalDateTime = fastjson2::from_slice(&vector("local_datetime")).unwrap();
    // Java's `toString()`: the fraction in groups of three digits.
    assert_eq!(ldt.to_string(), "2024-12-31T23:59:58.001");
    let z: ZonedDateTime = fastjson2::from_slice(&vector("zoned_shanghai")).unwrap();
    assert_eq!(z.zone, "Asia/Shanghai");
    let i: Instant = fastjson2::from_slice(&vector("instant")).unwrap();
    assert_eq!((i.seconds, i.nanos), (1_700_000_000, 500));
    for (name, bytes) in [
        ("date_millis", fastjson2::to_vec(&d)),
        ("decimal_1_23", fastjson2::to_vec(&dec)),
        ("local_date", fastjson2::to_vec(&ld)),
        ("local_time", fastjson2::to_vec(&lt)),
        ("local_datetime", fastjson2::to_vec(&ldt)),
        ("zoned_shanghai", fastjson2::to_vec(&z)),
        ("instant", fastjson2::to_vec(&i)),
    ] {
        assert_eq!(bytes.unwrap(), vector(name), "{name}");
    }
}

/// `serde_bytes` without the dependency: a `Vec<u8>` read through `deserialize_bytes`.
mod serde_bytes_like {
    pub struct Bytes(pub Vec<u8>);
    impl<'de> serde::Deserialize<'de> for Bytes {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl serde::de::Visitor<'_> for V {
                type Value = Bytes;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("bytes")
                }
                fn visit_bytes<E>(self, v: &[u8]) -> Result<Bytes, E> {
                    Ok(Bytes(v.to_vec()))
                }
            }
            d.deserialize_bytes(V)
        }
    }
}

const COLOR: &str = "io.github.hessianrs.interop.model.Color";

fn colors() -> EnumSet<Color> {
    EnumSet {
        class: COLOR.into(),
        constants: vec![Color::Red, Color::Blue],
    }
}

fn color_names() -> EnumMap<Color, String> {
    EnumMap {
        class: COLOR.into(),
        entries: vec![(Color::Red, "r".into()), (Color::Blue, "b".into())],
    }
}

/// `EnumSet`, `EnumMap` and `Optional` as both fastjson2 versions wrote them read into their
/// Rust types and write Java's bytes again (`Optional` is its value, or null: fastjson2 writes
/// no wrapper).
#[test]
fn enum_collections_and_optional_read_and_write_javas_bytes() {
    for dir in [vectors(), common::vectors_2_0_56()] {
        let java = |name: &str| std::fs::read(dir.join(format!("{name}.bin"))).unwrap();
        let set: EnumSet<Color> = fastjson2::from_slice(&java("enum_set")).unwrap();
        assert_eq!(set, colors(), "{}", dir.display());
        assert_eq!(fastjson2::to_vec(&set).unwrap(), java("enum_set"));
        let map: EnumMap<Color, String> = fastjson2::from_slice(&java("enum_map")).unwrap();
        assert_eq!(map, color_names(), "{}", dir.display());
        assert_eq!(fastjson2::to_vec(&map).unwrap(), java("enum_map"));
        let optional: Option<String> = fastjson2::from_slice(&java("optional_string")).unwrap();
        assert_eq!(optional.as_deref(), Some("x"));
        assert_eq!(
            fastjson2::to_vec(&optional).unwrap(),
            java("optional_string")
        );
    }
    // A set read from elements Java wrote without their class (a list of bare names) still
    // reads; its class is unknown.
    let bare = fastjson2::to_vec(&["RED"]).unwrap();
    let set: EnumSet<Color> = fastjson2::from_slice(&bare).unwrap();
    assert_eq!(
        (set.class.as_str(), &set.constants[..]),
        ("", &[Color::Red][..])
    );
    // Something else where constants belong is an error, not a guess.
    let err = fastjson2::from_slice::<EnumMap<Color, String>>(&vector("enum_list")).unwrap_err();
    assert!(err.to_string().contains("expected"), "{err}");
}

#[test]
fn references_and_cycles_are_errors_in_typed_decoding() {
    let err = fastjson2::from_slice::<Vec<User>>(&vector("list_same_user_twice")).unwrap_err();
    assert!(err.to_string().contains("reference \"$[0]\""), "{err}");
    assert!(!err.is_eof());
}

/// A request body's first fields and a POJO argument, framed as Dubbo's `FastJson2ObjectOutput`
/// frames each object: the bytes Dubbo 3.2.19 itself wrote (`dubbo_frames.framed`).
fn dubbo_body() -> Vec<u8> {
    let mut body = Vec::new();
    for doc in [
        fastjson2::to_vec("2.0.2").unwrap(),
        fastjson2::to_vec("io.github.hessianrs.demo.DemoService").unwrap(),
        fastjson2::to_vec(&42).unwrap(),
    ] {
        fastjson2::frame::write_framed(&mut body, &doc);
    }
    fastjson2::frame::write_framed_with(&mut body, |out| {
        fastjson2::to_writer(out, &alice()).unwrap()
    });
    body
}

#[test]
fn dubbo_body_is_byte_identical_with_dubbos_own() {
    let java = std::fs::read(vectors().join("dubbo_frames.framed")).unwrap();
    assert_eq!(dubbo_body(), java);
    let (version, rest) = fastjson2::frame::read_framed(&java).unwrap();
    assert_eq!(fastjson2::from_slice::<&str>(version).unwrap(), "2.0.2");
    let (_, rest) = fastjson2::frame::read_framed(rest).unwrap();
    let (n, rest) = fastjson2::frame::read_framed(rest).unwrap();
    assert_eq!(fastjson2::from_slice::<i32>(n).unwrap(), 42);
    let (user, rest) = fastjson2::frame::read_framed(rest).unwrap();
    assert_eq!(fastjson2::from_slice::<User>(user).unwrap(), alice());
    assert!(rest.is_empty());
}

/// fastjson2 reads what serde wrote (the model users and Mix, a typed `int[]`), and Dubbo's own
/// `FastJson2ObjectInput` our framed body, as they read Java's files of the same names.
#[test]
fn java_reads_our_typed_encodings() {
    let user_nulls = fastjson2::from_slice::<User>(&vector("user_nulls")).unwrap();
    let files = [
        ("user.bin", fastjson2::to_vec(&alice()).unwrap()),
        ("mix.bin", fastjson2::to_vec(&mix_no_self_ref()).unwrap()),
        ("user_nulls.bin", fastjson2::to_vec(&user_nulls).unwrap()),
        (
            "int_array.bin",
            fastjson2::to_vec(&IntArray(vec![1, 2, 300])).unwrap(),
        ),
        (
            "users_list.bin",
            fastjson2::to_vec(&[alice(), bob()]).unwrap(),
        ),
        ("dubbo_frames.framed", dubbo_body()),
        ("enum_set.bin", fastjson2::to_vec(&colors()).unwrap()),
        ("enum_map.bin", fastjson2::to_vec(&color_names()).unwrap()),
    ];
    let files: Vec<_> = files.into_iter().map(|(n, b)| (n.to_owned(), b)).collect();
    common::java_reads_back("serde", &vectors(), &files);
}

/// An `int[]` held as `Object`: Java writes its class name `[I` first.
#[derive(Serialize)]
#[serde(rename = "[I")]
struct IntArray(Vec<i32>);

fn bob() -> User {
    User {
        email: Some("bob@example.com".into()),
        id: 2,
        name: Some("Bob".into()),
        ..alice()
    }
}

/// fastjson2 2.0.56 (Dubbo 3.3.5) writes a whole `float` up to 2^18 as `0xb6` and an int32,
/// 2.0.52 (Dubbo 3.2.19) only up to 47: `Serializer::with_version` matches either.
#[test]
fn float_forms_follow_the_fastjson2_version() {
    use fastjson2::encode::PeerVersion;
    for (name, v) in [
        ("float_48", 48.0f32),
        ("float_m17", -17.0),
        ("float_47", 47.0),
    ] {
        assert_eq!(fastjson2::to_vec(&v).unwrap(), vector(name), "{name}");
        let mut s = fastjson2::Serializer::with_version(Vec::new(), PeerVersion::V2_0_56);
        serde::Serialize::serialize(&v, &mut s).unwrap();
        let java = std::fs::read(common::vectors_2_0_56().join(format!("{name}.bin"))).unwrap();
        assert_eq!(s.into_inner(), java, "{name} as 2.0.56");
        assert_eq!(fastjson2::from_slice::<f32>(&java).unwrap(), v);
    }
}
