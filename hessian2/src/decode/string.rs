//! String text: lengths count UTF-16 code units, the bytes are UTF-8, except that Java writes a
//! character outside the BMP as its two surrogates, three bytes each (CESU-8).
//!
//! Reading accepts both CESU-8 pairs and 4-byte UTF-8 (which other writers use), counting a
//! 4-byte sequence as two units. **Lone surrogates** (legal in a Java `String`, impossible in a
//! Rust `str`) are replaced by U+FFFD, like `String::from_utf16_lossy`.
//!
//! The hot path makes no per-character calls: one pass finds where the chunk's units end and
//! validates the UTF-8 on the way; text with surrogates takes the CESU path (its end counted
//! from lead bytes eight at a time, then decoded), and only malformed text the
//! character-by-character `scan`, whose error offsets the chunked path shares.

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

/// Where `units` UTF-16 units of valid UTF-8 at the head of `bytes` end, found and validated
/// in one pass over its characters (ASCII eight at a time); `None` at anything else: a
/// surrogate (CESU-8), malformed text, text cut short, half of a 4-byte character at the end.
/// `bytes[..end]` is then valid UTF-8 of `units` units, where [`scan`] ends it too.
///
/// Each character is checked from one 4-byte little-endian load (zero-padded at the end of
/// `bytes`: a zero is no continuation byte): `units_end` then `str::from_utf8` took 13,300
/// instructions for string_cjk_1k, this about a third.
#[inline]
fn utf8_units_end(bytes: &[u8], units: usize) -> Option<usize> {
    let mut i = 0;
    let mut left = units;
    while left > 0 {
        let rest = &bytes[i..];
        let w = match rest.get(..4) {
            Some(four) => u32::from_le_bytes(four.try_into().expect("4 bytes")),
            None if rest.is_empty() => return None,
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
                return None;
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
                return None;
            }
            (2, 1)
        } else if w & 0xc0c0_c0f8 == 0x8080_80f0 {
            // 11110xxx and three continuations, for U+10000..=U+10FFFF: the code point's bits
            // above the low twelve are 0x10..=0x10f.
            let top = (w & 0x07) << 6 | (w >> 8) & 0x3f;
            if !(0x10..=0x10f).contains(&top) || left < 2 {
                return None;
            }
            (4, 2)
        } else {
            return None;
        };
        i += width;
        left -= width_units;
    }
    Some(i)
}

/// Whether a 3-byte sequence (`w`, little-endian, already matching 1110xxxx 10xxxxxx
/// 10xxxxxx) is neither overlong (`0xe0` then `..0x9f`) nor a surrogate (`0xed` then
/// `0xa0..`): told by the lead's low nibble and bit 5 of the next byte.
#[inline(always)]
fn three_byte_ok(w: u32) -> bool {
    !matches!(w & 0x200f, 0x0000 | 0x200d)
}

/// Where the character that completes `units` UTF-16 units ends, *if* `bytes` is well-formed
/// (UTF-8 or CESU-8): the units are counted from the lead bytes alone, eight bytes at a time (a
/// lead is any byte but a continuation `0x80..=0xbf`; a 4-byte lead `0xf0..` counts two). The
/// last character ends `width` bytes after its lead, not at the next lead: the bytes after the
/// text are the next value's, and `0x80..=0xbf` there is a one-byte int, not a continuation.
///
/// `None` when `bytes` ends first, when half of a 4-byte character would end the text, or at a
/// last lead `0xf8..`. On malformed text the answer can differ from [`scan`]'s; it is the same
/// (`Ok((end, units))`) when `bytes[..end]` is well-formed, so callers validate that and fall
/// back to [`scan`] (and its error offsets) otherwise.
#[inline]
fn units_end(bytes: &[u8], units: usize) -> Option<usize> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let mut i = 0;
    let mut counted = 0;
    while let Some(word) = bytes.get(i..i + 8) {
        let w = u64::from_ne_bytes(word.try_into().expect("8 bytes"));
        // Per byte, bit 7: a lead (not 10xxxxxx); a 4-byte lead (1111xxxx), a second unit.
        let lead = !(w & !(w << 1)) & HIGH;
        let four = w & (w << 1) & (w << 2) & (w << 3) & HIGH;
        // Each byte holds 0..=2; the multiplication sums them into the top byte.
        let n = (((lead >> 7) + (four >> 7)).wrapping_mul(ONES) >> 56) as usize;
        if counted + n >= units {
            break;
        }
        counted += n;
        i += 8;
    }
    if units == 0 {
        return Some(0);
    }
    // The last character starts in the next eight bytes (or the tail).
    loop {
        let &lead = bytes.get(i)?;
        let (width, width_units) = match lead {
            0x80..=0xbf => {
                // A continuation of the character before.
                i += 1;
                continue;
            }
            0x00..=0x7f => (1, 1),
            0xc0..=0xdf => (2, 1),
            0xe0..=0xef => (3, 1),
            0xf0..=0xf7 => (4, 2),
            _ => return None,
        };
        counted += width_units;
        if counted >= units {
            return (counted == units && i + width <= bytes.len()).then_some(i + width);
        }
        i += 1;
    }
}

