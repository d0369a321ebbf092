//! Dynamic values between the body layer's [`hessian2::value::Value`] and fastjson2's
//! [`fastjson2::value::Value`].
//!
//! What both carry is kept: nulls, booleans, ints, longs, doubles, strings, binaries, dates,
//! lists and maps (with their Java type names) and objects (class name and fields, in order).
//!
//! Class names are spelled as each format does: the `java.lang` exceptions and a few
//! collections by their simple names in JSONB (`IllegalStateException`), and array classes
//! as `[string` / `[String`, `[object` / `[O`, and so on. The values of an object's fields are
//! written without list and map class names: Java reads a field by its declared type
//! (`FieldBased`), and fastjson2 refuses a class name it is not allowed to create (a
//! `Throwable`'s `[java.lang.StackTraceElement` stack trace, say).
//!
//! A Java string with lone surrogates (`Value::Utf16`) has them replaced by U+FFFD.
//! JSONB's `byte`/`short` become ints and `float` a double, as Java widens them; `char` a
//! one-character string; symbols strings. `BigDecimal`, `LocalDate`, `LocalTime`,
//! `LocalDateTime` and `Instant` become the objects hessian-lite writes for them and back
//! (see [`jdk`]), a hessian-lite `UUID` JSONB's 16 bytes; the other values JSONB has and the
//! body layer's `Value` does not (`BigInteger`, `ZonedDateTime`, decimals beyond 128 bits)
//! become an object of their Java class with their text as its `value`. References: a Hessian `Q` to a
//! container already converted is that container again; one to a container still being
//! converted (a cycle, such as a `Throwable`'s own `cause`) is `null`; a JSONB reference to
//! the root (`$`) is Hessian's reference 0, and any other path `null`.

use fastjson2::value::Value as Jv;
use hessian2::value::{List, Map, Object, Value as Hv};

use super::jdk;

/// A Hessian value as a JSONB value.
pub(crate) fn to_jsonb(v: &Hv) -> Jv {
    let mut done = Vec::new();
    to_jsonb_in(v, &mut done, true)
}

/// `done[n]`: the n-th container of the stream converted, `None` while it is converted.
/// `classes`: write list and map class names (false in an object's fields).
fn to_jsonb_in(v: &Hv, done: &mut Vec<Option<Jv>>, classes: bool) -> Jv {
    match v {
        Hv::Null => Jv::Null,
        Hv::Bool(b) => Jv::Bool(*b),
        Hv::Int(i) => Jv::Int(*i),
        Hv::Long(l) => Jv::Long(*l),
        Hv::Double(d) => Jv::Double(*d),
        Hv::Date(ms) => Jv::Date(*ms),
        Hv::String(s) => Jv::String(s.to_string()),
        // Lone surrogates: JSONB strings here are Rust strings.
        Hv::Utf16(units) => Jv::String(String::from_utf16_lossy(units)),
        Hv::Binary(b) => Jv::Binary(b.clone()),
        Hv::Ref(n) => done.get(*n as usize).cloned().flatten().unwrap_or(Jv::Null),
        Hv::List(l) => {
            let slot = start(done);
            let items = l.items.iter().map(|i| to_jsonb_in(i, done, true)).collect();
            let array = typed(list_class(l).filter(|_| classes), Jv::Array(items));
            finish(done, slot, array)
        }
        Hv::Map(m) => {
            let slot = start(done);
            let entries = m
                .entries
                .iter()
                .map(|(k, v)| (to_jsonb_in(k, done, true), to_jsonb_in(v, done, true)))
                .collect();
            let map = typed(map_class(m).filter(|_| classes), Jv::Object(entries));
            finish(done, slot, map)
        }
        Hv::Object(o) => {
            let slot = start(done);
            if let Some(own_kind) = jdk::to_jsonb(o) {
                return finish(done, slot, own_kind);
            }
            let fields = o
                .fields
                .iter()
                .zip(&o.values)
                .map(|(f, v)| (Jv::symbol(f.to_string()), to_jsonb_in(v, done, false)))
                .collect();
            let object = Jv::typed(jsonb_class(&o.class), Jv::Object(fields));
            finish(done, slot, object)
        }
    }
}

fn start(done: &mut Vec<Option<Jv>>) -> usize {
    done.push(None);
    done.len() - 1
}

