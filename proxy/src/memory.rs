//! Giving the memory the proxy freed back to the operating system, after a burst.
//!
//! glibc's malloc keeps much of what a program frees: free chunks inside the heaps (the
//! worker threads allocate in arenas of their own) stay resident, and after one burst of
//! large buffers it raises its mmap threshold to their size and its trim threshold to twice
//! that (up to 64 MiB), so large blocks come from the arenas from then on and their free
//! tops are not given back either. After a burst of callers, provider restarts or large bodies
//! the proxy's live heap came back to its baseline but its RSS did not (the chaos soak: 0.7-1.8
//! MiB kept after the drain; 18.9 MiB instead of 6.9 after 64 KiB bodies on the epoll engine;
//! a tokio proxy +28.8 MiB 15 s after a burst of 256 KiB bodies). Three things bring it back:
//!
//! * [`pin_thresholds`], once at start: glibc's trim threshold pinned at its default
//!   (128 KiB) and its mmap threshold at 1 MiB, which turns the raising off: an arena's free
//!   top is given back once it passes 128 KiB, and blocks of 1 MiB and more are mmapped;
//! * [`Trimmer`]: `malloc_trim(0)` walks every arena and gives back each whole free page
//!   inside it (`madvise(MADV_DONTNEED)`), as HAProxy does after releasing its pools
//!   (`trim_all_pools`). The engines and the core only *note* what they free, with one
//!   relaxed add where it happens (a connection closed, the epoll block pool giving back
//!   the blocks it did not lend, an oversized buffer released): never per call.
//!   [`Trimmer::tick`], called once a second from the main thread (see `main.rs`), trims
//!   when at least [`WORTH_TRIMMING`] bytes were noted since the last trim: a proxy under a
//!   steady load of long-lived connections does not trim, one whose connections come and go
//!   trims at most once a second;
//! * [`Peak`]: a connection's buffer that a burst grew (an outbox, the tokio engine's read
//!   buffer) is released once a second of traffic shows it is no longer needed;
//! * [`shrink_idle`]: a table that a burst or a fault grew (the in-flight slab and its
//!   timeout FIFOs after a stalled provider, the connection slabs after a wave of callers)
//!   gives its room back, once a second, when it holds less than a quarter of it.
//!
//! A trim with 4 MiB live and 4 MiB freed in 16 KiB pieces (one `madvise` each) took
//! 0.68-0.93 ms on the shared 2-core project machine at load average 10 (once 4.5 ms,
//! preempted; `trims_cost_little` prints it), on the main thread, not a worker's; a worker
//! that allocates meanwhile waits for its arena's lock at most that long.
//! `dubbo_proxy_memory_trim_seconds_total` counts the time spent.
//!
//! Only glibc has `malloc_trim` and these thresholds: elsewhere (and under Miri, which
//! cannot call foreign functions) nothing is pinned, and [`Trimmer::tick`] trims nothing and
//! counts nothing.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use bytes::BytesMut;
use slab::Slab;

/// How often the process looks at what was freed.
pub const TRIM_INTERVAL: Duration = Duration::from_secs(1);

/// Bytes freed since the last trim that make the next tick trim: glibc's own threshold for
/// giving back the top of its heap (`M_TRIM_THRESHOLD`, 128 KiB by default).
pub const WORTH_TRIMMING: u64 = 128 << 10;

/// True where [`Trimmer::tick`] can give memory back (glibc, not under Miri).
pub const SUPPORTED: bool = cfg!(all(target_os = "linux", target_env = "gnu", not(miri)));

/// What was freed since the last trim, and the trims so far (shared by the workers and the
/// thread that ticks it).
#[derive(Debug, Default)]
pub struct Trimmer {
    freed: AtomicU64,
    trims: AtomicU64,
    trim_nanos: AtomicU64,
}

impl Trimmer {
    /// Nothing freed, no trim yet.
    pub fn new() -> Trimmer {
        Trimmer::default()
    }

    /// Notes that about `bytes` were freed (a connection's buffers, pooled blocks).
    #[inline]
    pub fn freed(&self, bytes: usize) {
        self.freed.fetch_add(bytes as u64, Relaxed);
    }

    /// Trims if at least [`WORTH_TRIMMING`] bytes were noted since the last trim; true if
    /// it did.
    pub fn tick(&self) -> bool {
        if !SUPPORTED || self.freed.load(Relaxed) < WORTH_TRIMMING {
            return false;
        }
        self.freed.store(0, Relaxed);
        let start = Instant::now();
        give_back_free_pages();
        let spent = start.elapsed().as_nanos().min(u64::MAX as u128) as u64;
        self.trim_nanos.fetch_add(spent, Relaxed);
        self.trims.fetch_add(1, Relaxed);
        true
    }

