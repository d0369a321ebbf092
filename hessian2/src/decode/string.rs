//! String text: lengths count UTF-16 code units, the bytes are UTF-8, except that Java writes a
//! character outside the BMP as its two surrogates, three bytes each (CESU-8).
//!
//! Reading accepts both CESU-8 pairs and 4-byte UTF-8 (which other writers use), counting a
//! 4-byte sequence as two units. **Lone surrogates** (legal in a Java `String`, impossible in a
//! Rust `str`) are replaced by U+FFFD in the text, like `String::from_utf16_lossy`; the
//! decoder then keeps the string's raw bytes, from which [`java_units`] gives its exact UTF-16
//! units (what [`Value::Utf16`](crate::value::Value::Utf16) holds).
//!
//! The hot path makes no per-character calls: one pass finds where the chunk's units end and
//! validates the UTF-8 on the way (decoding surrogate pairs, where Java wrote them, in the same
//! pass); only malformed text takes the character-by-character `scan`, whose error offsets the
//! chunked path shares.

// Unchecked UTF-8 conversions after the bytes were validated here (each block says why).
#![allow(unsafe_code)]

use std::ops::Deref;

use super::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::input::Input;

/// A string or byte slice either borrowed from the input (`'b`) or copied into the decoder's
/// scratch buffer (`'c`), like serde_json's `Reference`.
#[derive(Debug)]
pub enum Reference<'b, 'c, T: ?Sized> {
    /// Borrowed from the input for its whole lifetime.
    Borrowed(&'b T),
    /// Copied into a buffer that lives until the decoder is used again.
    Copied(&'c T),
}

impl<T: ?Sized> Deref for Reference<'_, '_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match *self {
            Reference::Borrowed(b) => b,
            Reference::Copied(c) => c,
        }
    }
}

/// Walks whole characters of `bytes` until `units` UTF-16 units are counted or `bytes` ends
/// before the next whole character. Returns (bytes used, units counted), or the index of a byte
/// that cannot start a character.
#[inline]
pub(super) fn scan(bytes: &[u8], units: usize) -> Result<(usize, usize), usize> {
    let mut i = 0;
    let mut counted = 0;
    while counted < units {
        // Eight ASCII bytes at a time.
        if units - counted >= 8 {
            if let Some(word) = bytes.get(i..i + 8) {
                let word = u64::from_ne_bytes(word.try_into().expect("8 bytes"));
                if word & 0x8080_8080_8080_8080 == 0 {
                    i += 8;
                    counted += 8;
                    continue;
                }
            }
        }
        let Some(&lead) = bytes.get(i) else { break };
        let (width, width_units) = match lead {
            0x00..=0x7f => (1, 1),
            0xc0..=0xdf => (2, 1),
            0xe0..=0xef => (3, 1),
            0xf0..=0xf7 => (4, 2),
            _ => return Err(i),
        };
        if counted + width_units > units {
            // Half of a 4-byte character cannot end a chunk.
            return Err(i);
        }
        if i + width > bytes.len() {
            break;
        }
        i += width;
        counted += width_units;
    }
    Ok((i, counted))
}