fn finish(done: &mut [Option<Jv>], slot: usize, v: Jv) -> Jv {
    done[slot] = Some(v.clone());
    v
}

/// Classes fastjson2 writes by their simple name (`IllegalStateException`), read back by
/// either name.
const SIMPLE_NAMED: [&str; 39] = [
    "java.lang.Exception",
    "java.lang.RuntimeException",
    "java.lang.IllegalAccessError",
    "java.lang.IllegalAccessException",
    "java.lang.IllegalArgumentException",
    "java.lang.IllegalMonitorStateException",
    "java.lang.IllegalStateException",
    "java.lang.IllegalThreadStateException",
    "java.lang.IndexOutOfBoundsException",
    "java.lang.InstantiationError",
    "java.lang.InstantiationException",
    "java.lang.InternalError",
    "java.lang.InterruptedException",
    "java.lang.LinkageError",
    "java.lang.NegativeArraySizeException",
    "java.lang.NoClassDefFoundError",
    "java.lang.NoSuchFieldError",
    "java.lang.NoSuchFieldException",
    "java.lang.NoSuchMethodError",
    "java.lang.NoSuchMethodException",
    "java.lang.NullPointerException",
    "java.lang.NumberFormatException",
    "java.lang.OutOfMemoryError",
    "java.lang.SecurityException",
    "java.lang.StackOverflowError",
    "java.lang.StringIndexOutOfBoundsException",
    "java.lang.TypeNotPresentException",
    "java.lang.VerifyError",
    "java.lang.StackTraceElement",
    "java.util.Hashtable",
    "java.util.TreeMap",
    "java.util.IdentityHashMap",
    "java.util.WeakHashMap",
    "java.util.HashSet",
    "java.util.LinkedHashSet",
    "java.util.TreeSet",
    "java.util.LinkedList",
    "java.util.concurrent.TimeUnit",
    "java.util.concurrent.ConcurrentHashMap",
];

/// The class name fastjson2 writes for `class`.
fn jsonb_class(class: &str) -> &str {
    match SIMPLE_NAMED.iter().find(|c| **c == class) {
        Some(c) => c.rsplit('.').next().unwrap_or(c),
        None => class,
    }
}

/// The Java class name of a class name fastjson2 wrote.
fn java_class(class: &str) -> &str {
    if class.contains('.') {
        return class;
    }
    SIMPLE_NAMED
        .iter()
        .find(|c| c.rsplit('.').next() == Some(class))
        .map_or(class, |c| c)
}

/// Array class names: Hessian's (`[string`) and fastjson2's (`[String`) for the same Java
/// array type.
const ARRAYS: [(&str, &str); 10] = [
    ("[string", "[String"),
    ("[object", "[O"),
    ("[int", "[I"),
    ("[long", "[J"),
    ("[short", "[S"),
    ("[byte", "[B"),
    ("[boolean", "[Z"),
    ("[double", "[D"),
    ("[float", "[F"),
    ("[char", "[C"),
];

/// A list's class for JSONB: none for what fastjson2 writes without one (`ArrayList`, and
/// Hessian's untyped lists); Hessian's array names in fastjson2's spelling.
fn list_class(l: &List) -> Option<String> {
    let t = l.ty.as_deref()?;
    if t == "java.util.ArrayList" || t.is_empty() {
        return None;
    }
    let t = ARRAYS.iter().find(|(h, _)| *h == t).map_or(t, |(_, j)| j);
    Some(t.to_owned())
}

/// A JSONB array class as Hessian spells it.
fn hessian_array_class(class: &str) -> &str {
    ARRAYS
        .iter()
        .find(|(_, j)| *j == class)
        .map_or(class, |(h, _)| h)
}

/// A map's class for JSONB: none for `HashMap` and untyped maps.
fn map_class(m: &Map) -> Option<String> {
    let t = m.ty.as_deref()?;
    (t != "java.util.HashMap" && !t.is_empty()).then(|| t.to_owned())
}

fn typed(class: Option<String>, v: Jv) -> Jv {
    match class {
        Some(c) => Jv::typed(c, v),
        None => v,
    }
}

/// A JSONB value as a Hessian value.
pub(crate) fn to_hessian(v: &Jv) -> Hv {
    to_hessian_typed(v, None)
}