    /// Trims so far.
    pub fn trims(&self) -> u64 {
        self.trims.load(Relaxed)
    }

    /// Time spent trimming so far.
    pub fn trim_time(&self) -> Duration {
        Duration::from_nanos(self.trim_nanos.load(Relaxed))
    }
}

/// Of a freed block of `size` bytes, what stays in malloc's arenas for a trim to give back:
/// all of a block below [`MMAP_THRESHOLD`], nothing of a larger one, which glibc mmaps (with
/// the thresholds pinned, [`pin_thresholds`]) and unmaps when it is freed.
pub fn left_in_arenas(size: usize) -> usize {
    if (size as u64) < MMAP_THRESHOLD {
        size
    } else {
        0
    }
}

/// An empty buffer larger than this, and than four times what its last period needed, is
/// given back by [`Peak::release_oversized`].
pub const KEEP_UP_TO: usize = 256 * 1024;

/// The most bytes a buffer held in a period (a second): a buffer that a burst grew (a
/// provider connection fed 64 KiB calls by 16 callers grows its outbox to 1 MiB, a large
/// answer grows a read buffer) is given back once a period shows the load no longer needs
/// it, and one that the steady load needs is kept (no allocation per frame).
#[derive(Debug, Default, Clone, Copy)]
pub struct Peak(usize);

impl Peak {
    /// The buffer holds `len` bytes now.
    #[inline]
    pub fn saw(&mut self, len: usize) {
        self.0 = self.0.max(len);
    }

    /// Ends a period: if `buf` is empty and its room is larger than [`KEEP_UP_TO`] and four
    /// times the period's peak, it is replaced by a buffer of `room` bytes (a frame split
    /// off it still holds its share of the block, which goes when the frame does). Returns
    /// the bytes given back (for [`Trimmer::freed`]).
    pub fn release_oversized(&mut self, buf: &mut BytesMut, room: usize) -> usize {
        let needed = std::mem::replace(&mut self.0, buf.len());
        let keep = needed.saturating_mul(4).max(KEEP_UP_TO);
        // `try_reclaim` gives an empty buffer that no frame shares all its room back (what
        // was written from its front included) before it is weighed.
        if buf.is_empty() && buf.try_reclaim(keep + 1) {
            let freed = buf.capacity();
            *buf = BytesMut::with_capacity(room);
            return freed;
        }
        0
    }
}

/// A table whose room (capacity) grows to the peak of its load.
pub trait Table {
    /// Entries held.
    fn held(&self) -> usize;
    /// Entries it has room for.
    fn room(&self) -> usize;
    /// Gives back room down to `room` entries, or as near as the table can (never below
    /// what it holds; a slab keeps its entries where they are, so only the vacant ones past
    /// the last occupied one go).
    fn shrink_room(&mut self, room: usize);
    /// Bytes one entry of room takes.
    fn entry_bytes(&self) -> usize;
}

/// `Vec` and `VecDeque`: room is their capacity, and they shrink to the room asked.
macro_rules! std_table {
    ($($collection:ident),*) => {$(
        impl<T> Table for $collection<T> {
            fn held(&self) -> usize {
                self.len()
            }
            fn room(&self) -> usize {
                self.capacity()
            }
            fn shrink_room(&mut self, room: usize) {
                self.shrink_to(room);
            }
            fn entry_bytes(&self) -> usize {
                std::mem::size_of::<T>()
            }
        }
    )*};
}

std_table!(Vec, VecDeque);

impl<T> Table for Slab<T> {
    fn held(&self) -> usize {
        self.len()
    }
    fn room(&self) -> usize {
        self.capacity()
    }
    fn shrink_room(&mut self, _room: usize) {
        // Keys are slots: the occupied ones stay where they are.
        self.shrink_to_fit();
    }
    fn entry_bytes(&self) -> usize {
        // The slab's entry is the value or a vacant slot's next index, and a tag.
        std::mem::size_of::<T>().max(std::mem::size_of::<usize>()) + std::mem::size_of::<usize>()
    }
}

