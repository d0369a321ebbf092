//! double and float. Java writes a whole-number double that fits an `int` as an int64 value
//! after [`DOUBLE_LONG`], and a whole float in -16..=47 as one int32 byte after [`FLOAT_INT`];
//! -0.0 compares equal to 0 in Java, so it is written as [`DOUBLE_0`] / `FLOAT_INT 0`.

/// `0.0`.
pub const DOUBLE_0: u8 = 0xb2;
/// `1.0`.
pub const DOUBLE_1: u8 = 0xb3;
/// A whole double: an int64 value follows.
pub const DOUBLE_LONG: u8 = 0xb4;
/// Eight big-endian bytes of the IEEE 754 double.
pub const DOUBLE: u8 = 0xb5;
/// A whole float: an int32 value follows.
pub const FLOAT_INT: u8 = 0xb6;
/// Four big-endian bytes of the IEEE 754 float.
pub const FLOAT: u8 = 0xb7;
