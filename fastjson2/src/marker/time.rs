//! Dates and times. Multi-byte fields are big-endian; `nano` is an int32 value (any form).

/// `LocalTime`: hour, minute, second bytes, then nano.
pub const LOCAL_TIME: u8 = 0xa7;
/// `LocalDateTime`: year (2 bytes), month, day, hour, minute, second bytes, then nano.
pub const LOCAL_DATETIME: u8 = 0xa8;
/// `LocalDate`: year (2 bytes), month, day.
pub const LOCAL_DATE: u8 = 0xa9;
/// `ZonedDateTime` / `OffsetDateTime`: as [`LOCAL_DATETIME`], then the zone id as a string.
pub const ZONED_DATETIME: u8 = 0xaa;
/// `java.util.Date` in milliseconds: eight bytes.
pub const MILLIS: u8 = 0xab;
/// `java.util.Date` in whole seconds: four bytes (Java's choice whenever the milliseconds are
/// whole seconds that fit an int).
pub const SECONDS: u8 = 0xac;
/// `java.util.Date` in whole minutes: four bytes (Java's choice only when whole seconds do not
/// fit an int but whole minutes do).
pub const MINUTES: u8 = 0xad;
/// `Instant`: epoch seconds (int64 value), then nano (int32 value).
pub const INSTANT: u8 = 0xae;
