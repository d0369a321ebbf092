//! Read buffers for the epoll engine: pooled blocks in size classes (the block pool of
//! Netpoll's LinkBuffer), lent to a connection only while it holds unread bytes.
//!
//! # What is kept from LinkBuffer, and what is not
//!
//! Netpoll reads into a linked chain of pooled blocks so that a message spanning reads is
//! never copied to be made contiguous. This proxy's [core](crate::core) takes a caller's or
//! provider's bytes as one `&mut BytesMut` and splits whole frames off its front without
//! copying (`split_to` + `freeze`); it then copies each frame once into the outbox of the
//! connection it goes to, with the request id rewritten (the multiplexer's one copy).
//!
//! Dubbo frames are length-prefixed: once the 16-byte header of a frame is in, the codec
//! knows the frame's claimed size and reserves room for the rest of it (all of a frame up to
//! 64 KiB; for a larger one, as much again as has arrived, so a header cannot make us
//! allocate what its bytes never bring), and the rest is read straight into place. The only
//! bytes moved are the prefix of a frame that arrived before its header told its size, and a
//! large frame's bytes when its buffer doubles. A
//! chain would not remove that copy, it would add one: the core needs a frame contiguous
//! (the routing peek walks the Hessian body), so a frame split across two blocks of a
//! chain would have to be joined, all of it, where the reservation moves only the prefix.
//! Feeding the core a chain (a `Buf` over blocks) would mean a second frame decoder and a
//! peek over discontiguous memory in the core, for no copy saved. So reads go into one
//! block per connection, and the chain lives on the write side (the engine's queue of
//! chunks, written with `writev`).
//!
//! What the pool adds over a buffer per connection (the tokio engine keeps a 64 KiB one
//! per connection for the connection's life):
//!
//! * a connection holds a block only while it has a partial frame: 512 quiet connections
//!   hold nothing, instead of 32 MiB;
//! * blocks are reused last-in first-out, so the next read goes into the block the last one
//!   used, still in cache;
//! * blocks come in size classes, and a connection's next block is sized from what its
//!   last reads brought ([`ReadBuf`]), so a stream of 64 KiB frames reads in 64 KiB reads
//!   and a stream of heartbeats in 4 KiB blocks.
//!
//! The pool gives back what a burst left it: [`BlockPool::trim`], called every second by
//! the event loop, frees the blocks no connection took since the last trim. Without it,
//! every block a burst needed stayed for the life of the loop (the chaos soak's hostile
//! frames left 59 blocks, 483 KB, in the pools after the load, measured with heaptrack).
//!
//! Reading into a block's spare capacity without zeroing it first is in [`read`], the one
//! `unsafe` of the crate.

use bytes::BytesMut;

use crate::memory;

pub mod read;

/// Block sizes: 4 KiB to 1 MiB by powers of four.
pub const CLASSES: [usize; 5] = [4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20];

/// Free blocks kept per class (more are freed).
const KEEP: [usize; 5] = [256, 128, 64, 16, 4];

/// The smallest class that holds `n` bytes (the largest class for more).
#[cfg(test)]
pub fn class_for(n: usize) -> usize {
    CLASSES
        .iter()
        .position(|&c| c >= n)
        .unwrap_or(CLASSES.len() - 1)
}

/// Free read blocks of one event loop, by size class. Not shared between threads.
#[derive(Debug, Default)]
pub struct BlockPool {
    free: [Vec<BytesMut>; 5],
    /// Per class, the fewest free blocks the list held since the last trim: those at the
    /// bottom of the list that no `get` reached.
    idle: [usize; 5],
    /// Per class, whether a connection took a block since the last trim.
    busy: [bool; 5],
    /// Blocks allocated (not taken from the free lists), for the tests and stats.
    allocated: u64,
}

impl BlockPool {
    /// An empty pool.
    pub fn new() -> BlockPool {
        BlockPool::default()
    }

    /// An empty block of class `class` (or larger): the most recently returned one.
    pub fn get(&mut self, class: usize) -> BytesMut {
        let class = class.min(CLASSES.len() - 1);
        let popped = self.free[class].pop();
        self.idle[class] = self.idle[class].min(self.free[class].len());
        self.busy[class] = true;
        if let Some(b) = popped {
            return b;
        }
        self.allocated += 1;
        BytesMut::with_capacity(CLASSES[class])
    }

