//! JSON and dynamic values (feature `json`): arguments given as JSON (by `dubbo-call`, or by
//! `curl` over Triple's HTTP/1.1 form) turned into [`Value`]s by their declared Java types or
//! by their JSON kind alone, and results turned back into JSON.

use std::fmt::Display;
use std::str::FromStr;

use base64::Engine as _;
use hessian2::types;
use hessian2::value::{java, Object, Stream, Value};
use serde::Serialize;
use serde_json::{Map as JsonMap, Number, Value as Json};

/// A JSON value that is not of the Java type it was given for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct JsonTypeError(String);

/// JSON to a [`Value`] for a declared Java type (`int`, `java.lang.String`,
/// `java.util.List`, `int[]`, a class name for an object, ...).
pub fn to_hessian(ty: &str, v: &Json) -> Result<Value, JsonTypeError> {
    to_value(ty, v).map_err(JsonTypeError)
}

fn to_value(ty: &str, v: &Json) -> Result<Value, String> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    let bad = || format!("{v} is not a {ty}");
    Ok(match ty {
        "int" | "short" | "byte" | "java.lang.Integer" | "java.lang.Short" | "java.lang.Byte" => {
            let n = v.as_i64().ok_or_else(bad)?;
            Value::Int(i32::try_from(n).map_err(|_| format!("{n} does not fit a {ty}"))?)
        }
        "long" | "java.lang.Long" => Value::Long(v.as_i64().ok_or_else(bad)?),
        "double" | "float" | "java.lang.Double" | "java.lang.Float" => {
            Value::Double(v.as_f64().ok_or_else(bad)?)
        }
        "boolean" | "java.lang.Boolean" => Value::Bool(v.as_bool().ok_or_else(bad)?),
        "char" | "java.lang.Character" | "java.lang.String" => match v {
            Json::String(s) => Value::String(s.clone()),
            other => Value::String(other.to_string()),
        },
        "java.util.Date" => Value::Date(v.as_i64().ok_or_else(bad)?),
        "java.math.BigDecimal" => match v {
            Json::String(s) => java::big_decimal(s),
            Json::Number(n) => java::big_decimal(&n.to_string()),
            _ => return Err(bad()),
        },
        "java.time.LocalDate" => text::<types::LocalDate>(v)?,
        "java.time.LocalTime" => text::<types::LocalTime>(v)?,
        "java.time.LocalDateTime" => text::<types::LocalDateTime>(v)?,
        "java.time.Instant" => text::<types::Instant>(v)?,
        "java.time.Duration" => text::<types::Duration>(v)?,
        "java.time.Period" => text::<types::Period>(v)?,
        "java.time.Year" => text::<types::Year>(v)?,
        "java.time.YearMonth" => text::<types::YearMonth>(v)?,
        "java.time.MonthDay" => text::<types::MonthDay>(v)?,
        "java.time.ZoneOffset" => text::<types::ZoneOffset>(v)?,
        "java.time.ZoneId" => text::<types::ZoneId>(v)?,
        "java.time.OffsetTime" => text::<types::OffsetTime>(v)?,
        "java.time.OffsetDateTime" => text::<types::OffsetDateTime>(v)?,
        "java.time.ZonedDateTime" => text::<types::ZonedDateTime>(v)?,
        "java.util.UUID" => text::<types::Uuid>(v)?,
        "java.util.Locale" => text::<types::Locale>(v)?,
        "java.util.Currency" => text::<types::Currency>(v)?,
        "java.lang.Object" => untyped(v)?,
        "java.util.List"
        | "java.util.ArrayList"
        | "java.util.Collection"
        | "java.util.Set"
        | "java.util.HashSet" => {
            let items = v
                .as_array()
                .ok_or_else(bad)?
                .iter()
                .map(untyped)
                .collect::<Result<_, _>>()?;
            let list_ty = if ty.ends_with("Set") {
                "java.util.HashSet"
            } else {
                "java.util.ArrayList"
            };
            Value::typed_list(list_ty, items)
        }
        "java.util.Map" | "java.util.HashMap" => match v {
            Json::Object(m) => Value::untyped_map(
                m.iter()
                    .map(|(k, v)| Ok((Value::from(k.as_str()), untyped(v)?)))
                    .collect::<Result<_, String>>()?,
            ),
            _ => return Err(bad()),
        },
        array if array.ends_with("[]") => {
            let elem = &array[..array.len() - 2];
            let items = v
                .as_array()
                .ok_or_else(bad)?
                .iter()
                .map(|i| to_value(elem, i))
                .collect::<Result<Vec<_>, _>>()?;
            Value::typed_list(&array_type(elem), items)
        }
        class => match v {
            Json::Object(m) => object(class, m)?,
            _ => return Err(bad()),
        },
    })
}

