//! Dates: milliseconds since the epoch (`J`), or whole minutes since the epoch (`K`).

/// `J` (`0x4a`): eight-byte big-endian milliseconds since 1970-01-01T00:00Z.
pub const MILLIS: u8 = 0x4a;
/// `K` (`0x4b`): four-byte big-endian signed minutes since the epoch; Java uses it whenever the
/// date is on a whole minute and the minute count fits in 32 bits.
pub const MINUTES: u8 = 0x4b;
