//! The same bytes decoded from a slice (`SliceInput`, borrowing), from `Bytes` (`BufInput`,
//! zero-copy) and from a `Buf` chain cut at up to three fuzzer-chosen points give the same
//! result: the same values, or the same error kind at the same offset.
//!
//! Input: a 7-byte header (`Cuts`: how many cuts, and where), then the Hessian bytes.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use bytes::Bytes;
use fuzz_support::{chained, decode_all, identical, show};
use hessian2::input::{BufInput, SliceInput};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Cuts {
    count: u8,
    at: [u16; 3],
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(cuts) = Cuts::arbitrary(&mut u) else {
        return;
    };
    let bytes = u.take_rest();
    let cuts = &cuts.at[..cuts.count as usize % 4];

    let slice = decode_all(SliceInput::new(bytes));
    let whole = decode_all(BufInput::new(Bytes::copy_from_slice(bytes)));
    let split = decode_all(BufInput::new(chained(bytes, cuts)));
    for (name, other) in [("Bytes", &whole), ("chain", &split)] {
        let same = match (&slice, other) {
            (Ok(a), Ok(b)) => identical(a, b),
            (Err(a), Err(b)) => a.kind() == b.kind() && a.offset() == b.offset(),
            _ => false,
        };
        assert!(
            same,
            "slice and {name} (cuts {cuts:?}) disagree:\n slice: {}\n {name}: {}",
            show(&slice),
            show(other)
        );
    }
});