/// Hessian's name of an array type (`[int`, `[string`, `[com.example.User`).
/// A JSON string in the text of a Java type (ISO-8601 for `java.time`, Java's `toString()`
/// otherwise) to the object hessian-lite writes for it.
fn text<T>(v: &Json) -> Result<Value, String>
where
    T: FromStr<Err: Display> + Serialize,
{
    let s = v.as_str().ok_or_else(|| format!("{v} is not a string"))?;
    let carrier: T = s.parse().map_err(|e: T::Err| e.to_string())?;
    let bytes = hessian2::to_vec(&carrier).map_err(|e| e.to_string())?;
    hessian2::value::from_slice(&bytes).map_err(|e| e.to_string())
}

fn array_type(elem: &str) -> String {
    let short = match elem {
        "int" => "int",
        "long" => "long",
        "short" => "short",
        "byte" => "byte",
        "boolean" => "boolean",
        "double" => "double",
        "float" => "float",
        "char" => "char",
        "java.lang.String" => "string",
        "java.lang.Object" => "object",
        other if other.ends_with("[]") => {
            return format!("[{}", array_type(&other[..other.len() - 2]))
        }
        other => other,
    };
    format!("[{short}")
}

/// The Java types whose JSON form is their text (as [`to_json`] prints them): inside an
/// object or list, where no declared type says so, `{"class": type, "value": text}` is one.
/// They are these and every `java.time` type ([`hessian2::types::time::JAVA_TIME_TYPES`]).
const TEXT_TYPES: [&str; 4] = [
    "java.math.BigDecimal",
    "java.util.UUID",
    "java.util.Locale",
    "java.util.Currency",
];

fn is_text_type(class: &str) -> bool {
    TEXT_TYPES.contains(&class) || hessian2::types::time::JAVA_TIME_TYPES.contains(&class)
}

fn object(class: &str, m: &JsonMap<String, Json>) -> Result<Value, String> {
    let class = m.get("class").and_then(Json::as_str).unwrap_or(class);
    if let (2, Some(text)) = (m.len(), m.get("value")) {
        if m.contains_key("class") && is_text_type(class) {
            return to_value(class, text);
        }
    }
    let fields = m
        .iter()
        .filter(|(k, _)| k.as_str() != "class")
        .map(|(k, v)| Ok((k.as_str(), untyped(v)?)))
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Value::Object(Object::new(class, fields)))
}

/// JSON to a [`Value`] by the JSON kind alone: numbers that fit an `int` are ints, other
/// integers longs, the rest doubles; arrays are `ArrayList`s; an object with a `class` key
/// is that Java object, any other a map. `{"class": "java.time.LocalDateTime", "value":
/// "2024-02-29T13:45:30"}` is that Java value (likewise the other `java.time` types,
/// `BigDecimal`, `UUID`, `Locale` and `Currency`: the forms [`to_json`] prints as text); one
/// whose text does not parse stays an object of those two fields.
pub fn untyped_value(v: &Json) -> Value {
    untyped_in(v, &mut None)
}

/// [`untyped_value`], failing on a `{"class", "value"}` text that does not parse.
fn untyped(v: &Json) -> Result<Value, String> {
    let mut error = None;
    let value = untyped_in(v, &mut error);
    error.map_or(Ok(value), Err)
}

/// [`untyped_value`], keeping the first text that does not parse in `error`.
fn untyped_in(v: &Json, error: &mut Option<String>) -> Value {
    match v {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => i32::try_from(i).map_or(Value::Long(i), Value::Int),
            None => Value::Double(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) => Value::String(s.clone()),
        Json::Array(a) => Value::typed_list(
            "java.util.ArrayList",
            a.iter().map(|i| untyped_in(i, error)).collect(),
        ),
        Json::Object(m) => match m.get("class").and_then(Json::as_str) {
            Some(class) => object(class, m).unwrap_or_else(|e| {
                error.get_or_insert(e);
                let fields = m
                    .iter()
                    .filter(|(k, _)| k.as_str() != "class")
                    .map(|(k, v)| (k.as_str(), untyped_in(v, error)));
                Value::Object(Object::new(class, fields.collect::<Vec<_>>()))
            }),
            None => Value::untyped_map(
                m.iter()
                    .map(|(k, v)| (Value::from(k.as_str()), untyped_in(v, error)))
                    .collect(),
            ),
        },
    }
}

/// A [`Value`] of `stream` to JSON: objects keep their class in a `class` key, dates are
/// milliseconds, binaries base64, `BigDecimal`s strings, `java.time` values ISO-8601 strings
/// and `UUID`, `Locale`, `Currency`, `Class` their Java `toString()`. References are followed (at most
/// 64 levels deep; deeper or circular ones print as `{"$ref": n}`).
pub fn to_json(v: &Value, stream: &Stream) -> Json {
    json_at(v, stream, 0)
}

