//! What the serializer knows about Rust structs: their Java class name and field names.
//!
//! A Hessian object starts with its class definition (`C`, the class name and every field
//! name), written once per stream, and serde only names a struct's fields one at a time, while
//! their values are being written. So the field list of each struct type is learned once per
//! process, the first time that type is serialized, and kept in a [`Layout`]:
//!
//! * **Probing.** Every place of the serializer that hands a value to serde (a struct field,
//!   a list item, a map key or value, `Some`, a newtype, the top-level value) knows the value's
//!   Rust type, `T`. If that value turns out to be a struct never seen with this `T`,
//!   `serialize_struct` asks that place, through a flag and an error, to *probe* it: the value
//!   is serialized once more into a [`Probe`](super::probe::Probe) that records the struct's field names without
//!   serializing the field values (so it costs a walk over the top-level fields only), the
//!   layout is registered, and the value is serialized for real. Nothing had been written yet
//!   when the probe was asked for: `serialize_struct` is the first call the value makes.
//!   Probing happens once per (Rust type, class name) per process; after that, every object is
//!   a lookup by the addresses of two `&'static str`s (a compare in a small cache, a hash
//!   lookup behind it).
//! * **Why not buffer.** The alternative, writing the first instance's field values to a scratch
//!   buffer while collecting the names, needs a second output type and a rewrite of class
//!   indexes; probing writes every byte once, in stream order, so class indexes come out in
//!   Java's order (a nested class's definition follows its parent's) with no fix-ups.
//! * **Keys.** A layout is looked up by `(type_name::<T>(), class name)` address pairs, so two
//!   Rust types with the same serde name but different fields each get their own (correct)
//!   class definition. Layouts with equal class name and fields are one layout, and so share
//!   one class definition in a stream, whatever Rust type led to them.
//! * **Checking.** While an object is written, each field name serde gives is compared (by
//!   address, then by content) with the layout, so a `Serialize` impl whose fields change from
//!   call to call is a clear error, never a corrupt stream.
//!
//! Layouts live for the process (they are `&'static`: a few words per struct type).

use std::any::type_name;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{LazyLock, RwLock};

/// A struct's Java class and fields, in the order their values are written.
#[derive(Debug)]
pub(crate) struct Layout {
    /// Dense process-wide number, indexing per-stream tables.
    pub id: u32,
    /// The Java class name (the serde name).
    pub class: &'static str,
    /// Field names, in serialization order.
    pub fields: &'static [&'static str],
    /// The class definition (`C`, name, field count, field names) as bytes: it is the same in
    /// every stream, so writing it is one copy.
    pub definition: &'static [u8],
}

/// Addresses and lengths of two `&'static str`: the holder's Rust type name and the class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key([usize; 4]);

impl Hash for Key {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        // Word by word (the derived impl of an array hashes its bytes).
        for &w in &self.0 {
            state.write_usize(w);
        }
    }
}

impl Key {
    pub fn new(holder: &'static str, class: &'static str) -> Self {
        Key([
            holder.as_ptr() as usize,
            holder.len(),
            class.as_ptr() as usize,
            class.len(),
        ])
    }

    /// The key of a Java enum class (fields: `name`).
    pub fn enumeration(class: &'static str) -> Self {
        Key([0, 1, class.as_ptr() as usize, class.len()])
    }

    /// The key of a value whose Rust type the serializer does not know.
    pub fn unknown_holder(class: &'static str) -> Self {
        Key([0, 0, class.as_ptr() as usize, class.len()])
    }

    /// The key for a value of Rust type `T`.
    pub fn of<T: ?Sized>(class: &'static str) -> Self {
        Key::new(type_name::<T>(), class)
    }
}

/// The keys are addresses, hashed on every object, so rustc's one-multiply Fx hash.
pub(crate) type FxMap<K, V> = rustc_hash::FxHashMap<K, V>;

#[derive(Default)]
struct Registry {
    by_key: FxMap<Key, &'static Layout>,
    by_class: HashMap<&'static str, Vec<&'static Layout>>,
    count: u32,
}

static REGISTRY: LazyLock<RwLock<Registry>> = LazyLock::new(Default::default);

/// The layout registered under `key`, if any.
pub(crate) fn find(key: &Key) -> Option<&'static Layout> {
    let registry = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
    registry.by_key.get(key).copied()
}

