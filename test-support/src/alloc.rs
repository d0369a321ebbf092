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

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    // A `const`-initialized `Cell` has no destructor and never allocates, so the allocator may
    // use it.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

/// [`System`], counting the allocations each thread makes. Install with `#[global_allocator]`.
#[derive(Debug, Default, Clone, Copy)]
pub struct CountingAlloc;

#[inline]
fn bump() {
    // `try_with`: during thread teardown the slot may be gone; such allocations go uncounted.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so `System`'s
// guarantees hold; the only addition is a thread-local counter that never allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump();
        // SAFETY: forwarded unchanged; the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        bump();
        // SAFETY: as above; `ptr` was allocated by `System` through this wrapper.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
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
}
