//! Bad input: never a panic, every error with an offset inside the input, nesting and lengths
//! bounded; skip and the full decode agree on where each value ends; every Value round-trips.

use fastjson2::decode::{Decoder, DEFAULT_MAX_DEPTH};
use fastjson2::value::{self, Value};
use fastjson2::ErrorKind;
use proptest::prelude::*;

#[test]
fn nesting_past_the_limit_is_an_error_not_a_stack_overflow() {
    for open in [0x95u8, 0x92] {
        // `[[[[...` (arrays of one item) or a chain of type names, far past the limit.
        let mut bytes = Vec::new();
        for _ in 0..100_000 {
            bytes.push(open);
            if open == 0x92 {
                bytes.extend_from_slice(&[0x4a, b'T', 0x00]);
            }
        }
        let err = value::from_slice(&bytes).unwrap_err();
        assert_eq!(
            err.kind(),
            &ErrorKind::DepthLimit(DEFAULT_MAX_DEPTH),
            "{open:02x}"
        );
        let err = Decoder::new(&bytes).skip().unwrap_err();
        assert_eq!(err.kind(), &ErrorKind::DepthLimit(DEFAULT_MAX_DEPTH));
        // serde reads past a chain of class names in a loop, without nesting: that chain ends
        // at the end of the input.
        let err = fastjson2::from_slice::<Value2>(&bytes).unwrap_err();
        if open == 0x95 {
            assert!(matches!(err.kind(), ErrorKind::DepthLimit(_)), "{err}");
        } else {
            assert!(err.is_eof(), "{err}");
        }
    }
}

/// Any self-describing Rust value, for the serde side of the nesting test.
#[derive(serde::Deserialize, Debug)]
#[serde(untagged)]
#[allow(dead_code)]
enum Value2 {
    List(Vec<Value2>),
    Other(i32),
}

#[test]
fn lengths_are_not_trusted() {
    // An array of i32::MAX items, a string and a binary of i32::MAX bytes, in a few bytes each.
    for bytes in [
        &[0xa4, 0x48, 0x7f, 0xff, 0xff, 0xff, 0x01][..],
        &[0x79, 0x48, 0x7f, 0xff, 0xff, 0xff, b'a'],
        &[0x91, 0x48, 0x7f, 0xff, 0xff, 0xff, 0x00],
        &[0xbb, 0x48, 0x7f, 0xff, 0xff, 0xff, 0x00],
    ] {
        let err = value::from_slice(bytes).unwrap_err();
        assert!(err.is_eof(), "{bytes:02x?}: {err}");
        assert_eq!(err.offset(), bytes.len() as u64);
    }
    let err = value::from_slice(&[0x91, 0xff]).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::InvalidLength { value: -1, .. }),
        "{err}"
    );
}

#[test]
fn symbols_must_be_defined_in_order() {
    // `{7f "a" 1: 1}`: symbol 1 defined before symbol 0.
    let err = value::from_slice(&[0xa6, 0x7f, 0x4a, b'a', 0x01, 0x01, 0xa5]).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::BadSymbol { index: 1, len: 0 });
    assert_eq!(err.offset(), 4);
    // A reference to a symbol never defined, and one into a shared SymbolTable.
    let err = value::from_slice(&[0xa6, 0x7f, 0x03, 0x01, 0xa5]).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::BadSymbol { index: 3, len: 0 });
    let err = value::from_slice(&[0x92, 0xff, 0x01]).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Unsupported(_)), "{err}");
    // Defined in order, referred to after.
    let v = value::from_slice(&[0x96, 0x7f, 0x4a, b'a', 0x00, 0x7f, 0x00]).unwrap();
    assert_eq!(
        v,
        Value::Array(vec![Value::symbol("a"), Value::symbol("a")])
    );
}

#[test]
fn codes_outside_the_format_and_stray_ends_are_errors() {
    for code in 0x80..=0x8f {
        let err = value::from_slice(&[code]).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Unexpected { found, .. } if *found == code));
        assert_eq!(err.offset(), 0);
    }
    let err = value::from_slice(&[0x95, 0xa5]).unwrap_err();
    assert_eq!(err.offset(), 1);
    let err = value::from_slice(&[0x01, 0x01]).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::TrailingBytes);
    let err = value::from_slice(&[0x7e, 0x01, 0x41]).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Unsupported(_)));
    let err = value::from_slice(&[0x7a, 0x02, 0xc3, 0x28]).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::InvalidString("UTF-8"));
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::Int),
        any::<i64>().prop_map(Value::Long),
        any::<i8>().prop_map(Value::Byte),
        any::<i16>().prop_map(Value::Short),
        // NaN and -0.0 are normalised as Java does; they have their own vectors.
        any::<f32>()
            .prop_filter("plain", |f| !f.is_nan() && f.to_bits() != 0x8000_0000)
            .prop_map(Value::Float),
        any::<f64>()
            .prop_filter("plain", |f| !f.is_nan() && f.to_bits() != 1 << 63)
            .prop_map(Value::Double),
        any::<u16>().prop_map(Value::Char),
        ".{0,60}".prop_map(Value::String),
        "[a-z]{1,3}".prop_map(Value::symbol),
        proptest::collection::vec(any::<u8>(), 0..40).prop_map(|b| Value::Binary(b.into())),
        any::<i64>().prop_map(Value::Date),
        "[$.a-z0-9\\[\\]]{1,8}".prop_map(Value::Ref),
    ]
}

fn any_value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(4, 48, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..20).prop_map(Value::Array),
            proptest::collection::vec((inner.clone(), inner.clone()), 0..6).prop_map(Value::Object),
            ("[a-zA-Z.]{1,12}", inner).prop_map(|(c, v)| Value::typed(c, v)),
        ]
    })
}

proptest! {
    #[test]
    fn values_round_trip_and_skip_ends_where_encoding_ended(v in any_value()) {
        let bytes = value::to_vec(&v);
        prop_assert_eq!(value::from_slice(&bytes).unwrap(), v.clone());
        let mut d = Decoder::new(&bytes);
        d.skip().unwrap();
        prop_assert!(d.is_end());
        for cut in 0..bytes.len() {
            prop_assert!(value::from_slice(&bytes[..cut]).unwrap_err().is_eof());
        }
    }

    #[test]
    fn random_bytes_never_panic_and_errors_point_inside(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let full = value::from_slice(&bytes);
        if let Err(e) = &full {
            prop_assert!(e.offset() <= bytes.len() as u64, "{}", e);
        }
        let mut d = Decoder::new(&bytes);
        let skipped = d.skip();
        // skip and the full decode succeed or fail together, at the same place.
        match (&full, &skipped) {
            (Ok(_), Ok(())) => prop_assert!(d.is_end()),
            (Err(e), Ok(())) => prop_assert_eq!(e.kind(), &ErrorKind::TrailingBytes),
            (Ok(_), Err(e)) => prop_assert!(false, "skip failed alone: {}", e),
            (Err(a), Err(b)) => prop_assert_eq!((a.kind(), a.offset()), (b.kind(), b.offset())),
        }
        let _ = fastjson2::from_slice::<Value2>(&bytes);
    }
}
