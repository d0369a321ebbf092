//! The decoder's per-stream tables and scratch buffers, and the per-thread pool they come from
//! and go back to, so that a decoder made per message does not allocate them again.

// A lookup table read without bounds checks (see its SAFETY note).
#![allow(unsafe_code)]

use std::cell::Cell;
use std::mem::ManuallyDrop;
use std::sync::Arc;

use super::intern::Interned;
use super::slots::Slots;
#[cfg(doc)]
use super::Decoder;
use super::{ClassDef, Container};

/// The decoder's tables and buffers (none of which borrow the input).
#[derive(Default)]
pub(super) struct TableData {
    /// The stream's type names and class definitions (see `slots.rs`).
    pub(super) types: Slots<Arc<str>>,
    pub(super) classes: Slots<ClassDef>,
    /// The lists, maps and objects of the stream that a later `Q` may refer to, for the
    /// layers that resolve references by decoding them again (see [`Container`]).
    pub(super) containers: Vec<Container>,
    /// Raw bytes of strings and binaries that cannot be borrowed.
    pub(super) scratch: Vec<u8>,
    /// Text of strings that needed CESU-8 decoding.
    pub(super) text: String,
    /// Type names and class definitions read before, kept across [`Decoder::reset`] and
    /// decoders (see `intern.rs`). Only the strings are shared; each stream's tables start
    /// empty.
    pub(super) seen_types: Interned<Arc<str>>,
    pub(super) seen_classes: Interned<ClassDef>,
}

/// Scratch buffers larger than this are not kept in the per-thread pool.
const POOLED_SCRATCH: usize = 64 * 1024;
/// Stream tables (type names, class definitions) with room for more entries than this are
/// not kept in the per-thread pool.
const POOLED_ENTRIES: usize = 1024;

thread_local! {
    /// The tables of the last decoder dropped on this thread, for the next one.
    static POOL: Cell<Option<Box<TableData>>> = const { Cell::new(None) };
}

/// [`TableData`] taken from the per-thread pool (boxed, so that handing it over moves a
/// pointer), returned to it on drop. `ManuallyDrop` rather than an `Option` that drop empties:
/// every table access would check the `Option` (77 instructions per typed `Mix` decode).
pub(super) struct Tables(ManuallyDrop<Box<TableData>>);

impl Tables {
    #[inline]
    pub(super) fn take() -> Self {
        Tables(ManuallyDrop::new(
            POOL.try_with(Cell::take).ok().flatten().unwrap_or_default(),
        ))
    }
}

impl Drop for Tables {
    fn drop(&mut self) {
        // SAFETY: `self.0` is taken once, here, and not touched again: `Tables` is being
        // dropped, and `ManuallyDrop` does not drop the box a second time.
        let mut data = unsafe { ManuallyDrop::take(&mut self.0) };
        data.types.end_stream();
        data.classes.end_stream();
        if data.types.capacity() > POOLED_ENTRIES {
            data.types = Slots::default();
        }
        if data.classes.capacity() > POOLED_ENTRIES {
            data.classes = Slots::default();
        }
        data.containers.clear();
        if data.containers.capacity() > POOLED_ENTRIES * 4 {
            data.containers = Vec::new();
        }
        if data.scratch.capacity() > POOLED_SCRATCH {
            data.scratch = Vec::new();
        }
        if data.text.capacity() > POOLED_SCRATCH {
            data.text = String::new();
        }
        // Keep the pooled set that knows more definitions (nested decoders on one thread).
        let _ = POOL.try_with(|pool| {
            let keep = match pool.take() {
                Some(other)
                    if other.seen_classes.len() + other.seen_types.len()
                        > data.seen_classes.len() + data.seen_types.len() =>
                {
                    other
                }
                _ => data,
            };
            pool.set(Some(keep));
        });
    }
}

impl std::ops::Deref for Tables {
    type Target = TableData;
    #[inline]
    fn deref(&self) -> &TableData {
        &self.0
    }
}

impl std::ops::DerefMut for Tables {
    #[inline]
    fn deref_mut(&mut self) -> &mut TableData {
        &mut self.0
    }
}

#[cfg(test)]
mod tests {
    use crate::decode::Decoder;

    /// The `unsafe` of `Tables::drop`: the tables go back to the per-thread pool exactly once,
    /// whole, also with decoders nested on one thread. Run under Miri:
    /// `cargo +nightly miri test -p hessian2 --lib tables_go_back`.
    #[test]
    fn tables_go_back_to_the_pool_once() {
        use crate::input::SliceInput;
        let mut enc = crate::encode::Encoder::new(Vec::new());
        enc.write_class_definition("a.B", &["x"]);
        let wire = enc.into_inner();
        fn read(wire: &[u8]) -> Decoder<'_, SliceInput<'_>> {
            let mut d = Decoder::new(SliceInput::new(wire));
            assert!(d.pull().is_err(), "a definition (if any), then nothing");
            d
        }
        drop(read(&wire));
        // The next decoder gets the same tables: it knows the definition.
        let outer = Decoder::new(SliceInput::new(&wire));
        assert_eq!(outer.t.seen_classes.len(), 1);
        // Nested: the inner one starts with fresh tables; the pool keeps the richer set.
        let inner = Decoder::new(SliceInput::new(&wire));
        assert_eq!(inner.t.seen_classes.len(), 0);
        drop(inner);
        drop(outer);
        assert_eq!(read(&[]).t.seen_classes.len(), 1);
    }