/// The valid UTF-8 at the head of `bytes`, up to `units` UTF-16 units, found and validated in
/// one pass over its characters (ASCII eight at a time): returns its end and the units still
/// wanted, which are left when the text stops short of them: at a surrogate (CESU-8),
/// malformed or cut text, or a 4-byte character of which only one unit is wanted. With none
/// left, `bytes[..end]` is where [`scan`] ends the text too.
///
/// Each character is checked from one 4-byte little-endian load (zero-padded at the end of
/// `bytes`: a zero is no continuation byte): a count of lead bytes then `str::from_utf8` took
/// 13,300 instructions for string_cjk_1k, this about a third.
#[inline]
fn utf8_prefix(bytes: &[u8], units: usize) -> (usize, usize) {
    let mut i = 0;
    let mut left = units;
    while left > 0 {
        let rest = &bytes[i..];
        let w = match rest.get(..4) {
            Some(four) => u32::from_le_bytes(four.try_into().expect("4 bytes")),
            None if rest.is_empty() => break,
            None => {
                let mut four = [0u8; 4];
                four[..rest.len()].copy_from_slice(rest);
                u32::from_le_bytes(four)
            }
        };
        let (width, width_units) = if w & 0x80 == 0 {
            if left >= 8 {
                if let Some(word) = rest.get(..8) {
                    if u64::from_le_bytes(word.try_into().expect("8 bytes")) & 0x8080_8080_8080_8080
                        == 0
                    {
                        i += 8;
                        left -= 8;
                        continue;
                    }
                }
            }
            (1, 1)
        } else if w & 0x00c0_c0f0 == 0x0080_80e0 {
            // 1110xxxx 10xxxxxx 10xxxxxx.
            if !three_byte_ok(w) {
                break;
            }
            // More of them (CJK text) in a tighter loop.
            i += 3;
            left -= 1;
            while left > 0 {
                let Some(four) = bytes.get(i..i + 4) else {
                    break;
                };
                let w = u32::from_le_bytes(four.try_into().expect("4 bytes"));
                if w & 0x00c0_c0f0 != 0x0080_80e0 || !three_byte_ok(w) {
                    break;
                }
                i += 3;
                left -= 1;
            }
            continue;
        } else if w & 0xc0e0 == 0x80c0 {
            // 110xxxxx 10xxxxxx, not overlong (`0xc0`, `0xc1`).
            if w & 0x1e == 0 {
                break;
            }
            (2, 1)
        } else if w & 0xc0c0_c0f8 == 0x8080_80f0 {
            // 11110xxx and three continuations, for U+10000..=U+10FFFF: the code point's bits
            // above the low twelve are 0x10..=0x10f.
            let top = (w & 0x07) << 6 | (w >> 8) & 0x3f;
            if !(0x10..=0x10f).contains(&top) || left < 2 {
                break;
            }
            (4, 2)
        } else {
            break;
        };
        i += width;
        left -= width_units;
    }
    (i, left)
}

/// Whether a 3-byte sequence (`w`, little-endian, already matching 1110xxxx 10xxxxxx
/// 10xxxxxx) is neither overlong (`0xe0` then `..0x9f`) nor a surrogate (`0xed` then
/// `0xa0..`): told by the lead's low nibble and bit 5 of the next byte.
#[inline(always)]
fn three_byte_ok(w: u32) -> bool {
    !matches!(w & 0x200f, 0x0000 | 0x200d)
}

/// One-chunk text of `units` UTF-16 units at the head of `bytes` decoded into `out` in one
/// pass, as [`decode_cesu8`] decodes it: runs of UTF-8 (validated by [`utf8_prefix`]), runs of
/// surrogate pairs, lone surrogates as U+FFFD (and `lone` set). Returns the text's end (where
/// [`scan`] ends it), or `None` at malformed or cut text (`out` then holds part of it), which
/// the caller leaves to [`scan`] and its error offsets.
///
/// Counting the units first (lead bytes eight at a time), then decoding: 18,200 instructions
/// per string_emoji_1k decode; this: 14,700.
fn cesu_units(bytes: &[u8], units: usize, out: &mut String, lone: &mut bool) -> Option<usize> {
    let (mut i, mut left) = (0, units);
    loop {
        let (n, rest) = utf8_prefix(&bytes[i..], left);
        // SAFETY: `utf8_prefix` validated these `n` bytes as UTF-8.
        out.push_str(unsafe { std::str::from_utf8_unchecked(&bytes[i..i + n]) });
        i += n;
        left = rest;
        if left == 0 {
            return Some(i);
        }
        let pairs = push_pairs(&bytes[i..], left / 2, out);
        i += 6 * pairs;
        left -= 2 * pairs;
        if pairs == 0 {
            // A lone surrogate (or a high one of which only one unit is wanted).
            let [0xed, 0xa0..=0xbf, 0x80..=0xbf] = bytes.get(i..i + 3)? else {
                return None;
            };
            out.push(char::REPLACEMENT_CHARACTER);
            *lone = true;
            i += 3;
            left -= 1;
        }
    }
}

