//! Maps: key/value pairs ended by `Z`.

/// `M`: typed map: type, pairs, `Z`.
pub const TYPED: u8 = b'M';
/// `H`: untyped map (Java's `HashMap`): pairs, `Z`.
pub const UNTYPED: u8 = b'H';
