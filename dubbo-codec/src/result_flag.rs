//! The flag that opens the body of an OK response (Java's `writeByte`) and says what follows
//! it: the table is in [`crate::response`]. Its own module because both the response layer and
//! each serialization's writer of typed results need it, and neither should depend on the
//! other for six numbers.

/// Flag 0: the method threw; the exception follows.
pub const RESPONSE_WITH_EXCEPTION: i32 = 0;
/// Flag 1: the return value follows.
pub const RESPONSE_VALUE: i32 = 1;
/// Flag 2: the method returned `null` (or is `void`).
pub const RESPONSE_NULL_VALUE: i32 = 2;
/// Flag 3: flag 0, then attachments.
pub const RESPONSE_WITH_EXCEPTION_WITH_ATTACHMENTS: i32 = 3;
/// Flag 4: flag 1, then attachments.
pub const RESPONSE_VALUE_WITH_ATTACHMENTS: i32 = 4;
/// Flag 5: flag 2, then attachments.
pub const RESPONSE_NULL_VALUE_WITH_ATTACHMENTS: i32 = 5;
