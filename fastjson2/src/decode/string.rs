//! Strings, symbols and type names.

use std::borrow::Cow;

use super::Decoder;
use crate::error::{ErrorKind, Result};
use crate::marker::{int, string as code};

impl<'de> Decoder<'de> {
    /// The string whose code byte `c` was just read.
    #[inline]
    pub(super) fn string_after(&mut self, c: u8) -> Result<Cow<'de, str>> {
        let len = match c {
            code::FIX_FIRST..=code::FIX_LAST => usize::from(c - code::FIX_FIRST),
            code::GB18030 => {
                self.pos -= 1;
                return Err(self.error(ErrorKind::Unsupported("GB18030 string")));
            }
            _ => {
                let at = self.pos;
                let n = self.int32()?;
                if n < 0 {
                    // fastjson2 reads a negative Latin-1 length as a shared SymbolTable entry.
                    self.pos = at;
                    return Err(self.error(ErrorKind::Unsupported("SymbolTable string")));
                }
                n as usize
            }
        };
        let at = self.pos;
        let bytes = self.take(len)?;
        match c {
            code::UTF8 => match std::str::from_utf8(bytes) {
                Ok(s) => Ok(Cow::Borrowed(s)),
                Err(e) => {
                    self.pos = at + e.valid_up_to();
                    Err(self.error(ErrorKind::InvalidString("UTF-8")))
                }
            },
            code::UTF16 | code::UTF16LE | code::UTF16BE => {
                if len % 2 != 0 {
                    self.pos = at;
                    return Err(self.error(ErrorKind::InvalidLength {
                        what: "UTF-16 byte length",
                        value: len as i64,
                    }));
                }
                Ok(Cow::Owned(utf16(bytes, c)))
            }
            // Latin-1: ASCII is valid UTF-8 as it is; other bytes are the chars U+0080-U+00FF.
            _ => match std::str::from_utf8(bytes) {
                Ok(s) if bytes.is_ascii() => Ok(Cow::Borrowed(s)),
                _ => Ok(Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect())),
            },
        }
    }

    /// The next value if it is a one-byte-length ASCII string (the common case of short text
    /// and field names), consumed and borrowed; `None` (nothing consumed) for anything else.
    #[inline]
    pub fn next_if_short_ascii(&mut self) -> Option<&'de str> {
        let c = *self.data.get(self.pos)?;
        if !(code::FIX_FIRST..=code::FIX_LAST).contains(&c) {
            return None;
        }
        let start = self.pos + 1;
        let bytes = self
            .data
            .get(start..start + usize::from(c - code::FIX_FIRST))?;
        if !bytes.is_ascii() {
            return None;
        }
        let s = std::str::from_utf8(bytes).ok()?;
        self.pos = start + bytes.len();
        Some(s)
    }

    /// The next value if it is a symbol (`0x7f`, a POJO field name), consumed; `None` (nothing
    /// consumed) for anything else.
    #[inline]
    pub fn next_if_symbol(&mut self) -> Option<Result<Cow<'de, str>>> {
        if self.data.get(self.pos) != Some(&code::SYMBOL) {
            return None;
        }
        self.pos += 1;
        Some(self.symbol_after())
    }

    /// A string in any string form (a symbol too), where the grammar puts one: a zone id, a
    /// reference path.
    pub(super) fn text(&mut self, expected: &'static str) -> Result<Cow<'de, str>> {
        let c = self.peek()?;
        if code::is_string(c) {
            self.pos += 1;
            self.string_after(c)
        } else if c == code::SYMBOL {
            self.pos += 1;
            self.symbol_after()
        } else {
            Err(self.error(ErrorKind::Unexpected { found: c, expected }))
        }
    }

    /// After `0x7f`: a symbol reference (an int32) or definition (a string, then its number).
    #[inline]
    pub(super) fn symbol_after(&mut self) -> Result<Cow<'de, str>> {
        let c = self.peek()?;
        if int::is_int32(c) {
            return self.symbol_ref();
        }
        if let Some(name) = self.next_if_short_ascii() {
            return self.define_symbol(Cow::Borrowed(name));
        }
        if !code::is_string(c) {
            return Err(self.error(ErrorKind::Unexpected {
                found: c,
                expected: "a symbol",
            }));
        }
        self.pos += 1;
        let name = self.string_after(c)?;
        self.define_symbol(name)
    }

    /// After `0x92`: a type name, as a symbol definition or reference (also behind `0x7f`).
    pub(super) fn type_name(&mut self) -> Result<Cow<'de, str>> {
        let c = self.peek()?;
        if c == code::SYMBOL {
            self.pos += 1;
            return self.symbol_after();
        }
        if int::is_int32(c) {
            return self.symbol_ref();
        }
        if !code::is_string(c) {
            return Err(self.error(ErrorKind::Unexpected {
                found: c,
                expected: "a type name",
            }));
        }
        self.pos += 1;
        let name = self.string_after(c)?;
        self.define_symbol(name)
    }

    #[inline]
    fn symbol_ref(&mut self) -> Result<Cow<'de, str>> {
        let at = self.pos;
        let n = self.int32()?;
        match usize::try_from(n).ok().and_then(|i| self.symbols.get(i)) {
            Some(s) => Ok(s.clone()),
            None => {
                self.pos = at;
                Err(self.error(if n < 0 {
                    ErrorKind::Unsupported("SymbolTable symbol")
                } else {
                    ErrorKind::BadSymbol {
                        index: i64::from(n),
                        len: self.symbols.len(),
                    }
                }))
            }
        }
    }

    /// Reads the number after a symbol's string: Java numbers symbols in order of first use,
    /// so the number is the next free one (or, never from Java, an earlier one redefined).
    #[inline]
    fn define_symbol(&mut self, name: Cow<'de, str>) -> Result<Cow<'de, str>> {
        let at = self.pos;
        let n = self.int32()?;
        let len = self.symbols.len();
        match usize::try_from(n) {
            Ok(i) if i == len => {
                if len == 0 {
                    self.symbols.reserve(16);
                }
                self.symbols.push(name.clone());
            }
            Ok(i) if i < len => self.symbols[i] = name.clone(),
            _ => {
                self.pos = at;
                return Err(self.error(ErrorKind::BadSymbol {
                    index: i64::from(n),
                    len,
                }));
            }
        }
        Ok(name)
    }
}

/// UTF-16 bytes to a string; `0x7b` (plain UTF-16) honours a byte-order mark and is big-endian
/// without one, as Java's `UTF_16` charset. Lone surrogates become U+FFFD.
fn utf16(bytes: &[u8], c: u8) -> String {
    let (mut bytes, mut little) = (bytes, c == code::UTF16LE);
    if c == code::UTF16 {
        match bytes {
            [0xfe, 0xff, rest @ ..] => bytes = rest,
            [0xff, 0xfe, rest @ ..] => (bytes, little) = (rest, true),
            _ => {}
        }
    }
    let units = bytes.chunks_exact(2).map(|p| {
        if little {
            u16::from_le_bytes([p[0], p[1]])
        } else {
            u16::from_be_bytes([p[0], p[1]])
        }
    });
    char::decode_utf16(units)
        .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}
