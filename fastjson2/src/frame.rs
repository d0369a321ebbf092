//! Dubbo's framing of fastjson2 objects: each object is a 4-byte big-endian length and then
//! that many bytes of one JSONB document (`FastJson2ObjectOutput.writeObject`; `writeBytes`
//! frames raw bytes the same way). A request or response body is a run of such frames.

use bytes::BufMut;

use crate::error::{Error, ErrorKind, Result};

/// Bytes of the length prefix.
pub const LENGTH_BYTES: usize = 4;

/// Splits the first frame off `input`: its payload (one JSONB document, or raw bytes) and the
/// rest of the input. A cut-short frame is an [`Error::is_eof`] error at the end of the input;
/// a negative length is an [`ErrorKind::InvalidLength`] at offset 0.
pub fn read_framed(input: &[u8]) -> Result<(&[u8], &[u8])> {
    let Some((head, rest)) = input.split_first_chunk::<LENGTH_BYTES>() else {
        let needed = LENGTH_BYTES - input.len();
        return Err(Error::new(ErrorKind::Eof { needed }, input.len() as u64));
    };
    let len = i32::from_be_bytes(*head);
    let Ok(len) = usize::try_from(len) else {
        let kind = ErrorKind::InvalidLength {
            what: "frame length",
            value: i64::from(len),
        };
        return Err(Error::new(kind, 0));
    };
    if rest.len() < len {
        let kind = ErrorKind::Eof {
            needed: len - rest.len(),
        };
        return Err(Error::new(kind, input.len() as u64));
    }
    Ok(rest.split_at(len))
}

/// Writes one frame: the length of `payload`, then `payload`.
///
/// # Panics
///
/// When `payload` is longer than `i32::MAX` bytes, which Dubbo's length cannot express.
pub fn write_framed<B: BufMut>(out: &mut B, payload: &[u8]) {
    let len = i32::try_from(payload.len()).expect("a Dubbo frame holds at most i32::MAX bytes");
    out.put_i32(len);
    out.put_slice(payload);
}

/// Writes one frame whose payload `write` produces (a JSONB document written straight into
/// `out`), patching the length in afterwards: no intermediate buffer.
pub fn write_framed_with<F>(out: &mut Vec<u8>, write: F)
where
    F: FnOnce(&mut Vec<u8>),
{
    let at = out.len();
    out.extend_from_slice(&[0; LENGTH_BYTES]);
    write(out);
    let len = out.len() - at - LENGTH_BYTES;
    let len = i32::try_from(len).expect("a Dubbo frame holds at most i32::MAX bytes");
    out[at..at + LENGTH_BYTES].copy_from_slice(&len.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_split_and_every_prefix_is_eof() {
        let mut body = Vec::new();
        write_framed(&mut body, &[0x4b, b'h', b'i']);
        write_framed_with(&mut body, |out| out.push(0x07));
        assert_eq!(body, [0, 0, 0, 3, 0x4b, b'h', b'i', 0, 0, 0, 1, 0x07]);
        let (first, rest) = read_framed(&body).unwrap();
        assert_eq!(first, [0x4b, b'h', b'i']);
        let (second, rest) = read_framed(rest).unwrap();
        assert_eq!((second, rest), (&[0x07][..], &[][..]));
        for cut in 0..7 {
            let err = read_framed(&body[..cut]).unwrap_err();
            assert!(err.is_eof(), "{cut}: {err}");
        }
        let err = read_framed(&[0xff, 0xff, 0xff, 0xff]).unwrap_err();
        assert!(matches!(
            err.kind(),
            ErrorKind::InvalidLength { value: -1, .. }
        ));
    }
}