/// Decodes CESU-8 (surrogates as 3-byte sequences, plus ordinary UTF-8) into `out`. Returns the
/// index of the first invalid byte on failure.
pub(super) fn decode_cesu8(bytes: &[u8], out: &mut String) -> Result<(), usize> {
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
        // Well-formed pairs in a row (a run of emoji), turned into 4-byte UTF-8 in a buffer
        // that is appended (validated) a block at a time.
        let pairs_from = i;
        let mut utf8 = [0u8; 256];
        let mut n = 0;
        loop {
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
            if n == utf8.len() {
                push_utf8(out, &utf8);
                n = 0;
            }
        }
        push_utf8(out, &utf8[..n]);
        if i > pairs_from {
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
                i += 3;
            }
        }
        run_start = i;
    }
    flush(out, run_start, bytes.len())
}

/// Appends the 4-byte UTF-8 sequences that `decode_cesu8` builds from surrogate pairs.
#[inline]
fn push_utf8(out: &mut String, utf8: &[u8]) {
    // SAFETY: `decode_cesu8` fills `utf8` only with whole 4-byte sequences, each the UTF-8
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
        // Other one-chunk text: valid UTF-8 (found and validated in one pass), else Java's
        // CESU-8 (its end counted from the lead bytes, then decoded). Either ends where `scan`
        // ends well-formed text; malformed text is left to `scan` below, so that the chunked
        // path and this one report it at the same offset (a `chunked_input` finding).
        if let Some(n) = utf8_units_end(d.input.chunk(), len) {
            if I::BORROWS {
                if let Some(bytes) = d.input.borrow_bytes(n) {
                    // SAFETY: `bytes` are the `n` bytes at the head of the input chunk that
                    // `utf8_units_end` validated as UTF-8 (`borrow_bytes` lends the next `n`).
                    return Ok(Reference::Borrowed(unsafe {
                        std::str::from_utf8_unchecked(bytes)
                    }));
                }
            } else {
                let t = &mut *d.t;
                t.text.clear();
                // SAFETY: as above: the `n` bytes `utf8_units_end` validated.
                t.text
                    .push_str(unsafe { std::str::from_utf8_unchecked(&d.input.chunk()[..n]) });
                d.input.advance(n);
                return Ok(Reference::Copied(&d.t.text));
            }
        }
        let chunk = d.input.chunk();
        if let Some(n) = units_end(chunk, len) {
            let t = &mut *d.t;
            t.text.clear();
            if decode_cesu8(&chunk[..n], &mut t.text).is_ok() {
                d.input.advance(n);
                return Ok(Reference::Copied(&d.t.text));
            }
        }
        let found = scan(d.input.chunk(), len);
        match found {
            Ok((n, units)) if units == len => {
                if let Some(bytes) = d.input.borrow_bytes(n) {
                    if let Ok(s) = std::str::from_utf8(bytes) {
                        return Ok(Reference::Borrowed(s));
                    }
                    return cesu_text(&mut d.t.text, bytes, start);
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
/// as CESU-8 into `text`.
fn cesu_text<'de, 's>(
    text: &'s mut String,
    bytes: &[u8],
    start: u64,
) -> Result<super::Reference<'de, 's, str>> {
    text.clear();
    match decode_cesu8(bytes, text) {
        Ok(()) => Ok(Reference::Copied(text)),
        Err(i) => Err(Error::new(ErrorKind::InvalidUtf8, start + i as u64)),
    }
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
        // headers of a multi-chunk string are not counted).
        Err(_) => cesu_text(&mut t.text, &t.scratch, start),
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
    /// (`read_str`) borrowed as `str` without a second validation; CESU-8 pairs are copied.
    /// Run under Miri: `cargo +nightly miri test -p hessian2 --lib text_is_borrowed`.
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

    /// `utf8_units_end` (whose answer is taken as UTF-8 unchecked) against `str::from_utf8`
    /// on every sequence of up to four bytes from the values where UTF-8's rules change, at
    /// every unit count: `Some(end)` exactly when the longest valid prefix has a character
    /// boundary `end` after `units` units.
    #[test]
    fn utf8_units_end_agrees_with_from_utf8() {
        const EDGES: [u8; 28] = [
            0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0,
            0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf7, 0xf8, 0xfe, 0xff,
        ];
        fn expected(bytes: &[u8], units: usize) -> Option<usize> {
            let valid = match std::str::from_utf8(bytes) {
                Ok(s) => s,
                Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap(),
            };
            let mut counted = 0;
            for (at, c) in valid.char_indices() {
                if counted == units {
                    return Some(at);
                }
                counted += c.len_utf16();
            }
            (counted == units).then_some(valid.len())
        }
        let mut seq = Vec::with_capacity(4);
        let check = |seq: &[u8]| {
            for units in 0..=5 {
                assert_eq!(
                    utf8_units_end(seq, units),
                    expected(seq, units),
                    "{seq:02x?}, {units} units"
                );
            }
        };
        for &a in &EDGES {
            seq.clear();
            seq.push(a);
            check(&seq);
            for &b in &EDGES {
                seq.truncate(1);
                seq.push(b);
                check(&seq);
                for &c in &EDGES {
                    seq.truncate(2);
                    seq.push(c);
                    check(&seq);
                    for &d in &EDGES {
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
                assert_eq!(utf8_units_end(bytes, u), expected(bytes, u), "{cut} {u}");
            }
        }
        for at in 0..text.len() {
            for bad in [0x80, 0xc0, 0xe0, 0xed, 0xf4, 0xff] {
                let mut bytes = text.clone().into_bytes();
                bytes[at] = bad;
                for u in [units / 3, units] {
                    assert_eq!(utf8_units_end(&bytes, u), expected(&bytes, u), "{at} {u}");
                }
            }
        }
    }

    #[test]
    fn units_end_stops_at_the_last_character_not_at_the_next_lead() {
        // `é` then the int 1 (`0x91`, continuation-like): the text is two bytes.
        assert_eq!(units_end(b"\xc3\xa9\x91", 1), Some(2));
        assert_eq!(units_end(b"\x91", 0), Some(0));
        // The same past a word of lead bytes: 3 + 8 characters, then `0x80..=0xbf`.
        let text = "中".repeat(11);
        for next in [0x80u8, 0x91, 0xbf] {
            let mut bytes = text.clone().into_bytes();
            bytes.push(next);
            assert_eq!(units_end(&bytes, 11), Some(33), "{next:x}");
            assert_eq!(scan(&bytes, 11), Ok((33, 11)));
        }
        // Half of a 4-byte character, a cut character, a lead that is none.
        assert_eq!(units_end("a😀".as_bytes(), 2), None);
        assert_eq!(units_end(&"ab中".as_bytes()[..4], 3), None);
        assert_eq!(units_end(b"ab\xf8", 3), None);
    }

    /// Where `units_end` answers and the text up to there is well-formed, `scan` (the path
    /// that reports malformed text) ends it at the same place.
    #[test]
    fn units_end_agrees_with_scan_on_well_formed_text() {
        use proptest::prelude::*;
        let unit = prop_oneof![
            Just(vec![b'a']),
            Just("é".as_bytes().to_vec()),
            Just("中".as_bytes().to_vec()),
            Just("😀".as_bytes().to_vec()),
            Just(b"\xed\xa0\xbd\xed\xb8\x80".to_vec()),
            Just(b"\xed\xa0\xbd".to_vec()),
            any::<u8>().prop_map(|b| vec![b]),
        ];
        proptest!(|(parts in proptest::collection::vec(unit, 0..40), units in 0usize..50)| {
            let bytes: Vec<u8> = parts.concat();
            if let Some(n) = units_end(&bytes, units) {
                let mut out = String::new();
                if decode_cesu8(&bytes[..n], &mut out).is_ok() {
                    prop_assert_eq!(scan(&bytes, units), Ok((n, units)));
                }
            }
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
        decode_cesu8(b"x\xed\xa0\xbd\xed\xb8\x80y", &mut out).unwrap();
        assert_eq!(out, "x😀y");
        out.clear();
        decode_cesu8(b"\xed\xa0\xbdz", &mut out).unwrap();
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
            decode_cesu8(&cesu(&units), &mut out).unwrap();
            assert_eq!(out, String::from_utf16_lossy(&units), "{units:x?}");
        }
    }
}
