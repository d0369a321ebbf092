//! Java's special objects as hessian-lite writes them: each is an ordinary object on the wire,
//! and these helpers build and read the common ones.

use super::{Object, Value};

/// `java.math.BigDecimal`: an object with one field `value`, the decimal's `toString()`.
pub fn big_decimal(decimal: &str) -> Value {
    Value::Object(Object::new(
        "java.math.BigDecimal",
        [("value", Value::from(decimal))],
    ))
}

/// A Java enum constant: an object of the enum class with one field `name`.
pub fn enum_constant(class: &str, name: &str) -> Value {
    Value::Object(Object::new(class, [("name", Value::from(name))]))
}

impl Object {
    /// The decimal string of a `java.math.BigDecimal`.
    pub fn as_big_decimal(&self) -> Option<&str> {
        (&*self.class == "java.math.BigDecimal")
            .then(|| self.get("value")?.as_str())
            .flatten()
    }

    /// The constant name, for an object shaped like a Java enum (exactly one field, `name`).
    pub fn as_enum_name(&self) -> Option<&str> {
        match &*self.fields {
            [only] if &**only == "name" => self.values[0].as_str(),
            _ => None,
        }
    }

    /// The message of a `Throwable` (its `detailMessage` field).
    pub fn exception_message(&self) -> Option<&str> {
        self.get("detailMessage")?.as_str()
    }
}
