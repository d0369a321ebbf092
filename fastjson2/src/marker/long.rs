//! int64 (Java `long`).

/// One byte: `0xd8..=0xef` are -8..=15 (`code - 0xe0`).
pub const DIRECT_ZERO: u8 = 0xe0;
/// First one-byte code.
pub const DIRECT_FIRST: u8 = 0xd8;
/// Last one-byte code.
pub const DIRECT_LAST: u8 = 0xef;
/// Smallest int64 with a one-byte form.
pub const DIRECT_MIN: i64 = -8;
/// Largest int64 with a one-byte form.
pub const DIRECT_MAX: i64 = 15;
/// Two bytes: `0xc8..=0xd7`, value `((code - 0xd0) << 8) + b1`.
pub const BYTE_ZERO: u8 = 0xd0;
/// First two-byte code.
pub const BYTE_FIRST: u8 = 0xc8;
/// Last two-byte code.
pub const BYTE_LAST: u8 = 0xd7;
/// Smallest int64 with a two-byte form.
pub const BYTE_MIN: i64 = -0x800;
/// Largest int64 with a two-byte form.
pub const BYTE_MAX: i64 = 0x7ff;
/// Three bytes: `0xc0..=0xc7`, value `((code - 0xc4) << 16) + (b1 << 8) + b2`.
pub const SHORT_ZERO: u8 = 0xc4;
/// First three-byte code.
pub const SHORT_FIRST: u8 = 0xc0;
/// Last three-byte code.
pub const SHORT_LAST: u8 = 0xc7;
/// Smallest int64 with a three-byte form.
pub const SHORT_MIN: i64 = -0x40000;
/// Largest int64 with a three-byte form.
pub const SHORT_MAX: i64 = 0x3ffff;
/// Five bytes: the code, then a four-byte big-endian int (Java's `writeInt64` for values that
/// fit an `int`).
pub const INT: u8 = 0xbf;
/// Nine bytes: the code, then eight big-endian bytes.
pub const FULL: u8 = 0xbe;

/// True for the first byte of any int64 form (`0xbe..=0xef`).
pub const fn is_int64(code: u8) -> bool {
    code >= FULL && code <= DIRECT_LAST
}
