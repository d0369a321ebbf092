//! Feature `uuid`: `uuid::Uuid` as a `java.util.UUID`, with
//! `#[serde(with = "java_serde::uuid")]`; in human-readable formats, its hyphenated text.

use std::fmt;

use crate::with::{with_fns, JavaValue};
use crate::{ConvertError, JavaType, Parts};

impl JavaValue for ::uuid::Uuid {
    const TYPE: JavaType = JavaType::Uuid;
    fn to_parts(&self) -> Result<Parts, ConvertError> {
        Ok(Parts::Uuid(self.as_u128()))
    }
    fn from_parts(parts: Parts) -> Result<Self, ConvertError> {
        match parts {
            Parts::Uuid(bits) => Ok(::uuid::Uuid::from_u128(bits)),
            p => Err(ConvertError::new(p.java_type().class(), "uuid::Uuid")),
        }
    }
    fn text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.hyphenated())
    }
    fn parse(text: &str) -> Result<Self, String> {
        text.parse().map_err(|e| format!("{e}: {text:?}"))
    }
}

with_fns!(::uuid::Uuid);
