//! [`Symbol`]: a symbol's text (a POJO field name) kept inline when short, so that decoding an
//! object does not allocate once per field name.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

/// Bytes a symbol holds without allocating: as many as fit beside a length and the variant's
/// tag in the 24 bytes a `String` takes, so `Value` does not grow.
const INLINE: usize = 22;

/// The text of a [`Value::Symbol`](super::Value::Symbol): names of up to 22 bytes (every field
/// name seen in practice) are stored inline, longer ones in a `Box<str>`. Reads as a `&str`
/// (`Deref`, [`as_str`](Self::as_str)); compares, orders and hashes as its text.
///
/// ```
/// use fastjson2::value::Symbol;
///
/// let id = Symbol::from("id");
/// assert_eq!(id, "id");
/// assert_eq!(id.len(), 2);
/// assert_eq!(String::from(id), "id");
/// ```
#[derive(Clone)]
pub struct Symbol(Repr);

#[derive(Clone)]
enum Repr {
    /// `bytes[..len]` is the text (UTF-8, copied from a `&str`).
    Inline {
        len: u8,
        bytes: [u8; INLINE],
    },
    Heap(Box<str>),
}

impl Symbol {
    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            // Always `Ok`: the bytes were copied whole from a `&str`. Checked rather than
            // trusted, as no measurement has shown the check to cost enough to need `unsafe`.
            Repr::Inline { len, bytes } => {
                std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default()
            }
            Repr::Heap(s) => s,
        }
    }
}

impl From<&str> for Symbol {
    #[inline]
    fn from(s: &str) -> Self {
        if s.len() <= INLINE {
            let mut bytes = [0; INLINE];
            bytes[..s.len()].copy_from_slice(s.as_bytes());
            Symbol(Repr::Inline {
                len: s.len() as u8,
                bytes,
            })
        } else {
            Symbol(Repr::Heap(s.into()))
        }
    }
}

impl Symbol {
    /// A symbol of bytes known to be ASCII (a field name the decoder checked where it was
    /// defined), without a second check: `as_str` checks inline bytes anyway, and a longer
    /// name goes through `from_utf8_lossy`, which keeps ASCII as it is.
    #[inline]
    pub(crate) fn from_ascii(bytes: &[u8]) -> Self {
        if bytes.len() <= INLINE {
            let mut inline = [0; INLINE];
            inline[..bytes.len()].copy_from_slice(bytes);
            Symbol(Repr::Inline {
                len: bytes.len() as u8,
                bytes: inline,
            })
        } else {
            Symbol(Repr::Heap(String::from_utf8_lossy(bytes).into()))
        }
    }
}

impl From<String> for Symbol {
    fn from(s: String) -> Self {
        if s.len() <= INLINE {
            Symbol::from(s.as_str())
        } else {
            Symbol(Repr::Heap(s.into_boxed_str()))
        }
    }
}

impl From<Symbol> for String {
    fn from(s: Symbol) -> Self {
        match s.0 {
            Repr::Heap(s) => s.into_string(),
            Repr::Inline { .. } => s.as_str().to_owned(),
        }
    }
}

impl Deref for Symbol {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Symbol {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Symbol {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Symbol {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Symbol {}

impl PartialEq<str> for Symbol {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Symbol {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialOrd for Symbol {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Symbol {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Symbol {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::Symbol;

    #[test]
    fn short_and_long_names_read_back() {
        for s in [
            "",
            "id",
            "é",
            "exactly_22_bytes_long_",
            "twenty-three bytes long",
            "日本語の長いフィールド名前",
        ] {
            let sym = Symbol::from(s);
            assert_eq!(sym.as_str(), s);
            assert_eq!(Symbol::from(s.to_owned()), sym);
            assert_eq!(String::from(sym.clone()), s);
            assert_eq!(format!("{sym:?}"), format!("{s:?}"));
            if s.is_ascii() {
                assert_eq!(Symbol::from_ascii(s.as_bytes()), sym);
            }
        }
        let (a, b) = (Symbol::from("a"), Symbol::from("b"));
        assert_eq!(a.cmp(&b), std::cmp::Ordering::Less);
    }

    #[test]
    fn no_bigger_than_a_string() {
        assert_eq!(std::mem::size_of::<Symbol>(), std::mem::size_of::<String>());
    }
}
