//! The Java types of the vocabulary and the serde names that carry them.
//!
//! A `serde(with)` module of this crate serializes its value as a newtype struct named
//! `$java::<class>` around the value's [`Parts`](crate::Parts). A format that knows the name
//! (hessian2, fastjson2) writes the Java type in its own wire form; any other format sees a
//! newtype around a tuple of numbers (or, when human-readable, the value's text).

/// What every newtype name of the vocabulary starts with.
pub const NAME_PREFIX: &str = "$java::";

/// A Java value type that this crate's modules carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum JavaType {
    /// `java.time.LocalDate`.
    LocalDate,
    /// `java.time.LocalTime`.
    LocalTime,
    /// `java.time.LocalDateTime`.
    LocalDateTime,
    /// `java.time.Instant`.
    Instant,
    /// `java.time.OffsetDateTime`.
    OffsetDateTime,
    /// `java.time.Duration`.
    Duration,
    /// `java.math.BigDecimal`.
    BigDecimal,
    /// `java.math.BigInteger`.
    BigInteger,
    /// `java.util.UUID`.
    Uuid,
}

impl JavaType {
    /// Every type of the vocabulary.
    pub const ALL: [JavaType; 9] = [
        JavaType::LocalDate,
        JavaType::LocalTime,
        JavaType::LocalDateTime,
        JavaType::Instant,
        JavaType::OffsetDateTime,
        JavaType::Duration,
        JavaType::BigDecimal,
        JavaType::BigInteger,
        JavaType::Uuid,
    ];

    /// The newtype name a value of this type is serialized under (`$java::java.time.LocalDate`).
    pub const fn newtype_name(self) -> &'static str {
        match self {
            JavaType::LocalDate => "$java::java.time.LocalDate",
            JavaType::LocalTime => "$java::java.time.LocalTime",
            JavaType::LocalDateTime => "$java::java.time.LocalDateTime",
            JavaType::Instant => "$java::java.time.Instant",
            JavaType::OffsetDateTime => "$java::java.time.OffsetDateTime",
            JavaType::Duration => "$java::java.time.Duration",
            JavaType::BigDecimal => "$java::java.math.BigDecimal",
            JavaType::BigInteger => "$java::java.math.BigInteger",
            JavaType::Uuid => "$java::java.util.UUID",
        }
    }

    /// The Java class name (`java.time.LocalDate`).
    pub fn class(self) -> &'static str {
        &self.newtype_name()[NAME_PREFIX.len()..]
    }

    /// The type a newtype name stands for; `None` for any other name. Cheap for names that do
    /// not start with `$`, so a format can ask for every newtype it sees.
    pub fn of_newtype(name: &str) -> Option<JavaType> {
        if !name.starts_with(NAME_PREFIX) {
            return None;
        }
        JavaType::ALL.into_iter().find(|t| t.newtype_name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_classes_round_trip() {
        for t in JavaType::ALL {
            assert_eq!(JavaType::of_newtype(t.newtype_name()), Some(t));
            assert!(t.class().starts_with("java."), "{t:?}");
        }
        assert_eq!(JavaType::Uuid.class(), "java.util.UUID");
        assert_eq!(JavaType::of_newtype("$java::java.lang.Thread"), None);
        assert_eq!(JavaType::of_newtype("Wrapper"), None);
    }
}
