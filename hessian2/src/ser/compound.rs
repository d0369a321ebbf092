//! The serde compound serializers: lists, maps and variants ([`Compound`]) and structs
//! ([`StructSer`]), which write each element or field through their [`Serializer`].

use bytes::BufMut;
use serde::ser::{self, Serialize};

use super::layout::{self, Key, Layout};
use super::{message, Serializer};
use crate::error::{Error, Result};

/// A list, map or variant being written.
pub struct Compound<'a, B> {
    pub(super) ser: &'a mut Serializer<B>,
    /// `Z`s to write at the end.
    pub(super) ends: u8,
}

impl<B: BufMut> Compound<'_, B> {
    #[inline(always)]
    fn finish(self) -> Result<()> {
        for _ in 0..self.ends {
            self.ser.enc.write_end();
        }
        Ok(())
    }
}

/// The list-like serde traits of [`Compound`]: each item is the next value of the list.
macro_rules! list_compound {
    ($($trait:ident::$method:ident),*) => {$(
        impl<B: BufMut> ser::$trait for Compound<'_, B> {
            type Ok = ();
            type Error = Error;

            #[inline(always)]
            fn $method<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
                self.ser.put(value)
            }

            #[inline(always)]
            fn end(self) -> Result<()> {
                self.finish()
            }
        }
    )*};
}

list_compound!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl<B: BufMut> ser::SerializeMap for Compound<'_, B> {
    type Ok = ();
    type Error = Error;

    #[inline]
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.ser.put(key)
    }

    #[inline]
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.ser.put(value)
    }

    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl<B: BufMut> ser::SerializeStructVariant for Compound<'_, B> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.ser.enc.write_str(key);
        self.ser.put(value)
    }

    fn end(self) -> Result<()> {
        self.finish()
    }
}

/// A struct being written: as an object (the normal case) or, for a struct this process has
/// not seen and whose Rust type is unknown, as a typed map.
pub struct StructSer<'a, B>(pub(super) StructState<'a, B>);

pub(super) enum StructState<'a, B> {
    Object {
        ser: &'a mut Serializer<B>,
        layout: &'static Layout,
        next: usize,
    },
    Map {
        ser: &'a mut Serializer<B>,
        class: &'static str,
        keys: Vec<&'static str>,
    },
}

#[cold]
fn field_mismatch(layout: &Layout, next: usize, key: &str) -> Error {
    let expected = layout
        .fields
        .get(next)
        .copied()
        .unwrap_or("the end of the struct");
    message(format!(
        "struct `{}` wrote field `{key}` where its class definition has `{expected}`: a type \
         with this serde name was seen with other fields; give each Rust struct its own name, \
         and make its Serialize impl name the same fields every time",
        layout.class
    ))
}

impl<B: BufMut> ser::SerializeStruct for StructSer<'_, B> {
    type Ok = ();
    type Error = Error;

    #[inline(always)]
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        match &mut self.0 {
            StructState::Object { ser, layout, next } => {
                if !layout.has_field_at(*next, key) {
                    return Err(field_mismatch(layout, *next, key));
                }
                *next += 1;
                ser.put(value)
            }
            StructState::Map { ser, keys, .. } => {
                keys.push(key);
                ser.enc.write_str(key);
                ser.put(value)
            }
        }
    }

    fn skip_field(&mut self, key: &'static str) -> Result<()> {
        match &mut self.0 {
            StructState::Object { ser, layout, next } => {
                if !layout.has_field_at(*next, key) {
                    return Err(field_mismatch(layout, *next, key));
                }
                *next += 1;
                ser.enc.write_null();
                Ok(())
            }
            StructState::Map { keys, .. } => {
                keys.push(key);
                Ok(())
            }
        }
    }

    #[inline(always)]
    fn end(self) -> Result<()> {
        match self.0 {
            StructState::Object { layout, next, .. } => {
                if next == layout.fields.len() {
                    Ok(())
                } else {
                    Err(field_mismatch(layout, next, "(none)"))
                }
            }
            StructState::Map { ser, class, keys } => {
                ser.enc.write_end();
                let key = Key::unknown_holder(class);
                let layout = layout::register(key, class, &keys);
                ser.st.layouts.insert(key, layout);
                Ok(())
            }
        }
    }
}
