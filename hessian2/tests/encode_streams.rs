//! A reused `Serializer` (reset between streams) writes exactly what a new one writes: class
//! definitions and type names are numbered from 0 again in every stream, in order of first use,
//! however many streams came before and in whatever order the values come.

use std::collections::BTreeMap;

use hessian2::types::{java, Date, JavaArray, Typed};
use hessian2::Serializer;
use serde::Serialize;

#[derive(Serialize)]
#[serde(rename = "com.example.Arrays")]
struct Arrays {
    #[serde(with = "hessian2::types::java_array")]
    ints: Vec<i32>,
    #[serde(with = "hessian2::types::java_array")]
    doubles: Vec<f64>,
    names: Vec<String>,
}

#[derive(Serialize)]
#[serde(rename = "com.example.Other")]
struct Other {
    when: Date,
    tags: Typed<Vec<String>, java::LinkedList>,
}

#[derive(Serialize)]
#[serde(rename = "com.example.Kind")]
enum Kind {
    Small,
}

/// One value of many types: each writes a class or a type name (more than eight type names,
/// and `java.util.ArrayList` both from `Vec` and from `java::ArrayList`).
#[derive(Serialize)]
#[serde(untagged)]
enum Item {
    Arrays(Arrays),
    Other(Other),
    Kind(Kind),
    Bools(JavaArray<bool>),
    Shorts(JavaArray<i16>),
    Longs(JavaArray<i64>),
    Floats(JavaArray<f32>),
    Strings(JavaArray<String>),
    Dates(JavaArray<Date>),
    Boxed(JavaArray<Option<i32>>),
    Set(Typed<Vec<i32>, java::HashSet>),
    Tree(Typed<BTreeMap<String, i32>, java::TreeMap>),
    List(Typed<Vec<i32>, java::ArrayList>),
    Plain(Vec<i32>),
}

fn items() -> Vec<Item> {
    vec![
        Item::Arrays(Arrays {
            ints: vec![1, 2],
            doubles: vec![0.5],
            names: vec!["a".into()],
        }),
        Item::Other(Other {
            when: Date(60_000),
            tags: Typed::new(vec!["t".into()]),
        }),
        Item::Kind(Kind::Small),
        Item::Bools(JavaArray(vec![true])),
        Item::Shorts(JavaArray(vec![3])),
        Item::Longs(JavaArray(vec![4])),
        Item::Floats(JavaArray(vec![1.5])),
        Item::Strings(JavaArray(vec!["s".into()])),
        Item::Dates(JavaArray(vec![Date(1)])),
        Item::Boxed(JavaArray(vec![None, Some(5)])),
        Item::Set(Typed::new(vec![6])),
        Item::Tree(Typed::new(BTreeMap::from([("k".into(), 7)]))),
        Item::List(Typed::new(vec![8])),
        Item::Plain(vec![9]),
    ]
}

/// The stream of `order`'s items, each written twice (the second time by index).
fn stream(ser: &mut Serializer<Vec<u8>>, items: &[Item], order: &[usize]) {
    for &i in order {
        ser.serialize(&items[i]).unwrap();
        ser.serialize(&items[i]).unwrap();
    }
}

#[test]
fn a_reset_serializer_writes_what_a_new_one_writes() {
    let items = items();
    let n = items.len();
    let forward: Vec<usize> = (0..n).collect();
    let backward: Vec<usize> = (0..n).rev().collect();
    let odd: Vec<usize> = (0..n).filter(|i| i % 2 == 1).collect();
    let mut reused = Serializer::new(Vec::new());
    for order in [&forward, &backward, &odd, &forward, &odd[..1]] {
        reused.reset();
        reused.get_mut().clear();
        stream(&mut reused, &items, order);
        let mut fresh = Serializer::new(Vec::new());
        stream(&mut fresh, &items, order);
        assert_eq!(reused.get_ref(), fresh.get_ref(), "order {order:?}");
    }
}

#[test]
fn type_names_are_numbered_by_first_use_in_each_stream() {
    let items = items();
    let mut ser = Serializer::new(Vec::new());
    // `[boolean` is type 0 in the first stream, `[short` in the second.
    stream(&mut ser, &items, &[3, 4]);
    assert_eq!(
        ser.get_ref(),
        b"\x71\x08[boolean\x54\x71\x90\x54\x71\x06[short\x93\x71\x91\x93"
    );
    ser.reset();
    ser.get_mut().clear();
    stream(&mut ser, &items, &[4, 3]);
    assert_eq!(
        ser.get_ref(),
        b"\x71\x06[short\x93\x71\x90\x93\x71\x08[boolean\x54\x71\x91\x54"
    );
}
