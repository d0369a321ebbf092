//! A stream table (type names, class definitions) whose slots outlive the stream: the next
//! stream on the same tables takes an entry it defines again, in the same place, after one
//! comparison of its bytes, with no reference counting and no push. Only entries interned in
//! the thread's kept definitions (`intern.rs`) stay after a stream, so what stays is bounded as
//! that table is.

use super::intern::{Entry, Interned};

/// The stream's entries are the first `count`; the slots after them hold earlier streams'.
#[derive(Debug)]
pub(super) struct Slots<T> {
    items: Vec<T>,
    /// For each slot: the index of its entry among the interned ones, if kept there (its bytes
    /// are then known).
    seen: Vec<Option<usize>>,
    count: usize,
    /// How many slots from the first one are interned: those stay after the stream.
    kept: usize,
}

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Slots {
            items: Vec::new(),
            seen: Vec::new(),
            count: 0,
            kept: 0,
        }
    }
}

impl<T: Entry> Slots<T> {
    /// Number of entries the stream has defined.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.count
    }

    /// The `index`-th entry; `index` must be below [`len`](Self::len).
    #[inline]
    pub(super) fn get(&self, index: usize) -> &T {
        &self.items[index]
    }

    /// When the input starts with the bytes of the entry an earlier stream had in the next
    /// slot: how many bytes they are. The caller consumes them and calls
    /// [`take_next`](Self::take_next).
    #[inline]
    pub(super) fn next_known(&self, interned: &Interned<T>, input: &[u8]) -> Option<usize> {
        let seen = (*self.seen.get(self.count)?)?;
        let bytes = interned.bytes(seen);
        input.starts_with(bytes).then_some(bytes.len())
    }

    /// Takes the next slot's entry as it is (after [`next_known`](Self::next_known)).
    #[inline]
    pub(super) fn take_next(&mut self) {
        self.count += 1;
    }

    /// Adds `item` (interned at `seen`, if it is) as the stream's next entry, dropping the
    /// earlier streams' slots from there on.
    pub(super) fn push(&mut self, item: T, seen: Option<usize>) {
        self.items.truncate(self.count);
        self.seen.truncate(self.count);
        self.kept = self.kept.min(self.count);
        if self.kept == self.count && seen.is_some() {
            self.kept += 1;
        }
        self.items.push(item);
        self.seen.push(seen);
        self.count += 1;
    }

    /// Ends the stream: its entries stay as slots for the next one as far as they are interned.
    #[inline]
    pub(super) fn end_stream(&mut self) {
        self.count = 0;
        if self.kept < self.items.len() {
            self.items.truncate(self.kept);
            self.seen.truncate(self.kept);
        }
    }

    /// Room for entries (kept in the per-thread pool only up to a limit).
    pub(super) fn capacity(&self) -> usize {
        self.items.capacity()
    }

    /// Slots held, the stream's and the kept ones (for tests).
    #[cfg(test)]
    pub(super) fn slots(&self) -> &[Option<usize>] {
        &self.seen
    }
}
