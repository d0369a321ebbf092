//! The encoder's symbol table: each symbol and class name of the document with the number it
//! got on first use. Documents have few (a POJO's field names and class names), so a linear
//! scan beats hashing; serde's names are `'static` and kept without a copy. [`Symbols::clear`]
//! keeps the memory, so a reused encoder numbers each document without allocating.

use std::borrow::Cow;

#[derive(Debug, Default)]
pub(super) struct Symbols {
    names: Vec<Cow<'static, str>>,
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
        match self.names.iter().position(|n| **n == *name) {
            Some(i) => Ok(i as i32),
            None => {
                if self.names.is_empty() {
                    self.names.reserve(16);
                }
                self.names.push(own(name));
                Err(self.names.len() as i32 - 1)
            }
        }
    }

    /// Forgets every symbol (a new document), keeping the memory.
    pub(super) fn clear(&mut self) {
        self.names.clear();
    }
}
