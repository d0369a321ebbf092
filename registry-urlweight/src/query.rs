//! Locating parameters in the query of a URL without parsing the rest of it.
//!
//! Everything here works on byte offsets into the whole URL. The query is everything after the
//! first `?` (as in Dubbo's own parser, `#` has no special meaning); parameters are separated by
//! `&`; a parameter's key runs to its first `=`.

use std::borrow::Cow;
use std::iter::FusedIterator;

use crate::percent::decode_component;

/// Byte offset of the first byte of the query (just after the first `?`), if there is a `?`.
#[inline]
pub(crate) fn query_start(url: &str) -> Option<usize> {
    crate::bytes::find(b'?', url.as_bytes()).map(|i| i + 1)
}

/// `memchr::memchr`, with the first bytes checked inline: the byte looked for (the end of a key or
/// value) is usually close, and a call into `memchr` costs more than a few comparisons.
#[inline]
pub(crate) fn find_near(needle: u8, hay: &[u8]) -> Option<usize> {
    const NEAR: usize = 16;
    let (head, tail) = hay.split_at(hay.len().min(NEAR));
    match head.iter().position(|&b| b == needle) {
        Some(i) => Some(i),
        None if tail.is_empty() => None,
        None => crate::bytes::find(needle, tail).map(|i| head.len() + i),
    }
}

/// One `key[=value]` parameter located in a URL, as absolute byte offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segment {
    /// First byte of the key.
    pub start: usize,
    /// One past the key: the `=`, or `end` when the parameter has no `=`.
    pub key_end: usize,
    /// One past the value: the next `&`, or the end of the URL.
    pub end: usize,
}

impl Segment {
    /// The value's byte range (empty at `end` when the parameter has no `=`).
    #[inline]
    pub fn value_range(&self) -> (usize, usize) {
        if self.key_end < self.end {
            (self.key_end + 1, self.end)
        } else {
            (self.end, self.end)
        }
    }
}

/// A key to look for, given as up to three pieces that are matched as their concatenation
/// (so `sayHello` `.` `weight` can be found without building `sayHello.weight`).
pub(crate) struct KeyPattern<'k> {
    parts: [&'k [u8]; 3],
    len: usize,
    /// Offset, within the key, of the byte that the scan looks for.
    anchor: usize,
    anchor_byte: u8,
}

