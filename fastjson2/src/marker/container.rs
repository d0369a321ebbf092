//! Arrays (Java arrays and collections) and objects (POJOs and maps).

/// `0x94..=0xa3`: array of `code - 0x94` items (0-15).
pub const ARRAY_FIX_FIRST: u8 = 0x94;
/// Last fixed-length array code (15 items).
pub const ARRAY_FIX_LAST: u8 = 0xa3;
/// Longest array with a one-byte form.
pub const ARRAY_FIX_MAX: usize = 15;
/// Array: an int32 item count, then the items.
pub const ARRAY: u8 = 0xa4;
/// End of an object.
pub const OBJECT_END: u8 = 0xa5;
/// Object: key/value pairs until [`OBJECT_END`]. POJO field names are strings or symbols; map
/// keys may be any value.
pub const OBJECT: u8 = 0xa6;
