//! The counting global allocator of the benches: [`dubbo_test_support::alloc`], which the
//! tests share, re-exported so that a bench writes `use benches::alloc::{count, CountingAlloc}`.
//!
//! Install it in a bench binary and wrap the operation in [`count`]:
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
//! Counts are kept per thread, so a benchmark framework's helpers do not disturb a
//! measurement. Without `CountingAlloc` installed as the global allocator, every count is 0.

pub use dubbo_test_support::alloc::{allocations, count, CountingAlloc};

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;
    use std::hint::black_box;

    #[global_allocator]
    static GLOBAL: CountingAlloc = CountingAlloc;

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
