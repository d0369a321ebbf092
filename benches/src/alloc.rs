//! A global allocator that counts allocations, to report allocations per operation next to the
//! timings.
//!
//! Install it in a bench (or test) binary and wrap the operation in [`count`]:
//!
//! ```ignore
//! use benches::alloc::{count, CountingAlloc};
//!
//! #[global_allocator]
//! static GLOBAL: CountingAlloc = CountingAlloc;
//!
//! let (_, allocations) = count(|| String::from("x"));
//! assert_eq!(allocations, 1);
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
    use std::borrow::Cow;
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

    /// The crate's promise: nothing allocates unless the URL changes or decoding is needed.
    #[test]
    fn registry_urlweight_allocates_only_for_changes() {
        use registry_urlweight as rw;
        let url = "dubbo://10.0.0.1:20880/org.apache.dubbo.demo.DemoService?anyhost=true&application=demo&methods=sayHello&timestamp=1700000000000&weight=100";
        let pinned = "dubbo://10.0.0.1:20880/S?lidc_weight=2&weight=100";
        let (r, n) = count(|| rw::assemble_url_weight(black_box(url), 1));
        assert!(matches!(r, Cow::Borrowed(_)));
        assert_eq!(n, 0);
        let (r, n) = count(|| rw::assemble_url_weight(black_box(pinned), 60));
        assert!(matches!(r, Cow::Borrowed(_)));
        assert_eq!(n, 0);
        let (_, n) = count(|| {
            black_box(rw::get_param(black_box(url), "weight"));
            black_box(rw::effective_weight(black_box(url), 60));
            black_box(rw::warmup_weight(
                black_box(url),
                Some("sayHello"),
                1_700_000_060_000,
            ));
            black_box(rw::set_param(black_box(url), "weight", "100").ok());
            black_box(rw::remove_param(black_box(url), "group"));
            for p in rw::params(black_box(url)) {
                black_box((p.decoded_key(), p.decoded_value()));
            }
            black_box(rw::DubboUrl::parse(black_box(url)).ok());
        });
        assert_eq!(n, 0);
        let (r, n) = count(|| rw::assemble_url_weight(black_box(url), 60));
        assert!(matches!(r, Cow::Owned(_)));
        assert_eq!(n, 1, "exactly one allocation for the new URL");
    }
}
