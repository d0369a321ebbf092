//! The attachment map read straight into [`Attachments`]: keys and string values (all Java
//! sends, nearly always) become the map's `String`s as they are read, other values are read
//! one by one as `Value`s and converted. Reading the whole map as a fastjson2 `Value`, then
//! converting that tree, then collecting it into `Attachments` copied every string twice.

use fastjson2::decode::{Decoder, Header};
use hessian2::value::Value;

use super::convert;
use crate::attachments::Attachments;

/// Entries a map starts with room for: what a Java consumer sends (`path`, `interface`,
/// `version`, `group`, `timeout`, a few of its filters') in one allocation.
const CAPACITY: usize = 8;

/// The attachments in `doc` (one whole document), or `None` when they are not a plain map
/// with string keys or cannot be read: the caller then reads `doc` as a `Value` and gets the
/// same map, or the error, that way. So this never accepts a document the `Value` path
/// refuses, and never builds a different map.
pub(super) fn read(doc: &[u8]) -> Option<Attachments> {
    let mut d = Decoder::new(doc);
    let mut header = d.pull().ok()?;
    // The `Value` path enters each container: the depth limit counts the same here.
    let mut depth = 0;
    if let Header::Typed(class) = &header {
        // A map class other than `HashMap` (any other class makes an object, not a map).
        if !convert::is_map(class) {
            return None;
        }
        d.enter().ok()?;
        depth += 1;
        header = d.pull().ok()?;
    }
    let attachments = match header {
        Header::Null if depth == 0 => Attachments::new(),
        Header::Object => {
            d.enter().ok()?;
            depth += 1;
            entries(&mut d)?
        }
        _ => return None,
    };
    for _ in 0..depth {
        d.leave();
    }
    d.end().ok()?;
    Some(attachments)
}

/// The entries of an object, up to its end.
fn entries(d: &mut Decoder<'_>) -> Option<Attachments> {
    let mut a = Attachments::new();
    loop {
        let key = match d.pull().ok()? {
            Header::End => return Some(a),
            Header::String(k) | Header::Symbol(k) => k.into_owned(),
            // A key that is not a string: `Attachments::from_value` says which kind.
            _ => return None,
        };
        let value = match d.pull().ok()? {
            Header::String(v) | Header::Symbol(v) => Value::String(v.into_owned()),
            Header::End => return None,
            h => convert::to_hessian(&fastjson2::value::read_value_after(d, h).ok()?),
        };
        if a.is_empty() {
            // Not before the first entry: an empty map allocates nothing.
            a = Attachments::with_capacity(CAPACITY);
        }
        a.push(key, value);
    }
}

#[cfg(test)]
mod tests {
    use fastjson2::value::Value as Jv;

    use super::*;

    /// The `Value` path: what `read` must give whenever it gives anything.
    fn through_values(doc: &[u8]) -> Option<Attachments> {
        let v = fastjson2::value::from_slice(doc).ok()?;
        Attachments::from_value(convert::to_hessian(&v)).ok()
    }

    /// Every document, every strict prefix of it and it with a byte after: `read` gives the
    /// `Value` path's map or leaves it to that path; `fast` says which documents it reads.
    #[test]
    fn reads_what_the_value_path_reads_or_nothing() {
        let map = |entries: Vec<(Jv, Jv)>| Jv::Object(entries);
        let s = |t: &str| Jv::from(t);
        let plain = vec![
            (s("path"), s("com.example.Greeter")),
            (Jv::symbol("group"), s("blue")),
            (s("名前"), s("値")),
            (s("latin"), s("héllo")),
            (s("sym"), Jv::symbol("v")),
            (s("timeout"), Jv::Int(3000)),
            (s("char"), Jv::Char(u16::from(b'c'))),
            (s("when"), Jv::Date(1_700_000_000_000)),
            (s("tags"), Jv::Array(vec![s("a")])),
            (s("nested"), map(vec![(s("k"), Jv::Long(1))])),
            (s("self"), Jv::Ref("$".into())),
            (s("path"), s("twice")),
        ];
        // Arrays in arrays: the map and these at the depth limit (128), and one past it.
        let deep = |n| (0..n).fold(Jv::Null, |v, _| Jv::Array(vec![v]));
        let cases = [
            (map(plain.clone()), true),
            (map(vec![(s("deep"), deep(127))]), true),
            (map(vec![(s("deep"), deep(128))]), false),
            (map(vec![]), true),
            (Jv::Null, true),
            (
                Jv::typed("java.util.LinkedHashMap", map(plain.clone())),
                true,
            ),
            (Jv::typed("TreeMap", map(plain.clone())), true),
            // Objects of a class, maps with keys that are not strings, and other shapes.
            (Jv::typed("com.example.Context", map(plain.clone())), false),
            (map(vec![(Jv::Int(1), s("one"))]), false),
            (map(vec![(Jv::Char(u16::from(b'k')), s("v"))]), false),
            (Jv::typed("java.util.HashMap", Jv::Null), false),
            (Jv::Array(vec![]), false),
            (s("not a map"), false),
        ];
        for (v, fast) in cases {
            let doc = fastjson2::value::to_vec(&v);
            let got = read(&doc);
            assert_eq!(got.is_some(), fast, "{v:?}");
            if fast {
                assert_eq!(got, through_values(&doc), "{v:?}");
            }
            let mut longer = doc.clone();
            longer.push(0xaf);
            for d in (0..doc.len()).map(|n| &doc[..n]).chain([&longer[..]]) {
                if let Some(a) = read(d) {
                    assert_eq!(Some(a), through_values(d), "{v:?} {d:?}");
                }
            }
        }
    }
}
