//! Property tests of parameter descriptors.

use dubbo_codec::descriptor::{arg_count, desc_to_name, name_to_desc, Descriptor};
use proptest::collection::vec;
use proptest::prelude::*;

fn arb_type() -> impl Strategy<Value = String> {
    let base = prop_oneof![
        prop::sample::select(vec!["Z", "B", "C", "S", "I", "J", "F", "D"]).prop_map(String::from),
        vec("[a-zA-Z_$][a-zA-Z0-9_$]{0,8}", 1..4)
            // A class named like a primitive (`Lint;`) reads back as the primitive, in Java too.
            .prop_filter("primitive name", |segs| {
                !matches!(
                    segs.as_slice(),
                    [one] if ["boolean", "byte", "char", "short", "int", "long", "float", "double", "void"]
                        .contains(&one.as_str())
                )
            })
            .prop_map(|segs| format!("L{};", segs.join("/"))),
    ];
    (0usize..4, base).prop_map(|(dims, base)| format!("{}{}", "[".repeat(dims), base))
}

proptest! {
    #[test]
    fn counts_and_iterates_valid_descriptors(types in vec(arb_type(), 0..10)) {
        let desc = types.concat();
        prop_assert_eq!(arg_count(&desc), Ok(types.len()));
        let parsed = Descriptor::parse(&desc).unwrap();
        let got: Vec<&str> = parsed.iter().collect();
        prop_assert_eq!(got, types.iter().map(String::as_str).collect::<Vec<_>>());
        for t in &types {
            let name = desc_to_name(t).unwrap();
            prop_assert_eq!(&name_to_desc(&name).unwrap(), t);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in vec(any::<u8>(), 0..64)) {
        match arg_count(&bytes[..]) {
            Ok(_) => {}
            Err(e) => prop_assert!(e.offset() <= bytes.len()),
        }
    }

    #[test]
    fn arbitrary_strings_agree(s in "[\\[LZBCSIJFDV/;.a-c$]{0,24}") {
        let count = arg_count(&s);
        prop_assert_eq!(count, Descriptor::parse(&s).map(|d| d.len()));
        if let Ok(d) = Descriptor::parse(&s) {
            prop_assert_eq!(d.iter().collect::<String>(), s.clone());
            for t in d {
                prop_assert!(desc_to_name(t).is_ok());
            }
        }
        let _ = desc_to_name(&s);
        let _ = name_to_desc(&s);
    }
}
