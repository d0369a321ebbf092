//! Property tests of the wire layer through `Value`: arbitrary values round-trip, and every strict
//! prefix of a valid encoding is reported as "need more bytes", never a panic or a wrong value.

use hessian2::value::{self, List, Map, Object, Value};
use proptest::prelude::*;

fn arb_double() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("NaN never equals itself", |d| !d.is_nan()),
        (-40_000i32..40_000).prop_map(f64::from),
        (-3_000_000i32..3_000_000).prop_map(|m| 0.001 * f64::from(m)),
    ]
    // Java writes -0.0 as 0.0 (`(int) -0.0 == 0`), so it cannot round-trip; the vectors test it.
    .prop_map(|d| if d == 0.0 { 0.0 } else { d })
}

fn arb_string() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{0,40}",
        "\\PC{0,40}",
        // Emoji and CJK around the 0x8000-unit chunk boundary.
        (0usize..4, 32_760usize..32_780).prop_map(|(k, n)| {
            let unit = ["a", "中", "😀", "é"][k];
            unit.repeat(n / unit.encode_utf16().count())
        }),
    ]
}

/// Java strings as UTF-16 units, surrogates (paired, lone, reversed) frequent; some around the
/// 0x8000-unit chunk boundary, where a high surrogate moves to the next chunk.
fn arb_units() -> impl Strategy<Value = Vec<u16>> {
    let unit = prop_oneof![
        0x20u16..0x7f,
        0x80u16..0x800,
        0xd800u16..0xdc00,
        0xdc00u16..0xe000,
        any::<u16>(),
    ];
    prop_oneof![
        8 => proptest::collection::vec(unit.clone(), 0..40),
        1 => (32_760usize..32_775, proptest::collection::vec(unit, 1..4)).prop_map(|(n, tail)| {
            let mut units = vec![u16::from(b'a'); n];
            units.extend(tail);
            units
        }),
    ]
}

fn arb_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::Int),
        (-300_000i32..300_000).prop_map(Value::Int),
        any::<i64>().prop_map(Value::Long),
        (-300_000i64..300_000).prop_map(Value::Long),
        arb_double().prop_map(Value::Double),
        prop_oneof![
            any::<i64>(),
            any::<i32>().prop_map(|m| i64::from(m) * 60_000)
        ]
        .prop_map(Value::Date),
        arb_string().prop_map(Value::String),
        arb_units().prop_map(Value::from_utf16),
        prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..40),
            (4000usize..9000).prop_map(|n| vec![7u8; n]),
        ]
        .prop_map(|b| Value::Binary(b.into())),
    ]
}

fn arb_type() -> impl Strategy<Value = Option<std::sync::Arc<str>>> {
    prop_oneof![
        Just(None),
        prop::sample::select(vec!["[int", "java.util.ArrayList", "[string", "x.Y"])
            .prop_map(|t| Some(t.into())),
    ]
}

