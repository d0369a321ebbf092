//! Attachments: the string-keyed map that ends every request body (and, for Dubbo 2.0.2+
//! peers, response bodies).
//!
//! Java writes them as a `HashMap<String, Object>` (Hessian `H` map, untyped), whose values
//! are nearly always strings. They carry what the fixed fields of a request do not: the
//! service **group** (only here), the `interface` name, the `timeout`, `generic=true` for
//! generic calls, tracing ids, and whatever a filter or the user adds with
//! `RpcContext.setAttachment`.
//!
//! [`Attachments`] keeps the entries in wire order, so that a decoded body re-encodes to the
//! same bytes, and values as [`Value`]s, so that non-string attachments (Dubbo 2.7+'s
//! `Map<String, Object>`) survive.
//!
//! # A key sent twice
//!
//! Java reads the map into a `HashMap`, so when a key comes twice **the last entry wins**,
//! whatever its type, and `getAttachment` gives `null` when that value is not a string.
//! [`Attachments::get`], [`get_str`](Attachments::get_str), [`group`](Attachments::group)
//! and [`interface`](Attachments::interface) read keys the same way, and so do
//! [`peek`](crate::peek()) and the other readers of [`crate::peek`](mod@crate::peek): they
//! all see the same value for the same bytes. [`Attachments::iter`] still gives every entry
//! as sent.

use std::borrow::Cow;

use bytes::BufMut;
use hessian2::encode::Encoder;
use hessian2::value::{Map, Value};

use crate::body::value_kind;
use crate::error::BodyError;

/// `path`: the service path (the interface name, unless exported under another path).
pub const PATH_KEY: &str = "path";
/// `interface`: the interface name; when present it names the service in place of `path`.
pub const INTERFACE_KEY: &str = "interface";
/// `version`: the service version.
pub const VERSION_KEY: &str = "version";
/// `group`: the service group. It is sent only as an attachment.
pub const GROUP_KEY: &str = "group";
/// `timeout`: the caller's timeout in milliseconds, as a string.
pub const TIMEOUT_KEY: &str = "timeout";
/// `dubbo`: the Dubbo protocol version (Java adds it to response attachments).
pub const DUBBO_VERSION_KEY: &str = "dubbo";
/// `generic`: `"true"` on a generic (`$invoke`) call.
pub const GENERIC_KEY: &str = "generic";

/// An ordered map from strings to values. See the [module documentation](self).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Attachments {
    entries: Vec<(String, Value)>,
}

impl Attachments {
    /// No attachments.
    pub const fn new() -> Self {
        Attachments {
            entries: Vec::new(),
        }
    }

    /// No attachments, with room for `n` entries.
    pub(crate) fn with_capacity(n: usize) -> Self {
        Attachments {
            entries: Vec::with_capacity(n),
        }
    }

    /// Appends an entry as it was sent (a key sent twice stays twice, as in a decoded map).
    pub(crate) fn push(&mut self, key: String, value: Value) {
        self.entries.push((key, value));
    }

