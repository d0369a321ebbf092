//! Writing strings as Java does: lengths in UTF-16 units, text as CESU-8.

// Writes into reserved capacity (see the SAFETY note).
#![allow(unsafe_code)]

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

#[inline]
pub(super) fn write_str<B: BufMut>(buf: &mut B, s: &str) {
    // The commonest case: a short ASCII name or word, in the 1-byte-length form.
    if s.len() <= DIRECT_MAX && put_short_ascii(buf, s.as_bytes()) {
        return;
    }
    write_other(buf, s)
}

/// [`write_str`] past its inlined fast path (kept out of line so that the fast path needs no
/// saved registers).
#[inline(never)]
fn write_other<B: BufMut>(buf: &mut B, s: &str) {
    // The common case: ASCII in one chunk, one unit per byte, nothing to convert.
    if s.len() <= CHUNK_UNITS && s.is_ascii() {
        put_header(buf, s.len());
        return buf.put_slice(s.as_bytes());
    }
    write_text(buf, s)
}

/// Stores the two `$t`-sized ends of `$s` (which is 1 to 2 `$t`s long) at `$dst[1..]`, where
/// they overlap to cover the whole text; returns `false` from the caller, having stored nothing,
/// if the text is not ASCII.
macro_rules! store_ends {
    ($dst:ident, $s:ident, $t:ty) => {{
        const W: usize = std::mem::size_of::<$t>();
        let n = $s.len();
        let head: [u8; W] = $s[..W].try_into().unwrap_or([0x80; W]);
        let tail: [u8; W] = $s[n - W..].try_into().unwrap_or([0x80; W]);
        // Every byte below 0x80, tested a word at a time.
        let high = <$t>::MAX / 0xff * 0x80;
        if (<$t>::from_ne_bytes(head) | <$t>::from_ne_bytes(tail)) & high != 0 {
            return false;
        }
        $dst[1..1 + W].copy_from_slice(&head);
        $dst[1 + n - W..1 + n].copy_from_slice(&tail);
    }};
}

/// Writes `s` (at most [`DIRECT_MAX`] bytes) as a compact string if it is ASCII and the
/// buffer's spare room holds it in one piece: the length byte and the text are stored straight
/// into that room, the text as two overlapping words (a short string costs a few instructions
/// instead of a byte loop and a `memcpy` call). Returns `false`, having written nothing,
/// otherwise.
#[inline(always)]
fn put_short_ascii<B: BufMut>(buf: &mut B, s: &[u8]) -> bool {
    let n = s.len();
    let dst = buf.chunk_mut();
    if dst.len() <= n {
        return false;
    }
    match n {
        0 => {}
        1..=3 => {
            // First, middle and last byte: all of them for 3 bytes or fewer.
            let (a, b, c) = (s[0], s[n / 2], s[n - 1]);
            if (a | b | c) >= 0x80 {
                return false;
            }
            dst.write_byte(1, a);
            dst.write_byte(1 + n / 2, b);
            dst.write_byte(n, c);
        }
        4..=7 => store_ends!(dst, s, u32),
        8..=15 => store_ends!(dst, s, u64),
        _ => store_ends!(dst, s, u128),
    }
    dst.write_byte(0, n as u8);
    // SAFETY: bytes 0..=n of the spare room were just written: the length at 0, the text at
    // 1..=n (the stores above cover every byte of it), and `dst.len() > n`.
    unsafe { buf.advance_mut(n + 1) };
    true
}

