//! decode -> encode -> decode gives the same stream; and re-encoding is a fixed point (the
//! second encoding equals the first byte for byte).
//!
//! Input: one selector byte (bit 0: `PeerVersion::V4`, else `V3`), then the Hessian bytes.
#![no_main]

use hessian2::encode::PeerVersion;
use hessian2::value::Stream;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    let version = if selector & 1 == 1 {
        PeerVersion::V4
    } else {
        PeerVersion::V3
    };
    let Ok(first) = Stream::from_slice(bytes) else {
        return;
    };
    let encoded = first.to_vec_with(version);
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
    let again = second.to_vec_with(version);
    assert_eq!(encoded, again, "re-encoding is not a fixed point");
});