fn arb_value() -> impl Strategy<Value = Value> {
    arb_leaf().prop_recursive(4, 64, 10, |inner| {
        prop_oneof![
            (arb_type(), proptest::collection::vec(inner.clone(), 0..10))
                .prop_map(|(ty, items)| Value::List(List { ty, items })),
            (
                arb_type(),
                proptest::collection::vec((inner.clone(), inner.clone()), 0..5)
            )
                .prop_map(|(ty, entries)| Value::Map(Map { ty, entries })),
            (
                prop::sample::select(vec!["a.A", "b.B"]),
                proptest::collection::vec(inner, 0..4)
            )
                .prop_map(|(class, values)| {
                    let names = ["x", "y", "z", "w"];
                    Value::Object(Object::new(class, names.iter().copied().zip(values)))
                }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn values_round_trip(v in arb_value()) {
        let bytes = value::to_vec(&v);
        prop_assert_eq!(value::from_slice(&bytes).unwrap(), v);
    }

    #[test]
    fn every_strict_prefix_needs_more_bytes(v in arb_value()) {
        let bytes = value::to_vec(&v);
        // Every cut of short encodings; a sample of cuts of long ones.
        let step = (bytes.len() / 512).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            let err = value::from_slice(&bytes[..cut]).unwrap_err();
            prop_assert!(err.is_eof(), "prefix {} of {}: {}", cut, bytes.len(), err);
            prop_assert!(err.offset() <= cut as u64);
        }
    }

    #[test]
    fn chunked_input_decodes_like_a_slice(v in arb_value(), split in any::<prop::sample::Index>()) {
        use bytes::Buf;
        let bytes = value::to_vec(&v);
        let at = split.index(bytes.len() + 1);
        let chain = (&bytes[..at]).chain(&bytes[at..]);
        let mut decoder = value::ValueDecoder::new(hessian2::input::BufInput::new(chain));
        prop_assert_eq!(decoder.next_value().unwrap(), Some(v));
    }

    #[test]
    fn skip_ends_where_decode_ends(v in arb_value(), tail in any::<u8>()) {
        let mut bytes = value::to_vec(&v);
        bytes.push(tail);
        let mut decoder = hessian2::decode::Decoder::new(hessian2::input::SliceInput::new(&bytes));
        decoder.skip().unwrap();
        prop_assert_eq!(decoder.remaining(), 1);
    }

    #[test]
    fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let _ = value::Stream::from_slice(&bytes);
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let bytes = vec![0x79u8; 100_000]; // untyped list of one, nested 100k deep
    let err = value::from_slice(&bytes).unwrap_err();
    assert!(
        matches!(err.kind(), hessian2::ErrorKind::DepthLimit(128)),
        "{err}"
    );
}

#[test]
fn length_claims_do_not_allocate() {
    // 'X' fixed untyped list claiming i32::MAX items, then nothing.
    let bytes = [b'X', b'I', 0x7f, 0xff, 0xff, 0xff];
    assert!(value::from_slice(&bytes).unwrap_err().is_eof());
}

#[test]
fn reserved_codes_are_errors_with_their_offset() {
    for code in [0x40u8, 0x45, 0x47, 0x50] {
        let err = value::from_slice(&[0x79, code]).unwrap_err();
        assert_eq!(err.kind(), &hessian2::ErrorKind::Reserved(code));
        assert_eq!(err.offset(), 1);
    }
}

#[test]
fn references_are_kept_and_resolved() {
    // A list holding the same (Java-identical) map twice: the second is `Q 1`.
    let map = Value::untyped_map(vec![(Value::from("k"), Value::Int(1))]);
    let list = Value::untyped_list(vec![map.clone(), Value::Ref(1)]);
    let bytes = value::to_vec(&list);
    let stream = value::Stream::from_slice(&bytes).unwrap();
    assert_eq!(stream.values, vec![list]);
    assert_eq!(stream.resolve(1), Some(&map));
    // A reference to something not yet started is corrupt input.
    let err = value::from_slice(&[0x79, b'Q', 0x91]).unwrap_err();
    assert!(matches!(
        err.kind(),
        hessian2::ErrorKind::BadReference { .. }
    ));
}

#[test]
fn strings_read_both_cesu8_pairs_and_four_byte_utf8() {
    // Java writes U+1F600 as two 3-byte surrogates; other writers use 4-byte UTF-8. Both count as
    // two UTF-16 units.
    assert_eq!(
        value::from_slice(b"\x02\xed\xa0\xbd\xed\xb8\x80").unwrap(),
        Value::from("😀")
    );
    assert_eq!(
        value::from_slice(b"\x02\xf0\x9f\x98\x80").unwrap(),
        Value::from("😀")
    );
    // A lone surrogate (legal in Java) is kept by `Value`, U+FFFD in a typed `String`.
    assert_eq!(
        value::from_slice(b"\x01\xed\xa0\xbd").unwrap(),
        Value::Utf16(vec![0xd83d])
    );
    assert_eq!(
        hessian2::from_slice::<String>(b"\x01\xed\xa0\xbd").unwrap(),
        "\u{fffd}"
    );
    // Not UTF-8 at all: an error at the bad byte.
    let err = value::from_slice(b"\x02a\xff").unwrap_err();
    assert_eq!(
        (err.kind(), err.offset()),
        (&hessian2::ErrorKind::InvalidUtf8, 2)
    );
}

#[test]
fn two_byte_ints_and_references_read_alike_split_anywhere() {
    use bytes::Buf;
    // Two-byte ints at both ends of their range and a `Q` with a one-byte index: the forms the
    // decoder reads inline when both bytes are in the chunk, and out of line when they are not.
    let map = Value::untyped_map(vec![(Value::from("k"), Value::Int(-2048))]);
    let list = Value::untyped_list(vec![map, Value::Int(2047), Value::Int(-17), Value::Ref(1)]);
    let bytes = value::to_vec(&list);
    assert!(bytes.windows(2).any(|w| w == [b'Q', 0x91]), "{bytes:02x?}");
    for at in 0..=bytes.len() {
        let chain = (&bytes[..at]).chain(&bytes[at..]);
        let mut decoder = value::ValueDecoder::new(hessian2::input::BufInput::new(chain));
        assert_eq!(
            decoder.next_value().unwrap(),
            Some(list.clone()),
            "split at {at}"
        );
        if at < bytes.len() {
            let err = value::from_slice(&bytes[..at]).unwrap_err();
            assert!(err.is_eof(), "prefix {at}: {err}");
        }
    }
}