/// [`write_str`] of text that is not one chunk of ASCII.
fn write_text<B: BufMut>(buf: &mut B, s: &str) {
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

/// Writes a Java string given as UTF-16 code units, lone surrogates included, as Java's
/// `writeString` does: 0x8000-unit chunks (one less where a chunk would end on a high
/// surrogate, paired or not), each unit as a 1- to 3-byte sequence.
pub(super) fn write_utf16<B: BufMut>(buf: &mut B, mut units: &[u16]) {
    while units.len() > CHUNK_UNITS {
        let mut n = CHUNK_UNITS;
        if (0xd800..0xdc00).contains(&units[n - 1]) {
            n -= 1;
        }
        buf.put_u8(CHUNK);
        buf.put_u16(n as u16);
        put_units(buf, &units[..n]);
        units = &units[n..];
    }
    put_header(buf, units.len());
    put_units(buf, units);
}

/// Each unit as Java's `printString` writes a `char`.
fn put_units<B: BufMut>(buf: &mut B, units: &[u16]) {
    for &u in units {
        match u {
            0..=0x7f => buf.put_u8(u as u8),
            0x80..=0x7ff => buf.put_slice(&[0xc0 | (u >> 6) as u8, 0x80 | (u & 0x3f) as u8]),
            _ => buf.put_slice(&[
                0xe0 | (u >> 12) as u8,
                0x80 | ((u >> 6) & 0x3f) as u8,
                0x80 | (u & 0x3f) as u8,
            ]),
        }
    }
}

/// The header of a final chunk of `units` UTF-16 units (at most `CHUNK_UNITS`).
#[inline(always)]
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
/// surrogates, three bytes each. Runs of other characters are written as they are; the
/// surrogates of consecutive supplementary characters are gathered in a small buffer, so that
/// a run of emoji costs one `put_slice` per 40 characters.
#[inline]
fn put_cesu8<B: BufMut>(buf: &mut B, s: &str) {
    let bytes = s.as_bytes();
    // 40 pairs, and the 2 bytes of slack that each pair's 8-byte store writes past it.
    let mut pairs = [0u8; 242];
    const FULL: usize = 240;
    let mut i = 0;
    while i < bytes.len() {
        let from = i;
        // The run up to the next 4-byte sequence, as it is.
        let run = bytes[i..]
            .iter()
            .position(|&b| b >= 0xf0)
            .unwrap_or(bytes.len() - i);
        buf.put_slice(&bytes[i..i + run]);
        i += run;
        // The 4-byte sequences that follow (valid: `s` is a str), as surrogate pairs.
        let mut filled = 0;
        while let Some(&utf8) = bytes
            .get(i..i + 4)
            .and_then(|b| <&[u8; 4]>::try_from(b).ok())
        {
            if utf8[0] < 0xf0 {
                break;
            }
            if filled == FULL {
                buf.put_slice(&pairs[..FULL]);
                filled = 0;
            }
            pairs[filled..filled + 8].copy_from_slice(&surrogates(utf8));
            filled += 6;
            i += 4;
        }
        buf.put_slice(&pairs[..filled]);
        if i == from {
            // Not reached for a `str` (a 4-byte lead has its 3 bytes); never loop forever.
            buf.put_slice(&bytes[i..]);
            break;
        }
    }
}

/// The CESU-8 surrogate pair of a character given as its 4 UTF-8 bytes: 6 bytes, then 2 zero
/// bytes (so that it is stored as one word).
#[inline(always)]
fn surrogates(utf8: [u8; 4]) -> [u8; 8] {
    let w = u32::from_be_bytes(utf8);
    // The code point: 3 + 6 + 6 + 6 payload bits.
    let c = ((w >> 6) & 0x1c_0000) | ((w >> 4) & 0x3_f000) | ((w >> 2) & 0xfc0) | (w & 0x3f);
    // 20 bits: high surrogate 0xd800 | v >> 10, low surrogate 0xdc00 | v & 0x3ff.
    let v = c.wrapping_sub(0x1_0000) as u64;
    let high = 0xed_a0_80 | ((v >> 16) & 0x0f) << 8 | ((v >> 10) & 0x3f);
    let low = 0xed_b0_80 | ((v >> 6) & 0x0f) << 8 | (v & 0x3f);
    ((high << 40) | (low << 16)).to_be_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surrogates_match_utf16() {
        // Every supplementary plane's edges, and mixed runs.
        for c in [
            '\u{10000}',
            '😀',
            '🚀',
            '\u{fffff}',
            '\u{100000}',
            '\u{10ffff}',
        ] {
            let mut utf8 = [0u8; 4];
            c.encode_utf8(&mut utf8);
            let mut units = [0u16; 2];
            c.encode_utf16(&mut units);
            let expected: Vec<u8> = units
                .iter()
                .flat_map(|&u| {
                    [
                        0xe0 | (u >> 12) as u8,
                        0x80 | ((u >> 6) & 0x3f) as u8,
                        0x80 | (u & 0x3f) as u8,
                    ]
                })
                .collect();
            assert_eq!(surrogates(utf8)[..6].to_vec(), expected, "{c:?}");
        }
        let text = format!("a😀😀b中{}x😀", "🎉".repeat(100));
        let mut out = Vec::new();
        put_cesu8(&mut out, &text);
        let mut expected = Vec::new();
        for c in text.chars() {
            if c.len_utf8() == 4 {
                let mut utf8 = [0u8; 4];
                c.encode_utf8(&mut utf8);
                expected.extend_from_slice(&surrogates(utf8)[..6]);
            } else {
                expected.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
            }
        }
        assert_eq!(out, expected);
    }

    /// The fast path of short ASCII strings against the general path, for every length of the
    /// compact form, ASCII or not (a 2-byte character at the start, middle or end), into a
    /// buffer whose spare room is exactly enough, one byte short, or none. Runs under Miri
    /// (`cargo +nightly miri test -p hessian2 --lib short_ascii`), which would see a byte left
    /// uninitialised.
    #[test]
    fn short_ascii_writes_what_the_general_path_writes() {
        for n in 0..=DIRECT_MAX {
            let ascii: String = (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            let mut texts = vec![ascii.clone()];
            for at in [0, n / 2, n.saturating_sub(1)]
                .into_iter()
                .filter(|_| n > 0)
            {
                let mut t = ascii.clone();
                t.replace_range(at..=at, "é");
                texts.push(t);
            }
            for text in &texts {
                let mut expected = vec![0xaa];
                write_other(&mut expected, text);
                for room in [text.len() + 1, text.len(), 0] {
                    let mut out = Vec::with_capacity(1 + room);
                    out.push(0xaa);
                    write_str(&mut out, text);
                    assert_eq!(out, expected, "{text:?} with {room} bytes of room");
                    let mut out = bytes::BytesMut::with_capacity(1 + room);
                    out.put_u8(0xaa);
                    write_str(&mut out, text);
                    assert_eq!(out, expected, "{text:?} into BytesMut");
                }
                // A fixed slice, with exactly the room needed.
                let mut slice = vec![0u8; expected.len()];
                let mut rest = &mut slice[1..];
                write_str(&mut rest, text);
                assert!(rest.is_empty());
                assert_eq!(slice[1..], expected[1..], "{text:?} into a slice");
                let mut untouched = Vec::with_capacity(64);
                let taken = put_short_ascii(&mut untouched, text.as_bytes());
                assert_eq!(taken, text.is_ascii(), "{text:?}");
                assert_eq!(untouched.len(), if taken { 1 + n } else { 0 });
            }
        }
    }

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
