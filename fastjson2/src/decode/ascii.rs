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

/// Whether `data[start..end]` is ASCII. A name of at most 8 bytes (most field names) that ends
/// at least 8 bytes into `data` is checked with one load of the word ending where it ends, the
/// bytes before it masked out, rather than byte by byte.
#[inline(always)]
pub(crate) fn is_ascii_in(data: &[u8], start: usize, end: usize) -> bool {
    let len = end - start;
    if len <= 8 && end >= 8 {
        let word = u64::from_le_bytes(data[end - 8..end].try_into().expect("8 bytes"));
        // Little-endian: the name is the word's high `len` bytes.
        let name = u64::MAX.checked_shl(64 - 8 * len as u32).unwrap_or(0);
        word & name & 0x8080_8080_8080_8080 == 0
    } else {
        is_ascii_long(&data[start..end])
    }
}

/// The check of a longer name, out of line so that the short one inlines small.
#[inline(never)]
fn is_ascii_long(bytes: &[u8]) -> bool {
    bytes.is_ascii()
}

#[cfg(test)]
mod tests {
    //! Run under Miri too: `cargo +nightly miri test -p fastjson2 --lib ascii`.
    use super::{ascii_str, is_ascii_in};

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

    #[test]
    fn a_name_is_checked_without_the_bytes_before_it() {
        let data = b"\xff\xff\xff\xff\xff\xff\xff\xffactive\xe9name";
        for (start, end, ascii) in [
            (8, 14, true),
            (8, 8, true),
            (9, 14, true),
            (7, 14, false),
            (8, 15, false),
            (14, 15, false),
            (15, 19, true),
            (0, 0, true),
            (0, 1, false),
            (10, 19, false),
            (15, 19, true),
        ] {
            assert_eq!(is_ascii_in(data, start, end), ascii, "{start}..{end}");
            assert_eq!(data[start..end].is_ascii(), ascii, "{start}..{end}");
        }
    }
}
