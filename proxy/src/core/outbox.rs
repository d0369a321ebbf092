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
//!
//! Every byte pushed has an offset in the connection's stream ([`Outbox::end`] before the
//! push): a frame not started yet ([`Outbox::start`] at or before its offset) can still be
//! taken out ([`Outbox::remove`]), which is how a call whose caller left is not sent.

use std::collections::VecDeque;
use std::io::IoSlice;

use bytes::{Buf, Bytes, BytesMut};

use crate::memory::Peak;

/// See the [module docs](self).
#[derive(Debug, Default)]
pub struct Outbox {
    chunks: VecDeque<Bytes>,
    /// Bytes in `chunks` (so that [`Outbox::len`] is O(1)).
    chunked: usize,
    buf: BytesMut,
    /// Bytes pushed since the connection opened, less those removed: the offset of the
    /// next byte pushed. The engine may advance the open buffer itself, so what was written
    /// is not counted; it is what was pushed and is no longer waiting.
    pushed: u64,
    /// The most bytes the open buffer held since the last [`Outbox::release_oversized`].
    peak: Peak,
}

/// The open buffer's room when a connection opens, and after an oversized one is released.
pub const ROOM: usize = 16 * 1024;

impl Outbox {
    /// An empty outbox whose open buffer has room for `n` bytes.
    pub fn with_capacity(n: usize) -> Outbox {
        Outbox {
            chunks: VecDeque::new(),
            chunked: 0,
            buf: BytesMut::with_capacity(n),
            pushed: 0,
            peak: Peak::default(),
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

    /// Bytes of room the open buffer holds (what it frees when dropped).
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
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

    /// Offset of the first byte waiting.
    #[inline]
    pub fn start(&self) -> u64 {
        self.pushed - self.len() as u64
    }

    /// Offset of the next byte pushed.
    #[inline]
    pub fn end(&self) -> u64 {
        self.pushed
    }

    /// Appends a frame, copied.
    #[inline]
    pub fn push(&mut self, header: &[u8; 16], body: &[u8]) {
        self.pushed += (header.len() + body.len()) as u64;
        self.buf.extend_from_slice(header);
        self.buf.extend_from_slice(body);
        self.peak.saw(self.buf.len());
    }

    /// Appends a frame: the header copied, the body copied too unless it is at least
    /// `by_ref` bytes long (then it is queued as it is).
    #[inline]
    pub fn push_frame(&mut self, header: &[u8; 16], body: &Bytes, by_ref: usize) {
        self.pushed += (header.len() + body.len()) as u64;
        self.buf.extend_from_slice(header);
        if body.len() >= by_ref {
            self.seal();
            self.chunked += body.len();
            self.chunks.push_back(body.clone());
        } else {
            self.buf.extend_from_slice(body);
        }
        self.peak.saw(self.buf.len());
    }

    /// Called once a second: an open buffer that a burst grew and the last second did not
    /// need is replaced by one of [`ROOM`] bytes (see [`Peak`]). Returns the bytes given back.
    pub fn release_oversized(&mut self) -> usize {
        self.peak.release_oversized(&mut self.buf, ROOM)
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

    /// Takes out frames not started yet, given as `(offset, length)` in offset order, each
    /// at or after [`Outbox::start`], none overlapping. Later frames move up: their offsets
    /// drop by the bytes removed before them (and [`Outbox::end`] by all). Returns the bytes
    /// removed.
    ///
    /// With no chunks the open buffer is compacted in place (the tail moves down; no
    /// allocation); chunks are re-cut around the holes (`Bytes` slices, no copy).
    pub fn remove(&mut self, frames: &[(u64, u32)]) -> usize {
        let base = self.start();
        let before = self.len();
        if self.chunks.is_empty() {
            let buf = &mut self.buf[..];
            let mut to = frames.first().map_or(buf.len(), |f| (f.0 - base) as usize);
            for (i, &(at, len)) in frames.iter().enumerate() {
                let from = (at - base) as usize + len as usize;
                let upto = frames
                    .get(i + 1)
                    .map_or(buf.len(), |next| (next.0 - base) as usize);
                buf.copy_within(from..upto, to);
                to += upto - from;
            }
            self.buf.truncate(to);
        } else {
            self.seal();
            let old = std::mem::take(&mut self.chunks);
            let mut holes = frames.iter().peekable();
            let mut pos = base;
            for c in old {
                let c_end = pos + c.len() as u64;
                let mut keep = pos;
                while let Some(&&(at, len)) = holes.peek() {
                    if at >= c_end {
                        break;
                    }
                    let (h_start, h_end) = (at.max(pos), at + u64::from(len));
                    if h_start > keep {
                        self.chunks
                            .push_back(c.slice((keep - pos) as usize..(h_start - pos) as usize));
                    }
                    keep = h_end.min(c_end);
                    if h_end > c_end {
                        // The hole goes on in the next chunk.
                        break;
                    }
                    holes.next();
                }
                if keep < c_end {
                    self.chunks.push_back(c.slice((keep - pos) as usize..));
                }
                pos = c_end;
            }
            self.chunked = self.chunks.iter().map(|c| c.len()).sum();
        }
        let removed = before - self.len();
        self.pushed -= removed as u64;
        removed
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
    fn a_burst_grown_buffer_goes_after_a_period_of_small_frames() {
        let mut o = Outbox::with_capacity(ROOM);
        o.push(&[7; 16], &[1; 400 << 10]);
        let n = o.len();
        o.advance(n);
        assert_eq!(o.release_oversized(), 0, "the burst's period needed it");
        o.push(&[7; 16], b"small");
        o.advance(21);
        let freed = o.release_oversized();
        assert!(freed > 399 << 10, "{freed}");
        assert_eq!(o.buf().capacity(), ROOM);
        o.push(&[7; 16], b"after");
        assert_eq!(wire(&o), [&[7; 16][..], b"after"].concat());
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

    /// Frames of every length from 1 to 40 bytes of body, some forwarded by reference, the
    /// first partly written: every other frame not started is removed, in both layouts.
    #[test]
    fn frames_not_started_are_removed_in_place_or_by_re_cutting_chunks() {
        for by_ref in [usize::MAX, 8, 30] {
            for sealed in [false, true] {
                let mut o = Outbox::with_capacity(64);
                let mut want = Vec::new();
                let mut frames = Vec::new();
                let mut all = Vec::new();
                for i in 0..40u8 {
                    let h = [i; 16];
                    let body = Bytes::from(vec![100 + i; i as usize + 1]);
                    frames.push((o.end(), 16 + body.len() as u32));
                    o.push_frame(&h, &body, by_ref);
                    all.push([&h[..], &body[..]].concat());
                }
                // 10 bytes of the first frame were written.
                o.advance(10);
                assert_eq!(o.start(), 10);
                if sealed {
                    o.seal();
                }
                let drop: Vec<(u64, u32)> = frames.iter().copied().skip(1).step_by(2).collect();
                want.extend_from_slice(&all[0][10..]);
                for f in all.iter().skip(2).step_by(2) {
                    want.extend_from_slice(f);
                }
                let removed: usize = drop.iter().map(|f| f.1 as usize).sum();
                assert_eq!(o.remove(&drop), removed);
                assert_eq!(o.len(), want.len(), "by_ref {by_ref} sealed {sealed}");
                let mut iov = [IoSlice::new(&[]); 64];
                let n = o.gather(&mut iov);
                let got: Vec<u8> = iov[..n].iter().flat_map(|s| s.iter().copied()).collect();
                assert_eq!(got, want, "by_ref {by_ref} sealed {sealed}");
                assert_eq!(o.chunks() == 0, by_ref == usize::MAX && !sealed);
                assert_eq!(
                    o.end(),
                    frames[39].0 + u64::from(frames[39].1) - removed as u64
                );
                // Nothing to remove: nothing moves.
                assert_eq!(o.remove(&[]), 0);
                assert_eq!(o.len(), want.len());
            }
        }
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
