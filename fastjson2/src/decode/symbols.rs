//! The document's symbol table: where each symbol's text lies in the input. Spans, not strings:
//! defining a symbol copies nothing, and the first 16 (a POJO's field and class names) live in
//! the decoder itself, so a small document decodes without allocating a table.

/// A string's bytes in the input and its string code (which says how to read them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) start: usize,
    /// A string's length is an int32: `u32` keeps a `Result<Span>` in two registers.
    pub(crate) len: u32,
    pub(crate) code: u8,
    /// Its bytes are known to be ASCII (so no UTF-8 check on each use): found out where a
    /// field name is defined; `false` when they are not, or were not checked.
    pub(crate) ascii: bool,
}

impl Span {
    /// The string's bytes in `data`, the input the span was read from.
    #[inline]
    pub(crate) fn bytes<'de>(&self, data: &'de [u8]) -> &'de [u8] {
        &data[self.start..self.start + self.len as usize]
    }
}

/// Symbols inline before they spill into a `Vec`.
const INLINE: usize = 16;

#[derive(Debug, Default)]
pub(super) struct Symbols {
    inline: [Span; INLINE],
    len: usize,
    spill: Vec<Span>,
}

impl Symbols {
    /// Forgets every symbol (a new document), keeping the spilled table's memory.
    pub(super) fn clear(&mut self) {
        self.len = 0;
        self.spill.clear();
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub(super) fn get(&self, i: usize) -> Option<Span> {
        if i >= self.len {
            None
        } else if i < INLINE {
            Some(self.inline[i])
        } else {
            self.spill.get(i - INLINE).copied()
        }
    }

    /// Defines the next symbol (number [`len`](Self::len)).
    #[inline]
    pub(super) fn push(&mut self, span: Span) {
        if self.len < INLINE {
            self.inline[self.len] = span;
            self.len += 1;
        } else {
            self.push_spill(span);
        }
    }

    /// [`Self::push`] past the inline symbols, out of line so that `push` inlines small.
    #[cold]
    #[inline(never)]
    fn push_spill(&mut self, span: Span) {
        self.spill.push(span);
        self.len += 1;
    }

    /// Sets symbol `i`, which must be at most [`len`](Self::len) (a new one at the end).
    #[inline]
    pub(super) fn set(&mut self, i: usize, span: Span) {
        if i < INLINE {
            self.inline[i] = span;
        } else if i - INLINE < self.spill.len() {
            self.spill[i - INLINE] = span;
        } else {
            self.spill.push(span);
        }
        if i == self.len {
            self.len += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Span, Symbols, INLINE};

    fn span(i: usize) -> Span {
        Span {
            start: i,
            len: i as u32,
            code: 0x49,
            ascii: i % 2 == 0,
        }
    }

    #[test]
    fn past_the_inline_symbols_they_spill_and_read_back() {
        let mut s = Symbols::default();
        for round in 0..2 {
            for i in 0..INLINE * 3 {
                assert_eq!(s.len(), i);
                s.push(span(i + round));
            }
            for i in 0..INLINE * 3 {
                assert_eq!(s.get(i), Some(span(i + round)), "{i}");
            }
            assert_eq!(s.get(INLINE * 3), None);
            s.set(INLINE * 2, span(7));
            assert_eq!(s.get(INLINE * 2), Some(span(7)));
            s.set(INLINE * 3, span(9));
            assert_eq!(
                (s.len(), s.get(INLINE * 3)),
                (INLINE * 3 + 1, Some(span(9)))
            );
            s.clear();
            assert_eq!((s.len(), s.get(0)), (0, None));
        }
    }
}
