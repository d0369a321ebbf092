//! The ISO-8601 text of the `java.time` carriers (what Java's `toString()` gives and its
//! `parse` reads) is `java_serde::text`'s, shared with fastjson2's carriers of the same names:
//! each carrier here converts to and from the `...Text` type of its fields. Parsing is strict
//! and never panics: every error names the Java type and the byte offset.

pub use java_serde::text::ParseError;
pub(crate) use java_serde::text::{civil_from_days, Cursor, FromStrVisitor as TextVisitor};

/// `Display` and `FromStr` of carriers through `java_serde::text` (infallible conversions).
macro_rules! via_text {
    ($($ty:ident => $text:ty, |$s:ident| $to:expr, |$t:ident| $from:expr;)+) => {
        java_serde::__via_text! {$($ty => $text, |$s| $to, |$t| Ok($from);)+}
    };
}
pub(crate) use via_text;
