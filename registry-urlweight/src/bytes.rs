//! Byte search for the short haystacks of URLs.
//!
//! `memchr::memchr` picks its AVX2 code through a function pointer at every call, which on a
//! haystack of a few dozen or hundred bytes costs about as much as the search. On x86-64, SSE2 is
//! always there, so its searcher is called directly and can be inlined; elsewhere the generic
//! functions are used.

#[cfg(target_arch = "x86_64")]
mod imp {
    use memchr::arch::x86_64::sse2::memchr::One;

    #[inline]
    pub fn find(needle: u8, haystack: &[u8]) -> Option<usize> {
        match One::new(needle) {
            Some(one) => one.find(haystack),
            None => memchr::memchr(needle, haystack),
        }
    }

    #[inline]
    pub fn rfind(needle: u8, haystack: &[u8]) -> Option<usize> {
        match One::new(needle) {
            Some(one) => one.rfind(haystack),
            None => memchr::memrchr(needle, haystack),
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod imp {
    #[inline]
    pub fn find(needle: u8, haystack: &[u8]) -> Option<usize> {
        memchr::memchr(needle, haystack)
    }

    #[inline]
    pub fn rfind(needle: u8, haystack: &[u8]) -> Option<usize> {
        memchr::memrchr(needle, haystack)
    }
}

pub(crate) use imp::{find, rfind};
