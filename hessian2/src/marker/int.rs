//! 32-bit int: one, two and three byte compact forms, and `I` with four big-endian bytes.

/// `I`: four-byte big-endian int.
pub const FULL: u8 = b'I';

/// One byte: `0x80..=0xbf` encodes `code - 0x90`, so `0x90` is zero.
pub const DIRECT_ZERO: u8 = 0x90;
/// Smallest int with a one-byte form.
pub const DIRECT_MIN: i32 = -0x10;
/// Largest int with a one-byte form.
pub const DIRECT_MAX: i32 = 0x2f;

/// Two bytes: `0xc0..=0xcf`, value `((code - 0xc8) << 8) + b1`.
pub const BYTE_ZERO: u8 = 0xc8;
/// Smallest int with a two-byte form.
pub const BYTE_MIN: i32 = -0x800;
/// Largest int with a two-byte form.
pub const BYTE_MAX: i32 = 0x7ff;

/// The value of the two-byte form `code` (`0xc0..=0xcf`), `b1`.
#[inline(always)]
pub const fn two_byte(code: u8, b1: u8) -> i32 {
    ((code as i32 - BYTE_ZERO as i32) << 8) | b1 as i32
}

/// Three bytes: `0xd0..=0xd7`, value `((code - 0xd4) << 16) + (b1 << 8) + b2`.
pub const SHORT_ZERO: u8 = 0xd4;
/// Smallest int with a three-byte form.
pub const SHORT_MIN: i32 = -0x40000;
/// Largest int with a three-byte form.
pub const SHORT_MAX: i32 = 0x3ffff;
