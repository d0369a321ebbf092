//! The type names and class definitions a thread's decoders have read, kept for the next
//! messages: a decoder reused on similar messages takes a definition it knows whole, after one
//! comparison of its bytes, sharing its strings, with no parsing and no allocation.
//!
//! Input decides what is kept, so the tables are bounded in entries and in bytes, and finding
//! an entry never compares the input with every entry: only the first few entries (the names a
//! service uses all the time) are tried against the input's bytes; the others are found by
//! name in a hash map (SipHash with random keys: names are chosen by the sender).

use std::collections::HashMap;
use std::sync::Arc;

use super::ClassDef;

/// How many type names, and how many class definitions, a thread keeps for reuse.
pub const INTERN_LIMIT: usize = 512;
/// How many bytes of type names, and of class definitions, a thread keeps for reuse (counting
/// the text, the encoded form and a fixed overhead per entry).
pub const INTERN_BYTES: usize = 256 * 1024;
/// An entry taking more bytes than this is not kept.
const ENTRY_MAX: usize = INTERN_BYTES / 64;
/// Bytes counted per entry beyond its text and encoding: allocation headers, table slots.
const ENTRY_OVERHEAD: usize = 128;
/// Entries tried against the input's bytes before parsing: the first ones kept.
const SCANNED: usize = 8;
/// Class definitions kept per class name (with different fields).
const VARIANTS: usize = 4;

/// What the tables keep: a type name or a class definition.
pub(super) trait Entry: Clone {
    /// The name it is found by.
    fn name(&self) -> &Arc<str>;
    /// The bytes of its strings.
    fn text_len(&self) -> usize;
}

impl Entry for Arc<str> {
    fn name(&self) -> &Arc<str> {
        self
    }
    fn text_len(&self) -> usize {
        self.len()
    }
}

impl Entry for ClassDef {
    fn name(&self) -> &Arc<str> {
        &self.name
    }
    fn text_len(&self) -> usize {
        // Each field name is a string of its own (its header and its slot).
        self.name.len() + self.fields.iter().map(|f| f.len() + 32).sum::<usize>()
    }
}

/// An entry and its canonical encoding (after the `C` of a definition).
#[derive(Debug, Clone)]
struct Seen<T> {
    value: T,
    bytes: Box<[u8]>,
}

/// Type names or class definitions kept across streams.
#[derive(Debug)]
pub(super) struct Interned<T> {
    entries: Vec<Seen<T>>,
    /// Indexes in `entries` by name (several for a class name with different fields).
    by_name: HashMap<Arc<str>, Vec<usize>>,
    /// Bytes counted against [`INTERN_BYTES`].
    bytes: usize,
}

impl<T> Default for Interned<T> {
    fn default() -> Self {
        Interned {
            entries: Vec::new(),
            by_name: HashMap::new(),
            bytes: 0,
        }
    }
}

impl<T: Entry> Interned<T> {
    /// Number of entries.
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// One of the first entries kept whose exact encoding starts `input`: its index and the
    /// length of its encoding.
    #[inline]
    pub(super) fn find_prefix(&self, input: &[u8]) -> Option<(usize, usize)> {
        self.entries
            .iter()
            .take(SCANNED)
            .position(|s| input.starts_with(&s.bytes))
            .map(|i| (i, self.entries[i].bytes.len()))
    }

    /// The `index`-th entry (entries are never removed: an index stays valid).
    #[inline]
    pub(super) fn get(&self, index: usize) -> &T {
        &self.entries[index].value
    }

    /// The canonical encoding of the `index`-th entry.
    #[inline]
    pub(super) fn bytes(&self, index: usize) -> &[u8] {
        &self.entries[index].bytes
    }

    /// The entries named `name`.
    pub(super) fn named<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a T> + 'a {
        self.by_name
            .get(name)
            .into_iter()
            .flatten()
            .map(|&i| &self.entries[i].value)
    }

    /// Keeps `value`, whose canonical encoding `encode` gives, if the limits allow; returns
    /// its index then.
    pub(super) fn insert(
        &mut self,
        value: T,
        encode: impl FnOnce(&T) -> Box<[u8]>,
    ) -> Option<usize> {
        // The encoding is at least the text: check what is known before making it.
        let text = value.text_len() + ENTRY_OVERHEAD;
        let variants = self.by_name.get(&**value.name()).map_or(0, Vec::len);
        if self.entries.len() >= INTERN_LIMIT
            || variants >= VARIANTS
            || 2 * text > ENTRY_MAX
            || self.bytes + 2 * text > INTERN_BYTES
        {
            return None;
        }
        let bytes = encode(&value);
        let cost = text + bytes.len();
        if cost > ENTRY_MAX || self.bytes + cost > INTERN_BYTES {
            return None;
        }
        self.bytes += cost;
        self.by_name
            .entry(value.name().clone())
            .or_default()
            .push(self.entries.len());
        self.entries.push(Seen { value, bytes });
        Some(self.entries.len() - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(i: usize, len: usize) -> Arc<str> {
        format!("{i:04}{}", "n".repeat(len - 4)).into()
    }

    fn encoded(s: &Arc<str>) -> Box<[u8]> {
        s.as_bytes().into()
    }

    #[test]
    fn limits_hold_in_entries_and_bytes() {
        let mut t = Interned::default();
        for i in 0..2 * INTERN_LIMIT {
            t.insert(name(i, 8), encoded);
        }
        assert_eq!(t.len(), INTERN_LIMIT);
        let mut t = Interned::default();
        for i in 0..INTERN_LIMIT {
            t.insert(name(i, 1000), encoded);
        }
        assert!(
            t.bytes <= INTERN_BYTES && t.len() < INTERN_LIMIT,
            "{}",
            t.len()
        );
        // Found by name wherever they are, by bytes among the first ones only.
        let last = name(t.len() - 1, 1000);
        assert_eq!(t.named(&last).next(), Some(&last));
        assert!(t.find_prefix(last.as_bytes()).is_none());
        let first = name(0, 1000);
        assert_eq!(t.find_prefix(first.as_bytes()), Some((0, 1000)));
        assert_eq!(t.get(0), &first);
        // Too big alone.
        let mut t = Interned::default();
        t.insert(name(0, ENTRY_MAX), encoded);
        assert_eq!(t.len(), 0);
    }

    #[test]
    fn a_class_name_keeps_a_few_field_lists() {
        let mut t = Interned::default();
        for i in 0..10 {
            let def = ClassDef {
                name: "a.B".into(),
                fields: vec![Arc::from(format!("f{i}"))].into(),
            };
            t.insert(def, |d| d.fields[0].as_bytes().into());
        }
        assert_eq!(t.named("a.B").count(), VARIANTS);
    }
}
