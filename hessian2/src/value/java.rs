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

    /// The locale string (`zh_CN`) of a `java.util.Locale`, which hessian-lite writes as a
    /// `com.alibaba.com.caucho.hessian.io.LocaleHandle` object with field `value`.
    pub fn as_locale(&self) -> Option<&str> {
        self.class
            .ends_with(".LocaleHandle")
            .then(|| self.get("value")?.as_str())
            .flatten()
    }

    /// The message of a `Throwable` (its `detailMessage` field). Its `cause` field is the next
    /// exception of the chain, or a [`Value::Ref`] to the exception itself when there is none
    /// (Java's convention); [`Stream::resolve`](super::Stream::resolve) follows it.
    pub fn exception_message(&self) -> Option<&str> {
        self.get("detailMessage")?.as_str()
    }
}
