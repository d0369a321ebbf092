//! decode -> encode -> decode gives the same stream; and re-encoding is a fixed point (the
//! second encoding equals the first byte for byte).
//!
//! Input: one selector byte (bit 0: `LiteVersion::V4`, else `V3`), then the Hessian bytes.
#![no_main]

use hessian2::encode::LiteVersion;
use hessian2::value::{to_vec_with, Stream};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    let version = if selector & 1 == 1 {
        LiteVersion::V4
    } else {
        LiteVersion::V3
    };
    let Ok(first) = Stream::from_slice(bytes) else {
        return;
    };
    let encoded = to_vec_with(&first.values, version);
    let second = match Stream::from_slice(&encoded) {
        Ok(s) => s,
        Err(e) => panic!(
            "our own encoding does not decode: {e:?}\nvalues: {:?}",
            first.values
        ),
    };
    assert!(
        fuzz_support::values_eq(&first.values, &second.values),
        "round trip changed the stream:\n before: {:?}\n after:  {:?}",
        first.values,
        second.values
    );
    let again = to_vec_with(&second.values, version);
    assert_eq!(encoded, again, "re-encoding is not a fixed point");
});
