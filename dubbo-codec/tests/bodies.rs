//! Property tests of the body decoders: arbitrary bytes never panic, built requests round-trip
//! and the peek agrees with the full decode.

use dubbo_codec::response::{decode_error_message, RpcResult, TypedResult};
use dubbo_codec::{peek, peek_with_cache, MetadataCache, Request, RequestHead};
use hessian2::value::{Object, Value};
use proptest::prelude::*;

fn arb_scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::Int),
        any::<i64>().prop_map(Value::Long),
        any::<f64>()
            .prop_filter("not NaN", |d| !d.is_nan())
            .prop_map(Value::Double),
        "\\PC{0,40}".prop_map(Value::String),
    ]
}

fn arb_value() -> impl Strategy<Value = Value> {
    arb_scalar().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::untyped_list),
            prop::collection::vec(inner.clone(), 0..3)
                .prop_map(|v| Value::typed_list("java.util.ArrayList", v)),
            prop::collection::vec(("[a-z]{1,6}", inner.clone()), 0..3).prop_map(|kv| {
                Value::untyped_map(kv.into_iter().map(|(k, v)| (Value::from(k), v)).collect())
            }),
            (inner.clone(), inner).prop_map(|(a, b)| Value::Object(Object::new(
                "com.example.Pojo",
                [("a", a), ("b", b)]
            ))),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = Request::decode(&bytes);
        let _ = RequestHead::decode_with_attachments(&bytes);
        let _ = peek(&bytes);
        let _ = peek_with_cache(&bytes, &MetadataCache::new());
        let _ = RpcResult::decode(&bytes);
        let _ = TypedResult::<Value2>::decode(&bytes::Bytes::from(bytes.clone()));
        let _ = decode_error_message(&bytes);
        let _ = Request::decode_args::<(String, i32)>(&bytes::Bytes::from(bytes));
    }

    #[test]
    fn requests_round_trip_and_peek_agrees(
        args in prop::collection::vec(arb_value(), 0..4),
        group in prop::option::of("[a-z]{0,5}"),
        method in "[a-zA-Z$]{1,12}",
        cut in any::<prop::sample::Index>(),
    ) {
        let mut b = Request::builder("com.example.Svc", method.clone()).version("1.2");
        for a in &args {
            b = b.value_arg("java.lang.Object", a.clone());
        }
        if let Some(g) = &group {
            b = b.group(g.clone());
        }
        let req = b.build().unwrap();
        let body = req.to_bytes();
        let back = Request::decode(&body).unwrap();
        prop_assert_eq!(&back, &req);
        prop_assert_eq!(back.to_bytes(), body.clone());
        let p = peek(&body).unwrap();
        prop_assert_eq!(p.method.as_ref(), method.as_str());
        prop_assert_eq!(p.group.as_deref(), req.group());
        prop_assert_eq!(p.arg_count, Some(args.len()));
        let (_, attachments) = RequestHead::decode_with_attachments(&body).unwrap();
        prop_assert_eq!(attachments, req.attachments);
        // Every strict prefix is an error or a shorter valid body, never a panic.
        let n = cut.index(body.len());
        let _ = Request::decode(&body[..n]);
        let _ = peek(&body[..n]);
    }
}

/// Any Hessian value read through serde (for the typed decoder).
#[derive(Debug, serde::Deserialize)]
#[serde(untagged)]
#[allow(dead_code)]
enum Value2 {
    S(String),
    I(i64),
    Other(serde::de::IgnoredAny),
}
