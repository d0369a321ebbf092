//! Where the decoder reads from: one abstraction so that the same decoder serves borrowed slices
//! (zero-copy `&'de str` / `&'de [u8]`), `Bytes` (zero-copy `Bytes` slices) and any other
//! [`bytes::Buf`], contiguous or chunked (e.g. `Chain`).

use bytes::{Buf, Bytes};

mod sealed {
    pub trait Sealed {}
}

/// A source of bytes for the [`Decoder`](crate::decode::Decoder).
///
/// Implemented by [`SliceInput`] and [`BufInput`]; sealed so that methods can be added without
/// breaking users.
pub trait Input<'de>: sealed::Sealed {
    /// Whether [`borrow_bytes`](Input::borrow_bytes) can lend bytes (a borrowed slice).
    #[doc(hidden)]
    const BORROWS: bool = false;
    /// Bytes left to read.
    fn remaining(&self) -> usize;
    /// The next contiguous run of bytes; empty only when nothing remains.
    fn chunk(&self) -> &[u8];
    /// Consumes `n` bytes; `n` must not exceed [`remaining`](Input::remaining).
    fn advance(&mut self, n: usize);
    /// Consumes `n` bytes and returns them borrowed for `'de`, when the input is a borrowed
    /// slice; returns `None` (consuming nothing) otherwise.
    fn borrow_bytes(&mut self, n: usize) -> Option<&'de [u8]>;
    /// Consumes `n` bytes as [`Bytes`]: a zero-copy slice when the input is `Bytes`, a copy
    /// otherwise. `n` must not exceed [`remaining`](Input::remaining).
    fn take_bytes(&mut self, n: usize) -> Bytes;
}

/// Input from a borrowed byte slice; strings and binaries can be borrowed from it.
#[derive(Debug, Clone)]
pub struct SliceInput<'de> {
    data: &'de [u8],
}

impl<'de> SliceInput<'de> {
    /// Reads `data` from its start.
    #[inline]
    pub fn new(data: &'de [u8]) -> Self {
        SliceInput { data }
    }
}

impl sealed::Sealed for SliceInput<'_> {}

impl<'de> Input<'de> for SliceInput<'de> {
    const BORROWS: bool = true;
    #[inline]
    fn remaining(&self) -> usize {
        self.data.len()
    }
    #[inline]
    fn chunk(&self) -> &[u8] {
        self.data
    }
    #[inline]
    fn advance(&mut self, n: usize) {
        self.data = &self.data[n..];
    }
    #[inline]
    fn borrow_bytes(&mut self, n: usize) -> Option<&'de [u8]> {
        let (head, tail) = self.data.split_at(n);
        self.data = tail;
        Some(head)
    }
    fn take_bytes(&mut self, n: usize) -> Bytes {
        Bytes::copy_from_slice(self.borrow_bytes(n).unwrap_or_default())
    }
}

/// Input from any [`Buf`]. With `Bytes` (or `BytesMut`) binaries come out as zero-copy slices.
#[derive(Debug, Clone)]
pub struct BufInput<B> {
    buf: B,
}

impl<B: Buf> BufInput<B> {
    /// Reads `buf` from its current position.
    pub fn new(buf: B) -> Self {
        BufInput { buf }
    }

    /// The rest of the input.
    pub fn into_inner(self) -> B {
        self.buf
    }
}

impl<B: Buf> sealed::Sealed for BufInput<B> {}

impl<B: Buf> Input<'static> for BufInput<B> {
    #[inline]
    fn remaining(&self) -> usize {
        self.buf.remaining()
    }
    #[inline]
    fn chunk(&self) -> &[u8] {
        self.buf.chunk()
    }
    #[inline]
    fn advance(&mut self, n: usize) {
        self.buf.advance(n)
    }
    #[inline]
    fn borrow_bytes(&mut self, _n: usize) -> Option<&'static [u8]> {
        None
    }
    fn take_bytes(&mut self, n: usize) -> Bytes {
        self.buf.copy_to_bytes(n)
    }
}
