//! serde `Serializer` (in progress).
