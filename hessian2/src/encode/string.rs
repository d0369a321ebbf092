//! Writing strings as Java does: lengths in UTF-16 units, text as CESU-8.

use bytes::BufMut;

use crate::marker::string::{CHUNK, CHUNK_UNITS, DIRECT_MAX, FINAL, SHORT_BASE, SHORT_MAX};

/// (UTF-16 units, characters outside the BMP) of UTF-8 bytes, counted in blocks whose byte
/// counters the compiler vectorises.
#[inline]
fn unit_counts(bytes: &[u8]) -> (usize, usize) {
    let (mut starts, mut supplementary) = (0usize, 0usize);
    for block in bytes.chunks(128) {
        let (mut s, mut f) = (0u8, 0u8);
        for &b in block {
            // Not a continuation byte (0x80..=0xbf): a character starts here.
            s += ((b as i8) >= -0x40) as u8;
            f += (b >= 0xf0) as u8;
        }
        starts += s as usize;
        supplementary += f as usize;
    }
    (starts + supplementary, supplementary)
}

pub(super) fn write_str<B: BufMut>(buf: &mut B, s: &str) {
    // The common case: ASCII in one chunk, one unit per byte, nothing to convert.
    if s.len() <= CHUNK_UNITS && s.is_ascii() {
        put_header(buf, s.len());
        return buf.put_slice(s.as_bytes());
    }
    let (mut units, supplementary) = unit_counts(s.as_bytes());
    if units <= CHUNK_UNITS && supplementary == 0 {
        // One chunk without surrogates: the UTF-8 bytes are the CESU-8 bytes.
        put_header(buf, units);
        return buf.put_slice(s.as_bytes());
    }
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
/// surrogates, three bytes each. Surrogates are gathered in a small buffer, so that a run of
/// emoji costs one `put_slice` per 40 characters.
#[inline]
fn put_cesu8<B: BufMut>(buf: &mut B, s: &str) {
    let bytes = s.as_bytes();
    let mut pairs = [0u8; 240];
    let mut filled = 0;
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] < 0xf0 {
            i += 1;
            continue;
        }
        if run < i || filled == pairs.len() {
            buf.put_slice(&pairs[..filled]);
            filled = 0;
            buf.put_slice(&bytes[run..i]);
        }
        // A 4-byte sequence (valid: `s` is a str): its code point, then the two surrogates.
        let c = ((bytes[i] as u32 & 0x07) << 18)
            | ((bytes[i + 1] as u32 & 0x3f) << 12)
            | ((bytes[i + 2] as u32 & 0x3f) << 6)
            | (bytes[i + 3] as u32 & 0x3f);
        let v = c - 0x1_0000;
        let (high, low) = (0xd800 | (v >> 10), 0xdc00 | (v & 0x3ff));
        pairs[filled..filled + 6].copy_from_slice(&[
            0xe0 | (high >> 12) as u8,
            0x80 | ((high >> 6) & 0x3f) as u8,
            0x80 | (high & 0x3f) as u8,
            0xe0 | (low >> 12) as u8,
            0x80 | ((low >> 6) & 0x3f) as u8,
            0x80 | (low & 0x3f) as u8,
        ]);
        filled += 6;
        i += 4;
        run = i;
    }
    buf.put_slice(&pairs[..filled]);
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
