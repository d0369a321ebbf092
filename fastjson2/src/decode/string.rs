//! Strings, symbols and type names.

use std::borrow::Cow;

use super::ascii::{ascii_str, is_ascii_in};
use super::symbols::Span;
use super::Decoder;
use crate::error::{Error, ErrorKind, Result};
use crate::marker::{int, string as code};

impl<'de> Decoder<'de> {
    /// The string whose code byte `c` was just read.
    #[inline]
    pub(super) fn string_after(&mut self, c: u8) -> Result<Cow<'de, str>> {
        let span = self.span_after(c)?;
        self.text_of(span)
    }

    /// Reads past the string whose code byte `c` was just read, without decoding its bytes.
    #[inline]
    fn span_after(&mut self, c: u8) -> Result<Span> {
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
                let n = n as usize;
                if n % 2 != 0 && matches!(c, code::UTF16 | code::UTF16LE | code::UTF16BE) {
                    self.pos = at;
                    return Err(self.error(ErrorKind::InvalidLength {
                        what: "UTF-16 byte length",
                        value: n as i64,
                    }));
                }
                n
            }
        };
        let start = self.pos;
        self.take(len)?;
        Ok(Span {
            code: c,
            ascii: false,
            start,
            len: len as u32,
        })
    }

    /// Steps over the string whose code byte `c` was just read (checking UTF-8).
    pub(super) fn skip_string_after(&mut self, c: u8) -> Result<()> {
        let span = self.span_after(c)?;
        if span.code == code::UTF8 {
            self.text_of(span)?;
        }
        Ok(())
    }

    /// Steps over a symbol after its `0x7f`, recording a definition.
    pub(super) fn skip_symbol_after(&mut self) -> Result<()> {
        self.symbol_span_after().map(drop)
    }

    /// Steps over a class name after its `0x92`, recording a definition.
    pub(super) fn skip_type_name(&mut self) -> Result<()> {
        self.type_name_span().map(drop)
    }

    /// The text of a string read before.
    #[inline]
    fn text_of(&self, span: Span) -> Result<Cow<'de, str>> {
        let bytes = span.bytes(self.data);
        match span.code {
            code::UTF8 => match std::str::from_utf8(bytes) {
                Ok(s) => Ok(Cow::Borrowed(s)),
                Err(e) => Err(Error::new(
                    ErrorKind::InvalidString("UTF-8"),
                    (span.start + e.valid_up_to()) as u64,
                )),
            },
            code::UTF16 | code::UTF16LE | code::UTF16BE => Ok(Cow::Owned(utf16(bytes, span.code))),
            // Latin-1: ASCII is valid UTF-8 as it is; other bytes are the chars U+0080-U+00FF.
            _ => match ascii_str(bytes) {
                Some(s) => Ok(Cow::Borrowed(s)),
                None => Ok(Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect())),
            },
        }
    }

    /// The bytes of a string read before if they are ASCII (Latin-1 or UTF-8 alike).
    #[inline]
    fn ascii_of(&self, span: Span) -> Option<&'de [u8]> {
        span.ascii.then(|| span.bytes(self.data))
    }

    /// The next value if it is a one-byte-length ASCII string (the common case of short text
    /// and field names), consumed and borrowed; `None` (nothing consumed) for anything else.
    #[inline]
    pub(crate) fn next_if_short_ascii(&mut self) -> Option<&'de str> {
        let c = *self.data.get(self.pos)?;
        if !(code::FIX_FIRST..=code::FIX_LAST).contains(&c) {
            return None;
        }
        let start = self.pos + 1;
        let bytes = self
            .data
            .get(start..start + usize::from(c - code::FIX_FIRST))?;
        let s = ascii_str(bytes)?;
        self.pos = start + bytes.len();
        Some(s)
    }

    /// The next value if it is a symbol whose name is ASCII in a form [`Self::symbol_fast`]
    /// reads (a POJO field name as Java writes it), consumed: its bytes, which need no UTF-8
    /// check. `None` (nothing consumed) for anything else, other symbols included.
    #[inline(always)]
    pub(crate) fn next_if_ascii_symbol(&mut self) -> Option<&'de [u8]> {
        if self.data.get(self.pos) != Some(&code::SYMBOL) {
            return None;
        }
        self.pos += 1;
        match self.symbol_fast(true) {
            Some(span) => Some(span.bytes(self.data)),
            None => {
                self.pos -= 1;
                None
            }
        }
    }

    /// The next value if it is a symbol (`0x7f`, a POJO field name) in any form, consumed: its
    /// bytes when they are known to be ASCII (no UTF-8 check needed), else its text. `None`
    /// (nothing consumed) for anything else. [`Self::next_if_ascii_symbol`] is the fast path.
    #[inline]
    pub(crate) fn next_if_symbol(&mut self) -> Option<Result<Name<'de>>> {
        if self.data.get(self.pos) != Some(&code::SYMBOL) {
            return None;
        }
        self.pos += 1;
        Some(
            self.symbol_span_after()
                .and_then(|span| match self.ascii_of(span) {
                    Some(bytes) => Ok(Name::Ascii(bytes)),
                    None => self.text_of(span).map(Name::Text),
                }),
        )
    }

    /// The next value if it is a symbol (an object key as Java writes a POJO field), consumed,
    /// as text; `None` (nothing consumed) for anything else. Skips the general [`Header`] path
    /// for what most keys of a `Value` are.
    ///
    /// [`Header`]: super::Header
    #[inline]
    pub(crate) fn next_if_symbol_text(&mut self) -> Option<Result<Cow<'de, str>>> {
        if self.data.get(self.pos) != Some(&code::SYMBOL) {
            return None;
        }
        self.pos += 1;
        Some(self.symbol_after())
    }

    /// Reads past a class name (`0x92` and the name) if one comes next, without decoding it;
    /// returns whether there was one.
    #[inline]
    pub(crate) fn next_if_type_name(&mut self) -> Result<bool> {
        if self.data.get(self.pos) != Some(&crate::marker::TYPED) {
            return Ok(false);
        }
        self.pos += 1;
        self.type_name_span()?;
        Ok(true)
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
        let span = self.symbol_span_after()?;
        self.text_of(span)
    }

    #[inline]
    fn symbol_span_after(&mut self) -> Result<Span> {
        match self.symbol_fast(false) {
            Some(span) => Ok(span),
            None => self.symbol_span_slow(),
        }
    }

    /// The forms of a symbol (after its `0x7f`) Java writes in a small document: a reference
    /// by a one-byte number, and a definition of a short Latin-1 name numbered with one byte.
    /// With `ascii_only`, only a symbol whose name is ASCII (known for a reference, checked for
    /// a definition); else a defined name is not checked (recorded as not known ASCII), as
    /// where it is skipped or [`Self::text_of`] checks it anyway. `None`: nothing consumed.
    #[inline(always)]
    fn symbol_fast(&mut self, ascii_only: bool) -> Option<Span> {
        let p = self.pos;
        match *self.data.get(p)? {
            n @ 0..=0x2f => {
                let span = self.symbols.get(usize::from(n))?;
                if ascii_only && !span.ascii {
                    return None;
                }
                self.pos = p + 1;
                Some(span)
            }
            c @ code::FIX_FIRST..=code::FIX_LAST => {
                let (start, end) = (p + 1, p + 1 + usize::from(c - code::FIX_FIRST));
                let n = *self.data.get(end)?;
                if n > 0x2f || usize::from(n) != self.symbols.len() {
                    return None;
                }
                let ascii = ascii_only && is_ascii_in(self.data, start, end);
                if ascii_only && !ascii {
                    return None;
                }
                let span = Span {
                    code: c,
                    ascii,
                    start,
                    len: (end - start) as u32,
                };
                self.symbols.push(span);
                self.pos = end + 1;
                Some(span)
            }
            _ => None,
        }
    }

    #[inline(never)]
    fn symbol_span_slow(&mut self) -> Result<Span> {
        let c = self.peek()?;
        if int::is_int32(c) {
            return self.symbol_ref();
        }
        if !code::is_string(c) {
            return Err(self.error(ErrorKind::Unexpected {
                found: c,
                expected: "a symbol",
            }));
        }
        self.pos += 1;
        let span = self.span_after(c)?;
        self.define_symbol(span)
    }

    /// After `0x92`: a type name, as a symbol definition or reference (also behind `0x7f`).
    pub(super) fn type_name(&mut self) -> Result<Cow<'de, str>> {
        let span = self.type_name_span()?;
        self.text_of(span)
    }

    fn type_name_span(&mut self) -> Result<Span> {
        let c = self.peek()?;
        if c == code::SYMBOL {
            self.pos += 1;
            return self.symbol_span_after();
        }
        if int::is_int32(c) || code::is_string(c) {
            // The same forms as a symbol's body.
            return self.symbol_span_after();
        }
        Err(self.error(ErrorKind::Unexpected {
            found: c,
            expected: "a type name",
        }))
    }

    #[inline]
    fn symbol_ref(&mut self) -> Result<Span> {
        let at = self.pos;
        let n = self.int32()?;
        match usize::try_from(n).ok().and_then(|i| self.symbols.get(i)) {
            Some(span) => Ok(span),
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
    /// A UTF-8 symbol is checked here, where it is defined, so that a bad one fails at once.
    #[inline]
    fn define_symbol(&mut self, mut span: Span) -> Result<Span> {
        if span.code == code::UTF8 {
            self.text_of(span)?;
        }
        span.ascii = !matches!(span.code, code::UTF16 | code::UTF16LE | code::UTF16BE)
            && span.bytes(self.data).is_ascii();
        let at = self.pos;
        let n = self.int32()?;
        let len = self.symbols.len();
        match usize::try_from(n) {
            Ok(i) if i <= len => self.symbols.set(i, span),
            _ => {
                self.pos = at;
                return Err(self.error(ErrorKind::BadSymbol {
                    index: i64::from(n),
                    len,
                }));
            }
        }
        Ok(span)
    }
}

/// A field name: its bytes when ASCII, else its text.
pub(crate) enum Name<'de> {
    /// ASCII bytes (valid UTF-8 as they are).
    Ascii(&'de [u8]),
    /// Any other text.
    Text(Cow<'de, str>),
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
