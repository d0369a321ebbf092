//! Java parameter descriptors (`Ljava/lang/String;I[J`): the SWAR `arg_count` against a plain
//! byte-by-byte reading of the grammar documented in `dubbo_codec::descriptor` (same count or
//! the same error at the same offset), `Descriptor` iteration, and the `desc_to_name` /
//! `name_to_desc` conversions.
#![no_main]

use dubbo_codec::descriptor::{
    arg_count, desc_to_name, name_to_desc, Descriptor, DescriptorError, MAX_ARRAY_DIMENSIONS,
};
use libfuzzer_sys::fuzz_target;

/// The grammar, one byte at a time (module docs of `dubbo_codec::descriptor`).
fn reference_count(b: &[u8]) -> Result<usize, DescriptorError> {
    let mut count = 0;
    let mut i = 0;
    while i < b.len() {
        let start = i;
        while b.get(i) == Some(&b'[') {
            i += 1;
        }
        if i - start > MAX_ARRAY_DIMENSIONS {
            return Err(DescriptorError::TooManyDimensions {
                offset: start + MAX_ARRAY_DIMENSIONS,
            });
        }
        i = match b.get(i) {
            Some(b'Z' | b'B' | b'C' | b'S' | b'I' | b'J' | b'F' | b'D' | b'V') => i + 1,
            Some(b'L') => {
                let mut segment = i + 1;
                let mut j = i + 1;
                loop {
                    match b.get(j) {
                        None => return Err(DescriptorError::UnexpectedEnd { offset: j }),
                        Some(b';' | b'/') if j == segment => {
                            return Err(DescriptorError::InvalidClassName { offset: j })
                        }
                        Some(b';') => break j + 1,
                        Some(b'/') => segment = j + 1,
                        Some(b'.' | b'[') => {
                            return Err(DescriptorError::InvalidClassName { offset: j })
                        }
                        Some(_) => {}
                    }
                    j += 1;
                }
            }
            Some(&byte) => return Err(DescriptorError::InvalidType { offset: i, byte }),
            None => return Err(DescriptorError::UnexpectedEnd { offset: i }),
        };
        count += 1;
    }
    Ok(count)
}

const PRIMITIVE_NAMES: [&str; 9] = [
    "boolean", "byte", "char", "short", "int", "long", "float", "double", "void",
];

/// `Lint;` is a class named `int` (legal in the JVM, not in Java): its name reads back as the
/// primitive, as with Java's `ReflectUtils`.
fn class_named_like_primitive(desc: &str, name: &str) -> bool {
    desc.trim_start_matches('[').starts_with('L')
        && PRIMITIVE_NAMES.contains(&name.trim_end_matches("[]"))
}

fuzz_target!(|data: &[u8]| {
    let count = arg_count(data);
    assert_eq!(
        count,
        reference_count(data),
        "arg_count vs the grammar on {data:?}"
    );
    if let Err(e) = count {
        assert!(e.offset() <= data.len());
    }

    if let Ok(text) = std::str::from_utf8(data) {
        match Descriptor::parse(text) {
            Ok(desc) => {
                assert_eq!(Ok(desc.len()), count);
                let types: Vec<&str> = desc.iter().collect();
                assert_eq!(types.len(), desc.len());
                assert_eq!(types.concat(), text);
                assert_eq!(desc.to_string(), text);
                for ty in types {
                    let name = desc_to_name(ty).expect("desc_to_name of a checked type");
                    // `name_to_desc` checks class names by the JVM's rule, as `arg_count` does:
                    // every checked type converts back.
                    if !class_named_like_primitive(ty, &name) {
                        assert_eq!(
                            name_to_desc(&name).as_deref(),
                            Ok(ty),
                            "name_to_desc(desc_to_name({ty:?}) = {name:?})"
                        );
                    }
                }
            }
            Err(e) => assert_eq!(Err(e), count),
        }

        // Any name: name_to_desc gives one checked type, and converting it back and forth
        // again is stable.
        if let Ok(desc) = name_to_desc(text) {
            assert_eq!(arg_count(&desc), Ok(1), "name_to_desc({text:?}) = {desc:?}");
            let name = desc_to_name(&desc).expect("desc_to_name of name_to_desc");
            match name_to_desc(&name) {
                Ok(again) => {
                    if !class_named_like_primitive(&desc, &name) {
                        assert_eq!(again, desc, "name_to_desc({text:?}), back via {name:?}");
                    }
                }
                // Once found here: the `[L...;` spelling did not check class names as the
                // plain one did (both_spellings_of_an_array_type_accept_the_same_class_names in
                // dubbo-codec/tests/fuzz_regressions.rs).
                Err(e) => panic!("name_to_desc({text:?}) = {desc:?}, but {name:?} gives {e:?}"),
            }
        }
    }
});
