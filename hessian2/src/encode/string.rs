//! Writing strings as Java does: lengths in UTF-16 units, text as CESU-8.

use bytes::BufMut;

use crate::marker::string::{CHUNK, CHUNK_UNITS, DIRECT_MAX, FINAL, SHORT_BASE, SHORT_MAX};

/// UTF-16 units of a `str`: one per character, two for characters outside the BMP (4-byte
/// UTF-8 sequences). Counted from bytes: every non-continuation byte starts a character.
#[inline]
pub(crate) fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    s.bytes()
        .map(|b| ((b & 0xc0) != 0x80) as usize + (b >= 0xf0) as usize)
        .sum()
}

pub(super) fn write_str<B: BufMut>(buf: &mut B, s: &str) {
    // The common case: ASCII in one chunk, one unit per byte, nothing to convert.
    if s.len() <= CHUNK_UNITS && s.is_ascii() {
        put_header(buf, s.len());
        return buf.put_slice(s.as_bytes());
    }
    let mut units = utf16_len(s);
    let mut rest = s;
    while units > CHUNK_UNITS {
        // Take characters up to 0x8000 units; a pair that would straddle the boundary moves to
        // the next chunk, as Java's "never end a chunk on a high surrogate" rule does.
        let (split, taken) = split_at_units(rest, CHUNK_UNITS);
        buf.put_u8(CHUNK);
        buf.put_u16(taken as u16);
        put_cesu8(buf, &rest[..split]);
        rest = &rest[split..];
        units -= taken;
    }
    put_header(buf, units);
    put_cesu8(buf, rest);
}

/// The header of a final chunk of `units` UTF-16 units (at most `CHUNK_UNITS`).
#[inline]
fn put_header<B: BufMut>(buf: &mut B, units: usize) {
    if units <= DIRECT_MAX {
        buf.put_u8(units as u8);
    } else if units <= SHORT_MAX {
        buf.put_slice(&[SHORT_BASE + (units >> 8) as u8, units as u8]);
    } else {
        buf.put_u8(FINAL);
        buf.put_u16(units as u16);
    }
}

/// The byte index and unit count of the longest prefix of `s` with at most `max` units.
fn split_at_units(s: &str, max: usize) -> (usize, usize) {
    let mut units = 0;
    for (i, c) in s.char_indices() {
        let n = c.len_utf16();
        if units + n > max {
            return (i, units);
        }
        units += n;
    }
    (s.len(), units)
}

/// Writes `s` as CESU-8: UTF-8 except that each character outside the BMP becomes its two
/// surrogates, three bytes each.
#[inline]
fn put_cesu8<B: BufMut>(buf: &mut B, s: &str) {
    let bytes = s.as_bytes();
    let mut run = 0;
    let mut i = 0;
    while let Some(offset) = bytes[i..].iter().position(|&b| b >= 0xf0) {
        let at = i + offset;
        buf.put_slice(&bytes[run..at]);
        let c = s[at..]
            .chars()
            .next()
            .expect("a char starts at a lead byte");
        let mut pair = [0u16; 2];
        for unit in c.encode_utf16(&mut pair) {
            let u = *unit as u32;
            buf.put_slice(&[
                0xe0 | (u >> 12) as u8,
                0x80 | ((u >> 6) & 0x3f) as u8,
                0x80 | (u & 0x3f) as u8,
            ]);
        }
        i = at + 4;
        run = i;
    }
    buf.put_slice(&bytes[run..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emoji_is_two_three_byte_surrogates() {
        let mut out = Vec::new();
        write_str(&mut out, "😀");
        assert_eq!(out, b"\x02\xed\xa0\xbd\xed\xb8\x80");
    }

    #[test]
    fn chunk_never_ends_on_a_high_surrogate() {
        let s = format!("{}😀{}", "a".repeat(CHUNK_UNITS - 1), "b".repeat(10));
        let mut out = Vec::new();
        write_str(&mut out, &s);
        assert_eq!(&out[..3], &[CHUNK, 0x7f, 0xff]);
        let second = 3 + CHUNK_UNITS - 1;
        // Final chunk: the pair (2 units) and 10 more: 12 units, compact form.
        assert_eq!(out[second], 12);
    }
}
