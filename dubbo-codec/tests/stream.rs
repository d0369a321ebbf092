//! Property tests of the frame decoder on streams split at random points.

use bytes::{Bytes, BytesMut};
use dubbo_codec::{DecodeError, Frame, FrameCodec, Header, HEADER_LEN};
use proptest::collection::vec;
use proptest::prelude::*;

fn arb_frame(max_body: usize) -> impl Strategy<Value = Frame> {
    (
        any::<u8>(),
        any::<u8>(),
        any::<u64>(),
        vec(any::<u8>(), 0..=max_body),
    )
        .prop_map(|(flag, status, id, body)| {
            Frame::new(Header::new(flag, status, id, 0), Bytes::from(body))
        })
}

fn encode_all(frames: &[Frame]) -> Vec<u8> {
    let codec = FrameCodec::new();
    let mut dst = BytesMut::new();
    for f in frames {
        codec.encode_frame(f, &mut dst).unwrap();
    }
    dst.to_vec()
}

/// Cuts `bytes` into chunks whose sizes are taken in turn from `cuts` (0 allowed: an empty
/// read).
fn chunks<'a>(bytes: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut rest = bytes;
    let mut i = 0;
    while !rest.is_empty() {
        let n = cuts
            .get(i % cuts.len().max(1))
            .copied()
            .unwrap_or(rest.len());
        let n = n.min(rest.len());
        out.push(&rest[..n]);
        rest = &rest[n..];
        i += 1;
        if i > 10 * bytes.len() + 10 {
            // All cuts zero: take the rest at once.
            out.push(rest);
            break;
        }
    }
    out
}

/// Feeds `bytes` in chunks, collecting frames and errors in order, and stops at the first
/// fatal error.
fn feed(codec: &mut FrameCodec, pieces: &[&[u8]]) -> Vec<Result<Frame, DecodeError>> {
    let mut buf = BytesMut::new();
    let mut out = Vec::new();
    for piece in pieces {
        buf.extend_from_slice(piece);
        loop {
            match codec.decode_frame(&mut buf) {
                Ok(Some(f)) => out.push(Ok(f)),
                Ok(None) => break,
                Err(e) => {
                    let fatal = e.is_fatal();
                    out.push(Err(e));
                    if fatal {
                        return out;
                    }
                }
            }
        }
    }
    match codec.decode_frame_eof(&mut buf) {
        Ok(None) => {}
        Ok(Some(f)) => out.push(Ok(f)),
        Err(e) => out.push(Err(e)),
    }
    out
}

proptest! {
    #[test]
    fn random_frames_split_anywhere_come_back_in_order(
        frames in vec(arb_frame(300), 0..20),
        cuts in vec(0usize..64, 1..16),
    ) {
        let wire = encode_all(&frames);
        let mut codec = FrameCodec::new();
        let got = feed(&mut codec, &chunks(&wire, &cuts));
        let expected: Vec<Result<Frame, DecodeError>> = frames.into_iter().map(Ok).collect();
        prop_assert_eq!(got, expected);
        prop_assert_eq!(codec.stream_offset(), wire.len() as u64);
        prop_assert!(!codec.is_failed());
    }

    #[test]
    fn every_strict_prefix_needs_more(frame in arb_frame(64)) {
        let wire = encode_all(std::slice::from_ref(&frame));
        for n in 0..wire.len() {
            let mut codec = FrameCodec::new();
            let mut buf = BytesMut::from(&wire[..n]);
            prop_assert_eq!(codec.decode_frame(&mut buf), Ok(None));
            prop_assert_eq!(buf.len(), n);
        }
        let mut buf = BytesMut::from(&wire[..]);
        prop_assert_eq!(FrameCodec::new().decode_frame(&mut buf), Ok(Some(frame)));
        prop_assert!(buf.is_empty());
    }

    #[test]
    fn oversized_frames_are_reported_and_skipped(
        frames in vec(arb_frame(120), 0..12),
        limit in 0u32..100,
        cuts in vec(0usize..40, 1..8),
    ) {
        let wire = encode_all(&frames);
        let mut codec = FrameCodec::with_max_payload(limit);
        let got = feed(&mut codec, &chunks(&wire, &cuts));
        let mut offset = 0u64;
        let mut expected = Vec::new();
        for f in frames {
            if f.body().len() > limit as usize {
                expected.push(Err(DecodeError::PayloadTooLarge {
                    offset,
                    header: *f.header(),
                    limit,
                }));
            } else {
                expected.push(Ok(f.clone()));
            }
            offset += (HEADER_LEN + f.body().len()) as u64;
        }
        prop_assert_eq!(got, expected);
        prop_assert_eq!(codec.stream_offset(), wire.len() as u64);
    }

    #[test]
    fn garbage_never_panics_and_errors_stick(
        garbage in vec(any::<u8>(), 0..200),
        cuts in vec(0usize..32, 1..8),
        limit in 0u32..64,
    ) {
        let mut codec = FrameCodec::with_max_payload(limit);
        let out = feed(&mut codec, &chunks(&garbage, &cuts));
        if let Some(Err(last)) = out.last() {
            if last.is_fatal() {
                prop_assert!(codec.is_failed());
                let mut more = BytesMut::from(&encode_all(&[Frame::heartbeat_request(1)])[..]);
                prop_assert_eq!(codec.decode_frame(&mut more), Err(last.clone()));
            }
        }
        // Everything decoded before an error is a well-formed frame.
        for f in out.iter().flatten() {
            prop_assert_eq!(f.header().body_len() as usize, f.body().len());
            prop_assert!(f.body().len() <= limit as usize);
        }
    }

    #[test]
    fn valid_frames_then_garbage(
        frames in vec(arb_frame(50), 1..5),
        garbage in vec(any::<u8>(), 1..50),
    ) {
        let mut wire = encode_all(&frames);
        let good_len = wire.len() as u64;
        wire.extend_from_slice(&garbage);
        let mut codec = FrameCodec::new();
        let out = feed(&mut codec, &[&wire]);
        prop_assert_eq!(&out[..frames.len()], &frames.iter().cloned().map(Ok).collect::<Vec<_>>()[..]);
        // What follows the good frames is either a bad magic, a truncated frame, or by
        // chance more frames; any error points at or after the end of the good frames.
        for item in &out[frames.len()..] {
            if let Err(e) = item {
                prop_assert!(e.offset() >= good_len);
            }
        }
    }

    #[test]
    fn header_round_trips(flag: u8, status: u8, id: u64, len: u32) {
        let h = Header::new(flag, status, id, len);
        prop_assert_eq!(Header::parse(&h.to_bytes()), Ok(Some(h)));
        prop_assert_eq!(h.flag(), flag);
        prop_assert_eq!(h.status_byte(), status);
        prop_assert_eq!(h.status().as_u8(), status);
        prop_assert_eq!(h.request_id(), id);
        prop_assert_eq!(h.body_len(), len);
        prop_assert_eq!(h.serialization().id(), flag & 0x1f);
    }

    #[test]
    fn header_parse_never_panics(bytes in vec(any::<u8>(), 0..40)) {
        match Header::parse(&bytes) {
            Ok(Some(_)) => prop_assert!(bytes.len() >= HEADER_LEN),
            Ok(None) => prop_assert!(bytes.len() < HEADER_LEN),
            Err(e) => prop_assert!(!e.found().is_empty()),
        }
    }
}
