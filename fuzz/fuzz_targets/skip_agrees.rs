//! `Decoder::skip` agrees with a full `ValueDecoder` decode on where each value of a stream ends.
//!
//! Both decoders walk the same bytes in lockstep, one top-level value at a time (their class and
//! type tables grow the same way). After each value: both succeeded and stand at the same
//! offset, or both failed with the same error — except for what skip does not look at by design
//! (it checks structure, not content): string bytes that are not valid UTF-8/CESU-8 beyond their
//! lead bytes, and `Q` references to containers not yet started. When the full decode fails
//! on those, skip may go on; it must then not fail *earlier*.
//!
//! The serde layer's own skip (what `IgnoredAny` and unknown fields use) walks beside them and
//! must match `Decoder::skip` exactly, step by step (a `Z` after a class definition once ended
//! a map in both skips: `definition_before_end_marker` in hessian2/tests/fuzz_regressions.rs).
#![no_main]

use hessian2::decode::Decoder;
use hessian2::input::SliceInput;
use hessian2::value::ValueDecoder;
use hessian2::ErrorKind;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut skipper = Decoder::new(SliceInput::new(data));
    let mut full = ValueDecoder::new(SliceInput::new(data));
    let mut serde_skipper = hessian2::de::Deserializer::from_slice(data);
    loop {
        if skipper.is_empty() {
            assert!(matches!(full.next_value(), Ok(None)));
            assert!(serde_skipper.is_end());
            return;
        }
        let skipped = skipper.skip();
        let serde_skipped = serde_skipper.skip_value();
        match (&skipped, &serde_skipped) {
            (Ok(()), Ok(())) => assert_eq!(
                skipper.offset(),
                serde_skipper.offset(),
                "skip and the serde skip end a value at different offsets"
            ),
            (Err(s), Err(d)) if s.kind() == d.kind() && s.offset() == d.offset() => {}
            _ => panic!("skip and the serde skip disagree: {skipped:?}, {serde_skipped:?}"),
        }
        let decoded = full.next_value();
        match (skipped, decoded) {
            (Ok(()), Ok(Some(_))) => assert_eq!(
                skipper.offset(),
                full.decoder().offset(),
                "skip and decode end a value at different offsets"
            ),
            (Err(s), Err(d)) if s.kind() == d.kind() && s.offset() == d.offset() => return,
            (skipped, Err(d)) if content_only(d.kind()) => {
                if let Err(s) = skipped {
                    assert!(
                        s.offset() >= d.offset(),
                        "skip failed before the content error: skip {s:?}, decode {d:?}"
                    );
                }
                return;
            }
            (skipped, decoded) => panic!(
                "skip and decode disagree at offset {}: skip {skipped:?}, decode {:?}",
                full.decoder().offset(),
                decoded.map(|v| v.map(|v| v.to_string()))
            ),
        }
    }
});

/// Errors that a full decode finds in content that skip does not validate.
fn content_only(kind: &ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::InvalidUtf8 | ErrorKind::BadReference { table: "value", .. }
    )
}
