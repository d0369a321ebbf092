//! Strings the way Java's `JSONWriterJSONB.writeString(String)` writes them on JDK 9+.
//!
//! Java keeps a string either as Latin-1 bytes (every char <= U+00FF) or as UTF-16, and the
//! writer decides from that:
//!
//! - Latin-1: the bytes themselves, after `0x49 + len` (up to 47 bytes) or `0x79` and an int32
//!   length. (A Rust `str` is Latin-1 in Java exactly when every char is <= U+00FF.)
//! - UTF-16: Java looks at the first 64 UTF-16 units and counts those with a zero high *or* low
//!   byte (ASCII and Latin-1, but also U+xx00 such as U+4E00). None of them, or under a third of
//!   the units looked at (by integer division: `units / count >= 3`), and the string goes as
//!   UTF-16LE (`0x7c`, an int32 byte length, the units). Otherwise it is UTF-8 (`0x7a`, an
//!   int32 byte length, the bytes), unless the UTF-8 is longer than the UTF-16 would be, in
//!   which case it is UTF-16LE after all.

use bytes::BufMut;

use super::Encoder;
use crate::marker::string as code;

/// Units Java looks at to choose UTF-16 (its first 128 bytes).
const PROBE_UNITS: usize = 64;

impl<B: BufMut> Encoder<B> {
    /// A Java `String`, in the form Java picks from its compact-string coder: Latin-1 bytes
    /// when every char is <= U+00FF, else UTF-16LE when the first 64 UTF-16 units are mostly not
    /// Latin (see this module's docs for the exact rule), else UTF-8 (unless longer than
    /// UTF-16).
    #[inline]
    pub fn write_str(&mut self, s: &str) {
        // Short ASCII (names, most text) inline, the general rule behind a call.
        let bytes = s.as_bytes();
        if bytes.len() <= code::FIX_MAX && bytes.is_ascii() {
            self.out.put_u8(code::FIX_FIRST + bytes.len() as u8);
            self.out.put_slice(bytes);
        } else {
            self.write_str_general(s);
        }
    }

    /// `code`, then [`write_str`](Self::write_str) of `s`: for short ASCII the code and the
    /// string's head in one write.
    #[inline]
    pub(super) fn write_coded_str(&mut self, code: u8, s: &str) {
        let bytes = s.as_bytes();
        if bytes.len() <= code::FIX_MAX && bytes.is_ascii() {
            self.out
                .put_slice(&[code, code::FIX_FIRST + bytes.len() as u8]);
            self.out.put_slice(bytes);
        } else {
            self.out.put_u8(code);
            self.write_str_general(s);
        }
    }

    #[inline(never)]
    fn write_str_general(&mut self, s: &str) {
        let bytes = s.as_bytes();
        if bytes.is_ascii() {
            self.latin1_head(bytes.len());
            self.out.put_slice(bytes);
        } else if s.chars().all(|c| c <= '\u{ff}') {
            self.latin1_head(s.chars().count());
            for c in s.chars() {
                self.out.put_u8(c as u8);
            }
        } else if prefers_utf16(s) {
            let units = s.encode_utf16().count();
            self.out.put_u8(code::UTF16LE);
            self.write_len(units * 2);
            for u in s.encode_utf16() {
                self.out.put_u16_le(u);
            }
        } else {
            self.out.put_u8(code::UTF8);
            self.write_len(bytes.len());
            self.out.put_slice(bytes);
        }
    }

    fn latin1_head(&mut self, len: usize) {
        if len <= code::FIX_MAX {
            self.out.put_u8(code::FIX_FIRST + len as u8);
        } else {
            self.out.put_u8(code::LATIN1);
            self.write_len(len);
        }
    }
}

/// Java's choice between UTF-16LE and UTF-8 for a string that is not Latin-1.
fn prefers_utf16(s: &str) -> bool {
    let mut probed = 0;
    let mut latin = 0;
    for u in s.encode_utf16().take(PROBE_UNITS) {
        probed += 1;
        if u & 0xff == 0 || u >> 8 == 0 {
            latin += 1;
        }
    }
    if latin == 0 || probed / latin >= 3 {
        return true;
    }
    // UTF-8 longer than the UTF-16 bytes: UTF-16 after all.
    s.len() > 2 * s.encode_utf16().count()
}
