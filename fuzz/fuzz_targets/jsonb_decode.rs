//! fastjson2 JSONB: `value::from_slice` on arbitrary bytes never panics, loops or allocates
//! beyond the input; error offsets lie within the input; a decoded value re-encodes to bytes
//! that decode to a value encoding the same (a fixed point: Java's -0.0 and NaN forms are
//! normalised on the first encoding); a valid document cut by one byte is an `is_eof()` error;
//! serde reads the same bytes into the interop model's `User` and `Mix` without panicking.
#![no_main]

use fastjson2::value;
use interop_model::jsonb::{Mix, User};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match value::from_slice(data) {
        Err(e) => assert!(
            e.offset() <= data.len() as u64,
            "error offset {} past the input ({} bytes): {e:?}",
            e.offset(),
            data.len()
        ),
        Ok(v) => {
            let once = value::to_vec(&v);
            let again = value::from_slice(&once).expect("our encoding decodes");
            assert_eq!(value::to_vec(&again), once, "re-encoding is not a fixed point");
            if !data.is_empty() {
                let cut = value::from_slice(&data[..data.len() - 1]).unwrap_err();
                assert!(cut.is_eof(), "a document cut by one byte: {cut:?}");
            }
        }
    }
    let _ = fastjson2::from_slice::<User>(data);
    let _ = fastjson2::from_slice::<Mix>(data);
    let _ = fastjson2::from_slice::<Vec<User>>(data);
});
