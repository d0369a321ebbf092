//! One part of a value ([`Scalar`]), a value's parts ([`Scalars`], at most seven, kept inline so
//! a value's parts cost no allocation beyond its bytes), and the serde plumbing that moves them.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

/// The most parts a value has (an `OffsetDateTime`).
const MOST: usize = 8;

/// One part. A format that captures parts may give any integer type (`Int`); the parts a value
/// gives out are in their natural types, so that formats that are not self-describing read back
/// what they wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum Scalar {
    #[default]
    Missing,
    U8(u8),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    Int(i128),
    Bytes(Vec<u8>),
}

impl Scalar {
    /// The number, whatever its integer type; `None` for bytes.
    pub(crate) fn int(&self) -> Option<i128> {
        Some(match *self {
            Scalar::U8(v) => v.into(),
            Scalar::I32(v) => v.into(),
            Scalar::U32(v) => v.into(),
            Scalar::I64(v) => v.into(),
            Scalar::U64(v) => v.into(),
            Scalar::Int(v) => v,
            Scalar::Missing | Scalar::Bytes(_) => return None,
        })
    }
}

/// The kind of a part, which says how a format that is not self-describing reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    U8,
    I32,
    U32,
    I64,
    U64,
    Bytes,
}

/// A value's parts in order.
#[derive(Debug, Default)]
pub(crate) struct Scalars {
    items: [Scalar; MOST],
    len: usize,
}

impl Scalars {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_full(&self) -> bool {
        self.len == MOST
    }

    /// Appends `v`; ignored when full (callers check [`Self::is_full`]).
    pub(crate) fn push(&mut self, v: Scalar) {
        if let Some(slot) = self.items.get_mut(self.len) {
            *slot = v;
            self.len += 1;
        }
    }

    /// Part `i` ([`Scalar::Missing`] past the end).
    pub(crate) fn get(&self, i: usize) -> &Scalar {
        self.items[..self.len].get(i).unwrap_or(&Scalar::Missing)
    }

    /// Part `i`, moved out.
    pub(crate) fn take(&mut self, i: usize) -> Scalar {
        self.items[..self.len]
            .get_mut(i)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &Scalar> {
        self.items[..self.len].iter()
    }

    /// The parts as a sequence a `Visitor` takes (`visit_seq`), with the error type `E` of the
    /// format that hands them over.
    pub(crate) fn into_seq<E>(self) -> Seq<E> {
        Seq {
            scalars: self,
            next: 0,
            _e: PhantomData,
        }
    }
}

impl Serialize for Scalar {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Scalar::U8(v) => s.serialize_u8(v),
            Scalar::I32(v) => s.serialize_i32(v),
            Scalar::U32(v) => s.serialize_u32(v),
            Scalar::I64(v) => s.serialize_i64(v),
            Scalar::U64(v) => s.serialize_u64(v),
            Scalar::Int(v) => s.serialize_i128(v),
            Scalar::Bytes(ref b) => s.serialize_bytes(b),
            Scalar::Missing => s.serialize_unit(),
        }
    }
}

/// Reads one part of a known kind.
pub(crate) struct KindSeed(pub(crate) Kind);

impl<'de> DeserializeSeed<'de> for KindSeed {
    type Value = Scalar;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Scalar, D::Error> {
        match self.0 {
            Kind::U8 => d.deserialize_u8(ScalarVisitor),
            Kind::I32 => d.deserialize_i32(ScalarVisitor),
            Kind::U32 => d.deserialize_u32(ScalarVisitor),
            Kind::I64 => d.deserialize_i64(ScalarVisitor),
            Kind::U64 => d.deserialize_u64(ScalarVisitor),
            Kind::Bytes => d.deserialize_byte_buf(ScalarVisitor),
        }
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an integer or bytes")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar, E> {
        Ok(Scalar::Int(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar, E> {
        Ok(Scalar::Int(v.into()))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Scalar, E> {
        Ok(Scalar::Int(v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Scalar, E> {
        Ok(Scalar::Bytes(v.to_vec()))
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Scalar, E> {
        Ok(Scalar::Bytes(v))
    }

    /// Bytes written as a sequence of numbers (formats with no bytes type).
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
        let mut b = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(v) = seq.next_element::<u8>()? {
            b.push(v);
        }
        Ok(Scalar::Bytes(b))
    }
}

/// A value's parts as a serde sequence, each part handed over in its own type.
pub(crate) struct Seq<E> {
    scalars: Scalars,
    next: usize,
    _e: PhantomData<E>,
}

impl<'de, E: de::Error> de::SeqAccess<'de> for Seq<E> {
    type Error = E;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, E> {
        if self.next == self.scalars.len() {
            return Ok(None);
        }
        let part = self.scalars.take(self.next);
        self.next += 1;
        seed.deserialize(Part::<E>(part, PhantomData)).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.scalars.len() - self.next)
    }
}

/// One part as a `Deserializer`: it gives what it holds, whatever is asked.
struct Part<E>(Scalar, PhantomData<E>);

impl<'de, E: de::Error> Deserializer<'de> for Part<E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, E> {
        match self.0 {
            Scalar::U8(n) => v.visit_u8(n),
            Scalar::I32(n) => v.visit_i32(n),
            Scalar::U32(n) => v.visit_u32(n),
            Scalar::I64(n) => v.visit_i64(n),
            Scalar::U64(n) => v.visit_u64(n),
            Scalar::Int(n) => v.visit_i128(n),
            Scalar::Bytes(b) => v.visit_byte_buf(b),
            Scalar::Missing => v.visit_unit(),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}
