//! The Dubbo frame decoder fed the same bytes whole and in pieces cut at up to four
//! fuzzer-chosen points: the same frames and errors in the same order, the same stream offset;
//! each frame re-encodes to exactly the bytes it was read from.
//!
//! Input: an 11-byte `Plan` (payload limit choice, number of cuts, cut positions), then the
//! byte stream.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use bytes::BytesMut;
use dubbo_codec::error::DecodeError;
use dubbo_codec::{Frame, FrameCodec, DEFAULT_MAX_PAYLOAD};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Plan {
    limit: u8,
    count: u8,
    cuts: [u16; 4],
    /// Also feed the bytes one at a time.
    bytewise: bool,
}

#[derive(Debug)]
enum Event {
    Frame(Frame),
    Error(DecodeError),
}

fn same(a: &Event, b: &Event) -> bool {
    match (a, b) {
        (Event::Frame(x), Event::Frame(y)) => x == y,
        // A bad first byte is reported as soon as it arrives, so a split stream may show one
        // byte of bad magic where the whole one shows two.
        (
            Event::Error(DecodeError::BadMagic {
                offset: o1,
                magic: m1,
            }),
            Event::Error(DecodeError::BadMagic {
                offset: o2,
                magic: m2,
            }),
        ) => o1 == o2 && (m1.found().starts_with(m2.found()) || m2.found().starts_with(m1.found())),
        (Event::Error(x), Event::Error(y)) => x == y,
        _ => false,
    }
}

/// Feeds `chunks` in turn, taking every frame after each, then ends the stream.
fn run<'a>(data: &[u8], limit: u32, chunks: impl Iterator<Item = &'a [u8]>) -> (Vec<Event>, u64) {
    let mut codec = FrameCodec::with_max_payload(limit);
    let mut buf = BytesMut::new();
    let mut events = Vec::new();
    let mut take = |codec: &mut FrameCodec, buf: &mut BytesMut, eof: bool| -> bool {
        loop {
            let r = if eof {
                codec.decode_frame_eof(buf)
            } else {
                codec.decode_frame(buf)
            };
            match r {
                Ok(Some(frame)) => {
                    // The frame's bytes end where the codec now stands.
                    let end = codec.stream_offset() as usize;
                    let mut wire = BytesMut::new();
                    codec
                        .encode_frame(&frame, &mut wire)
                        .expect("re-encode a decoded frame");
                    assert_eq!(
                        &wire[..],
                        &data[end - wire.len()..end],
                        "frame re-encodes to other bytes"
                    );
                    events.push(Event::Frame(frame));
                }
                Ok(None) => return true,
                Err(e) => {
                    assert!(
                        e.offset() <= data.len() as u64,
                        "error past the input: {e:?}"
                    );
                    let fatal = e.is_fatal();
                    assert_eq!(fatal, codec.is_failed());
                    events.push(Event::Error(e));
                    if fatal {
                        return false;
                    }
                }
            }
        }
    };
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        if !take(&mut codec, &mut buf, false) {
            return (events, codec.stream_offset());
        }
    }
    take(&mut codec, &mut buf, true);
    (events, codec.stream_offset())
}

fuzz_target!(|input: &[u8]| {
    let mut u = Unstructured::new(input);
    let Ok(plan) = Plan::arbitrary(&mut u) else {
        return;
    };
    let data = u.take_rest();
    let limit = match plan.limit % 4 {
        0 => DEFAULT_MAX_PAYLOAD,
        1 => 0,
        2 => 3,
        _ => 64,
    };
    let mut cuts: Vec<usize> = plan.cuts[..plan.count as usize % 5]
        .iter()
        .map(|&c| c as usize % (data.len() + 1))
        .collect();
    cuts.sort_unstable();
    let mut pieces = Vec::new();
    let mut from = 0;
    for to in cuts.into_iter().chain([data.len()]) {
        pieces.push(&data[from..to]);
        from = to;
    }

    let (whole, whole_offset) = run(data, limit, std::iter::once(data));
    let (split, split_offset) = run(data, limit, pieces.iter().copied());
    let agree = |other: &[Event], offset: u64, how: &str| {
        assert!(
            whole.len() == other.len() && whole.iter().zip(other).all(|(a, b)| same(a, b)),
            "whole and {how} disagree:\n whole: {whole:?}\n {how}: {other:?}"
        );
        assert_eq!(whole_offset, offset, "stream offsets differ ({how})");
    };
    agree(&split, split_offset, "split");
    if plan.bytewise && data.len() <= 512 {
        let (bytewise, offset) = run(data, limit, data.chunks(1));
        agree(&bytewise, offset, "bytewise");
    }
});