impl<'k> KeyPattern<'k> {
    /// `None` when no key in a query can ever be equal to this one (it contains `&` or `=`).
    #[inline]
    pub fn new(parts: [&'k str; 3]) -> Option<Self> {
        let parts = parts.map(str::as_bytes);
        let mut len = 0;
        let mut anchor = 0;
        let mut anchor_byte = 0;
        let mut best = u8::MAX;
        for part in parts {
            for &b in part {
                let rank = COMMONNESS[usize::from(b)];
                if rank < best {
                    if rank == 0 {
                        // `&` or `=`.
                        return None;
                    }
                    best = rank;
                    anchor = len;
                    anchor_byte = b;
                }
                len += 1;
            }
        }
        Some(KeyPattern {
            parts,
            len,
            anchor,
            anchor_byte,
        })
    }

    #[inline]
    fn matches(&self, candidate: &[u8]) -> bool {
        debug_assert_eq!(candidate.len(), self.len);
        let mut at = 0;
        for part in self.parts {
            // A plain loop: keys are short, and a call to `memcmp` costs more than it saves.
            for (&a, &b) in candidate[at..at + part.len()].iter().zip(part) {
                if a != b {
                    return false;
                }
            }
            at += part.len();
        }
        true
    }
}

/// A rough rank of how often each byte appears in Dubbo provider URLs (higher is more common),
/// used to pick the byte a key search scans for; only speed depends on it, never correctness.
/// `&` and `=` rank 0: they cannot be part of a key.
static COMMONNESS: [u8; 256] = {
    let mut table = [20u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = match c {
            b'&' | b'=' => 0,
            b'e' | b'a' | b'o' | b'i' | b'n' | b't' | b's' | b'r' => 250,
            b'0'..=b'9' | b'.' => 240,
            b'l' | b'c' | b'd' | b'p' | b'm' | b'h' | b'u' => 200,
            b',' | b'g' | b'v' | b'y' | b'b' | b'f' => 150,
            b'A'..=b'Z' | b'-' | b':' | b'/' => 110,
            b'w' | b'k' | b'_' | b'%' | b'+' => 100,
            b'x' | b'j' | b'q' | b'z' => 60,
            _ => 20,
        };
        b += 1;
    }
    table
};

/// The last parameter of `url`'s query, between byte `from` (a parameter start: the query start or
/// just after an `&`) and byte `to` (a parameter end: the end of the URL or an `&`), whose key is
/// exactly `key`. Last, because Dubbo keeps the last value of a repeated key.
pub(crate) fn find_last(
    url: &str,
    from: usize,
    to: usize,
    key: &KeyPattern<'_>,
) -> Option<Segment> {
    let hay = &url.as_bytes()[from..to];
    if key.len == 0 {
        return Segments::new(hay)
            .rev()
            .find(|&(s, k, _, _)| k == s)
            .map(|(s, k, e, _)| Segment {
                start: from + s,
                key_end: from + k,
                end: from + e,
            });
    }
    let mut rest = hay.len();
    while let Some(p) = crate::bytes::rfind(key.anchor_byte, &hay[..rest]) {
        rest = p;
        if p < key.anchor {
            break;
        }
        let s = p - key.anchor;
        let e = s + key.len;
        if e > hay.len()
            || (s != 0 && hay[s - 1] != b'&')
            || (e != hay.len() && hay[e] != b'=' && hay[e] != b'&')
            || !key.matches(&hay[s..e])
        {
            continue;
        }
        let end = if e < hay.len() && hay[e] == b'=' {
            find_near(b'&', &hay[e + 1..]).map_or(hay.len(), |n| e + 1 + n)
        } else {
            e
        };
        return Some(Segment {
            start: from + s,
            key_end: from + e,
            end: from + end,
        });
    }
    None
}

/// Every parameter of the query whose key is exactly `key`, first to last.
pub(crate) fn find_all(url: &str, q: usize, key: &KeyPattern<'_>) -> Vec<Segment> {
    let mut found = Vec::new();
    let mut to = url.len();
    while let Some(seg) = find_last(url, q, to, key) {
        found.push(seg);
        if seg.start == q {
            break;
        }
        to = seg.start - 1;
    }
    found.reverse();
    found
}

/// Non-empty `&`-separated pieces of a query as `(start, key_end, end, escaped)`: offsets into
/// the query, and whether the piece contains a `%` or `+` (so needs decoding). One pass over the
/// bytes finds all of it.
#[derive(Clone, Debug)]
pub(crate) struct Segments<'a> {
    query: &'a [u8],
    front: usize,
    back: usize,
}

const AMP: u8 = 1;
const EQ: u8 = 2;
const ESCAPE: u8 = 3;

/// The bytes [`Segments`] stops at.
static CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    table[b'&' as usize] = AMP;
    table[b'=' as usize] = EQ;
    table[b'%' as usize] = ESCAPE;
    table[b'+' as usize] = ESCAPE;
    table
};

impl<'a> Segments<'a> {
    pub fn new(query: &'a [u8]) -> Self {
        Segments {
            query,
            front: 0,
            back: query.len(),
        }
    }
}

impl Iterator for Segments<'_> {
    type Item = (usize, usize, usize, bool);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        while self.front < self.back {
            let start = self.front;
            let mut end = self.back;
            let mut key_end = usize::MAX;
            let mut escaped = false;
            for (i, &b) in self.query[start..self.back].iter().enumerate() {
                match CLASS[usize::from(b)] {
                    0 => {}
                    AMP => {
                        end = start + i;
                        break;
                    }
                    EQ => key_end = key_end.min(start + i),
                    _ => escaped = true,
                }
            }
            self.front = end + 1;
            if end > start {
                return Some((start, key_end.min(end), end, escaped));
            }
        }
        None
    }
}

