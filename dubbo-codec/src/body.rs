//! Helpers shared by the request and response bodies: reading the strings Dubbo writes with
//! `writeUTF`, naming Hessian value kinds in errors, and moving `Q` references between streams.

use std::borrow::Cow;

use hessian2::decode::{Decoder, Header, Reference};
use hessian2::input::Input;
use hessian2::value::Value;

use crate::error::BodyError;

/// The name of a header's value kind, for error messages.
pub(crate) fn header_kind(h: &Header) -> &'static str {
    match h {
        Header::Null => "null",
        Header::Bool(_) => "a boolean",
        Header::Int(_) => "an int",
        Header::Long(_) => "a long",
        Header::Double(_) => "a double",
        Header::Date(_) => "a date",
        Header::String { .. } => "a string",
        Header::Binary { .. } => "a binary",
        Header::List { .. } => "a list",
        Header::Map { .. } => "a map",
        Header::Object { .. } => "an object",
        Header::Ref(_) => "a reference",
        Header::End => "the end marker Z",
    }
}

/// The name of a value's kind, for error messages.
pub(crate) fn value_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Int(_) => "an int",
        Value::Long(_) => "a long",
        Value::Double(_) => "a double",
        Value::Date(_) => "a date",
        Value::String(_) | Value::Utf16(_) => "a string",
        Value::Binary(_) => "a binary",
        Value::List(_) => "a list",
        Value::Map(_) => "a map",
        Value::Object(_) => "an object",
        Value::Ref(_) => "a reference",
    }
}

/// Reads a string written with Java's `writeUTF` (a string, or `N` for `null`, read as
/// `None`), borrowed from the input when it is a slice and the string is plain UTF-8 in one
/// chunk.
pub(crate) fn read_utf<'de, I: Input<'de>>(
    dec: &mut Decoder<'de, I>,
    field: &'static str,
) -> Result<Option<Cow<'de, str>>, BodyError> {
    if dec.is_empty() {
        return Err(BodyError::Missing { field });
    }
    let header = dec.pull().map_err(BodyError::hessian_in(field))?;
    match header {
        Header::Null => Ok(None),
        Header::String { len, last } => {
            let s = dec
                .read_str(len, last)
                .map_err(BodyError::hessian_in(field))?;
            Ok(Some(match s {
                Reference::Borrowed(b) => Cow::Borrowed(b),
                Reference::Copied(c) => Cow::Owned(c.to_owned()),
            }))
        }
        other => Err(BodyError::Unexpected {
            field,
            expected: "a string",
            found: header_kind(&other),
        }),
    }
}

/// [`read_utf`] with `null` read as the empty string.
pub(crate) fn read_utf_or_empty<'de, I: Input<'de>>(
    dec: &mut Decoder<'de, I>,
    field: &'static str,
) -> Result<Cow<'de, str>, BodyError> {
    Ok(read_utf(dec, field)?.unwrap_or(Cow::Borrowed("")))
}

/// The number of lists, maps and objects a value starts inline: how far it moves the
/// reference counter of the stream it is written to.
pub(crate) fn count_containers(v: &Value) -> u32 {
    match v {
        Value::List(l) => 1 + l.items.iter().map(count_containers).sum::<u32>(),
        Value::Map(m) => {
            1 + m
                .entries
                .iter()
                .map(|(k, v)| count_containers(k) + count_containers(v))
                .sum::<u32>()
        }
        Value::Object(o) => 1 + o.values.iter().map(count_containers).sum::<u32>(),
        _ => 0,
    }
}

/// Adds `offset` to every reference in `v`: a value whose references count from the start
/// of its own stream, moved to a stream where `offset` containers precede it.
pub(crate) fn rebase(v: &mut Value, offset: u32) {
    if offset == 0 {
        return;
    }
    match v {
        Value::Ref(n) => *n = n.saturating_add(offset),
        Value::List(l) => l.items.iter_mut().for_each(|i| rebase(i, offset)),
        Value::Map(m) => m.entries.iter_mut().for_each(|(k, v)| {
            rebase(k, offset);
            rebase(v, offset);
        }),
        Value::Object(o) => o.values.iter_mut().for_each(|i| rebase(i, offset)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_rebases() {
        let mut v = Value::untyped_list(vec![
            Value::untyped_map(vec![(Value::from("a"), Value::Ref(0))]),
            Value::Ref(1),
            Value::Int(3),
        ]);
        assert_eq!(count_containers(&v), 2);
        rebase(&mut v, 5);
        assert_eq!(
            v,
            Value::untyped_list(vec![
                Value::untyped_map(vec![(Value::from("a"), Value::Ref(5))]),
                Value::Ref(6),
                Value::Int(3),
            ])
        );
    }
}