/// Gives back the room of a table that holds less than a quarter of it (and has more than
/// `least`), down to twice what it holds (at least `least`): room that a burst needed and
/// the load does not. The factor between the two leaves a steady load's table alone, and a
/// load that swings is reallocated at most once per call of this (once a second, from the
/// housekeeping, never per call). Returns the bytes given back (for [`Trimmer::freed`]).
pub fn shrink_idle(table: &mut impl Table, least: usize) -> usize {
    let (held, room) = (table.held(), table.room());
    if room <= least || held.saturating_mul(4) >= room {
        return 0;
    }
    table.shrink_room(held.saturating_mul(2).max(least));
    room.saturating_sub(table.room()) * table.entry_bytes()
}

/// Blocks below this come from the arenas (and are reused there); larger ones are mmapped
/// and unmapped. glibc's default, 128 KiB, put every buffer of a 64 KiB body's frame that grew
/// past it into an `mmap`, its page faults and a `munmap`: with the thresholds pinned at the
/// defaults, the epoll engine at 16 callers x 64 KiB made 0.27 `mmap` and 0.27 `munmap` per
/// call and cost 78-84 µs of CPU per call against 48 µs before (benches/proxy-compare, quiet
/// run of 2026-11-26 08:21); with 1 MiB, none. Bodies past 1 MiB are rare, and their copy
/// costs more than their mapping.
pub const MMAP_THRESHOLD: u64 = 1 << 20;

/// Pins glibc's thresholds for the life of the process (call it once, at start, before the
/// workers): the trim threshold at its default, 128 KiB, and the mmap threshold at
/// 1 MiB. Left to itself, glibc raises its mmap threshold to the size of the
/// largest mmapped block freed (up to 32 MiB) and its trim threshold to twice that: after one
/// burst of large buffers, the free top of a worker's arena is not given back (and
/// `malloc_trim` gives back the top of the main arena only). Pinned, which turns that raising
/// off, an arena's top is given back at free once it passes 128 KiB. In `memory_trim`'s burst
/// of 256 KiB bodies through a tokio proxy, the trims alone left the RSS 11 MiB over its level
/// before (glibc's heap in use: 1.5 MB; a `malloc_trim` by hand gave back nothing); with the
/// thresholds pinned too, +244 KiB. Left alone when the operator tunes these thresholds in
/// `GLIBC_TUNABLES`. True if they were pinned.
pub fn pin_thresholds() -> bool {
    let tuned = std::env::var("GLIBC_TUNABLES")
        .is_ok_and(|t| t.contains("trim_threshold") || t.contains("mmap_threshold"));
    SUPPORTED
        && !tuned
        && set_threshold(Threshold::Mmap, MMAP_THRESHOLD)
        && set_threshold(Threshold::Trim, WORTH_TRIMMING)
}

/// The two glibc malloc parameters [`pin_thresholds`] sets.
#[derive(Debug, Clone, Copy)]
enum Threshold {
    Mmap,
    Trim,
}

