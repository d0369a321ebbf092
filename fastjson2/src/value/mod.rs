//! A dynamic JSONB value that keeps everything Java sent: int32 vs int64 vs `byte`/`short`
//! forms, class names (typed values), field names written as symbols, big numbers, dates and
//! times, and references as their paths.
//!
//! A Java POJO arrives as `Typed { class, value: Object(fields) }`, its field names as
//! [`Value::Symbol`]s (Dubbo's `WriteNameAsSymbol`); a `HashMap` as a plain [`Value::Object`]
//! with [`Value::String`] keys; a `LinkedHashMap` as `Typed { "LM", Object }` (fastjson2's short
//! names: `LM`, `TreeMap`, `LinkedList`, `[I`, `[String`, and exception classes without
//! package); a top-level enum as `Typed { class, String(name) }` and an enum field as its
//! ordinal ([`Value::Int`]); a `UUID` as a 16-byte [`Value::Binary`]. A value seen before is a
//! [`Value::Ref`] with fastjson2's path (`"$"`, `"$.field"`, `"$[0]"`, `".."`): no cycles in
//! memory, and the same bytes when encoded again.
//!
//! ```
//! use fastjson2::value::{self, Value};
//!
//! // A Java `User` POJO with one field, as Dubbo's fastjson2 serialization writes it.
//! let user = Value::typed(
//!     "com.example.User",
//!     Value::Object(vec![(Value::symbol("id"), Value::Long(7))]),
//! );
//! let bytes = value::to_vec(&user);
//! assert_eq!(value::from_slice(&bytes)?, user);
//! # Ok::<(), fastjson2::Error>(())
//! ```

mod decode;
mod encode;
mod symbol;

use bytes::Bytes;

use crate::types::{
    BigDecimal, BigInteger, Instant, LocalDate, LocalDateTime, LocalTime, ZonedDateTime,
};

pub use decode::{from_slice, read_value, read_value_after};
pub use encode::{to_vec, to_vec_with, write_value};
pub use symbol::Symbol;

/// Any JSONB value.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Value {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// An int32 (Java `int`; also enum ordinals).
    Int(i32),
    /// An int64 (Java `long`).
    Long(i64),
    /// A Java `byte`.
    Byte(i8),
    /// A Java `short`.
    Short(i16),
    /// A Java `float`.
    Float(f32),
    /// A Java `double`.
    Double(f64),
    /// A Java `char` (one UTF-16 code unit).
    Char(u16),
    /// A string.
    String(String),
    /// A string written as a symbol: POJO field names (defined on first use, referred to by
    /// number after). Short names are held without an allocation.
    Symbol(Symbol),
    /// A `byte[]` (or a `UUID`'s 16 bytes).
    Binary(Bytes),
    /// A `java.math.BigInteger`.
    BigInteger(BigInteger),
    /// A `java.math.BigDecimal`.
    BigDecimal(BigDecimal),
    /// A `java.util.Date`, in milliseconds since the epoch.
    Date(i64),
    /// A `java.time.Instant`.
    Instant(Instant),
    /// A `java.time.LocalDate`.
    LocalDate(LocalDate),
    /// A `java.time.LocalTime`.
    LocalTime(LocalTime),
    /// A `java.time.LocalDateTime`.
    LocalDateTime(LocalDateTime),
    /// A `java.time.ZonedDateTime` or `OffsetDateTime`.
    ZonedDateTime(ZonedDateTime),
    /// An array: a Java array or collection.
    Array(Vec<Value>),
    /// An object: POJO fields or map entries, in wire order (keys are usually
    /// [`Value::Symbol`] or [`Value::String`], but any value may be a map key).
    Object(Vec<(Value, Value)>),
    /// A value with its Java class name.
    Typed(Box<Typed>),
    /// A reference to a value written before, by its JSONPath.
    Ref(String),
}

/// A value with its Java class name (`0x92`).
#[derive(Debug, Clone, PartialEq)]
pub struct Typed {
    /// The class name as written (fastjson2 abbreviates some: `LM`, `[I`, ...).
    pub class: String,
    /// The value.
    pub value: Value,
}

impl Value {
    /// A value of Java class `class`.
    pub fn typed(class: impl Into<String>, value: Value) -> Value {
        Value::Typed(Box::new(Typed {
            class: class.into(),
            value,
        }))
    }

    /// A symbol (a POJO field name).
    pub fn symbol(name: impl Into<Symbol>) -> Value {
        Value::Symbol(name.into())
    }

    /// The text of a string or symbol.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            Value::Symbol(s) => Some(s),
            _ => None,
        }
    }

    /// The class name and value of a typed value.
    pub fn as_typed(&self) -> Option<(&str, &Value)> {
        match self {
            Value::Typed(t) => Some((&t.class, &t.value)),
            _ => None,
        }
    }

    /// The value of field or key `name` of an object (or of a typed object).
    pub fn get(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Object(entries) => entries
                .iter()
                .find(|(k, _)| k.as_str() == Some(name))
                .map(|(_, v)| v),
            Value::Typed(t) => t.value.get(name),
            _ => None,
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<i32> for Value {
    fn from(v: i32) -> Self {
        Value::Int(v)
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Long(v)
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}
