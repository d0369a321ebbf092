//! What a [`Deserializer`] reads from: a contiguous input it can go back
//! into to decode a referenced value again.

use bytes::Bytes;

#[cfg(doc)]
use super::Deserializer;
use crate::input::{BufInput, Input, SliceInput};

mod sealed {
    pub trait Sealed {}
}

/// A contiguous input the [`Deserializer`] can read from, and go back into to decode a
/// referenced value again: a byte slice (strings and binaries borrowed) or [`Bytes`]
/// (binaries as zero-copy slices).
pub trait Source<'de>: sealed::Sealed {
    /// The decoder's input type.
    type Input: Input<'de>;
    /// The input from byte `offset` to the end.
    fn input_at(&self, offset: usize) -> Self::Input;
}

impl sealed::Sealed for &[u8] {}

impl<'de> Source<'de> for &'de [u8] {
    type Input = SliceInput<'de>;
    #[inline]
    fn input_at(&self, offset: usize) -> SliceInput<'de> {
        SliceInput::new(&self[offset..])
    }
}

impl sealed::Sealed for Bytes {}

impl Source<'static> for Bytes {
    type Input = BufInput<Bytes>;
    fn input_at(&self, offset: usize) -> BufInput<Bytes> {
        BufInput::new(self.slice(offset..))
    }
}
