//! serde `Deserializer` (in progress).
