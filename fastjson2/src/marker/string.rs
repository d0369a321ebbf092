//! Strings and symbols.
//!
//! Java's writer picks the form from the `String`'s internal coder (JDK 9+ compact strings):
//! a Latin-1 string (every char <= U+00FF) is written as its Latin-1 bytes, in a one-byte form
//! up to 47 bytes and with [`LATIN1`] and a length beyond; any other string is written as
//! UTF-8 ([`UTF8`]) or, when it is mostly non-Latin (see `encode::string`), as UTF-16
//! little-endian ([`UTF16LE`], the byte order of the machines Java runs on).

/// `0x49..=0x78`: Latin-1 string of `code - 0x49` bytes (0-47).
pub const FIX_FIRST: u8 = 0x49;
/// Last one-byte-length string code (47 bytes).
pub const FIX_LAST: u8 = 0x78;
/// Longest string with a one-byte form.
pub const FIX_MAX: usize = 47;
/// Latin-1 (called "ASCII" in fastjson2): an int32 length, then the bytes.
pub const LATIN1: u8 = 0x79;
/// UTF-8: an int32 byte length, then the bytes.
pub const UTF8: u8 = 0x7a;
/// UTF-16 with an optional byte-order mark (big-endian without one): an int32 byte length.
pub const UTF16: u8 = 0x7b;
/// UTF-16 little-endian: an int32 byte length, then the bytes.
pub const UTF16LE: u8 = 0x7c;
/// UTF-16 big-endian: an int32 byte length, then the bytes.
pub const UTF16BE: u8 = 0x7d;
/// GB18030: an int32 byte length, then the bytes (never written by fastjson2's writer).
pub const GB18030: u8 = 0x7e;
/// A symbol: either a definition (a string, then its int32 symbol number) or a reference (an
/// int32 symbol number; negative numbers index a `SymbolTable` shared out of band). With
/// `WriteNameAsSymbol` (Dubbo) every POJO field name is one; type names share the numbering.
pub const SYMBOL: u8 = 0x7f;

/// True for the first byte of a string (not a symbol).
pub const fn is_string(code: u8) -> bool {
    code >= FIX_FIRST && code <= GB18030
}
