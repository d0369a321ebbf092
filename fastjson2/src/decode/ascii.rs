//! ASCII bytes as text with one pass over them. Latin-1 strings (most of what Java writes)
//! must be checked for ASCII before they can be borrowed as `&str`; `str::from_utf8` after
//! that check would read every byte a second time, byte by byte for short strings (about 8
//! instructions a byte: 11% of a `User` decode, measured).

// The one unchecked UTF-8 conversion of this crate, after `is_ascii` (see the SAFETY note).
#![allow(unsafe_code)]

/// `bytes` as text when they are all ASCII.
#[inline]
pub(crate) fn ascii_str(bytes: &[u8]) -> Option<&str> {
    if bytes.is_ascii() {
        // SAFETY: every byte is below 0x80, and a sequence of such bytes is valid UTF-8
        // (each is a one-byte code point), which is all `from_utf8_unchecked` requires.
        Some(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    //! Run under Miri too: `cargo +nightly miri test -p fastjson2 --lib ascii`.
    use super::ascii_str;

    #[test]
    fn ascii_is_borrowed_and_anything_else_refused() {
        assert_eq!(ascii_str(b""), Some(""));
        assert_eq!(ascii_str(b"alice@example.com"), Some("alice@example.com"));
        let all: Vec<u8> = (0..0x80).collect();
        assert_eq!(ascii_str(&all).map(str::len), Some(0x80));
        assert_eq!(ascii_str(&all).map(|s| s.chars().count()), Some(0x80));
        // Latin-1 and UTF-8 bytes above 0x7f are not ASCII, even when valid UTF-8.
        assert_eq!(ascii_str(b"caf\xe9"), None);
        assert_eq!(ascii_str("café".as_bytes()), None);
        assert_eq!(ascii_str(b"\x80"), None);
    }
}
