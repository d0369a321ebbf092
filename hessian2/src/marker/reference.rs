//! Value references: `Q` and an int index into the lists, maps and objects read so far in the
//! stream (numbered from 0 in the order they started). This is how Hessian shares and closes
//! cycles. Type names use a second table: an int where a type string is expected refers to the
//! n-th type name of the stream.

/// `Q`: reference to an earlier list, map or object.
pub const REF: u8 = b'Q';