    /// The class slots kept from one stream to the next: a stream that defines the same
    /// classes in the same order takes them from their slots; one that differs gets its own,
    /// and a definition too big to be kept does not stay behind after the stream.
    #[test]
    fn class_slots_follow_each_stream() {
        use crate::input::SliceInput;
        fn stream(classes: &[(&str, &[&str])]) -> Vec<u8> {
            let mut enc = crate::encode::Encoder::new(Vec::new());
            for (i, (name, fields)) in classes.iter().enumerate() {
                enc.write_class_definition(name, fields);
                enc.write_object_instance(i as u32);
                for _ in 0..fields.len() {
                    enc.write_int(1);
                }
            }
            enc.into_inner()
        }
        fn classes<'a>(d: &mut Decoder<'a, SliceInput<'a>>) -> Vec<(String, usize)> {
            let mut out = Vec::new();
            while !d.is_empty() {
                if let crate::decode::Header::Object { class } = d.pull().unwrap() {
                    let def = d.class(class);
                    out.push((def.name.to_string(), def.fields.len()));
                }
            }
            out
        }
        let ab = stream(&[("a.A", &["x"]), ("a.B", &["y", "z"])]);
        let ac = stream(&[("a.A", &["x"]), ("a.C", &[])]);
        let b = stream(&[("a.B", &["y", "z"])]);
        // Over the 4 KiB an interned entry may take (its text counts 32 bytes per field).
        let huge_fields: Vec<String> = (0..100).map(|i| format!("f{i}")).collect();
        let huge_refs: Vec<&str> = huge_fields.iter().map(|f| &**f).collect();
        let huge = stream(&[("a.Huge", &huge_refs)]);
        let mut d = Decoder::new(SliceInput::new(&ab));
        let expect_ab = vec![("a.A".to_string(), 1), ("a.B".to_string(), 2)];
        assert_eq!(classes(&mut d), expect_ab);
        for _ in 0..2 {
            d.reset(SliceInput::new(&ab));
            assert_eq!(classes(&mut d), expect_ab);
            assert_eq!(d.class_count(), 2);
            d.reset(SliceInput::new(&ac));
            assert_eq!(classes(&mut d), vec![("a.A".into(), 1), ("a.C".into(), 0)]);
            d.reset(SliceInput::new(&b));
            assert_eq!(classes(&mut d), vec![("a.B".into(), 2)]);
            assert_eq!(d.class_count(), 1);
        }
        d.reset(SliceInput::new(&huge));
        assert_eq!(classes(&mut d), vec![("a.Huge".into(), 100)]);
        assert_eq!(d.t.classes.slots(), [None]);
        d.reset(SliceInput::new(&[]));
        assert!(
            d.t.classes.slots().is_empty(),
            "a definition not kept is not held"
        );
        // An index past the stream's own definitions is refused, kept slots or not.
        d.reset(SliceInput::new(&ab));
        classes(&mut d);
        d.reset(SliceInput::new(b"\x61"));
        assert!(d.pull().is_err());
    }

    /// Type names keep their slots as class definitions do: the same names in the same order
    /// are taken from them, other names replace them.
    #[test]
    fn type_slots_follow_each_stream() {
        use crate::input::SliceInput;
        fn stream(types: &[&str]) -> Vec<u8> {
            let mut enc = crate::encode::Encoder::new(Vec::new());
            for ty in types {
                enc.write_list_start(Some(0), Some(ty));
            }
            enc.into_inner()
        }
        fn types<'a>(d: &mut Decoder<'a, SliceInput<'a>>) -> Vec<String> {
            let mut out = Vec::new();
            while !d.is_empty() {
                if let crate::decode::Header::List { ty: Some(ty), .. } = d.pull().unwrap() {
                    out.push(d.type_name(ty).to_string());
                }
            }
            out
        }
        let ab = stream(&["[int", "[double", "[int"]);
        let ba = stream(&["[double", "[long"]);
        let mut d = Decoder::new(SliceInput::new(&ab));
        for _ in 0..2 {
            d.reset(SliceInput::new(&ab));
            assert_eq!(types(&mut d), ["[int", "[double", "[int"]);
            assert_eq!(d.type_count(), 2);
            d.reset(SliceInput::new(&ba));
            assert_eq!(types(&mut d), ["[double", "[long"]);
            assert_eq!(d.type_count(), 2);
        }
    }
}
