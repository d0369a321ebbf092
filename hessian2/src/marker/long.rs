//! 64-bit long: one, two and three byte compact forms, `Y` (an int32), and `L` (eight bytes).

/// `L`: eight-byte big-endian long.
pub const FULL: u8 = b'L';
/// `Y` (`0x59`): a long that fits in 32 bits, as four big-endian bytes.
pub const INT32: u8 = 0x59;

/// One byte: `0xd8..=0xef` encodes `code - 0xe0`, so `0xe0` is zero.
pub const DIRECT_ZERO: u8 = 0xe0;
/// Smallest long with a one-byte form.
pub const DIRECT_MIN: i64 = -0x08;
/// Largest long with a one-byte form.
pub const DIRECT_MAX: i64 = 0x0f;

/// Two bytes: `0xf0..=0xff`, value `((code - 0xf8) << 8) + b1`.
pub const BYTE_ZERO: u8 = 0xf8;
/// Smallest long with a two-byte form.
pub const BYTE_MIN: i64 = -0x800;
/// Largest long with a two-byte form.
pub const BYTE_MAX: i64 = 0x7ff;

/// Three bytes: `0x38..=0x3f`, value `((code - 0x3c) << 16) + (b1 << 8) + b2`.
pub const SHORT_ZERO: u8 = 0x3c;
/// Smallest long with a three-byte form.
pub const SHORT_MIN: i64 = -0x40000;
/// Largest long with a three-byte form.
pub const SHORT_MAX: i64 = 0x3ffff;