/// Decodes CESU-8 (surrogates as 3-byte sequences, plus ordinary UTF-8) into `out`. Returns
/// whether a lone surrogate was replaced, or the index of the first invalid byte.
pub(super) fn decode_cesu8(bytes: &[u8], out: &mut String) -> Result<bool, usize> {
    let flush = |out: &mut String, from: usize, to: usize| -> Result<(), usize> {
        if from < to {
            let run = std::str::from_utf8(&bytes[from..to]).map_err(|e| from + e.valid_up_to())?;
            out.push_str(run);
        }
        Ok(())
    };
    out.reserve(bytes.len());
    let surrogate_at = |i: usize| -> Option<u16> {
        match bytes.get(i..i + 3)? {
            &[0xed, b1 @ 0xa0..=0xbf, b2 @ 0x80..=0xbf] => {
                Some(0xd000 | ((b1 as u16 & 0x3f) << 6) | (b2 as u16 & 0x3f))
            }
            _ => None,
        }
    };
    let mut i = 0;
    let mut run_start = 0;
    let mut lone = false;
    while i < bytes.len() {
        // Surrogates start with 0xed then 0xa0..=0xbf; everything else is plain UTF-8.
        let Some(p) = bytes[i..].iter().position(|&b| b == 0xed) else {
            break;
        };
        i += p;
        if bytes.get(i + 1).is_none_or(|&b| b < 0xa0) {
            i += 1;
            continue;
        }
        flush(out, run_start, i)?;
        let pairs = push_pairs(&bytes[i..], usize::MAX, out);
        i += 6 * pairs;
        if pairs > 0 {
            run_start = i;
            continue;
        }
        let high = surrogate_at(i).ok_or(i)?;
        let pair = match surrogate_at(i + 3) {
            Some(low) if (0xd800..0xdc00).contains(&high) && (0xdc00..0xe000).contains(&low) => {
                char::from_u32(0x10000 + (((high as u32) - 0xd800) << 10) + (low as u32 - 0xdc00))
            }
            _ => None,
        };
        match pair {
            Some(c) => {
                out.push(c);
                i += 6;
            }
            None => {
                out.push(char::REPLACEMENT_CHARACTER);
                lone = true;
                i += 3;
            }
        }
        run_start = i;
    }
    flush(out, run_start, bytes.len())?;
    Ok(lone)
}

/// The UTF-16 units of text already validated as CESU-8 or UTF-8 (by [`decode_cesu8`] or
/// [`cesu_units`]), lone surrogates included.
pub(super) fn java_units(bytes: &[u8]) -> Vec<u16> {
    let mut units = Vec::with_capacity(bytes.len());
    let mut i = 0;
    // Continuation bits; a missing byte (not reached for validated text) counts as zero bits.
    let low = |at: usize| bytes.get(at).map_or(0, |&b| u32::from(b & 0x3f));
    while let Some(&lead) = bytes.get(i) {
        let (code, width) = match lead {
            0x00..=0x7f => (u32::from(lead), 1),
            0xc0..=0xdf => (u32::from(lead & 0x1f) << 6 | low(i + 1), 2),
            0xe0..=0xef => (
                u32::from(lead & 0x0f) << 12 | low(i + 1) << 6 | low(i + 2),
                3,
            ),
            _ => (
                u32::from(lead & 0x07) << 18 | low(i + 1) << 12 | low(i + 2) << 6 | low(i + 3),
                4,
            ),
        };
        match code.checked_sub(0x10000) {
            Some(above) => units.extend([
                0xd800 | (above >> 10) as u16,
                0xdc00 | (above & 0x3ff) as u16,
            ]),
            None => units.push(code as u16),
        }
        i += width;
    }
    units
}

