//! The encoder's symbol table: each symbol and class name of the document with the number it
//! got on first use. Documents have few (a POJO's field names and class names), so a linear
//! scan beats hashing, and a mask of the lengths present skips the scan for most new names (a
//! POJO's field names mostly differ in length). serde's names are `'static` and kept without a
//! copy, apart from the copies of other names, so that [`Symbols::clear`] has nothing to drop
//! in a typed document; it keeps the memory, so a reused encoder numbers each document without
//! allocating. An encoder dropped leaves its emptied tables to the next one on its thread, so a
//! `to_vec` per message does not allocate them either.

use std::borrow::Cow;
use std::cell::Cell;

thread_local! {
    /// The `'static` names' table of the last encoder dropped on this thread, emptied.
    static SPARE_STATICS: Cell<Vec<(&'static str, i32)>> = const { Cell::new(Vec::new()) };
    /// Its table of copies, emptied.
    static SPARE_OWNED: Cell<Vec<(String, i32)>> = const { Cell::new(Vec::new()) };
}

#[derive(Debug, Default)]
pub(super) struct Symbols {
    /// `'static` names with their numbers.
    statics: Vec<(&'static str, i32)>,
    /// Copies of other names with their numbers.
    owned: Vec<(String, i32)>,
    /// Bit `min(len, 63)` is set when a name of that length is in the table.
    lengths: u64,
}

impl Symbols {
    /// The number of `name`, or `Err(the new number)` after recording it (`own` makes the
    /// copy kept when `name` is not `'static`).
    #[inline]
    pub(super) fn lookup_or_add<'n>(
        &mut self,
        name: &'n str,
        own: impl FnOnce(&'n str) -> Cow<'static, str>,
    ) -> Result<i32, i32> {
        let bit = 1 << name.len().min(63);
        if self.lengths & bit != 0 {
            if let Some(n) = self.find(name) {
                return Ok(n);
            }
        }
        self.lengths |= bit;
        let n = (self.statics.len() + self.owned.len()) as i32;
        match own(name) {
            Cow::Borrowed(name) => {
                if self.statics.capacity() == 0 {
                    self.statics = spare(&SPARE_STATICS);
                }
                self.statics.push((name, n));
            }
            Cow::Owned(name) => {
                if self.owned.capacity() == 0 {
                    self.owned = spare(&SPARE_OWNED);
                }
                self.owned.push((name, n));
            }
        }
        Err(n)
    }

    fn find(&self, name: &str) -> Option<i32> {
        for &(s, n) in &self.statics {
            if same(s, name) {
                return Some(n);
            }
        }
        for (s, n) in &self.owned {
            if same(s, name) {
                return Some(*n);
            }
        }
        None
    }

    /// Forgets every symbol (a new document), keeping the memory.
    pub(super) fn clear(&mut self) {
        self.statics.clear();
        self.owned.clear();
        self.lengths = 0;
    }
}

impl Drop for Symbols {
    #[inline]
    fn drop(&mut self) {
        // An encoder that numbered nothing (a `Date`'s) has nothing to give back.
        if self.statics.capacity() != 0 {
            give_back(&SPARE_STATICS, &mut self.statics);
        }
        if self.owned.capacity() != 0 {
            give_back(&SPARE_OWNED, &mut self.owned);
        }
    }
}

/// The spare table of this thread, or a new one with room for a few POJOs' names.
#[cold]
fn spare<T: 'static>(slot: &'static std::thread::LocalKey<Cell<Vec<T>>>) -> Vec<T> {
    let mut v = slot.try_with(Cell::take).unwrap_or_default();
    v.reserve(16);
    v
}

/// Leaves `table`, emptied, as this thread's spare.
#[inline(never)]
fn give_back<T: 'static>(slot: &'static std::thread::LocalKey<Cell<Vec<T>>>, table: &mut Vec<T>) {
    table.clear();
    let table = std::mem::take(table);
    // After the thread's locals are gone (an encoder dropped in a thread-local's destructor),
    // the table is simply freed.
    let _ = slot.try_with(|s| s.set(table));
}

/// `a == b`, without a call to `memcmp` for the short names symbols are, and at once when both
/// are the same `'static` name.
#[inline]
fn same(a: &str, b: &str) -> bool {
    // Names of one length mostly differ in their last byte (`CA`, `CB`).
    a.len() == b.len()
        && (a.as_ptr() == b.as_ptr()
            || (a.as_bytes().last() == b.as_bytes().last() && a.bytes().eq(b.bytes())))
}
