//! A value whose header was pulled, handed to a serde visitor in the form the visitor asked
//! for: a sequence, a map (maps and objects), any value, text, bytes or an enum.

use serde::de::{self, Visitor};

use super::access::{EnumMap, JavaEnum, ListAccess, MapAcc, ObjectAccess};
use super::{fix, Deserializer, Source, BYTES, ENUM_NAME, TEXT};
use crate::decode::{Header, Reference};
use crate::error::{Error, ErrorKind, Result};

impl<'de, S: Source<'de>> Deserializer<'de, S> {
    #[inline]
    pub(super) fn seq_from<V: Visitor<'de>>(
        &mut self,
        header: Header,
        at: u64,
        visitor: V,
    ) -> Result<V::Value> {
        match header {
            Header::List { len, .. } => {
                let slot = self.open()?;
                let mut access = ListAccess::new(self, len);
                let value = fix(visitor.visit_seq(&mut access), at)?;
                access.finish(at)?;
                self.close(slot);
                Ok(value)
            }
            other => self.seq_from_other(other, at, visitor),
        }
    }

    /// A sequence from anything but a list (a binary, `null`, a reference), or an error: out
    /// of line, so that the list case stays small where it is inlined.
    #[inline(never)]
    fn seq_from_other<V: Visitor<'de>>(
        &mut self,
        header: Header,
        at: u64,
        visitor: V,
    ) -> Result<V::Value> {
        match header {
            Header::Binary { len, last } => {
                let bytes = self.dec.read_binary(len, last)?;
                fix(
                    visitor.visit_seq(de::value::SeqDeserializer::<_, Error>::new(
                        bytes.iter().copied(),
                    )),
                    at,
                )
            }
            Header::Null => fix(
                visitor.visit_seq(de::value::SeqDeserializer::<_, Error>::new(
                    std::iter::empty::<()>(),
                )),
                at,
            ),
            Header::Ref(n) => {
                self.replay_pulled(n, at, |de, header| de.seq_from(header, at, visitor))
            }
            other => Err(self.invalid(other, &visitor, at)),
        }
    }

    #[inline]
    pub(super) fn map_from<V: Visitor<'de>>(
        &mut self,
        header: Header,
        at: u64,
        visitor: V,
    ) -> Result<V::Value> {
        match header {
            Header::Map { .. } => {
                let slot = self.open()?;
                let mut access = MapAcc::new(self);
                let value = fix(visitor.visit_map(&mut access), at)?;
                access.finish()?;
                self.close(slot);
                Ok(value)
            }
            Header::Object { class } => {
                let slot = self.open()?;
                let mut access = ObjectAccess::new(self, class);
                let value = fix(visitor.visit_map(&mut access), at)?;
                access.finish()?;
                self.close(slot);
                Ok(value)
            }
            other => self.map_from_other(other, at, visitor),
        }
    }

    /// A map from `null` or a reference, or an error: out of line, as `seq_from_other`.
    #[inline(never)]
    fn map_from_other<V: Visitor<'de>>(
        &mut self,
        header: Header,
        at: u64,
        visitor: V,
    ) -> Result<V::Value> {
        match header {
            Header::Null => fix(
                visitor.visit_map(de::value::MapDeserializer::<_, Error>::new(
                    std::iter::empty::<((), ())>(),
                )),
                at,
            ),
            Header::Ref(n) => {
                self.replay_pulled(n, at, |de, header| de.map_from(header, at, visitor))
            }
            other => Err(self.invalid(other, &visitor, at)),
        }
    }

    pub(super) fn any_from<V: Visitor<'de>>(
        &mut self,
        header: Header,
        at: u64,
        visitor: V,
    ) -> Result<V::Value> {
        let result = match header {
            Header::Null => visitor.visit_unit(),
            Header::Bool(v) => visitor.visit_bool(v),
            Header::Int(v) => visitor.visit_i32(v),
            Header::Long(v) | Header::Date(v) => visitor.visit_i64(v),
            Header::Double(v) => visitor.visit_f64(v),
            Header::String { len, last } => {
                return self.visit_read::<TEXT, V>(len, last, at, visitor)
            }
            Header::Binary { len, last } => {
                return self.visit_read::<BYTES, V>(len, last, at, visitor)
            }
            Header::List { .. } => return self.seq_from(header, at, visitor),
            Header::Map { .. } | Header::Object { .. } => {
                return self.map_from(header, at, visitor)
            }
            Header::Ref(n) => {
                return self.replay_pulled(n, at, |de, header| de.any_from(header, at, visitor))
            }
            Header::End => return Err(self.invalid(header, &visitor, at)),
        };
        fix(result, at)
    }

    /// A string or binary whose (first) header was read, to `visitor`: as text (`TEXT`), as
    /// a Java enum constant's name (`ENUM_NAME`) or as bytes (`BYTES`); borrowed from the
    /// input where it allows.
    #[inline]
    pub(super) fn visit_read<const AS: u8, V: Visitor<'de>>(
        &mut self,
        len: usize,
        last: bool,
        at: u64,
        visitor: V,
    ) -> Result<V::Value> {
        let value = if AS == BYTES {
            match self.dec.read_binary(len, last)? {
                Reference::Borrowed(b) => visitor.visit_borrowed_bytes(b),
                Reference::Copied(b) => visitor.visit_bytes(b),
            }
        } else {
            match self.dec.read_str(len, last)? {
                Reference::Borrowed(s) if AS == ENUM_NAME => {
                    visitor.visit_enum(JavaEnum::Borrowed(s))
                }
                Reference::Copied(s) if AS == ENUM_NAME => visitor.visit_enum(JavaEnum::Copied(s)),
                Reference::Borrowed(s) => visitor.visit_borrowed_str(s),
                Reference::Copied(s) => visitor.visit_str(s),
            }
        };
        fix(value, at)
    }

    pub(super) fn str_from<V: Visitor<'de>>(
        &mut self,
        header: Header,
        at: u64,
        visitor: V,
    ) -> Result<V::Value> {
        match header {
            Header::String { len, last } => self.visit_read::<TEXT, V>(len, last, at, visitor),
            other => Err(self.invalid(other, &visitor, at)),
        }
    }

    pub(super) fn bytes_from<V: Visitor<'de>>(
        &mut self,
        header: Header,
        at: u64,
        visitor: V,
    ) -> Result<V::Value> {
        match header {
            Header::Binary { len, last } => self.visit_read::<BYTES, V>(len, last, at, visitor),
            Header::String { .. } => self.str_from(header, at, visitor),
            Header::List { .. } | Header::Ref(_) => self.seq_from(header, at, visitor),
            other => Err(self.invalid(other, &visitor, at)),
        }
    }

    pub(super) fn enum_from<V: Visitor<'de>>(
        &mut self,
        header: Header,
        at: u64,
        visitor: V,
    ) -> Result<V::Value> {
        match header {
            Header::Object { class } => {
                let slot = self.open()?;
                let fields = self.dec.class(class).fields.clone();
                let Some(name_at) = fields.iter().position(|f| &**f == "name") else {
                    return Err(Error::new(
                        ErrorKind::Message(format!(
                            "an object of class `{}` (without a `name` field) where an enum was \
                             expected",
                            self.dec.class(class).name
                        )),
                        at,
                    ));
                };
                for _ in 0..name_at {
                    self.skip_value()?;
                }
                let name_offset = self.dec.offset();
                let value = match self.dec.pull()? {
                    Header::String { len, last } => {
                        self.visit_read::<ENUM_NAME, V>(len, last, at, visitor)?
                    }
                    other => {
                        return Err(self.invalid(other, &"an enum constant name", name_offset));
                    }
                };
                for _ in name_at + 1..fields.len() {
                    self.skip_value()?;
                }
                self.close(slot);
                Ok(value)
            }
            Header::String { len, last } => self.visit_read::<ENUM_NAME, V>(len, last, at, visitor),
            Header::Map { .. } => {
                let slot = self.open()?;
                let value = fix(visitor.visit_enum(EnumMap { de: &mut *self }), at)?;
                if !self.at_end_marker()? {
                    return Err(Error::new(
                        ErrorKind::Message(
                            "a map with more than one entry where an enum variant was expected"
                                .into(),
                        ),
                        self.dec.offset(),
                    ));
                }
                self.close(slot);
                Ok(value)
            }
            Header::Ref(n) => {
                self.replay_pulled(n, at, |de, header| de.enum_from(header, at, visitor))
            }
            other => Err(self.invalid(other, &visitor, at)),
        }
    }
}