    /// Takes back an empty block, into the largest class whose size it can have again
    /// without allocating (its whole allocation, once no frame split off it is alive). A
    /// block smaller than the smallest class, or beyond what the pool keeps, is freed.
    pub fn put(&mut self, mut b: BytesMut) {
        b.clear();
        let above = CLASSES
            .iter()
            .position(|&c| c > b.capacity())
            .unwrap_or(CLASSES.len() - 1);
        for class in (0..=above).rev() {
            if b.try_reclaim(CLASSES[class]) {
                if self.free[class].len() < KEEP[class] {
                    self.free[class].push(b);
                }
                return;
            }
        }
    }

    /// Frees the free blocks that stayed unused since the last trim (the bottom of each
    /// last-in first-out list), keeping those the connections took in between, and one spare
    /// of the largest class taken since then: a steady load whose peak in a second varies
    /// by a block would otherwise free one at a trim and allocate it again the next second
    /// (and a 256 KiB block freed makes the process trim). Returns the bytes freed that stay in malloc's arenas
    /// ([`memory::left_in_arenas`]).
    pub fn trim(&mut self) -> usize {
        let spare_class = self.busy.iter().rposition(|&b| b);
        self.busy = [false; 5];
        let mut freed = 0;
        for (class, (free, idle)) in self.free.iter_mut().zip(&mut self.idle).enumerate() {
            let spare = usize::from(spare_class == Some(class));
            freed += free
                .drain(..(*idle).saturating_sub(spare).min(free.len()))
                .map(|b| memory::left_in_arenas(b.capacity()))
                .sum::<usize>();
            *idle = free.len();
        }
        freed
    }

    /// Blocks allocated so far (those taken from the free lists not counted).
    #[cfg(test)]
    pub fn allocated(&self) -> u64 {
        self.allocated
    }

    /// Free blocks held now.
    #[cfg(test)]
    pub fn free_blocks(&self) -> usize {
        self.free.iter().map(Vec::len).sum()
    }
}

/// A connection's read side: the block it reads into while it has a partial frame, and the
/// size class its next block should have.
#[derive(Debug)]
pub struct ReadBuf {
    buf: Option<BytesMut>,
    class: u8,
}

impl Default for ReadBuf {
    fn default() -> Self {
        ReadBuf::new()
    }
}

impl ReadBuf {
    /// Holds nothing; the first block will be of the smallest class.
    pub const fn new() -> ReadBuf {
        ReadBuf {
            buf: None,
            class: 0,
        }
    }

    /// The block to read into, with room: the one held, or one from the pool. The codec
    /// has already reserved room for the rest of a partial frame it holds (bounded by what
    /// has arrived of it); only a block filled to the brim is grown here (in place if its
    /// front is free, else by reallocating, as any `BytesMut`).
    pub fn block(&mut self, pool: &mut BlockPool) -> &mut BytesMut {
        let class = self.class as usize;
        let b = self.buf.get_or_insert_with(|| pool.get(class));
        if b.capacity() == b.len() {
            b.reserve(CLASSES[class]);
        }
        b
    }

    /// After reading: a read that filled the block's room makes the next block a class
    /// larger; a read that used less than a quarter of a smaller class makes it smaller.
    pub fn note_read(&mut self, n: usize, room: usize) {
        let c = self.class as usize;
        if n == room && c + 1 < CLASSES.len() {
            self.class += 1;
        } else if c > 0 && n < CLASSES[c - 1] / 4 {
            self.class -= 1;
        }
    }

    /// The bytes held (for the core).
    pub fn bytes(&mut self) -> Option<&mut BytesMut> {
        self.buf.as_mut()
    }

    /// Gives the block back to the pool if nothing is left in it.
    pub fn release_if_empty(&mut self, pool: &mut BlockPool) {
        if self.buf.as_ref().is_some_and(|b| b.is_empty()) {
            if let Some(b) = self.buf.take() {
                pool.put(b);
            }
        }
    }

    /// Gives the block back (the connection is gone).
    pub fn release(&mut self, pool: &mut BlockPool) {
        if let Some(mut b) = self.buf.take() {
            b.clear();
            pool.put(b);
        }
    }

