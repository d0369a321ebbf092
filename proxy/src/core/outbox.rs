//! What waits to be written on one connection.
//!
//! Frames are copied into an open buffer with their request id rewritten: one `memcpy` per
//! frame, no allocation in steady state, and a single slice for the engine to write. A
//! large body is better forwarded by reference (Netpoll's "copy-free binary": a node
//! inserted into the linked buffer instead of a copy): an engine that writes with
//! `writev` can ask for it ([`Worker::set_forward_by_reference`](super::Worker::set_forward_by_reference)),
//! and then the rewritten header is copied, the open buffer is sealed into a chunk (O(1),
//! no copy), and the body goes behind it as the `Bytes` it arrived in. The order on the
//! wire is the chunks, oldest first, then the open buffer.
//!
//! By default nothing is forwarded by reference and there are never chunks: the outbox is
//! just the open buffer ([`Worker::outbox`](super::Worker::outbox)).

use std::collections::VecDeque;
use std::io::IoSlice;

use bytes::{Buf, Bytes, BytesMut};

/// See the [module docs](self).
#[derive(Debug, Default)]
pub struct Outbox {
    chunks: VecDeque<Bytes>,
    /// Bytes in `chunks` (so that [`Outbox::len`] is O(1)).
    chunked: usize,
    buf: BytesMut,
}

impl Outbox {
    /// An empty outbox whose open buffer has room for `n` bytes.
    pub fn with_capacity(n: usize) -> Outbox {
        Outbox {
            chunks: VecDeque::new(),
            chunked: 0,
            buf: BytesMut::with_capacity(n),
        }
    }

    /// True when nothing waits.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty() && self.chunks.is_empty()
    }

    /// Bytes waiting.
    #[inline]
    pub fn len(&self) -> usize {
        self.buf.len() + self.chunked
    }

    /// Drops everything waiting (the connection is being closed for not reading it).
    pub fn clear(&mut self) {
        self.chunks.clear();
        self.chunked = 0;
        self.buf.clear();
    }

    /// The open buffer: all there is unless chunks were made.
    #[inline]
    pub fn buf(&mut self) -> &mut BytesMut {
        &mut self.buf
    }

    /// Chunks waiting before the open buffer.
    pub fn chunks(&self) -> usize {
        self.chunks.len()
    }

    /// Appends a frame: the header copied, the body copied too unless it is at least
    /// `by_ref` bytes long (then it is queued as it is).
    #[inline]
    pub fn push_frame(&mut self, header: &[u8; 16], body: &Bytes, by_ref: usize) {
        self.buf.extend_from_slice(header);
        if body.len() >= by_ref {
            self.seal();
            self.chunked += body.len();
            self.chunks.push_back(body.clone());
        } else {
            self.buf.extend_from_slice(body);
        }
    }

    /// Moves what is in the open buffer into a chunk of its own (no copy): later frames go
    /// into fresh room instead of growing a buffer that still holds a backlog.
    pub fn seal(&mut self) {
        if !self.buf.is_empty() {
            self.chunked += self.buf.len();
            self.chunks.push_back(self.buf.split().freeze());
        }
    }

    /// Fills `iov` with the waiting bytes in wire order; returns how many slices it filled.
    pub fn gather<'a>(&'a self, iov: &mut [IoSlice<'a>]) -> usize {
        let mut n = 0;
        for c in &self.chunks {
            if n == iov.len() {
                return n;
            }
            iov[n] = IoSlice::new(c);
            n += 1;
        }
        if n < iov.len() && !self.buf.is_empty() {
            iov[n] = IoSlice::new(&self.buf);
            n += 1;
        }
        n
    }

    /// `n` bytes were written from the front.
    pub fn advance(&mut self, mut n: usize) {
        while n > 0 {
            match self.chunks.front_mut() {
                Some(c) if n >= c.len() => {
                    n -= c.len();
                    self.chunked -= c.len();
                    self.chunks.pop_front();
                }
                Some(c) => {
                    c.advance(n);
                    self.chunked -= n;
                    return;
                }
                None => {
                    self.buf.advance(n);
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire(o: &Outbox) -> Vec<u8> {
        let mut iov = [IoSlice::new(&[]); 8];
        let n = o.gather(&mut iov);
        iov[..n].iter().flat_map(|s| s.iter().copied()).collect()
    }

    #[test]
    fn small_bodies_are_copied_large_ones_queued_in_order() {
        let mut o = Outbox::with_capacity(64);
        let h = [7u8; 16];
        o.push_frame(&h, &Bytes::from_static(b"small"), 8);
        let big = Bytes::from(vec![1u8; 10]);
        o.push_frame(&h, &big, 8);
        o.push_frame(&h, &Bytes::from_static(b"tail"), 8);
        assert_eq!(o.chunks(), 2);
        let mut want = Vec::new();
        want.extend_from_slice(&h);
        want.extend_from_slice(b"small");
        want.extend_from_slice(&h);
        want.extend_from_slice(&big);
        want.extend_from_slice(&h);
        want.extend_from_slice(b"tail");
        assert_eq!(wire(&o), want);
        assert_eq!(o.len(), want.len());
        // The body was not copied.
        let mut iov = [IoSlice::new(&[]); 8];
        o.gather(&mut iov);
        assert_eq!(iov[1].as_ptr(), big.as_ptr());
        // Writes that stop anywhere.
        o.advance(3);
        assert_eq!(wire(&o), want[3..]);
        o.advance(21 + 16);
        assert_eq!(wire(&o), want[40..]);
        assert_eq!(o.len(), want.len() - 40);
        o.advance(want.len() - 40);
        assert!(o.is_empty());
        assert_eq!(o.len(), 0);
        o.push_frame(&h, &big, 8);
        o.seal();
        assert_eq!(o.len(), 26);
        o.clear();
        assert!(o.is_empty());
        assert_eq!(o.gather(&mut [IoSlice::new(&[]); 2]), 0);
    }

    #[test]
    fn by_default_everything_is_copied() {
        let mut o = Outbox::with_capacity(64);
        o.push_frame(&[0; 16], &Bytes::from(vec![1u8; 1000]), usize::MAX);
        assert_eq!(o.chunks(), 0);
        assert_eq!(o.buf().len(), 1016);
        o.seal();
        assert_eq!(o.chunks(), 1);
        assert!(o.buf().is_empty());
        assert_eq!(wire(&o).len(), 1016);
    }

    #[test]
    fn gather_stops_at_the_slices_given() {
        let mut o = Outbox::with_capacity(64);
        for _ in 0..3 {
            o.push_frame(&[0; 16], &Bytes::from(vec![1u8; 4]), 1);
        }
        let mut iov = [IoSlice::new(&[]); 2];
        assert_eq!(o.gather(&mut iov), 2);
    }
}
