//! Every byte code of fastjson2's JSONB, one file per type family.
//!
//! The first byte of every JSONB value says what follows; small ints and short strings and
//! arrays carry their value or length in the code byte itself. Read as a signed Java byte, the
//! numbers run in one contiguous band from `0xb2` (`-78`) through `0x48` (`72`).
//!
//! ```text
//! 0x00-0x2f  int32 0..=47 (0xf0-0xff: -16..=-1)  0xa6       object start: (key value)* 0xa5
//! 0x30-0x3f  int32, two bytes (-2048..=2047)     0xa7-0xae  times and dates (see time)
//! 0x40-0x47  int32, three bytes (-2^18..2^18)    0xaf       null
//! 0x48       int32, four bytes                   0xb0/0xb1  false / true
//! 0x49-0x78  Latin-1 string, length 0-47         0xb2-0xb7  double and float forms
//! 0x79-0x7e  strings with a length: Latin-1,     0xb8-0xbb  BigDecimal and BigInteger
//!            UTF-8, UTF-16, -LE, -BE, GB18030    0xbc/0xbd  int16 / int8
//! 0x7f       symbol (a name defined once)        0xbe/0xbf  int64, eight / four bytes
//! 0x90       char                                0xc0-0xc7  int64, three bytes
//! 0x91       binary                              0xc8-0xd7  int64, two bytes
//! 0x92       typed value (Java class name)       0xd8-0xef  int64 -8..=15
//! 0x93       reference ($ref path)               0xf0-0xff  int32 -16..=-1
//! 0x94-0xa3  array, 0-15 items; 0xa4 with count
//! ```
//! `0x80`-`0x8f` are not used by the format.

pub mod container;
pub mod float;
pub mod int;
pub mod long;
pub mod number;
pub mod string;
pub mod time;

/// `null`.
pub const NULL: u8 = 0xaf;
/// `false`.
pub const FALSE: u8 = 0xb0;
/// `true`.
pub const TRUE: u8 = 0xb1;
/// A Java `char`: an int32 value (any int32 form) follows, the UTF-16 code unit.
pub const CHAR: u8 = 0x90;
/// A `byte[]` (also a `UUID`, as its 16 bytes): an int32 length, then the bytes.
pub const BINARY: u8 = 0x91;
/// A typed value: the Java class name, as a symbol definition (a string, then its int32 symbol
/// number) or a reference (an int32 symbol number), then any value.
pub const TYPED: u8 = 0x92;
/// A reference to a value written before: a string, the JSONPath of that value (`$`,
/// `$.field`, `$[0]`, `..` for the enclosing object, `#-1` for the previous reference's path).
pub const REFERENCE: u8 = 0x93;
