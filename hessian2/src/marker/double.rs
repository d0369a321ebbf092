//! IEEE double: `0.0`, `1.0`, a byte, a short, thousandths in an int, or all eight bytes.

/// `D`: eight-byte IEEE 754 big-endian double.
pub const FULL: u8 = b'D';
/// `0x5b`: 0.0 (Java also writes -0.0 this way: `(int) -0.0 == 0`).
pub const ZERO: u8 = 0x5b;
/// `0x5c`: 1.0.
pub const ONE: u8 = 0x5c;
/// `0x5d`: a whole number in -128..=127 as one signed byte.
pub const BYTE: u8 = 0x5d;
/// `0x5e`: a whole number in -32768..=32767 as a signed big-endian short.
pub const SHORT: u8 = 0x5e;
/// `0x5f`: an int `m` of thousandths; Java reads it as `0.001 * m` (not `m / 1000.0`).
pub const MILLS: u8 = 0x5f;
