//! fastjson2 JSONB: `Decoder::skip` and `value::read_value`, run over the same bytes as a run of
//! Dubbo frames (or, when the bytes are no frame, as back-to-back documents), end every value at
//! the same offset and fail alike (the same error kind at the same offset).
#![no_main]

use fastjson2::decode::Decoder;
use fastjson2::frame::read_framed;
use fastjson2::value;
use libfuzzer_sys::fuzz_target;

fn agree(doc: &[u8]) {
    let mut skipping = Decoder::new(doc);
    let mut reading = Decoder::new(doc);
    while !skipping.is_end() {
        let skipped = skipping.skip();
        let read = value::read_value(&mut reading);
        match (&skipped, &read) {
            (Ok(()), Ok(_)) => assert_eq!(skipping.offset(), reading.offset()),
            (Err(a), Err(b)) => {
                assert_eq!((a.kind(), a.offset()), (b.kind(), b.offset()));
                return;
            }
            _ => panic!("skip {skipped:?} but read {read:?}"),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut rest = data;
    let mut frames = 0;
    while let Ok((doc, tail)) = read_framed(rest) {
        agree(doc);
        rest = tail;
        frames += 1;
        if rest.is_empty() {
            break;
        }
    }
    if frames == 0 {
        agree(data);
    }
});