impl DoubleEndedIterator for Segments<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        while self.front < self.back {
            let end = self.back;
            let mut start = self.front;
            let mut key_end = usize::MAX;
            let mut escaped = false;
            self.back = self.front;
            for (i, &b) in self.query[self.front..end].iter().enumerate().rev() {
                match CLASS[usize::from(b)] {
                    0 => {}
                    AMP => {
                        start = self.front + i + 1;
                        self.back = self.front + i;
                        break;
                    }
                    // Scanning backwards, the last `=` seen is the piece's first.
                    EQ => key_end = self.front + i,
                    _ => escaped = true,
                }
            }
            if end > start {
                return Some((start, key_end.min(end), end, escaped));
            }
        }
        None
    }
}

impl FusedIterator for Segments<'_> {}

/// One `key=value` parameter of a URL's query, borrowed from the URL.
///
/// [`key`](Param::key) and [`value`](Param::value) are the text as written in the URL;
/// [`decoded_key`](Param::decoded_key) and [`decoded_value`](Param::decoded_value) percent-decode
/// it, allocating only when it contains a `%` or a `+`. A parameter written without `=` has an
/// empty value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Param<'a> {
    key: &'a str,
    value: &'a str,
    /// Whether key or value contains a `%` or `+`.
    escaped: bool,
}

impl<'a> Param<'a> {
    /// The key as written in the URL.
    #[inline]
    pub fn key(&self) -> &'a str {
        self.key
    }

    /// The value as written in the URL (empty when the parameter has no `=`).
    #[inline]
    pub fn value(&self) -> &'a str {
        self.value
    }

    /// The key, percent-decoded (see [`decode_component`]).
    #[inline]
    pub fn decoded_key(&self) -> Cow<'a, str> {
        if self.escaped {
            decode_component(self.key)
        } else {
            Cow::Borrowed(self.key)
        }
    }

    /// The value, percent-decoded (see [`decode_component`]).
    #[inline]
    pub fn decoded_value(&self) -> Cow<'a, str> {
        if self.escaped {
            decode_component(self.value)
        } else {
            Cow::Borrowed(self.value)
        }
    }

    /// For a method-scoped key such as `sayHello.weight`, whether it is `key` scoped to `method`.
    ///
    /// ```
    /// let p = registry_urlweight::params("dubbo://h/S?sayHello.weight=20").next().unwrap();
    /// assert!(p.is_method_key("sayHello", "weight"));
    /// assert!(!p.is_method_key("sayBye", "weight"));
    /// ```
    pub fn is_method_key(&self, method: &str, key: &str) -> bool {
        self.key.len() == method.len() + 1 + key.len()
            && self.key.starts_with(method)
            && self.key.ends_with(key)
            && self.key.as_bytes()[method.len()] == b'.'
    }
}

/// Iterator over the parameters of a URL's query, in order; see [`params`](crate::params).
///
/// It is double-ended: `.rev()` visits the parameters last first, which is the order in which
/// Dubbo's "last value wins" rule looks at them. Empty pieces (`a=1&&b=2`) are skipped.
#[derive(Clone, Debug)]
pub struct Params<'a> {
    query: &'a str,
    segments: Segments<'a>,
}

impl<'a> Params<'a> {
    pub(crate) fn new(query: &'a str) -> Self {
        Params {
            query,
            segments: Segments::new(query.as_bytes()),
        }
    }

    #[inline]
    fn param(&self, (start, key_end, end, escaped): (usize, usize, usize, bool)) -> Param<'a> {
        Param {
            key: &self.query[start..key_end],
            value: if key_end < end {
                &self.query[key_end + 1..end]
            } else {
                ""
            },
            escaped,
        }
    }
}

