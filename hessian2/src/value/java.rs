//! Java's special objects as hessian-lite writes them: each is an ordinary object on the wire,
//! and these helpers build and read the common ones.

use std::fmt::Display;

use serde::de::DeserializeOwned;

use super::{Object, Value};
use crate::types::{self, time::java_type_of_handle};

/// The class hessian-lite writes a `java.util.Locale` as.
const LOCALE_HANDLE: &str = "com.alibaba.com.caucho.hessian.io.LocaleHandle";

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

    /// The Java type this object stands for: `java.time.LocalDate` for hessian-lite's
    /// `java8.LocalDateHandle` (and so on for every `java.time` handle), `java.util.Locale` for
    /// its `LocaleHandle`, else the class itself.
    ///
    /// ```
    /// use hessian2::types::LocalDate;
    ///
    /// let day = LocalDate { year: 2024, month: 2, day: 29 };
    /// let value = hessian2::value::from_slice(&hessian2::to_vec(&day)?)?;
    /// let object = value.as_object().unwrap();
    /// assert_eq!(object.java_type(), "java.time.LocalDate");
    /// assert_eq!(object.java_text().as_deref(), Some("2024-02-29"));
    /// assert_eq!(value.to_string(), "java.time.LocalDate 2024-02-29");
    /// # Ok::<(), hessian2::Error>(())
    /// ```
    pub fn java_type(&self) -> &str {
        match java_type_of_handle(&self.class) {
            Some(java) => java,
            None if &*self.class == LOCALE_HANDLE => "java.util.Locale",
            None => &self.class,
        }
    }

    /// Java's `toString()` of a `java.time` value, `Locale`, `UUID`, `Currency` or `Class`
    /// object (`2024-02-29T13:45:30+08:00[Asia/Shanghai]`, `zh_CN`, ...); `None` for other
    /// objects, or when the object does not have the fields Java writes.
    pub fn java_text(&self) -> Option<String> {
        match self.java_type() {
            "java.time.LocalDate" => self.text_as::<types::LocalDate>(),
            "java.time.LocalTime" => self.text_as::<types::LocalTime>(),
            "java.time.LocalDateTime" => self.text_as::<types::LocalDateTime>(),
            "java.time.Instant" => self.text_as::<types::Instant>(),
            "java.time.Duration" => self.text_as::<types::Duration>(),
            "java.time.Period" => self.text_as::<types::Period>(),
            "java.time.Year" => self.text_as::<types::Year>(),
            "java.time.YearMonth" => self.text_as::<types::YearMonth>(),
            "java.time.MonthDay" => self.text_as::<types::MonthDay>(),
            "java.time.ZoneOffset" => self.text_as::<types::ZoneOffset>(),
            "java.time.ZoneId" => self.text_as::<types::ZoneId>(),
            "java.time.OffsetTime" => self.text_as::<types::OffsetTime>(),
            "java.time.OffsetDateTime" => self.text_as::<types::OffsetDateTime>(),
            "java.time.ZonedDateTime" => self.text_as::<types::ZonedDateTime>(),
            "java.util.Locale" => self.text_as::<types::Locale>(),
            "java.util.UUID" => self.text_as::<types::Uuid>(),
            "java.util.Currency" => self.text_as::<types::Currency>(),
            "java.lang.Class" => self.text_as::<types::JavaClass>(),
            _ => None,
        }
    }

    /// The object read as `T` (through its own bytes), shown with `T`'s `Display`.
    fn text_as<T: DeserializeOwned + Display>(&self) -> Option<String> {
        let bytes = super::to_vec(&Value::Object(self.clone()));
        crate::from_slice::<T>(&bytes).ok().map(|v| v.to_string())
    }

    /// The message of a `Throwable` (its `detailMessage` field). Its `cause` field is the next
    /// exception of the chain, or a [`Value::Ref`] to the exception itself when there is none
    /// (Java's convention); [`Stream::resolve`](super::Stream::resolve) follows it.
    pub fn exception_message(&self) -> Option<&str> {
        self.get("detailMessage")?.as_str()
    }
}
