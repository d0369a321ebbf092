//! Strings: UTF-8 (CESU-8 for characters outside the BMP) with lengths in UTF-16 code units.

/// `R`: a non-final chunk; a 16-bit length follows, then that many UTF-16 units of text.
pub const CHUNK: u8 = b'R';
/// `S`: the final chunk; a 16-bit length follows.
pub const FINAL: u8 = b'S';
/// `0x00..=0x1f`: a whole string of 0-31 units, the length in the code.
pub const DIRECT_MAX: usize = 0x1f;
/// `0x30..=0x33`: a whole string of up to 1023 units: `((code - 0x30) << 8) + b1`.
pub const SHORT_BASE: u8 = 0x30;
/// Largest length of the two-byte form.
pub const SHORT_MAX: usize = 0x3ff;
/// Java's `Hessian2Output` splits strings into chunks of this many UTF-16 units (one less when
/// the chunk would end on a high surrogate).
pub const CHUNK_UNITS: usize = 0x8000;