fn json_at(v: &Value, stream: &Stream, depth: usize) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::from(*i),
        Value::Long(l) => Json::from(*l),
        Value::Double(d) => {
            Number::from_f64(*d).map_or_else(|| Json::String(d.to_string()), Json::Number)
        }
        Value::Date(ms) => Json::from(*ms),
        Value::String(s) => Json::String(s.clone()),
        // JSON text cannot hold a lone surrogate: U+FFFD in its place.
        Value::Utf16(units) => Json::String(String::from_utf16_lossy(units)),
        Value::Binary(b) => Json::String(base64(b)),
        Value::List(l) => Json::Array(
            l.items
                .iter()
                .map(|i| json_at(i, stream, depth + 1))
                .collect(),
        ),
        Value::Map(m) => {
            let mut out = JsonMap::new();
            for (k, v) in &m.entries {
                let key = match k {
                    Value::String(s) => s.clone(),
                    other => match json_at(other, stream, depth + 1) {
                        Json::String(s) => s,
                        j => j.to_string(),
                    },
                };
                out.insert(key, json_at(v, stream, depth + 1));
            }
            Json::Object(out)
        }
        Value::Object(o) => {
            if let Some(d) = o.as_big_decimal() {
                return Json::String(d.to_owned());
            }
            if let Some(text) = o.java_text() {
                return Json::String(text);
            }
            let mut out = JsonMap::new();
            out.insert("class".into(), Json::String(o.class.to_string()));
            for (k, v) in o.iter() {
                out.insert(k.to_owned(), json_at(v, stream, depth + 1));
            }
            Json::Object(out)
        }
        Value::Ref(n) => match stream.resolve(*n) {
            Some(target) if depth < 64 => json_at(target, stream, depth + 1),
            _ => serde_json::json!({ "$ref": n }),
        },
    }
}

fn base64(data: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_json_by_java_type() {
        assert_eq!(
            to_hessian("int", &serde_json::json!(3)).unwrap(),
            Value::Int(3)
        );
        assert!(to_hessian("int", &serde_json::json!(1u64 << 40)).is_err());
        assert_eq!(
            to_hessian("long", &serde_json::json!(3)).unwrap(),
            Value::Long(3)
        );
        assert_eq!(
            to_hessian("int[]", &serde_json::json!([1, 2])).unwrap(),
            Value::typed_list("[int", vec![Value::Int(1), Value::Int(2)])
        );
        assert_eq!(
            to_hessian("java.lang.String[][]", &serde_json::json!([["a"]])).unwrap(),
            Value::typed_list(
                "[[string",
                vec![Value::typed_list("[string", vec![Value::from("a")])]
            )
        );
        let user = to_hessian(
            "com.example.User",
            &serde_json::json!({"id": 1, "name": "n"}),
        )
        .unwrap();
        assert_eq!(user.as_object().unwrap().class.as_ref(), "com.example.User");
        assert!(to_hessian("com.example.User", &serde_json::json!(1)).is_err());
        assert_eq!(
            to_hessian("java.lang.Object", &serde_json::json!(null)).unwrap(),
            Value::Null
        );
        assert_eq!(base64(b"hello"), "aGVsbG8=");
        assert_eq!(base64(b"hi!"), "aGkh");
    }

    #[test]
    fn class_and_value_objects_are_the_java_values_of_that_text() {
        let due = serde_json::json!({"class": "java.time.LocalDate", "value": "2024-12-31"});
        let date = to_hessian("java.time.LocalDate", &serde_json::json!("2024-12-31")).unwrap();
        assert_eq!(untyped_value(&due), date);
        let order = to_hessian("com.example.Order", &serde_json::json!({ "due": due })).unwrap();
        assert_eq!(order.as_object().unwrap().get("due"), Some(&date));
        let stream = Stream {
            values: vec![order.clone()],
        };
        assert_eq!(to_json(&order, &stream)["due"], "2024-12-31");
        // Text that does not parse: an error where a type was declared, else the object as
        // written.
        let bad = serde_json::json!({"class": "java.time.LocalDate", "value": "yesterday"});
        let err = to_hessian("com.example.Order", &serde_json::json!({ "due": bad }));
        assert!(err.is_err(), "{err:?}");
        let kept = untyped_value(&bad);
        assert_eq!(
            kept.as_object().unwrap().get("value"),
            Some(&Value::from("yesterday"))
        );
        // Other classes keep a field named value.
        let box_ = serde_json::json!({"class": "com.example.Box", "value": "x"});
        assert_eq!(
            untyped_value(&box_).as_object().unwrap().class.as_ref(),
            "com.example.Box"
        );
    }
}
