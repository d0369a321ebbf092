//! Binaries: borrowed from a slice, zero-copy from `Bytes`, or gathered from their chunks.

use bytes::Bytes;

use super::{Decoder, Header, Reference};
use crate::error::Result;
use crate::input::Input;
use crate::marker::binary;

impl<'de, I: Input<'de>> Decoder<'de, I> {
    /// Reads the bytes of a binary whose first chunk header was `len`/`last`. Borrowed when the
    /// input is a slice and the binary is one chunk; else gathered in the scratch buffer.
    pub fn read_binary<'s>(
        &'s mut self,
        len: usize,
        last: bool,
    ) -> Result<Reference<'de, 's, [u8]>> {
        self.ensure(len)?;
        if last {
            if let Some(bytes) = self.input.borrow_bytes(len) {
                return Ok(Reference::Borrowed(bytes));
            }
        }
        self.t.scratch.clear();
        self.gather_binary(len, last)?;
        Ok(Reference::Copied(&self.t.scratch))
    }

    /// Reads a binary as [`Bytes`]: zero-copy when the input is `Bytes` and the binary is one
    /// chunk.
    ///
    /// A chunked binary (Java writes binaries of more than 4093 bytes in chunks) is gathered with
    /// one copy into one new buffer of its exact size, when the input holds all of it in one
    /// contiguous run (slices, `Bytes`).
    pub fn read_binary_bytes(&mut self, len: usize, last: bool) -> Result<Bytes> {
        self.ensure(len)?;
        if last {
            return Ok(self.input.take_bytes(len));
        }
        let mut out = Vec::with_capacity(self.binary_total(len).unwrap_or(len));
        std::mem::swap(&mut out, &mut self.t.scratch);
        let gathered = self.gather_binary(len, last);
        std::mem::swap(&mut out, &mut self.t.scratch);
        gathered?;
        Ok(Bytes::from(out))
    }

    /// The total length of a chunked binary whose first chunk (`first` bytes, not the last)
    /// starts the current input chunk, found by walking the chunk headers ahead without
    /// consuming anything; `None` if it does not all lie in the current input chunk.
    fn binary_total(&self, first: usize) -> Option<usize> {
        let chunk = self.input.chunk();
        let (mut at, mut total) = (first, first);
        loop {
            let code = *chunk.get(at)?;
            let (len, header, last) = match code {
                binary::CHUNK | binary::FINAL => {
                    let len = u16::from_be_bytes(chunk.get(at + 1..at + 3)?.try_into().ok()?);
                    (len as usize, 3, code == binary::FINAL)
                }
                0x20..=0x2f => ((code - binary::DIRECT_BASE) as usize, 1, true),
                0x34..=0x37 => {
                    let b1 = *chunk.get(at + 1)? as usize;
                    (((code - binary::SHORT_BASE) as usize) << 8 | b1, 2, true)
                }
                _ => return None,
            };
            total = total.checked_add(len)?;
            at = at.checked_add(header + len)?;
            if at > chunk.len() {
                return None;
            }
            if last {
                return Some(total);
            }
        }
    }

    /// Appends binary chunks to the scratch buffer through the final chunk.
    fn gather_binary(&mut self, len: usize, last: bool) -> Result<()> {
        self.binary_chunks(len, last, Self::copy_into_scratch)
    }

    /// Walks a binary's chunks from one of `len` bytes (`last`: the final one) through the
    /// final chunk, handing each chunk's length to `take` once its bytes are in the input
    /// (`take` must consume them).
    pub(super) fn binary_chunks(
        &mut self,
        mut len: usize,
        mut last: bool,
        mut take: impl FnMut(&mut Self, usize),
    ) -> Result<()> {
        loop {
            self.ensure(len)?;
            take(self, len);
            if last {
                return Ok(());
            }
            (len, last) = self.expect("a binary chunk", |h| match h {
                Header::Binary { len, last } => Some((len, last)),
                _ => None,
            })?;
        }
    }

    /// Copies `n` bytes (known to be present) to the scratch buffer.
    fn copy_into_scratch(&mut self, mut n: usize) {
        while n > 0 {
            let chunk = self.input.chunk();
            let take = chunk.len().min(n);
            self.t.scratch.extend_from_slice(&chunk[..take]);
            self.input.advance(take);
            n -= take;
        }
    }
}

#[cfg(test)]
mod tests {
    use bytes::{Buf, Bytes};

    use crate::decode::{Decoder, Header};
    use crate::input::BufInput;

    fn encoded_binary(data: &[u8]) -> Vec<u8> {
        let mut enc = crate::encode::Encoder::new(Vec::new());
        enc.write_binary(data);
        enc.into_inner()
    }

    fn read(input: impl Buf) -> Bytes {
        let mut d = Decoder::new(BufInput::new(input));
        let Header::Binary { len, last } = d.pull().unwrap() else {
            panic!("a binary")
        };
        let out = d.read_binary_bytes(len, last).unwrap();
        assert!(d.is_empty());
        out
    }

    #[test]
    fn chunked_binaries_are_gathered_into_one_buffer_of_their_size() {
        for n in [0, 1, 4093, 4094, 10_000, 70_000] {
            let data: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
            let wire = Bytes::from(encoded_binary(&data));
            let out = read(wire.clone());
            assert_eq!(out, data, "{n} bytes");
            if n <= 4093 {
                // One chunk: a slice of the input.
                assert!(wire.as_ptr_range().contains(&out.as_ptr()) || n == 0);
            }
            // The same from a non-contiguous buffer (no look-ahead possible).
            let (a, b) = wire.split_at(wire.len() / 2);
            assert_eq!(read(a.chain(b)), data, "{n} bytes, chained");
        }
    }

    #[test]
    fn binary_total_refuses_what_is_not_a_chunk_header() {
        // A non-final chunk of 2 bytes followed by garbage.
        let wire = Bytes::from_static(b"A\x00\x02xyQ");
        let mut d = Decoder::new(BufInput::new(wire));
        let Header::Binary { len, last } = d.pull().unwrap() else {
            panic!("a binary")
        };
        assert_eq!(d.binary_total(len), None);
        assert!(d.read_binary_bytes(len, last).is_err());
    }
}
