//! Lists: typed or untyped, variable length (ended by `Z`) or fixed length.

/// `U`: typed, variable length: type, items, `Z`.
pub const VARIABLE: u8 = b'U';
/// `V`: typed, fixed length: type, int length, items.
pub const FIXED: u8 = b'V';
/// `W`: untyped, variable length: items, `Z`.
pub const VARIABLE_UNTYPED: u8 = b'W';
/// `X`: untyped, fixed length: int length, items.
pub const FIXED_UNTYPED: u8 = b'X';
/// `0x70..=0x77`: typed, length 0-7 in the code: type, items.
pub const DIRECT_TYPED: u8 = 0x70;
/// `0x78..=0x7f`: untyped, length 0-7 in the code: items.
pub const DIRECT_UNTYPED: u8 = 0x78;
/// Largest length of the compact forms.
pub const DIRECT_MAX: usize = 7;
/// `Z`: ends a variable-length list or a map.
pub const END: u8 = b'Z';