#[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
#[allow(unsafe_code)]
fn set_threshold(which: Threshold, bytes: u64) -> bool {
    let param = match which {
        Threshold::Mmap => libc::M_MMAP_THRESHOLD,
        Threshold::Trim => libc::M_TRIM_THRESHOLD,
    };
    let bytes = libc::c_int::try_from(bytes).unwrap_or(libc::c_int::MAX);
    // SAFETY: `mallopt` takes two integers and no pointer; it changes a malloc parameter under
    // the arenas' lock and is safe to call from any thread.
    unsafe { libc::mallopt(param, bytes) == 1 }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu", not(miri))))]
fn set_threshold(_which: Threshold, _bytes: u64) -> bool {
    false
}

/// glibc's `malloc_trim(0)`: every arena's free pages back to the system.
#[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
#[allow(unsafe_code)]
fn give_back_free_pages() {
    // SAFETY: `malloc_trim` takes no pointer and touches only malloc's own state; it is
    // thread-safe (it takes each arena's lock in turn) and may be called at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu", not(miri))))]
fn give_back_free_pages() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_only_once_enough_was_freed() {
        let t = Trimmer::new();
        assert!(!t.tick(), "nothing freed");
        t.freed(WORTH_TRIMMING as usize - 1);
        assert!(!t.tick(), "less than worth trimming");
        t.freed(1);
        assert_eq!(t.tick(), SUPPORTED);
        assert!(!t.tick(), "what was freed is counted once");
        assert_eq!(t.trims(), u64::from(SUPPORTED));
    }

    #[test]
    fn a_buffer_a_burst_grew_is_released_once_a_period_does_not_need_it() {
        let mut peak = Peak::default();
        let mut buf = BytesMut::with_capacity(16);
        buf.extend_from_slice(&[1; 400 << 10]);
        peak.saw(buf.len());
        let grown = buf.capacity();
        // Each call ends a period.
        assert_eq!(peak.release_oversized(&mut buf, 16), 0, "not empty");
        let frame = buf.split().freeze();
        assert_eq!(
            peak.release_oversized(&mut buf, 16),
            0,
            "needed this period"
        );
        drop(frame);
        assert_eq!(
            peak.release_oversized(&mut buf, 16),
            grown,
            "a period that did not need it"
        );
        assert_eq!(buf.capacity(), 16);
        assert_eq!(peak.release_oversized(&mut buf, 16), 0);
    }

    #[test]
    fn a_frame_split_off_stays_whole_when_its_buffer_is_released() {
        let mut peak = Peak::default();
        let mut buf = BytesMut::with_capacity(400 << 10);
        buf.extend_from_slice(&[1; 100]);
        let frame = buf.split().freeze();
        // The buffer lets go of its share; the block goes when the frame does.
        assert!(peak.release_oversized(&mut buf, 16) > KEEP_UP_TO);
        assert_eq!(&frame[..], &[1; 100][..]);
    }

    #[test]
    fn a_buffer_the_steady_load_needs_is_kept() {
        let mut peak = Peak::default();
        let mut buf = BytesMut::with_capacity(1 << 20);
        for _ in 0..3 {
            buf.extend_from_slice(&[1; 300 << 10]);
            peak.saw(buf.len());
            buf.clear();
            assert_eq!(peak.release_oversized(&mut buf, 16), 0);
        }
        assert_eq!(buf.capacity(), 1 << 20);
    }

    #[test]
    fn a_table_far_below_its_room_gives_it_back() {
        let mut v: Vec<u64> = (0..4096).collect();
        v.truncate(100);
        assert_eq!(shrink_idle(&mut v, 64), (4096 - v.capacity()) * 8);
        assert!((200..1024).contains(&v.capacity()), "{}", v.capacity());
        assert_eq!(v[99], 99, "what it holds stays");
        // Twice what it holds is not far below: kept.
        let room = v.capacity();
        assert_eq!(shrink_idle(&mut v, 64), 0);
        assert_eq!(v.capacity(), room);
        // Empty: down to `least`, not below.
        let mut q: VecDeque<u64> = VecDeque::with_capacity(8192);
        q.push_back(1);
        assert!(shrink_idle(&mut q, 1024) > 0);
        assert!((1024..2048).contains(&q.capacity()), "{}", q.capacity());
        assert_eq!(shrink_idle(&mut q, 1024), 0, "at its least room");
    }

    #[test]
    fn a_slab_gives_back_the_vacant_room_past_its_last_entry() {
        let mut s: Slab<[u64; 4]> = Slab::new();
        let keys: Vec<usize> = (0..1000).map(|i| s.insert([i; 4])).collect();
        for &k in &keys[10..] {
            s.remove(k);
        }
        let room = s.capacity();
        assert!(shrink_idle(&mut s, 16) > 0);
        assert!(s.capacity() < room / 4, "{} of {room}", s.capacity());
        // The keys held stay valid, and the slab fills on.
        assert_eq!(s[keys[9]], [9; 4]);
        let k = s.insert([7; 4]);
        assert_eq!(s[k], [7; 4]);
        assert_eq!(s.len(), 11);
        // A full slab is left alone.
        assert_eq!(shrink_idle(&mut s, 16), 0);
    }

    /// What one trim costs with a few MiB of heap freed in pieces (the soak's case): printed,
    /// and held under a bound that a loaded machine still meets.
    #[test]
    #[cfg_attr(miri, ignore = "no malloc_trim under Miri")]
    fn trims_cost_little() {
        // 8 MiB in 16 KiB pieces, every other one freed: free chunks between live ones,
        // which only a trim gives back.
        let mut pieces: Vec<Vec<u8>> = (0..512).map(|i| vec![i as u8; 16 << 10]).collect();
        let mut i = 0;
        pieces.retain(|_| {
            i += 1;
            i % 2 == 0
        });
        let t = Trimmer::new();
        t.freed(4 << 20);
        assert_eq!(t.tick(), SUPPORTED);
        let spent = t.trim_time();
        println!("one malloc_trim(0) with 4 MiB live and 4 MiB freed: {spent:?}");
        assert!(spent < Duration::from_millis(50), "{spent:?}");
        drop(pieces);
    }
}