    /// Number of entries, as sent (a key sent twice counts twice).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value of `key`: its last entry when it was sent more than once, as in Java.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// The value of `key` when it is a string (Java's `getAttachment`): `None` when the key is
    /// absent or its value, the last one sent, is not a string.
    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }

    /// Sets `key` to `value`, in place if the key exists (the position of its last entry is
    /// kept, and earlier entries of a key sent twice are dropped), else at the end. Returns the
    /// previous value (the one [`get`](Self::get) gave).
    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<Value>) -> Option<Value> {
        let key = key.into();
        let value = value.into();
        match self.entries.iter().rposition(|(k, _)| *k == key) {
            Some(last) => {
                let old = std::mem::replace(&mut self.entries[last].1, value);
                self.drop_before(&key, last);
                Some(old)
            }
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    /// Removes every entry of `key`, returning its value (the one [`get`](Self::get) gave).
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let last = self.entries.iter().rposition(|(k, _)| k == key)?;
        let (_, value) = self.entries.remove(last);
        self.drop_before(key, last);
        Some(value)
    }

    /// Drops the entries of `key` before index `end`.
    fn drop_before(&mut self, key: &str, end: usize) {
        if self.entries[..end].iter().any(|(k, _)| k == key) {
            let mut i = 0;
            self.entries.retain(|(k, _)| {
                i += 1;
                i > end || k != key
            });
        }
    }

    /// The entries in wire order, every one as sent: a key sent twice appears twice (the last
    /// is the one that counts).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The service group (`group`), if any.
    pub fn group(&self) -> Option<&str> {
        self.get_str(GROUP_KEY)
    }

    /// The interface name (`interface`), if any.
    pub fn interface(&self) -> Option<&str> {
        self.get_str(INTERFACE_KEY)
    }

    /// True when no value is a list, map, object or reference: the map then uses none of the
    /// stream's tables (the `H` takes the next reference number, but nothing after it in a body
    /// refers to it), so it is written the same whatever came before it in the stream.
    pub(crate) fn is_plain(&self) -> bool {
        self.entries.iter().all(|(_, v)| is_scalar(v))
    }

    /// About how many bytes [`encode`](Self::encode) writes (exact for ASCII strings and
    /// small numbers, a guess for containers).
    pub(crate) fn size_hint(&self) -> usize {
        self.size_hint_with(str_size_hint)
    }

    /// [`size_hint`](Self::size_hint) in a format whose strings take `str_size` bytes (and
    /// whose map, as Hessian2's, a byte at either end).
    pub(crate) fn size_hint_with(&self, str_size: impl Fn(&str) -> usize) -> usize {
        let value_size = |v: &Value| match v {
            Value::String(s) => str_size(s),
            v => value_size_hint(v),
        };
        2 + self
            .entries
            .iter()
            .map(|(k, v)| str_size(k) + value_size(v))
            .sum::<usize>()
    }

    /// Writes the map in Hessian2 as Java does (untyped `H` map, entries in order).
    pub fn encode<B: BufMut>(&self, enc: &mut Encoder<B>) {
        enc.write_map_start(None);
        for (k, v) in self.iter() {
            enc.write_str(k);
            v.encode(enc);
        }
        enc.write_end();
    }

    /// The attachments in a decoded map value. `null` (Java's `writeAttachments(null)`) is no
    /// attachments; a key that is not a string is an error.
    pub fn from_value(value: Value) -> Result<Self, BodyError> {
        match value {
            Value::Null => Ok(Attachments::new()),
            Value::Map(Map { entries, .. }) => entries
                .into_iter()
                .map(|(k, v)| match k {
                    Value::String(k) => Ok((k, v)),
                    other => Err(BodyError::AttachmentKey {
                        found: value_kind(&other),
                    }),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(|entries| Attachments { entries }),
            other => Err(BodyError::Unexpected {
                field: "attachments",
                expected: "a map",
                found: value_kind(&other),
            }),
        }
    }

    /// The attachments as an untyped map value.
    pub fn to_value(&self) -> Value {
        Value::untyped_map(
            self.entries
                .iter()
                .map(|(k, v)| (Value::from(k.as_str()), v.clone()))
                .collect(),
        )
    }
}

/// The value of an attachment, as the peek functions report it (see [`crate::peek`](mod@crate::peek)) without building anything.
///
/// `'a` is the body's lifetime, `'v` that of the decoder's buffer: a [`Borrowed`] string can
/// be kept as long as the body, a [`Copied`] one only during the callback (copy it, or use
/// [`to_cow`](Self::to_cow)).
///
/// [`Borrowed`]: AttachmentValue::Borrowed
/// [`Copied`]: AttachmentValue::Copied
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttachmentValue<'a, 'v> {
    /// A string borrowed from the body: plain UTF-8 in one chunk, what Java sends for the
    /// short strings of attachments.
    Borrowed(&'a str),
    /// A string the decoder had to assemble (chunked, or CESU-8), valid during the callback.
    Copied(&'v str),
    /// A value that is not a string (`null`, a number, a map, ...): for a key read as a
    /// string, "no string value", as Java's `getAttachment` gives `null` for it.
    NotString,
}

impl<'a: 'v, 'v> AttachmentValue<'a, 'v> {
    /// The string, or `None` for [`AttachmentValue::NotString`].
    pub fn as_str(&self) -> Option<&'v str> {
        match *self {
            AttachmentValue::Borrowed(s) => Some(s),
            AttachmentValue::Copied(s) => Some(s),
            AttachmentValue::NotString => None,
        }
    }

    /// The string borrowed from the body, or copied (allocating) when the decoder had to
    /// assemble it; `None` for [`AttachmentValue::NotString`].
    pub fn to_cow(&self) -> Option<Cow<'a, str>> {
        match *self {
            AttachmentValue::Borrowed(s) => Some(Cow::Borrowed(s)),
            AttachmentValue::Copied(s) => Some(Cow::Owned(s.to_owned())),
            AttachmentValue::NotString => None,
        }
    }

    /// True for a string value.
    pub fn is_str(&self) -> bool {
        !matches!(self, AttachmentValue::NotString)
    }
}

/// True for a value that is not a list, map, object or reference.
pub(crate) fn is_scalar(v: &Value) -> bool {
    !matches!(
        v,
        Value::List(_) | Value::Map(_) | Value::Object(_) | Value::Ref(_)
    )
}

/// The bytes a string takes: exact for ASCII (a string counts UTF-16 units, at most one per
/// byte of UTF-8; characters outside the BMP take 6 bytes instead of 4).
pub(crate) fn str_size_hint(s: &str) -> usize {
    let n = s.len();
    let header = match n {
        0..=31 => 1,
        32..=1023 => 2,
        _ => 3 * n.div_ceil(0x8000),
    };
    n + header
}

/// About how many bytes a value takes.
fn value_size_hint(v: &Value) -> usize {
    match v {
        Value::String(s) => str_size_hint(s),
        Value::Null | Value::Bool(_) => 1,
        Value::Binary(b) => b.len() + 3 * (b.len() / 4093 + 1),
        _ => 9,
    }
}

impl<K: Into<String>, V: Into<Value>> FromIterator<(K, V)> for Attachments {
    fn from_iter<T: IntoIterator<Item = (K, V)>>(iter: T) -> Self {
        let mut a = Attachments::new();
        for (k, v) in iter {
            a.insert(k, v);
        }
        a
    }
}

impl<K: Into<String>, V: Into<Value>> Extend<(K, V)> for Attachments {
    fn extend<T: IntoIterator<Item = (K, V)>>(&mut self, iter: T) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl IntoIterator for Attachments {
    type Item = (String, Value);
    type IntoIter = std::vec::IntoIter<(String, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_keeps_position_and_round_trips() {
        let mut a: Attachments = [("path", "a.B"), ("group", "g1")].into_iter().collect();
        assert_eq!(a.insert("path", "c.D"), Some(Value::from("a.B")));
        a.insert("timeout", "3000");
        let keys: Vec<_> = a.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["path", "group", "timeout"]);
        assert_eq!(a.group(), Some("g1"));
        let mut enc = Encoder::new(Vec::new());
        a.encode(&mut enc);
        let bytes = enc.into_inner();
        assert_eq!(hessian2::value::to_vec(&a.to_value()), bytes);
        let back = Attachments::from_value(hessian2::value::from_slice(&bytes).unwrap()).unwrap();
        assert_eq!(back, a);
        assert_eq!(a.remove("group"), Some(Value::from("g1")));
        assert_eq!(a.len(), 2);
    }

    #[test]
    fn a_key_sent_twice_reads_as_its_last_entry() {
        let m = Value::untyped_map(vec![
            (Value::from("group"), Value::from("a")),
            (Value::from("timeout"), Value::from("1")),
            (Value::from("interface"), Value::from("x.Y")),
            (Value::from("group"), Value::from("b")),
            (Value::from("timeout"), Value::Int(2)),
            (Value::from("interface"), Value::Null),
        ]);
        let mut a = Attachments::from_value(m.clone()).unwrap();
        assert_eq!(a.len(), 6);
        assert_eq!(a.group(), Some("b"));
        assert_eq!(a.get("timeout"), Some(&Value::Int(2)));
        assert_eq!(a.get_str("timeout"), None);
        assert_eq!(a.interface(), None);
        // Every entry as sent, so the map re-encodes to the same bytes.
        assert_eq!(a.iter().count(), 6);
        assert_eq!(a.to_value(), m);

        // insert replaces the value that counts and drops the earlier entries of its key.
        assert_eq!(a.insert("group", "c"), Some(Value::from("b")));
        assert_eq!(a.group(), Some("c"));
        let keys: Vec<_> = a.iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            ["timeout", "interface", "group", "timeout", "interface"]
        );
        // remove takes every entry of the key.
        assert_eq!(a.remove("timeout"), Some(Value::Int(2)));
        assert_eq!(a.get("timeout"), None);
        assert_eq!(a.remove("interface"), Some(Value::Null));
        let keys: Vec<_> = a.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["group"]);
    }

    #[test]
    fn rejects_non_string_keys_and_non_maps() {
        let m = Value::untyped_map(vec![(Value::Int(1), Value::from("x"))]);
        assert!(matches!(
            Attachments::from_value(m),
            Err(BodyError::AttachmentKey { found: "an int" })
        ));
        assert!(Attachments::from_value(Value::Int(3)).is_err());
        assert!(Attachments::from_value(Value::Null).unwrap().is_empty());
    }
}
