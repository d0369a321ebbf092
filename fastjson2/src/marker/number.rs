//! `java.math.BigDecimal` and `java.math.BigInteger`.

/// A BigDecimal of scale 0 whose unscaled value fits an int64: an int64 value follows.
pub const DECIMAL_LONG: u8 = 0xb8;
/// A BigDecimal: the scale (int32 value), then the unscaled value as an int32, an int64 or a
/// [`BIGINT`] value.
pub const DECIMAL: u8 = 0xb9;
/// A BigInteger that fits an int64: an int64 value follows.
pub const BIGINT_LONG: u8 = 0xba;
/// A BigInteger: an int32 length, then `BigInteger.toByteArray()` (two's complement,
/// big-endian, minimal).
pub const BIGINT: u8 = 0xbb;
