//! Struct field names reach serde's derived visitors by every path the decoder has for them:
//! ASCII symbols in Java's short forms (bytes), names that are not ASCII (text), symbols first
//! defined where they were skipped and then referred to, renamed, aliased, unknown and denied
//! fields, and flattened structs (read as maps).

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Inner {
    a: i32,
}

/// `skipped` defines the symbol `a` inside a value a reader of [`OnlyA`] skips; the outer `a`
/// refers to that definition.
#[derive(Serialize)]
struct SkippedThenA {
    skipped: Inner,
    a: i32,
}

#[derive(Deserialize, Debug, PartialEq)]
struct OnlyA {
    a: i32,
}

#[test]
fn a_symbol_defined_in_a_skipped_value_is_matched_when_referred_to() {
    let bytes = fastjson2::to_vec(&SkippedThenA {
        skipped: Inner { a: 1 },
        a: 2,
    })
    .unwrap();
    assert_eq!(
        fastjson2::from_slice::<OnlyA>(&bytes).unwrap(),
        OnlyA { a: 2 }
    );
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Named {
    /// Latin-1 on the wire (one byte `0xe9`), not ASCII: read as text.
    #[serde(rename = "café")]
    cafe: i32,
    #[serde(alias = "old_b")]
    b: i32,
    c: i32,
}

#[test]
fn non_ascii_renamed_and_aliased_names_are_matched_defined_and_referred_to() {
    let v = vec![
        Named {
            cafe: 1,
            b: 2,
            c: 3,
        },
        Named {
            cafe: 4,
            b: 5,
            c: 6,
        },
    ];
    let bytes = fastjson2::to_vec(&v).unwrap();
    assert!(bytes.contains(&0xe9), "café as Latin-1");
    assert_eq!(fastjson2::from_slice::<Vec<Named>>(&bytes).unwrap(), v);

    #[derive(Serialize)]
    struct Old {
        #[serde(rename = "café")]
        cafe: i32,
        old_b: i32,
        c: i32,
    }
    let bytes = fastjson2::to_vec(&Old {
        cafe: 1,
        old_b: 2,
        c: 3,
    })
    .unwrap();
    let want = Named {
        cafe: 1,
        b: 2,
        c: 3,
    };
    assert_eq!(fastjson2::from_slice::<Named>(&bytes).unwrap(), want);
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Strict {
    a: i32,
}

#[test]
fn unknown_fields_are_skipped_or_denied() {
    let bytes = fastjson2::to_vec(&SkippedThenA {
        skipped: Inner { a: 1 },
        a: 2,
    })
    .unwrap();
    let err = fastjson2::from_slice::<Strict>(&bytes).unwrap_err();
    assert!(err.to_string().contains("unknown field `skipped`"), "{err}");
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Flat {
    c: i32,
    #[serde(flatten)]
    inner: Inner,
}

#[test]
fn flattened_fields_are_read_through_a_map() {
    let v = Flat {
        c: 1,
        inner: Inner { a: 2 },
    };
    let bytes = fastjson2::to_vec(&v).unwrap();
    assert_eq!(fastjson2::from_slice::<Flat>(&bytes).unwrap(), v);
}
