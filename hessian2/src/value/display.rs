//! A readable, JSON-like rendering of values with their Java types, used by `hessian2-dump`.
//!
//! ```text
//! com.example.User {"id": 1L, "name": "Ann", "created": 2020-01-01T00:00:00.000Z}
//! [int [1, 2, 3]          java.util.ArrayList ["a", 2]          {"k": 1.5} (untyped map)
//! ```
//! Ints print bare, longs with `L`, doubles always with a `.` or exponent, binaries as
//! `b"hex"` (long ones cut after 64 bytes), references as `@ref(n)`. `{:#}` indents.
//! `java.time` values, `Locale`, `UUID`, `Currency` and `Class` print as their Java type and
//! Java's `toString()`: `java.time.LocalDate 2024-02-29`, `java.util.Locale zh_CN`.

use std::fmt::{self, Display, Formatter, Write};

use super::Value;
use crate::types::time::iso::civil_from_days;

impl Display for Value {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_value(self, f, 0)
    }
}

fn newline(f: &mut Formatter<'_>, depth: usize) -> fmt::Result {
    if f.alternate() {
        f.write_char('\n')?;
        for _ in 0..depth {
            f.write_str("  ")?;
        }
    }
    Ok(())
}

fn write_items<'a, T: 'a>(
    f: &mut Formatter<'_>,
    depth: usize,
    (open, close): (char, char),
    items: impl ExactSizeIterator<Item = &'a T>,
    mut item: impl FnMut(&mut Formatter<'_>, &'a T) -> fmt::Result,
) -> fmt::Result {
    f.write_char(open)?;
    let empty = items.len() == 0;
    for (i, x) in items.enumerate() {
        if i > 0 {
            f.write_char(',')?;
            if !f.alternate() {
                f.write_char(' ')?;
            }
        }
        newline(f, depth + 1)?;
        item(f, x)?;
    }
    if !empty {
        newline(f, depth)?;
    }
    f.write_char(close)
}

fn write_value(v: &Value, f: &mut Formatter<'_>, depth: usize) -> fmt::Result {
    match v {
        Value::Null => f.write_str("null"),
        Value::Bool(b) => write!(f, "{b}"),
        Value::Int(i) => write!(f, "{i}"),
        Value::Long(l) => write!(f, "{l}L"),
        Value::Double(d) => write!(f, "{d:?}"),
        Value::Date(ms) => write_date(f, *ms),
        Value::String(s) => write!(f, "{s:?}"),
        Value::Utf16(units) => {
            // As a Rust string literal, lone surrogates as `\u{d800}`.
            f.write_char('"')?;
            for c in char::decode_utf16(units.iter().copied()) {
                match c {
                    Ok(c) => write!(f, "{}", c.escape_debug())?,
                    Err(e) => write!(f, "\\u{{{:x}}}", e.unpaired_surrogate())?,
                }
            }
            f.write_char('"')
        }
        Value::Binary(b) => {
            f.write_str("b\"")?;
            for byte in b.iter().take(64) {
                write!(f, "{byte:02x}")?;
            }
            if b.len() > 64 {
                write!(f, "...\" ({} bytes)", b.len())
            } else {
                f.write_char('"')
            }
        }
        Value::List(l) => {
            if let Some(ty) = &l.ty {
                write!(f, "{ty} ")?;
            }
            write_items(f, depth, ('[', ']'), l.items.iter(), |f, x| {
                write_value(x, f, depth + 1)
            })
        }
        Value::Map(m) => {
            if let Some(ty) = &m.ty {
                write!(f, "{ty} ")?;
            }
            write_items(f, depth, ('{', '}'), m.entries.iter(), |f, (k, v)| {
                write_value(k, f, depth + 1)?;
                f.write_str(": ")?;
                write_value(v, f, depth + 1)
            })
        }
        Value::Object(o) => {
            if let Some(text) = o.java_text() {
                return write!(f, "{} {text}", o.java_type());
            }
            write!(f, "{} ", o.class)?;
            write_items(
                f,
                depth,
                ('{', '}'),
                o.fields.iter().zip(&o.values).collect::<Vec<_>>().iter(),
                |f, (name, v)| {
                    write!(f, "{:?}: ", &***name)?;
                    write_value(v, f, depth + 1)
                },
            )
        }
        Value::Ref(n) => write!(f, "@ref({n})"),
    }
}

/// ISO-8601 in UTC with milliseconds, from days-since-epoch arithmetic (proleptic Gregorian).
fn write_date(f: &mut Formatter<'_>, ms: i64) -> fmt::Result {
    let days = ms.div_euclid(86_400_000);
    let in_day = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    write!(
        f,
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Object;

    #[test]
    fn renders_java_types() {
        let user = Value::Object(Object::new(
            "com.example.User",
            [("id", Value::Long(1)), ("name", Value::from("Ann"))],
        ));
        assert_eq!(
            user.to_string(),
            r#"com.example.User {"id": 1L, "name": "Ann"}"#
        );
        let list = Value::typed_list("[int", vec![Value::Int(1), Value::Double(2.0)]);
        assert_eq!(list.to_string(), "[int [1, 2.0]");
        assert_eq!(
            Value::Date(1_577_836_800_000).to_string(),
            "2020-01-01T00:00:00.000Z"
        );
        assert_eq!(Value::Date(-1).to_string(), "1969-12-31T23:59:59.999Z");
    }
}
