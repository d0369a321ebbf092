//! The arguments of a call presented to serde as one sequence (a tuple, a struct of the
//! arguments, or `()` for none), whatever reads each argument: shared by the Hessian 2 and the
//! fastjson2 bodies.

use serde::de::{DeserializeSeed, Error as _, SeqAccess, Visitor};

/// Reads the next argument of a body.
pub(crate) trait NextArg<'de> {
    /// The error of the format.
    type Error: serde::de::Error;

    /// Deserializes the next argument with `seed`.
    fn next_arg<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Self::Error>;
}

/// The `count` arguments `args` reads, as one sequence: all must be read.
pub(crate) struct ArgsDeserializer<A> {
    pub(crate) args: A,
    pub(crate) count: usize,
}

impl<'de, A: NextArg<'de>> serde::Deserializer<'de> for ArgsDeserializer<A> {
    type Error = A::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let mut seq = ArgsSeq {
            args: self.args,
            left: self.count,
        };
        let value = visitor.visit_seq(&mut seq)?;
        if seq.left > 0 {
            return Err(Self::Error::invalid_length(
                self.count - seq.left,
                &"all the arguments of the call",
            ));
        }
        Ok(value)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        if self.count == 0 {
            visitor.visit_unit()
        } else {
            self.deserialize_any(visitor)
        }
    }

    serde::forward_to_deserialize_any! {
        <W: Visitor<'de>>
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct ArgsSeq<A> {
    args: A,
    left: usize,
}

impl<'de, A: NextArg<'de>> SeqAccess<'de> for &mut ArgsSeq<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Self::Error> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        self.args.next_arg(seed).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}
