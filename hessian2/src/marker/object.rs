//! Objects: a class definition `C` names a class and its fields once per stream; instances
//! refer to it by index and list the field values in that order.

/// `C`: class definition: class name (string), field count (int), field names (strings).
pub const DEFINITION: u8 = b'C';
/// `O`: object whose class-definition index follows as an int.
pub const INSTANCE: u8 = b'O';
/// `0x60..=0x6f`: object of class-definition index 0-15.
pub const DIRECT_BASE: u8 = 0x60;
/// Largest class index of the compact form.
pub const DIRECT_MAX: usize = 0x0f;
