//! Writing and removing parameters with the fewest possible changes to the text.

use std::borrow::Cow;

use crate::query::{find_all, KeyPattern, Segment};

/// Text to write as a parameter value: a `str`, or digits formatted on the stack (which become
/// a `str` only through a UTF-8 check this way avoids).
pub(crate) trait Value {
    fn bytes(&self) -> &[u8];
    fn push_onto(&self, out: &mut String);
}

impl Value for str {
    #[inline]
    fn bytes(&self) -> &[u8] {
        self.as_bytes()
    }

    #[inline]
    fn push_onto(&self, out: &mut String) {
        out.push_str(self);
    }
}

/// Where a key was found in a URL.
pub(crate) enum Found {
    /// The URL has no `?`.
    NoQuery,
    /// The URL has a query (starting at byte `q`) without the key.
    Absent { q: usize },
    /// The key's last occurrence is `last`; `repeated` if it also occurs before.
    Present {
        q: usize,
        last: Segment,
        repeated: bool,
    },
}

/// Makes `key` (already validated) occur exactly once, with `value`, at the position of its last
/// occurrence, or appended. `pattern` rebuilds the key's pattern for the rare repeated case.
pub(crate) fn write_param<'a, 'k, V: Value + ?Sized>(
    url: &'a str,
    found: Found,
    key: &'k str,
    value: &V,
    pattern: impl FnOnce() -> Option<KeyPattern<'k>>,
) -> Cow<'a, str> {
    match found {
        Found::NoQuery => append(url, "?", key, value),
        Found::Absent { q } => {
            let sep = if q == url.len() || url.ends_with('&') {
                ""
            } else {
                "&"
            };
            append(url, sep, key, value)
        }
        Found::Present {
            last,
            repeated: false,
            ..
        } => {
            let (vs, ve) = last.value_range();
            if url.as_bytes()[vs..ve] == *value.bytes() {
                return Cow::Borrowed(url);
            }
            let mut out = String::with_capacity(url.len() - (ve - vs) + value.bytes().len() + 1);
            out.push_str(&url[..last.key_end]);
            out.push('=');
            value.push_onto(&mut out);
            out.push_str(&url[last.end..]);
            Cow::Owned(out)
        }
        Found::Present {
            q, repeated: true, ..
        } => {
            let all = pattern().map(|p| find_all(url, q, &p)).unwrap_or_default();
            Cow::Owned(rebuild(url, q, &all, Some((key, value))))
        }
    }
}

fn append<'a, V: Value + ?Sized>(url: &'a str, sep: &str, key: &str, value: &V) -> Cow<'a, str> {
    let mut out =
        String::with_capacity(url.len() + sep.len() + key.len() + 1 + value.bytes().len());
    out.push_str(url);
    out.push_str(sep);
    out.push_str(key);
    out.push('=');
    value.push_onto(&mut out);
    Cow::Owned(out)
}

/// Rebuilds the URL without the parameters in `matches` (sorted, starting at their key), except
/// that with `replace = Some((key, value))` the last match becomes `key=value`. Other pieces of
/// the query, empty ones included, are kept in order; a query left empty loses its `?`.
pub(crate) fn rebuild<V: Value + ?Sized>(
    url: &str,
    q: usize,
    matches: &[Segment],
    replace: Option<(&str, &V)>,
) -> String {
    let extra = replace.map_or(0, |(k, v)| k.len() + v.bytes().len() + 1);
    let mut out = String::with_capacity(url.len() + extra);
    out.push_str(&url[..q]);
    let (dropped, replaced) = match (replace, matches.split_last()) {
        (Some(_), Some((last, earlier))) => (earlier, Some(last.start)),
        _ => (matches, None),
    };
    let mut dropped = dropped.iter().map(|s| s.start).peekable();
    let mut wrote_any = false;
    let mut start = q;
    for piece in url[q..].split('&') {
        let piece_start = start;
        start += piece.len() + 1;
        if dropped.peek() == Some(&piece_start) {
            dropped.next();
            continue;
        }
        if wrote_any {
            out.push('&');
        }
        wrote_any = true;
        match (replaced == Some(piece_start), replace) {
            (true, Some((key, value))) => {
                out.push_str(key);
                out.push('=');
                value.push_onto(&mut out);
            }
            _ => out.push_str(piece),
        }
    }
    if !wrote_any {
        // Drop the `?` of a query that is now empty.
        out.truncate(q - 1);
    }
    out
}
