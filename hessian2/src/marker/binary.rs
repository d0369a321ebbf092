//! Binary data: compact forms for short data, `A` (non-final) and `B` (final) chunks.

/// `A`: a non-final chunk; a 16-bit length follows.
pub const CHUNK: u8 = b'A';
/// `B`: the final chunk; a 16-bit length follows.
pub const FINAL: u8 = b'B';
/// `0x20..=0x2f`: 0-15 bytes, the length in the code.
pub const DIRECT_BASE: u8 = 0x20;
/// Largest length of the one-byte form.
pub const DIRECT_MAX: usize = 0x0f;
/// `0x34..=0x37`: up to 1023 bytes: `((code - 0x34) << 8) + b1`.
pub const SHORT_BASE: u8 = 0x34;
/// Largest length of the two-byte form.
pub const SHORT_MAX: usize = 0x3ff;
