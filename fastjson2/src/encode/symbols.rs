//! The encoder's symbol table: each symbol and class name of the document with the number it
//! got on first use. Documents have few (a POJO's field names and class names), so a linear
//! scan beats hashing, and a mask of the lengths present skips the scan for most new names (a
//! POJO's field names mostly differ in length). serde's names are `'static` and kept without a
//! copy, apart from the copies of other names, so that [`Symbols::clear`] has nothing to drop
//! in a typed document; it keeps the memory, so a reused encoder numbers each document without
//! allocating.

use std::borrow::Cow;

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
                    self.statics.reserve(16);
                }
                self.statics.push((name, n));
            }
            Cow::Owned(name) => {
                if self.owned.capacity() == 0 {
                    self.owned.reserve(16);
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

/// `a == b`, without a call to `memcmp` for the short names symbols are, and at once when both
/// are the same `'static` name.
#[inline]
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && (a.as_ptr() == b.as_ptr() || a.bytes().eq(b.bytes()))
}