/// Decodes the well-formed surrogate pairs (six bytes each in CESU-8) at the head of `bytes`,
/// at most `max` of them, into `out` as 4-byte UTF-8 (a run of emoji, through a buffer
/// appended a block at a time). Returns how many.
fn push_pairs(bytes: &[u8], max: usize, out: &mut String) -> usize {
    let mut utf8 = [0u8; 256];
    let mut n = 0;
    let mut i = 0;
    let mut pairs = 0;
    while pairs < max {
        // The pair's six bytes, little-endian (byte k at bit 8k), from one load.
        let w = match bytes.get(i..i + 8) {
            Some(eight) => u64::from_le_bytes(eight.try_into().expect("8 bytes")),
            None => {
                let rest = &bytes[i..];
                if rest.len() < 6 {
                    break;
                }
                let mut eight = [0u8; 8];
                eight[..rest.len()].copy_from_slice(rest);
                u64::from_le_bytes(eight)
            }
        };
        // 0xed 0xa0..=0xaf 0x80..=0xbf (high), 0xed 0xb0..=0xbf 0x80..=0xbf (low).
        if w & 0xc0_f0_ff_c0_f0_ff != 0x80_b0_ed_80_a0_ed {
            break;
        }
        let byte = |k: u32| (w >> (8 * k)) as u32 & 0xff;
        // The code point is 0x10000 + (high's 10 bits << 10 | low's 10 bits); its top 11
        // bits (the 0x10000 added to the high part) give UTF-8's first two bytes, the last
        // two carry on from the high surrogate's last two bits and the low surrogate.
        let top = ((byte(1) & 0x0f) + 1) << 6 | byte(2) & 0x3f;
        let u = (0xf0 | top >> 8)
            | (0x80 | (top >> 2) & 0x3f) << 8
            | (0x80 | (byte(2) & 0x03) << 4 | byte(4) & 0x0f) << 16
            | byte(5) << 24;
        utf8[n..n + 4].copy_from_slice(&u.to_le_bytes());
        n += 4;
        i += 6;
        pairs += 1;
        if n == utf8.len() {
            push_utf8(out, &utf8);
            n = 0;
        }
    }
    push_utf8(out, &utf8[..n]);
    pairs
}

/// Appends the 4-byte UTF-8 sequences that `push_pairs` builds from surrogate pairs.
#[inline]
fn push_utf8(out: &mut String, utf8: &[u8]) {
    // SAFETY: `push_pairs` fills `utf8` only with whole 4-byte sequences, each the UTF-8
    // encoding of a code point c = 0x10000 + v, v < 2^20, so 0x10000 <= c <= 0x10ffff: lead
    // byte 0xf0 | c >> 18 (0xf0..=0xf4, and 0xf4 only with c <= 0x10ffff), then three
    // continuation bytes 0x80 | 6 bits. That is valid UTF-8 (no overlong form: c >= 0x10000;
    // no surrogate code points: c > 0xffff). Validating it again cost 30 instructions per
    // character (string_emoji_1k/decode).
    out.push_str(unsafe { std::str::from_utf8_unchecked(utf8) });
}

/// One-chunk text of `len` units that is ASCII and lies whole in the current input chunk,
/// borrowed from the input (consumed) when the input lends its bytes; else `None`, consuming
/// nothing.
#[inline]
pub(super) fn borrow_ascii<'de, I: Input<'de>>(
    d: &mut Decoder<'de, I>,
    len: usize,
) -> Option<&'de str> {
    if !I::BORROWS || !d.input.chunk().get(..len).is_some_and(<[u8]>::is_ascii) {
        return None;
    }
    let bytes = d.input.borrow_bytes(len)?;
    // SAFETY: `bytes` are the `len` bytes just checked to be ASCII (`borrow_bytes` lends the
    // next `len` bytes of the same input chunk), and ASCII is UTF-8.
    Some(unsafe { std::str::from_utf8_unchecked(bytes) })
}