    /// True while a block is held.
    #[cfg(test)]
    pub fn holds_block(&self) -> bool {
        self.buf.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::BufMut;

    #[test]
    fn blocks_are_reused_last_in_first_out() {
        let mut pool = BlockPool::new();
        let a = pool.get(0);
        let b = pool.get(0);
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        pool.put(a);
        pool.put(b);
        assert_eq!(pool.get(0).as_ptr(), pb);
        assert_eq!(pool.get(0).as_ptr(), pa);
        assert_eq!(pool.allocated(), 2);
    }

    #[test]
    fn a_block_with_a_live_frame_is_not_pooled() {
        let mut pool = BlockPool::new();
        let mut b = pool.get(0);
        b.put_slice(&[1; 100]);
        let frame = b.split_to(100).freeze();
        pool.put(b);
        assert_eq!(pool.free_blocks(), 0);
        drop(frame);
        let mut b = pool.get(0);
        b.put_slice(&[1; 100]);
        let frame = b.split_to(100).freeze();
        drop(frame);
        pool.put(b);
        assert_eq!(pool.free_blocks(), 1);
        assert_eq!(pool.get(0).capacity(), CLASSES[0]);
    }

    #[test]
    fn trim_frees_the_blocks_unused_since_the_last_trim() {
        let mut pool = BlockPool::new();
        // A burst: 10 blocks at once, then back.
        let burst: Vec<BytesMut> = (0..10).map(|_| pool.get(1)).collect();
        let recent = burst.last().unwrap().as_ptr();
        burst.into_iter().for_each(|b| pool.put(b));
        assert_eq!(pool.trim(), 0, "nothing freed");
        assert_eq!(
            pool.free_blocks(),
            10,
            "all of them were taken since the start"
        );
        // A second in which at most 2 were needed at once: the other 8 go, but for one
        // spare of the class in use.
        let (a, b) = (pool.get(1), pool.get(1));
        pool.put(b);
        pool.put(a);
        assert_eq!(pool.trim(), 7 * CLASSES[1], "the bytes of the blocks freed");
        assert_eq!(pool.free_blocks(), 3);
        assert_eq!(
            pool.get(1).as_ptr(),
            recent,
            "the most recently used are kept"
        );
        let b = pool.get(1);
        pool.put(b);
        pool.put(BytesMut::with_capacity(CLASSES[4]));
        assert_eq!(
            pool.trim(),
            0,
            "one spare, and what came back since the last trim"
        );
        // A second without any use: none is kept, whatever its class.
        assert_eq!(
            pool.trim(),
            2 * CLASSES[1],
            "the 1 MiB block is unmapped when freed: not counted"
        );
        assert_eq!(pool.free_blocks(), 0);
        assert_eq!(pool.allocated(), 10);
    }

    #[test]
    fn a_steady_load_keeps_one_spare_of_its_largest_class() {
        let mut pool = BlockPool::new();
        // Each second 2 or 3 blocks of 256 KiB at once, alternately, and a small one.
        for second in 0..8 {
            let large: Vec<BytesMut> = (0..2 + second % 2).map(|_| pool.get(3)).collect();
            let small = pool.get(0);
            large.into_iter().for_each(|b| pool.put(b));
            pool.put(small);
            assert_eq!(pool.trim(), 0, "second {second}: nothing left idle");
        }
        assert_eq!(
            pool.allocated(),
            4,
            "3 large blocks and a small one, once each"
        );
        assert_eq!(pool.free_blocks(), 4);
    }

    #[test]
    fn read_size_adapts() {
        let mut r = ReadBuf::new();
        r.note_read(CLASSES[0], CLASSES[0]);
        r.note_read(CLASSES[1], CLASSES[1]);
        assert_eq!(r.class, 2);
        r.note_read(100, CLASSES[2]);
        assert_eq!(r.class, 1);
        assert_eq!(class_for(1), 0);
        assert_eq!(class_for(65 << 10), 3);
        assert_eq!(class_for(usize::MAX), 4);
    }

    #[test]
    fn blocks_held_only_with_unread_bytes() {
        let mut pool = BlockPool::new();
        let mut r = ReadBuf::new();
        r.block(&mut pool).put_slice(b"partial");
        r.release_if_empty(&mut pool);
        assert!(r.holds_block());
        r.bytes().unwrap().clear();
        r.release_if_empty(&mut pool);
        assert!(!r.holds_block());
        assert_eq!(pool.free_blocks(), 1);
    }
}
