//! A dynamic Hessian value that keeps everything Java sent: class names and field order,
//! list and map type names, dates, and references.
//!
//! References are kept as they are on the wire: the first occurrence of a list, map or object is
//! inline, every later one is a [`Value::Ref`] holding its index (the n-th list/map/object
//! *started* in the stream, counting from 0 across all values of one stream). Shared and circular
//! data therefore needs no reference counting, cannot leak or loop, and re-encodes to the same
//! bytes; [`Stream::resolve`] finds what a reference points to.
//!
//! Java's special objects (`BigDecimal`, enums, exceptions, `Locale`, ...) are objects on the
//! wire, and stay [`Object`]s here; [`java`] has helpers to build and read the common ones.
//!
//! ```
//! use hessian2::value::{self, Value};
//!
//! // A Java `List<Object>` of a string and an int, as Java writes an `ArrayList`.
//! let list = Value::typed_list("java.util.ArrayList", vec![Value::from("hi"), Value::Int(7)]);
//! let bytes = value::to_vec(&list);
//! assert_eq!(value::from_slice(&bytes)?, list);
//! # Ok::<(), hessian2::Error>(())
//! ```

mod decode;
mod display;
mod encode;
pub mod java;

use std::sync::Arc;

use bytes::Bytes;

pub use decode::{from_slice, Stream, ValueDecoder};
pub use encode::{to_vec, to_vec_with};

/// Any Hessian value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`.
    Null,
    /// `boolean`.
    Bool(bool),
    /// A 32-bit int (Java `int`, `short`, `byte`).
    Int(i32),
    /// A 64-bit long.
    Long(i64),
    /// A double (Java `double`, `float`).
    Double(f64),
    /// A `java.util.Date`: milliseconds since 1970-01-01T00:00Z.
    Date(i64),
    /// A string.
    String(String),
    /// A Java string that is not Unicode text: it holds a lone surrogate (legal in a Java
    /// `String`, impossible in a Rust one), so it is kept as its UTF-16 code units and
    /// re-encodes to Java's bytes. Decoding gives this only for such strings (every other one
    /// is a [`Value::String`]); build one with [`Value::from_utf16`]. Typed decoding into
    /// `String`/`&str` replaces lone surrogates by U+FFFD.
    Utf16(Vec<u16>),
    /// A `byte[]`.
    Binary(Bytes),
    /// A list or array.
    List(List),
    /// A map.
    Map(Map),
    /// An object.
    Object(Object),
    /// A reference to the n-th list, map or object of the stream.
    Ref(u32),
}

/// A list: Java arrays (`[int`, `[string`, `[object`, `[com.example.User`) and collections.
#[derive(Debug, Clone, PartialEq)]
pub struct List {
    /// The Java type name on the wire (`None`: untyped).
    pub ty: Option<Arc<str>>,
    /// The items.
    pub items: Vec<Value>,
}

/// A map; entries keep their wire order.
#[derive(Debug, Clone, PartialEq)]
pub struct Map {
    /// The Java type name on the wire (`None`: untyped, what Java writes for `HashMap`).
    pub ty: Option<Arc<str>>,
    /// Key/value pairs in wire order.
    pub entries: Vec<(Value, Value)>,
}

/// An object: a Java class name, its field names in wire order, and one value per field.
#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    /// The Java class name.
    pub class: Arc<str>,
    /// Field names in wire order (shared by all objects of a class definition).
    pub fields: Arc<[Arc<str>]>,
    /// One value per field, in the order of `fields`.
    pub values: Vec<Value>,
}

impl Object {
    /// An object of `class` with the given fields, in wire order.
    pub fn new<'a>(class: &str, fields: impl IntoIterator<Item = (&'a str, Value)>) -> Self {
        let (names, values): (Vec<Arc<str>>, Vec<Value>) =
            fields.into_iter().map(|(n, v)| (Arc::from(n), v)).unzip();
        Object {
            class: class.into(),
            fields: names.into(),
            values,
        }
    }

    /// The value of field `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.fields
            .iter()
            .position(|f| &**f == name)
            .map(|i| &self.values[i])
    }

    /// (name, value) pairs in wire order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.fields.iter().map(|f| &**f).zip(&self.values)
    }
}

impl Value {
    /// A list with a Java type name, e.g. `java.util.ArrayList` or `[int`.
    pub fn typed_list(ty: &str, items: Vec<Value>) -> Self {
        Value::List(List {
            ty: Some(ty.into()),
            items,
        })
    }

    /// A list without a type.
    pub fn untyped_list(items: Vec<Value>) -> Self {
        Value::List(List { ty: None, items })
    }

    /// An untyped map (Java `HashMap`).
    pub fn untyped_map(entries: Vec<(Value, Value)>) -> Self {
        Value::Map(Map { ty: None, entries })
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// A Java string from its UTF-16 code units: a [`Value::String`] when they are Unicode
    /// text, else a [`Value::Utf16`].
    pub fn from_utf16(units: Vec<u16>) -> Self {
        match String::from_utf16(&units) {
            Ok(text) => Value::String(text),
            Err(_) => Value::Utf16(units),
        }
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    /// An int or a long as `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::Int(v) => Some(v.into()),
            Value::Long(v) => Some(v),
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

impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Value::Double(v)
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}

impl From<Object> for Value {
    fn from(o: Object) -> Self {
        Value::Object(o)
    }
}
