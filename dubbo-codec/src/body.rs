//! Helpers on the dynamic values of bodies: naming their kinds in errors, and moving `Q`
//! references between streams.

use hessian2::value::Value;

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

/// Moves `v`'s references from a stream where `offset` containers precede it to one of its
/// own (the inverse of [`rebase`]); false when one refers to a container before it.
pub(crate) fn unbase(v: &mut Value, offset: u32) -> bool {
    if offset == 0 {
        return true;
    }
    match v {
        Value::Ref(n) => match n.checked_sub(offset) {
            Some(m) => {
                *n = m;
                true
            }
            None => false,
        },
        Value::List(l) => l.items.iter_mut().all(|i| unbase(i, offset)),
        Value::Map(m) => m
            .entries
            .iter_mut()
            .all(|(k, v)| unbase(k, offset) && unbase(v, offset)),
        Value::Object(o) => o.values.iter_mut().all(|i| unbase(i, offset)),
        _ => true,
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

    #[test]
    fn unbase_undoes_rebase_and_refuses_what_points_before() {
        let orig = Value::untyped_list(vec![Value::Ref(0), Value::Int(1)]);
        let mut v = orig.clone();
        rebase(&mut v, 4);
        assert!(unbase(&mut v, 4));
        assert_eq!(v, orig);
        let mut before = Value::untyped_list(vec![Value::Ref(2)]);
        assert!(!unbase(&mut before, 3));
    }
}