/// The one layout of class `class`, if exactly one is known (for values whose Rust type the
/// serializer cannot know).
pub(crate) fn find_by_class(class: &str) -> Option<&'static Layout> {
    let registry = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
    match registry.by_class.get(class).map(Vec::as_slice) {
        Some([only]) => Some(only),
        _ => None,
    }
}

/// Registers `class` with `fields` under `key`, reusing an equal layout if one exists.
pub(crate) fn register(key: Key, class: &'static str, fields: &[&'static str]) -> &'static Layout {
    let mut registry = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
    let existing = registry
        .by_class
        .get(class)
        .and_then(|all| all.iter().find(|l| l.fields == fields).copied());
    let layout = match existing {
        Some(layout) => layout,
        None => {
            let fields: &'static [&'static str] = Box::leak(fields.to_vec().into_boxed_slice());
            let mut encoder = crate::encode::Encoder::new(Vec::new());
            encoder.write_class_definition(class, fields);
            let definition = Box::leak(encoder.into_inner().into_boxed_slice());
            let layout: &'static Layout = Box::leak(Box::new(Layout {
                id: registry.count,
                class,
                fields,
                definition,
            }));
            registry.count += 1;
            registry.by_class.entry(class).or_default().push(layout);
            layout
        }
    };
    registry.by_key.insert(key, layout);
    layout
}

/// Same as [`register`] for a static field list (no copy when new).
pub(crate) fn register_static(
    key: Key,
    class: &'static str,
    fields: &'static [&'static str],
) -> &'static Layout {
    if let Some(layout) = find(&key) {
        return layout;
    }
    register(key, class, fields)
}

/// Entries of [`LocalLayouts`]'s cache.
const RECENT: usize = 8;

/// The per-serializer front of the registry: no lock on the hot path, and for the few struct
/// types a stream usually holds, no hashing either.
#[derive(Default)]
pub(crate) struct LocalLayouts {
    map: FxMap<Key, &'static Layout>,
    /// The layout last found for each of a few slots of keys (a direct-mapped cache in front of
    /// `map`: a key is compared, not hashed).
    recent: [Option<(Key, &'static Layout)>; RECENT],
}

impl Key {
    /// The key's slot in the cache: from the low bits of the two addresses.
    #[inline]
    fn slot(&self) -> usize {
        (self.0[0] ^ self.0[2]) % RECENT
    }
}

impl LocalLayouts {
    #[inline]
    pub fn get(&mut self, key: Key) -> Option<&'static Layout> {
        match self.recent[key.slot()] {
            Some((known, layout)) if known == key => Some(layout),
            _ => self.lookup(key),
        }
    }

    #[inline(never)]
    fn lookup(&mut self, key: Key) -> Option<&'static Layout> {
        let layout = match self.map.get(&key) {
            Some(&layout) => layout,
            None => {
                let layout = find(&key)?;
                self.map.insert(key, layout);
                layout
            }
        };
        self.recent[key.slot()] = Some((key, layout));
        Some(layout)
    }

    pub fn insert(&mut self, key: Key, layout: &'static Layout) {
        self.map.insert(key, layout);
        self.recent[key.slot()] = Some((key, layout));
    }
}

impl Layout {
    /// True if `key` is the field the class definition has at `next`: by address first (serde
    /// derive passes the same `&'static str` every time), then by content.
    #[inline]
    pub fn has_field_at(&self, next: usize, key: &'static str) -> bool {
        match self.fields.get(next) {
            Some(&name) if std::ptr::eq(name, key) => true,
            _ => self.has_field_text_at(next, key),
        }
    }

    #[cold]
    fn has_field_text_at(&self, next: usize, key: &'static str) -> bool {
        self.fields.get(next) == Some(&key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys that share a cache slot each find their own layout, in any order.
    #[test]
    fn keys_sharing_a_cache_slot_keep_their_layouts() {
        let one = register(Key([0, 0, 1, 1]), "test.One", &["a"]);
        let two = register(Key([0, 0, 2, 2]), "test.Two", &["b"]);
        let (k1, k2) = (Key([RECENT + 1, 0, 0x100, 0]), Key([1, 0, 0x100, 0]));
        assert_eq!(k1.slot(), k2.slot());
        let mut local = LocalLayouts::default();
        local.insert(k1, one);
        local.insert(k2, two);
        for _ in 0..2 {
            assert!(std::ptr::eq(local.get(k1).unwrap(), one));
            assert!(std::ptr::eq(local.get(k2).unwrap(), two));
        }
        // Neither here nor in the registry.
        assert!(local.get(Key([RECENT + 2, 0, 0x100, 0])).is_none());
    }
}
