//! Feature `uuid`: [`Uuid`] to and from `uuid::Uuid`, and a `serde(with)` module
//! so a `uuid::Uuid` field travels as a `java.util.UUID` (in serde_json: its hyphenated text,
//! as the uuid crate's own serde writes it).
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! #[serde(rename = "com.example.Order")]
//! struct Order {
//!     #[serde(with = "hessian2::types::uuid")]
//!     id: uuid::Uuid,
//! }
//!
//! let order = Order { id: uuid::Uuid::from_u128(0x123e4567_e89b_12d3_a456_426614174000) };
//! let bytes = hessian2::to_vec(&order)?;
//! assert_eq!(hessian2::from_slice::<Order>(&bytes)?, order);
//! assert_eq!(
//!     serde_json::to_string(&order)?,
//!     r#"{"id":"123e4567-e89b-12d3-a456-426614174000"}"#
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Uuid;

impl From<::uuid::Uuid> for Uuid {
    fn from(u: ::uuid::Uuid) -> Self {
        Uuid(u.as_u128())
    }
}

impl From<Uuid> for ::uuid::Uuid {
    fn from(u: Uuid) -> Self {
        ::uuid::Uuid::from_u128(u.0)
    }
}

/// Serializes a `uuid::Uuid` as a `java.util.UUID`.
pub fn serialize<S: Serializer>(v: &::uuid::Uuid, s: S) -> Result<S::Ok, S::Error> {
    Uuid::from(*v).serialize(s)
}

/// Deserializes a `java.util.UUID` into a `uuid::Uuid`.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<::uuid::Uuid, D::Error> {
    Uuid::deserialize(d).map(Into::into)
}
