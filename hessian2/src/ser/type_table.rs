//! The serializer's table of list and map type names (`[double`, `java.util.ArrayList`, ...).
//!
//! Hessian writes a type name in full the first time a stream uses it, and as its index (in
//! order of first use) afterwards. The serializer's names are `&'static str`s (serde names and
//! the crate's constants), recognised by address: the same text may sit at several addresses
//! (a constant is not always merged), so each address maps to a *name number*, one per distinct
//! text, and each name number to its index in the current stream.
//!
//! What an address and a text map to is learned once and kept across streams (up to
//! [`KEPT`] addresses); a new stream only forgets the indexes ([`StreamSlots`]). So the first
//! use of a name in a stream is a scan of a few addresses and a store, with no string
//! comparison.

use super::layout::FxMap;
use super::stream_slots::StreamSlots;
use crate::encode::TypeRef;

/// Addresses scanned before the table hashes them instead.
const FEW: usize = 8;

/// Addresses kept across streams; past that, a reset forgets them all (bounding the memory of
/// a program that makes names at run time).
const KEPT: usize = 512;

#[derive(Default)]
pub(crate) struct TypeTable {
    /// Each address met (with its length: the `&'static str`) and its name number; scanned
    /// while there are at most [`FEW`], then hashed into `by_addr`.
    addrs: Vec<(&'static str, u32)>,
    /// Address and length to name number, once past [`FEW`] addresses.
    by_addr: FxMap<(usize, usize), u32>,
    /// The text of each name number.
    names: Vec<&'static str>,
    /// Per name number: its index in this stream.
    slots: StreamSlots,
    /// Names used in this stream: the index of the next one.
    used: u32,
}

impl TypeTable {
    /// The name in full the first time in the stream, its index afterwards.
    #[inline]
    pub fn get(&mut self, ty: &'static str) -> TypeRef<'static> {
        let number = if self.addrs.len() <= FEW {
            self.addrs
                .iter()
                .find(|(t, _)| std::ptr::eq(*t, ty))
                .map(|&(_, n)| n)
        } else {
            self.hashed(ty)
        };
        let number = number.unwrap_or_else(|| self.learn(ty)) as usize;
        if let Some(index) = self.slots.get(number) {
            return TypeRef::Index(index);
        }
        // The first use in this stream: the next index.
        self.slots.set(number, self.used);
        self.used += 1;
        TypeRef::New(ty)
    }

    /// Starts a new stream: no name has an index.
    #[inline]
    pub fn reset(&mut self) {
        self.used = 0;
        self.slots.reset();
        if self.addrs.len() > KEPT {
            self.forget();
        }
    }

    #[cold]
    fn forget(&mut self) {
        *self = TypeTable::default();
    }

    #[inline(never)]
    fn hashed(&self, ty: &'static str) -> Option<u32> {
        self.by_addr.get(&key(ty)).copied()
    }

    /// The name number of an address not met before: that of an equal text, or a new one.
    #[cold]
    fn learn(&mut self, ty: &'static str) -> u32 {
        let number = match self.names.iter().position(|&t| t == ty) {
            Some(n) => n as u32,
            None => {
                self.names.push(ty);
                (self.names.len() - 1) as u32
            }
        };
        self.addrs.push((ty, number));
        if self.addrs.len() > FEW {
            if self.by_addr.is_empty() {
                // From scanning to hashing: every address so far.
                for &(name, n) in &self.addrs {
                    self.by_addr.insert(key(name), n);
                }
            }
            self.by_addr.insert(key(ty), number);
        }
        number
    }
}

/// A `'static` name's address and length.
#[inline]
fn key(ty: &'static str) -> (usize, usize) {
    (ty.as_ptr() as usize, ty.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two addresses of one text share an index; indexes restart in each stream, in order of
    /// first use, past the switch from scanning to hashing.
    #[test]
    fn indexes_follow_first_use_per_stream() {
        let texts: Vec<&'static str> = vec![
            "[a", "[b", "[c", "[d", "[e", "[f", "[g", "[h", "[i", "[j", "[k", "[l", "[m", "[n",
            "[o", "[p", "[q", "[r", "[s", "[t",
        ];
        // The text of `texts[1]` at another address (a `static` has an address of its own).
        static TWIN: [u8; 2] = *b"[b";
        let twin: &'static str = std::str::from_utf8(&TWIN).unwrap();
        assert!(twin == texts[1] && !std::ptr::eq(twin, texts[1]));
        let mut table = TypeTable::default();
        for stream in 0..3 {
            // Each stream uses the names in another order.
            let order: Vec<&'static str> = match stream {
                1 => texts.iter().rev().copied().collect(),
                _ => texts.clone(),
            };
            for (i, &t) in order.iter().enumerate() {
                assert_eq!(table.get(t), TypeRef::New(t), "stream {stream}");
                assert_eq!(table.get(t), TypeRef::Index(i as u32));
            }
            let first = order.iter().position(|&t| t == twin).unwrap() as u32;
            assert_eq!(table.get(twin), TypeRef::Index(first));
            table.reset();
        }
        assert_eq!(table.names.len(), 20);
        assert_eq!(table.addrs.len(), 21);
    }
}