impl<'a> Iterator for Params<'a> {
    type Item = Param<'a>;

    #[inline]
    fn next(&mut self) -> Option<Param<'a>> {
        self.segments.next().map(|s| self.param(s))
    }
}

impl<'a> DoubleEndedIterator for Params<'a> {
    #[inline]
    fn next_back(&mut self) -> Option<Param<'a>> {
        self.segments.next_back().map(|s| self.param(s))
    }
}

impl FusedIterator for Params<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(q: &str) -> Vec<(usize, usize, usize, bool)> {
        Segments::new(q.as_bytes()).collect()
    }

    fn segs_rev(q: &str) -> Vec<(usize, usize, usize, bool)> {
        let mut v: Vec<_> = Segments::new(q.as_bytes()).rev().collect();
        v.reverse();
        v
    }

    #[test]
    fn segments_forward_and_backward_agree() {
        for q in [
            "",
            "&",
            "&&",
            "a",
            "a=1",
            "a=1&",
            "&a=1",
            "a=1&&b",
            "=",
            "=&=x",
            "a&b&c=3&",
            "a=b=c",
            "a%20=b+c&d=%&e==",
        ] {
            assert_eq!(segs(q), segs_rev(q), "{q:?}");
        }
        assert_eq!(segs("a=1&&b"), vec![(0, 1, 3, false), (5, 6, 6, false)]);
        assert_eq!(segs("k=a=b"), vec![(0, 1, 5, false)]);
        assert_eq!(
            segs("a=%41&b&c+=x"),
            vec![(0, 1, 5, true), (6, 7, 7, false), (8, 10, 12, true)]
        );
    }

    #[test]
    fn segments_meet_in_the_middle() {
        let q = b"a=1&b=2&c=3&d=4";
        let mut it = Segments::new(q);
        assert_eq!(it.next(), Some((0, 1, 3, false)));
        assert_eq!(it.next_back(), Some((12, 13, 15, false)));
        assert_eq!(it.next_back(), Some((8, 9, 11, false)));
        assert_eq!(it.next(), Some((4, 5, 7, false)));
        assert_eq!(it.next(), None);
        assert_eq!(it.next_back(), None);
    }

    #[test]
    fn find_last_respects_key_boundaries() {
        let url = "d://h/p?xweight=1&lidc_weight=2&weight&a=weight=5&weight=3&weightx=4";
        let q = query_start(url).unwrap();
        let key = KeyPattern::new(["weight", "", ""]).unwrap();
        let seg = find_last(url, q, url.len(), &key).unwrap();
        assert_eq!(&url[seg.start..seg.end], "weight=3");
        let all = find_all(url, q, &key);
        let texts: Vec<_> = all.iter().map(|s| &url[s.start..s.end]).collect();
        assert_eq!(texts, ["weight", "weight=3"]);
        assert_eq!(all[0].value_range(), (all[0].end, all[0].end));
    }

    #[test]
    fn find_last_with_split_key() {
        let url = "d://h/p?sayHello.weight=20&weight=10&bye.weight=30";
        let q = query_start(url).unwrap();
        let key = KeyPattern::new(["sayHello", ".", "weight"]).unwrap();
        let seg = find_last(url, q, url.len(), &key).unwrap();
        assert_eq!(&url[seg.start..seg.end], "sayHello.weight=20");
    }

    #[test]
    fn keys_with_separators_never_match() {
        assert!(KeyPattern::new(["a=b", "", ""]).is_none());
        assert!(KeyPattern::new(["a", "&", "b"]).is_none());
    }

    #[test]
    fn empty_key() {
        let url = "d://h/p?a=1&=2&&=3&b";
        let q = query_start(url).unwrap();
        let key = KeyPattern::new(["", "", ""]).unwrap();
        let seg = find_last(url, q, url.len(), &key).unwrap();
        assert_eq!(&url[seg.start..seg.end], "=3");
        assert_eq!(find_all(url, q, &key).len(), 2);
    }
}