pub(super) fn read_str<'de, 's, I: Input<'de>>(
    d: &'s mut Decoder<'de, I>,
    len: usize,
    last: bool,
) -> Result<super::Reference<'de, 's, str>> {
    let start = d.offset();
    if last {
        // ASCII text (the usual field values, names and keys): `len` bytes, no counting
        // (borrowed by `Decoder::read_str` already where the input lends bytes).
        if d.input.chunk().get(..len).is_some_and(<[u8]>::is_ascii) {
            let t = &mut *d.t;
            t.scratch.clear();
            t.scratch.extend_from_slice(&d.input.chunk()[..len]);
            d.input.advance(len);
            return match std::str::from_utf8(&t.scratch) {
                Ok(s) => Ok(Reference::Copied(s)),
                Err(_) => unreachable!("ASCII is UTF-8"),
            };
        }
        // Other one-chunk text: valid UTF-8 (found and validated in one pass), borrowed where
        // the input lends bytes, else decoded on as Java's CESU-8. Either ends where `scan`
        // ends well-formed text; malformed text is left to `scan` below, so that the chunked
        // path and this one report it at the same offset (a `chunked_input` finding).
        let (n, left) = utf8_prefix(d.input.chunk(), len);
        if left == 0 && I::BORROWS {
            if let Some(bytes) = d.input.borrow_bytes(n) {
                // SAFETY: `bytes` are the `n` bytes at the head of the input chunk that
                // `utf8_prefix` validated as UTF-8 (`borrow_bytes` lends the next `n`).
                return Ok(Reference::Borrowed(unsafe {
                    std::str::from_utf8_unchecked(bytes)
                }));
            }
        }
        let chunk = d.input.chunk();
        let t = &mut *d.t;
        t.text.clear();
        // SAFETY: as above: the `n` bytes `utf8_prefix` validated.
        t.text
            .push_str(unsafe { std::str::from_utf8_unchecked(&chunk[..n]) });
        let mut lone = false;
        if let Some(rest) = cesu_units(&chunk[n..], left, &mut t.text, &mut lone) {
            if lone {
                keep_raw(&mut t.scratch, &chunk[..n + rest], &mut d.lone_surrogates);
            }
            d.input.advance(n + rest);
            return Ok(Reference::Copied(&d.t.text));
        }
        let found = scan(d.input.chunk(), len);
        match found {
            Ok((n, units)) if units == len => {
                if let Some(bytes) = d.input.borrow_bytes(n) {
                    if let Ok(s) = std::str::from_utf8(bytes) {
                        return Ok(Reference::Borrowed(s));
                    }
                    let t = &mut *d.t;
                    if cesu_text(&mut t.text, bytes, start)? {
                        keep_raw(&mut t.scratch, bytes, &mut d.lone_surrogates);
                    }
                    return Ok(Reference::Copied(&d.t.text));
                }
            }
            Err(i) => {
                return Err(d.error_at(start + i as u64, ErrorKind::InvalidUtf8));
            }
            _ => {}
        }
    }
    d.t.scratch.clear();
    let (mut len, mut last) = (len, last);
    loop {
        gather_units(d, len, true)?;
        if last {
            break;
        }
        (len, last) = next_chunk(d)?;
    }
    finish(d, start)
}

/// Skips the text of a string whose first chunk header was `len`/`last`.
pub(super) fn skip_str<'de, I: Input<'de>>(
    d: &mut Decoder<'de, I>,
    len: usize,
    last: bool,
) -> Result<()> {
    if last && d.input.chunk().get(..len).is_some_and(<[u8]>::is_ascii) {
        d.input.advance(len);
        return Ok(());
    }
    let (mut len, mut last) = (len, last);
    loop {
        gather_units(d, len, false)?;
        if last {
            return Ok(());
        }
        (len, last) = next_chunk(d)?;
    }
}

fn next_chunk<'de, I: Input<'de>>(d: &mut Decoder<'de, I>) -> Result<(usize, bool)> {
    d.expect("a string chunk", |h| match h {
        super::Header::String { len, last } => Some((len, last)),
        _ => None,
    })
}

/// Consumes `units` UTF-16 units of text, appending the raw bytes to the scratch buffer when
/// `keep`. Works across chunk boundaries of the input.
fn gather_units<'de, I: Input<'de>>(
    d: &mut Decoder<'de, I>,
    mut units: usize,
    keep: bool,
) -> Result<()> {
    while units > 0 {
        let at = d.offset();
        let chunk = d.input.chunk();
        if chunk.is_empty() {
            return Err(d.eof(units));
        }
        let (n, counted) =
            scan(chunk, units).map_err(|i| d.error_at(at + i as u64, ErrorKind::InvalidUtf8))?;
        if n > 0 {
            if keep {
                d.t.scratch.extend_from_slice(&chunk[..n]);
            }
            d.input.advance(n);
            units -= counted;
            continue;
        }
        // A character straddles two input chunks: take it a byte at a time.
        let lead = d.read_u8()?;
        let (width, width_units) = match lead {
            0xc0..=0xdf => (2, 1),
            0xe0..=0xef => (3, 1),
            _ => (4, 2),
        };
        if keep {
            d.t.scratch.push(lead);
        }
        for _ in 1..width {
            let b = d.read_u8()?;
            if keep {
                d.t.scratch.push(b);
            }
        }
        units -= width_units;
    }
    Ok(())
}

/// The text of `bytes` (a whole string that is not UTF-8, starting at offset `start`) decoded
/// as CESU-8 into `text`; whether a lone surrogate was replaced.
fn cesu_text(text: &mut String, bytes: &[u8], start: u64) -> Result<bool> {
    text.clear();
    decode_cesu8(bytes, text).map_err(|i| Error::new(ErrorKind::InvalidUtf8, start + i as u64))
}

