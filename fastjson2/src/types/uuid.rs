//! Feature `uuid`: a `serde(with)` module so a `uuid::Uuid` field travels as a
//! `java.util.UUID`, under the same name as `hessian2::types::uuid`. fastjson2 writes a UUID as
//! a 16-byte binary (most significant byte first); in human-readable formats the field is the
//! hyphenated text (Java's `toString()`).
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Order {
//!     #[serde(with = "fastjson2::types::uuid")]
//!     id: uuid::Uuid,
//! }
//!
//! let order = Order { id: uuid::Uuid::from_u128(0x123e4567_e89b_12d3_a456_426614174000) };
//! let bytes = fastjson2::to_vec(&order)?;
//! assert_eq!(fastjson2::from_slice::<Order>(&bytes)?, order);
//! assert_eq!(
//!     serde_json::to_string(&order)?,
//!     r#"{"id":"123e4567-e89b-12d3-a456-426614174000"}"#
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use ::uuid::Uuid;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Serializes a `uuid::Uuid` as fastjson2 writes a `java.util.UUID` (the [`super::Uuid`]
/// carrier's form).
pub fn serialize<S: Serializer>(v: &Uuid, s: S) -> Result<S::Ok, S::Error> {
    super::Uuid(v.as_u128()).serialize(s)
}

/// Deserializes a `java.util.UUID`: 16 bytes, or its text.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Uuid, D::Error> {
    super::Uuid::deserialize(d).map(|u| Uuid::from_u128(u.0))
}
