//! Feature `uuid`: a `serde(with)` module so a `uuid::Uuid` field travels as a
//! `java.util.UUID`, under the same name as `hessian2::types::uuid`. fastjson2 writes a UUID as
//! a 16-byte binary (most significant byte first); in human-readable formats the field is the
//! hyphenated text the uuid crate's serde writes.
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

use std::fmt;

use ::uuid::Uuid;
use serde::de::{self, Deserializer, Visitor};
use serde::Serializer;

/// Serializes a `uuid::Uuid` as fastjson2 writes a `java.util.UUID`.
pub fn serialize<S: Serializer>(v: &Uuid, s: S) -> Result<S::Ok, S::Error> {
    if s.is_human_readable() {
        return s.collect_str(&v.hyphenated());
    }
    s.serialize_bytes(v.as_bytes())
}

/// Deserializes a `java.util.UUID`: 16 bytes, or its text.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Uuid, D::Error> {
    if d.is_human_readable() {
        d.deserialize_str(UuidVisitor)
    } else {
        d.deserialize_bytes(UuidVisitor)
    }
}

struct UuidVisitor;

impl Visitor<'_> for UuidVisitor {
    type Value = Uuid;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a java.util.UUID (16 bytes or its text)")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Uuid, E> {
        Uuid::from_slice(v).map_err(|_| E::invalid_length(v.len(), &self))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Uuid, E> {
        v.parse().map_err(E::custom)
    }
}
