//! The encoder's symbol table: each symbol and class name of the document with the number it
//! got on first use. Documents have few (a POJO's field names and class names), so a linear
//! scan beats hashing, and a mask of the lengths present skips the scan for most new names (a
//! POJO's field names mostly differ in length). serde's names are `'static` and kept without a
//! copy, the copies of other names (a `Value`'s) one after another in one buffer, so that
//! [`Symbols::clear`] has nothing to free; it keeps the memory, so a reused encoder numbers
//! each document without allocating. An encoder dropped leaves its tables to the next one on its thread, so a
//! `to_vec` per message does not allocate them either.
//!
//! The `'static` names of the last document stay in the table after [`Symbols::clear`], each
//! with the exact bytes its definition wrote (code, name, number): a typed encoder writes the
//! same structs in the same order message after message, so the next document's new names
//! mostly come in the same order with the same numbers, and each is then one copy of those
//! bytes ([`Symbols::replay`]), with no scan, no ASCII check and no number to encode.

use std::cell::Cell;

/// Bytes of definitions kept for replay: the cache's memory is at most this and one more
/// definition (past it, further `'static` names of a document are numbered and written as
/// before, without their bytes kept), beside one entry per `'static` name of the last
/// document, as the table kept before it kept definitions.
const MAX_DEFS: usize = 4096;

thread_local! {
    /// The `'static` names' table of the last encoder dropped on this thread, with its
    /// definitions.
    static SPARE_STATICS: Cell<Statics> = const {
        Cell::new(Statics { entries: Vec::new(), defs: Vec::new() })
    };
    /// Its table of copies, emptied.
    static SPARE_OWNED: Cell<Owned> = const {
        Cell::new(Owned { text: String::new(), entries: Vec::new() })
    };
}

/// A `'static` name with its number and its definition's bytes.
#[derive(Debug, Clone, Copy)]
struct Static {
    name: &'static str,
    n: i32,
    /// The code before the name (symbol or class name); 0 when the definition is not for
    /// replay (its bytes past [`MAX_DEFS`], or its number not its place: copies before it),
    /// which no replay asks for.
    code: u8,
    /// The document's length mask once it is numbered (after names all replayed, the mask
    /// of the document that kept it).
    lengths: u64,
    /// Where the definition's bytes are in [`Statics::defs`].
    start: u32,
    end: u32,
}

/// The `'static` names: this document's first, then (after a [`Symbols::clear`]) the last
/// documents' that this one has not reached yet.
#[derive(Debug, Default)]
struct Statics {
    entries: Vec<Static>,
    /// The definitions' bytes, in the entries' order.
    defs: Vec<u8>,
}

/// Copies of names that are not `'static`, in one buffer, so that a document's names cost no
/// allocation each and [`Symbols::clear`] has nothing to free.
#[derive(Debug, Default)]
struct Owned {
    /// The names one after another.
    text: String,
    /// Where each name ends in `text`, and its number.
    entries: Vec<(usize, i32)>,
}

/// Bytes of copies a table keeps from one document to the next (the copies' memory past it is
/// freed when the document is done).
const MAX_OWNED_TEXT: usize = 16 * 1024;

#[derive(Debug, Default)]
pub(super) struct Symbols {
    statics: Statics,
    /// How many of `statics.entries` this document numbered (the rest are kept for replay).
    live: usize,
    /// Copies of other names with their numbers.
    owned: Owned,
    /// Bit `min(len, 63)` is set when a name of that length is in the table.
    lengths: u64,
    /// The entry after the `'static` name last found: a nested struct's names, written by
    /// number, come in the order the outer one defined them.
    next_found: usize,
}

impl Symbols {
    /// The bytes defining `'static` `name` after `code` as the next new symbol, when the last
    /// documents defined it at this point with this number: it is then numbered, and the bytes
    /// are the whole definition to write.
    ///
    /// Such a name is new in this document: the kept entries never hold two equal names (a
    /// name is added only when it is not among the document's entries before it, and entries
    /// after it are dropped first), so it equals none of the entries this document numbered,
    /// and there are no copies to compare with.
    #[inline]
    pub(super) fn replay(&mut self, code: u8, name: &'static str) -> Option<&[u8]> {
        let s = *self.statics.entries.get(self.live)?;
        // Its number is its place (entries for replay have no copies before them), and this
        // document's names before it are the ones before it there (a name not replayed drops
        // the kept entries after it), so its length mask is this document's too.
        if s.name.as_ptr() != name.as_ptr()
            || s.name.len() != name.len()
            || s.code != code
            || !self.owned.entries.is_empty()
        {
            return None;
        }
        let def = self.statics.defs.get(s.start as usize..s.end as usize)?;
        self.live += 1;
        self.lengths = s.lengths;
        Some(def)
    }

    /// Takes this thread's spare tables when this one has none yet: true when it did (a
    /// [`replay`](Self::replay) may find the name now).
    #[inline]
    pub(super) fn adopt_spare(&mut self) -> bool {
        if self.statics.entries.capacity() != 0 {
            return false;
        }
        self.statics = spare_statics();
        self.statics.entries.capacity() != 0
    }

    /// The number of `name` in this document, if it has one.
    #[inline]
    pub(super) fn lookup(&mut self, name: &str) -> Option<i32> {
        if self.lengths & (1 << name.len().min(63)) != 0 {
            self.find(name)
        } else {
            None
        }
    }

    /// The number the next new name gets.
    pub(super) fn next_number(&self) -> i32 {
        (self.live + self.owned.entries.len()) as i32
    }

