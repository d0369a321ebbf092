//! A global allocator that counts allocations: the benches report allocations per operation next
//! to the timings, and tests assert that a hot path allocates nothing.
//!
//! Install it in a test or bench binary and wrap the operation in [`count`]:
//!
//! ```
//! use dubbo_test_support::alloc::{count, CountingAlloc};
//!
//! #[global_allocator]
//! static GLOBAL: CountingAlloc = CountingAlloc;
//!
//! fn main() {
//!     let (s, allocations) = count(|| String::from(std::hint::black_box("x")));
//!     assert_eq!(allocations, 1);
//!     assert_eq!(s, "x");
//! }
//! ```
//!
//! Counts are kept per thread, so other threads (a test harness running tests in parallel, a
//! benchmark framework's helpers) do not disturb a measurement. `alloc`, `alloc_zeroed` and
//! `realloc` each count as one allocation; `dealloc` is not counted. Without `CountingAlloc`
//! installed as the global allocator, every count is 0.
//!
//! It also counts bytes: [`measure`] gives the peak of the bytes a closure held at once and
//! what it left allocated (memory one thread frees for another counts on the freeing thread).

// A global allocator is an unsafe trait: its impl forwards to `System` (see the SAFETY note).
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    // A `const`-initialized `Cell` has no destructor and never allocates, so the allocator may
    // use it.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    /// Bytes this thread allocated less the bytes it freed, and the highest that reached since
    /// [`measure`] last reset it.
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

/// [`System`], counting the allocations each thread makes. Install with `#[global_allocator]`.
#[derive(Debug, Default, Clone, Copy)]
pub struct CountingAlloc;

#[inline]
fn bump() {
    // `try_with`: during thread teardown the slot may be gone; such allocations go uncounted.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

/// Adds `delta` bytes to this thread's live count (and its peak).
#[inline]
fn add_bytes(delta: i64) {
    let Ok(live) = LIVE.try_with(|live| {
        live.set(live.get() + delta);
        live.get()
    }) else {
        return;
    };
    let _ = PEAK.try_with(|peak| peak.set(peak.get().max(live)));
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so `System`'s
// guarantees hold; the only addition is a thread-local counter that never allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump();
        add_bytes(layout.size() as i64);
        // SAFETY: forwarded unchanged; the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump();
        add_bytes(layout.size() as i64);
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        bump();
        add_bytes(new_size as i64 - layout.size() as i64);
        // SAFETY: as above; `ptr` was allocated by `System` through this wrapper.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        add_bytes(-(layout.size() as i64));
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// How many allocations the current thread has made so far (0 unless [`CountingAlloc`] is the
/// global allocator).
#[inline]
pub fn allocations() -> u64 {
    ALLOCATIONS.try_with(Cell::get).unwrap_or(0)
}

/// Runs `f` and returns its result with the number of allocations it made on this thread.
#[inline]
pub fn count<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let before = allocations();
    let result = f();
    (result, allocations() - before)
}

/// What a closure did to this thread's heap (see [`measure`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// Allocations made (as [`count`] counts them).
    pub allocations: u64,
    /// The most bytes held at once beyond what was held when the closure started.
    pub peak_bytes: u64,
    /// Bytes still held when it returned, beyond what was held when it started (not counting
    /// what it returns: drop that inside the closure to see what it left behind elsewhere).
    pub retained_bytes: i64,
}

/// Runs `f` and returns its result with its allocations, peak bytes and retained bytes on this
/// thread (all 0 unless [`CountingAlloc`] is the global allocator).
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, Usage) {
    let live = || LIVE.try_with(Cell::get).unwrap_or(0);
    let start = live();
    let _ = PEAK.try_with(|peak| peak.set(start));
    let (result, allocations) = count(f);
    let peak = PEAK.try_with(Cell::get).unwrap_or(start);
    let usage = Usage {
        allocations,
        peak_bytes: (peak - start).max(0) as u64,
        retained_bytes: live() - start,
    };
    (result, usage)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hint::black_box;

    #[global_allocator]
    static GLOBAL: CountingAlloc = CountingAlloc;

    #[test]
    fn counts_allocations_and_reallocations() {
        let (v, n) = count(|| {
            let mut v: Vec<u8> = Vec::with_capacity(1);
            v.extend_from_slice(black_box(&[1, 2, 3, 4, 5][..]));
            v
        });
        assert_eq!(n, 2, "one allocation, one growth");
        let (_, n) = count(|| drop(v));
        assert_eq!(n, 0);
        let (_, n) = count(|| black_box(1 + 1));
        assert_eq!(n, 0);
    }

    #[test]
    fn measures_peak_and_retained_bytes() {
        let (kept, usage) = measure(|| {
            drop(black_box(vec![0u8; 1000]));
            black_box(vec![0u8; 100])
        });
        assert_eq!(usage.allocations, 2);
        assert_eq!(usage.peak_bytes, 1000);
        assert_eq!(usage.retained_bytes, 100);
        let ((), usage) = measure(|| drop(kept));
        assert_eq!((usage.peak_bytes, usage.retained_bytes), (0, -100));
    }
}