/// Keeps the raw bytes of a string whose text lost a lone surrogate, for [`java_units`].
#[cold]
fn keep_raw(scratch: &mut Vec<u8>, raw: &[u8], lone: &mut bool) {
    scratch.clear();
    scratch.extend_from_slice(raw);
    *lone = true;
}

/// Validates the scratch bytes as UTF-8, falling back to CESU-8 decoding.
fn finish<'de, 's, I: Input<'de>>(
    d: &'s mut Decoder<'de, I>,
    start: u64,
) -> Result<super::Reference<'de, 's, str>> {
    let t = &mut *d.t;
    match std::str::from_utf8(&t.scratch) {
        Ok(s) => Ok(Reference::Copied(s)),
        // The offset of an error counts raw text bytes from the string's start (chunk
        // headers of a multi-chunk string are not counted). The raw bytes stay in `scratch`.
        Err(_) => {
            d.lone_surrogates |= cesu_text(&mut t.text, &t.scratch, start)?;
            Ok(Reference::Copied(&t.text))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_counts_supplementary_characters_as_two_units() {
        let s = "a😀b";
        assert_eq!(scan(s.as_bytes(), 4), Ok((6, 4)));
        assert_eq!(scan(s.as_bytes(), 2), Err(1));
    }

    /// The `unsafe` borrows of the decoder: ASCII text (`borrow_ascii`) and validated UTF-8
    /// (`read_str`, `cesu_units`) taken as `str` without a second validation; CESU-8 pairs are
    /// copied. Run under Miri (with `cesu_units_stops`, which covers `push_pairs`):
    /// `cargo +nightly miri test -p hessian2 --lib -- text_is_borrowed cesu_units_stops`.
    #[test]
    fn text_is_borrowed_unvalidated_only_when_checked() {
        use crate::decode::{Decoder, Header};
        use crate::input::SliceInput;
        let texts = [
            "",
            "a",
            "hello",
            "x\u{7f}y",
            "é",
            "aé",
            "中文",
            "a😀",
            "汉字かなカナ한글é",
        ];
        let mut enc = crate::encode::Encoder::new(Vec::new());
        for t in texts {
            enc.write_str(t);
        }
        let wire = enc.into_inner();
        let mut d = Decoder::new(SliceInput::new(&wire));
        for t in texts {
            let Header::String { len, last } = d.pull().unwrap() else {
                panic!("a string")
            };
            let s = d.read_str(len, last).unwrap();
            assert_eq!(&*s, t);
            assert_eq!(
                matches!(s, Reference::Borrowed(_)),
                !t.contains('😀'),
                "{t}"
            );
        }
        assert!(d.is_empty());
        // From a `Buf` (copied), and 4-byte UTF-8 as writers other than Java send it.
        let mut wire = wire;
        wire.extend_from_slice(b"\x03a\xf0\x9f\x98\x80");
        let mut d = Decoder::new(crate::input::BufInput::new(&wire[..]));
        for t in texts.iter().chain(&["a😀"]) {
            let Header::String { len, last } = d.pull().unwrap() else {
                panic!("a string")
            };
            assert_eq!(&*d.read_str(len, last).unwrap(), *t);
        }
        assert!(d.is_empty());
    }

    /// `utf8_prefix` (whose answer is taken as UTF-8 unchecked) against `str::from_utf8` on
    /// every sequence of up to four bytes from the values where UTF-8's rules change, at every
    /// unit count: it ends at the last character boundary of the longest valid prefix that
    /// holds no more than the units wanted, and says how many it lacks.
    #[test]
    fn utf8_prefix_agrees_with_from_utf8() {
        const EDGES: [u8; 28] = [
            0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0,
            0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf7, 0xf8, 0xfe, 0xff,
        ];
        // Miri runs ~1000x slower: it walks the sequences of a subset that still holds a
        // lead byte of every width and the bytes where continuation rules change.
        const MIRI_EDGES: [u8; 9] = [0x41, 0x80, 0xbf, 0xc2, 0xe0, 0xed, 0xf0, 0xf4, 0xff];
        let edges: &[u8] = if cfg!(miri) { &MIRI_EDGES } else { &EDGES };
        fn expected(bytes: &[u8], units: usize) -> (usize, usize) {
            let valid = match std::str::from_utf8(bytes) {
                Ok(s) => s,
                Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap(),
            };
            let mut left = units;
            for (at, c) in valid.char_indices() {
                if c.len_utf16() > left {
                    return (at, left);
                }
                left -= c.len_utf16();
            }
            (valid.len(), left)
        }
        let mut seq = Vec::with_capacity(4);
        let check = |seq: &[u8]| {
            for units in 0..=5 {
                assert_eq!(
                    utf8_prefix(seq, units),
                    expected(seq, units),
                    "{seq:02x?}, {units} units"
                );
            }
        };
        for &a in edges {
            seq.clear();
            seq.push(a);
            check(&seq);
            for &b in edges {
                seq.truncate(1);
                seq.push(b);
                check(&seq);
                for &c in edges {
                    seq.truncate(2);
                    seq.push(c);
                    check(&seq);
                    for &d in edges {
                        seq.truncate(3);
                        seq.push(d);
                        check(&seq);
                    }
                }
            }
        }
        // Longer text: runs of each width, cut anywhere, with a bad byte anywhere.
        let text = "ab中文字é😀かなxyz한글\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}!".repeat(3);
        let units = text.encode_utf16().count();
        for cut in 0..=text.len() {
            let bytes = &text.as_bytes()[..cut];
            for u in [0, 1, 7, 8, 9, units / 2, units] {
                assert_eq!(utf8_prefix(bytes, u), expected(bytes, u), "{cut} {u}");
            }
        }
        for at in 0..text.len() {
            for bad in [0x80, 0xc0, 0xe0, 0xed, 0xf4, 0xff] {
                let mut bytes = text.clone().into_bytes();
                bytes[at] = bad;
                for u in [units / 3, units] {
                    assert_eq!(utf8_prefix(&bytes, u), expected(&bytes, u), "{at} {u}");
                }
            }
        }
    }

    fn cesu_of(bytes: &[u8], units: usize) -> Option<(usize, String)> {
        let mut out = String::new();
        let mut lone = false;
        let found = cesu_units(bytes, units, &mut out, &mut lone).map(|n| (n, out));
        if let Some((_, text)) = &found {
            assert_eq!(lone, text.contains('\u{fffd}'), "{bytes:02x?}");
        }
        found
    }

    #[test]
    fn cesu_units_stops_at_the_last_character_not_at_the_next_byte() {
        // `é` then the int 1 (`0x91`, continuation-like): the text is two bytes.
        assert_eq!(cesu_of(b"\xc3\xa9\x91", 1), Some((2, "é".into())));
        assert_eq!(cesu_of(b"\x91", 0), Some((0, String::new())));
        // The same past runs of 3-byte characters and of surrogate pairs.
        let text = "中".repeat(11);
        let pair = b"\xed\xa0\xbd\xed\xb8\x80"; // U+1F600 as Java writes it
        for next in [0x80u8, 0x91, 0xbf] {
            let mut bytes = text.clone().into_bytes();
            bytes.push(next);
            assert_eq!(cesu_of(&bytes, 11), Some((33, text.clone())), "{next:x}");
            let mut bytes = [&b"a"[..], &pair.repeat(5)].concat();
            bytes.push(next);
            assert_eq!(
                cesu_of(&bytes, 11),
                Some((31, format!("a{}", "😀".repeat(5))))
            );
        }
        // Lone surrogates, and a pair of which only the high half is wanted.
        assert_eq!(
            cesu_of(b"\xed\xa0\xbd\x91", 1),
            Some((3, "\u{fffd}".into()))
        );
        assert_eq!(cesu_of(pair, 1), Some((3, "\u{fffd}".into())));
        // Half of a 4-byte character, a cut character, a byte that starts none.
        assert_eq!(cesu_of("a😀".as_bytes(), 2), None);
        assert_eq!(cesu_of(&"ab中".as_bytes()[..4], 3), None);
        assert_eq!(cesu_of(b"ab\xf8", 3), None);
        assert_eq!(cesu_of(b"\xed\xa0\x41", 1), None);
    }

    /// `cesu_units` answers exactly where the path it speeds up did (`scan` finds the end,
    /// `decode_cesu8` decodes the text), and gives the same text.
    #[test]
    fn cesu_units_agrees_with_scan_and_decode_cesu8() {
        use proptest::prelude::*;
        let unit = prop_oneof![
            Just(vec![b'a']),
            Just("é".as_bytes().to_vec()),
            Just("中".as_bytes().to_vec()),
            Just("😀".as_bytes().to_vec()),
            Just(b"\xed\xa0\xbd\xed\xb8\x80".to_vec()),
            Just(b"\xed\xa0\xbd".to_vec()),
            Just(b"\xed\xb8\x80".to_vec()),
            any::<u8>().prop_map(|b| vec![b]),
        ];
        proptest!(|(parts in proptest::collection::vec(unit, 0..40), units in 0usize..50)| {
            let bytes: Vec<u8> = parts.concat();
            let before = match scan(&bytes, units) {
                Ok((n, counted)) if counted == units => {
                    let mut out = String::new();
                    decode_cesu8(&bytes[..n], &mut out).ok().map(|_| (n, out))
                }
                _ => None,
            };
            prop_assert_eq!(cesu_of(&bytes, units), before);
        });
    }

    #[test]
    fn scan_stops_before_a_cut_character() {
        let s = "ab中";
        assert_eq!(scan(&s.as_bytes()[..4], 3), Ok((2, 2)));
    }

    #[test]
    fn cesu_pairs_become_one_character_and_lone_surrogates_replacement() {
        let mut out = String::new();
        // U+1F600 as CESU-8: D83D DE00.
        assert_eq!(
            decode_cesu8(b"x\xed\xa0\xbd\xed\xb8\x80y", &mut out),
            Ok(false)
        );
        assert_eq!(out, "x😀y");
        out.clear();
        assert_eq!(decode_cesu8(b"\xed\xa0\xbdz", &mut out), Ok(true));
        assert_eq!(out, "\u{fffd}z");
        out.clear();
        assert_eq!(decode_cesu8(b"ok\xff", &mut out), Err(2));
    }

    /// CESU-8 of UTF-16 units, lone surrogates included.
    fn cesu(units: &[u16]) -> Vec<u8> {
        // Unit by unit, so that surrogates (paired or not) are 3 bytes each.
        let mut out = Vec::new();
        for &u in units {
            match char::from_u32(u.into()) {
                Some(c) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                None => out.extend_from_slice(&[
                    0xe0 | (u >> 12) as u8,
                    0x80 | ((u >> 6) & 0x3f) as u8,
                    0x80 | (u & 0x3f) as u8,
                ]),
            }
        }
        out
    }

    #[test]
    fn cesu_decoding_matches_lossy_utf16() {
        let mut samples: Vec<Vec<u16>> = vec![
            "😀🚀🎉👍".encode_utf16().collect(),
            "a😀b中😀😀\u{d7ff}x".encode_utf16().collect(),
            vec![0xd83d],
            vec![0xde00, 0xd83d],
            vec![0xd83d, 0x41, 0xde00],
            vec![0xd83d, 0xd83d, 0xde00, 0xdbff, 0xdfff, 0xd800, 0xdc00],
            vec![0x61, 0xdc00, 0xdc00, 0xd800],
        ];
        samples.push("🎉".repeat(300).encode_utf16().collect());
        // Every high and every low surrogate, in runs of pairs (the block decoding path).
        samples.push(
            (0..1024u16)
                .flat_map(|k| [0xd800 + k, 0xdc00 + (k * 37) % 1024])
                .chain((0..1024u16).flat_map(|k| [0xd800 + (k * 53) % 1024, 0xdc00 + k]))
                .collect(),
        );
        for units in samples {
            let mut out = String::new();
            let lone = decode_cesu8(&cesu(&units), &mut out).unwrap();
            assert_eq!(out, String::from_utf16_lossy(&units), "{units:x?}");
            assert_eq!(lone, String::from_utf16(&units).is_err(), "{units:x?}");
            assert_eq!(java_units(&cesu(&units)), units);
        }
        // 4-byte UTF-8 (other writers) gives the pair's two units.
        let text = "a😀é中\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}";
        assert_eq!(
            java_units(text.as_bytes()),
            text.encode_utf16().collect::<Vec<_>>()
        );
    }
}