    /// Records `'static` `name`, new in this document, as the next number; `define` writes
    /// its definition (`code`, the name, the number) into the buffer it gets, which keeps it
    /// for replay, and the bytes are returned to write. `None` past [`MAX_DEFS`]: the name is
    /// numbered but not kept, and the caller writes its definition itself.
    pub(super) fn add_static(
        &mut self,
        code: u8,
        name: &'static str,
        define: impl FnOnce(&mut Vec<u8>),
    ) -> Option<&[u8]> {
        let n = self.next_number();
        self.lengths |= 1 << name.len().min(63);
        // The kept entries from here on are another document's order: dropped.
        self.statics.entries.truncate(self.live);
        let start = self.statics.entries.last().map_or(0, |s| s.end as usize);
        self.statics.defs.truncate(start);
        let kept = start <= MAX_DEFS && self.owned.entries.is_empty();
        if kept {
            define(&mut self.statics.defs);
        }
        let end = self.statics.defs.len();
        if self.statics.entries.capacity() == 0 {
            self.statics.entries.reserve(16);
        }
        self.statics.entries.push(Static {
            name,
            n,
            code: if kept { code } else { 0 },
            lengths: self.lengths,
            start: start as u32,
            end: end as u32,
        });
        self.live += 1;
        if kept {
            self.statics.defs.get(start..end)
        } else {
            None
        }
    }

    /// Records a copy of `name`, new in this document, as the next number.
    pub(super) fn add_owned(&mut self, name: &str) -> i32 {
        let n = self.next_number();
        self.lengths |= 1 << name.len().min(63);
        if self.owned.entries.capacity() == 0 {
            self.owned = spare_owned();
        }
        self.owned.text.push_str(name);
        self.owned.entries.push((self.owned.text.len(), n));
        n
    }

    /// [`lookup`](Self::lookup), else [`add_owned`](Self::add_owned): `Err` with the new
    /// number.
    pub(super) fn lookup_or_add_owned(&mut self, name: &str) -> Result<i32, i32> {
        let found = if self.lengths & (1 << name.len().min(63)) == 0 {
            None
        } else if self.live == 0 {
            // Only copies (a `Value`'s names).
            self.find_owned(name)
        } else {
            self.find(name)
        };
        match found {
            Some(n) => Ok(n),
            None => Err(self.add_owned(name)),
        }
    }

    fn find(&mut self, name: &str) -> Option<i32> {
        let live = self.statics.entries.get(..self.live).unwrap_or_default();
        // The same `'static` name as the entry after the last found: that entry (the entries
        // are distinct names).
        if let Some(s) = live.get(self.next_found) {
            if s.name.as_ptr() == name.as_ptr() && s.name.len() == name.len() {
                self.next_found += 1;
                return Some(s.n);
            }
        }
        for (i, s) in live.iter().enumerate() {
            if same(s.name, name) {
                self.next_found = i + 1;
                return Some(s.n);
            }
        }
        if self.owned.entries.is_empty() {
            return None;
        }
        self.find_owned(name)
    }

    /// [`find`](Self::find) among the copies (apart, so that the typed documents' scan of
    /// `'static` names stays as tight as without copies).
    #[inline(never)]
    fn find_owned(&self, name: &str) -> Option<i32> {
        let text = self.owned.text.as_bytes();
        let mut start = 0;
        for &(end, n) in &self.owned.entries {
            if same_bytes(text.get(start..end).unwrap_or_default(), name.as_bytes()) {
                return Some(n);
            }
            start = end;
        }
        None
    }

    /// Forgets every symbol (a new document), keeping the memory and the `'static` names'
    /// definitions for replay.
    pub(super) fn clear(&mut self) {
        self.live = 0;
        self.owned.clear();
        self.lengths = 0;
        self.next_found = 0;
    }
}

impl Drop for Symbols {
    #[inline]
    fn drop(&mut self) {
        // An encoder that numbered nothing (a `Date`'s) has nothing to give back.
        if self.statics.entries.capacity() != 0 {
            give_back_statics(&mut self.statics);
        }
        if self.owned.entries.capacity() != 0 {
            give_back_owned(&mut self.owned);
        }
    }
}

/// The spare `'static` table of this thread, or a new one.
#[cold]
fn spare_statics() -> Statics {
    SPARE_STATICS.try_with(Cell::take).unwrap_or_default()
}

/// The spare table of copies of this thread, or a new one with room for a few POJOs' names.
#[cold]
fn spare_owned() -> Owned {
    let mut v = SPARE_OWNED.try_with(Cell::take).unwrap_or_default();
    v.entries.reserve(16);
    v
}

/// Leaves `table` as this thread's spare, its definitions kept for the next encoder.
#[inline(never)]
fn give_back_statics(table: &mut Statics) {
    let table = std::mem::take(table);
    // After the thread's locals are gone (an encoder dropped in a thread-local's destructor),
    // the table is simply freed.
    let _ = SPARE_STATICS.try_with(|s| s.set(table));
}

/// Leaves `table`, emptied, as this thread's spare.
#[inline(never)]
fn give_back_owned(table: &mut Owned) {
    table.clear();
    let table = std::mem::take(table);
    let _ = SPARE_OWNED.try_with(|s| s.set(table));
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

/// [`same`] of a copy's bytes.
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.last() == b.last() && a.iter().eq(b)
}

impl Owned {
    /// Empties the table, keeping its memory up to [`MAX_OWNED_TEXT`] bytes of text.
    fn clear(&mut self) {
        if self.text.capacity() > MAX_OWNED_TEXT {
            self.text = String::new();
        }
        self.text.clear();
        self.entries.clear();
    }
}
