//! Triple's wire pieces on arbitrary bytes: the message decoder fed whole and in pieces
//! yields the same messages and the same error at the same offset, never a message over its
//! limit; every message read as a request and a response wrapper never panics, and what
//! reads re-encodes to a wrapper that reads back equal; `grpc-message` and `grpc-timeout`
//! values never panic and written ones read back.
#![no_main]

use bytes::BytesMut;
use dubbo_triple::message::MessageDecoder;
use dubbo_triple::status::{decode_message, encode_message};
use dubbo_triple::timeout::{format_timeout, parse_timeout};
use dubbo_triple::wrapper::{RequestWrapper, ResponseWrapper};
use libfuzzer_sys::fuzz_target;

/// Messages and the error (as text) of a body fed in chunks of `chunk` bytes.
fn split(body: &[u8], chunk: usize, max: u32) -> (Vec<bytes::Bytes>, Option<String>) {
    let mut decoder = MessageDecoder::new(max);
    let mut buf = BytesMut::new();
    let mut out = Vec::new();
    for piece in body.chunks(chunk.max(1)) {
        buf.extend_from_slice(piece);
        loop {
            match decoder.decode(&mut buf) {
                Ok(Some(m)) => {
                    assert!(m.data.len() <= max as usize, "a message over the limit");
                    out.push(m.data)
                }
                Ok(None) => break,
                Err(e) => return (out, Some(e.to_string())),
            }
        }
    }
    let end = decoder.finish(&buf).err().map(|e| e.to_string());
    (out, end)
}

fuzz_target!(|data: &[u8]| {
    let Some((&plan, body)) = data.split_first() else {
        return;
    };
    let max = [64u32, 1024, 4 << 20][usize::from(plan & 3) % 3];
    let chunk = usize::from(plan >> 2) + 1;
    let whole = split(body, body.len().max(1), max);
    let pieces = split(body, chunk, max);
    assert_eq!(whole, pieces, "whole and in pieces of {chunk} disagree");
    for m in &whole.0 {
        if let Ok(w) = RequestWrapper::decode_bytes(m.clone()) {
            let mut again = BytesMut::new();
            w.encode_into(&mut again);
            assert_eq!(RequestWrapper::decode_bytes(again.freeze()).unwrap(), w);
        }
        if let Ok(w) = ResponseWrapper::decode_bytes(m.clone()) {
            let mut again = BytesMut::new();
            w.encode_into(&mut again);
            assert_eq!(ResponseWrapper::decode_bytes(again.freeze()).unwrap(), w);
        }
    }
    let text = decode_message(body);
    assert_eq!(decode_message(encode_message(&text).as_bytes()), text);
    if let Ok(t) = parse_timeout(body) {
        assert!(parse_timeout(format_timeout(t).as_bytes()).unwrap() >= t);
    }
});
