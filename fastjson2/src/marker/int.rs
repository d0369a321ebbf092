//! int32 (Java `int`, also lengths, counts, symbol numbers and nanoseconds), and the explicit
//! int8 / int16 forms Java uses for `byte` and `short`.

/// One byte, the code itself as a signed byte: `0xf0..=0xff, 0x00..=0x2f` are -16..=47.
pub const DIRECT_MIN: i32 = -16;
/// Largest int32 with a one-byte form.
pub const DIRECT_MAX: i32 = 47;
/// Two bytes: `0x30..=0x3f`, value `((code - 0x38) << 8) + b1`.
pub const BYTE_ZERO: u8 = 0x38;
/// First two-byte code.
pub const BYTE_FIRST: u8 = 0x30;
/// Last two-byte code.
pub const BYTE_LAST: u8 = 0x3f;
/// Smallest int32 with a two-byte form.
pub const BYTE_MIN: i32 = -0x800;
/// Largest int32 with a two-byte form.
pub const BYTE_MAX: i32 = 0x7ff;
/// Three bytes: `0x40..=0x47`, value `((code - 0x44) << 16) + (b1 << 8) + b2`.
pub const SHORT_ZERO: u8 = 0x44;
/// First three-byte code.
pub const SHORT_FIRST: u8 = 0x40;
/// Last three-byte code.
pub const SHORT_LAST: u8 = 0x47;
/// Smallest int32 with a three-byte form.
pub const SHORT_MIN: i32 = -0x40000;
/// Largest int32 with a three-byte form.
pub const SHORT_MAX: i32 = 0x3ffff;
/// Five bytes: the code, then four big-endian bytes.
pub const FULL: u8 = 0x48;
/// Java `short`: the code, then two big-endian bytes.
pub const INT16: u8 = 0xbc;
/// Java `byte`: the code, then the byte.
pub const INT8: u8 = 0xbd;

/// True for the first byte of any int32 form (`0xf0..=0xff`, `0x00..=0x48`).
pub const fn is_int32(code: u8) -> bool {
    code >= 0xf0 || code <= FULL
}