fn to_hessian_typed(v: &Jv, class: Option<&str>) -> Hv {
    match v {
        Jv::Null => Hv::Null,
        Jv::Bool(b) => Hv::Bool(*b),
        Jv::Int(i) => Hv::Int(*i),
        Jv::Long(l) => Hv::Long(*l),
        Jv::Byte(b) => Hv::Int(i32::from(*b)),
        Jv::Short(s) => Hv::Int(i32::from(*s)),
        Jv::Float(f) => Hv::Double(f64::from(*f)),
        Jv::Double(d) => Hv::Double(*d),
        Jv::Char(c) => Hv::from(String::from_utf16_lossy(&[*c])),
        Jv::String(s) => Hv::from(s.as_str()),
        Jv::Symbol(s) => Hv::from(s.as_str()),
        Jv::Binary(b) => Hv::Binary(b.clone()),
        Jv::Date(ms) => Hv::Date(*ms),
        Jv::Ref(path) if path == "$" => Hv::Ref(0),
        Jv::Ref(_) => Hv::Null,
        Jv::Array(items) => {
            let items = items.iter().map(to_hessian).collect();
            match class {
                Some(c) => Hv::typed_list(hessian_array_class(c), items),
                None => Hv::untyped_list(items),
            }
        }
        Jv::Object(entries) => match class {
            Some(c) if !is_map_class(c) && entries.iter().all(|(k, _)| k.as_str().is_some()) => {
                Hv::Object(Object::new(
                    c,
                    entries
                        .iter()
                        .map(|(k, v)| (k.as_str().unwrap_or_default(), to_hessian(v))),
                ))
            }
            _ => {
                let entries = entries
                    .iter()
                    .map(|(k, v)| (to_hessian(k), to_hessian(v)))
                    .collect();
                match class {
                    Some(c) => Hv::Map(Map {
                        ty: Some(c.into()),
                        entries,
                    }),
                    None => Hv::untyped_map(entries),
                }
            }
        },
        Jv::Typed(t) => to_hessian_typed(&t.value, Some(java_class(&t.class))),
        // Values the body layer's `Value` has no kind for: the object hessian-lite writes
        // for them, or else an object of their Java class holding their text (never a string,
        // so an attachment of one is "not a string" in the peek and in the full decode alike).
        other => {
            if let Some(v) = jdk::to_hessian(other) {
                return v;
            }
            let class = match other {
                Jv::BigInteger(_) => "java.math.BigInteger",
                Jv::BigDecimal(_) => "java.math.BigDecimal",
                Jv::Instant(_) => "java.time.Instant",
                Jv::LocalDate(_) => "java.time.LocalDate",
                Jv::LocalTime(_) => "java.time.LocalTime",
                Jv::LocalDateTime(_) => "java.time.LocalDateTime",
                _ => "java.time.ZonedDateTime",
            };
            Hv::Object(Object::new(
                class,
                [("value", Hv::from(format!("{other:?}")))],
            ))
        }
    }
}

/// True when a value of the class fastjson2 wrote as `class` converts to a map, not an
/// object (for an object, it is one of the map's entries that decides).
pub(super) fn is_map(class: &str) -> bool {
    is_map_class(java_class(class))
}

/// True for a Java class name of a map (read as a map, not as an object's fields).
fn is_map_class(class: &str) -> bool {
    class.ends_with("Map") || class == "LM" || class.starts_with("java.util.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pojos_lists_maps_and_cycles_survive() {
        let user = Hv::Object(Object::new(
            "com.example.User",
            [("name", Hv::from("a")), ("id", Hv::Long(7))],
        ));
        let v = Hv::untyped_list(vec![
            user.clone(),
            Hv::untyped_map(vec![(Hv::from("k"), Hv::Int(1))]),
            Hv::Ref(1),
        ]);
        let back = to_hessian(&to_jsonb(&v));
        assert_eq!(
            back,
            Hv::untyped_list(vec![
                user.clone(),
                Hv::untyped_map(vec![(Hv::from("k"), Hv::Int(1))]),
                user,
            ])
        );
        // A list that contains itself: the inner reference is null.
        let cyclic = Hv::untyped_list(vec![Hv::Ref(0)]);
        assert_eq!(to_jsonb(&cyclic), Jv::Array(vec![Jv::Null]));
    }
}
