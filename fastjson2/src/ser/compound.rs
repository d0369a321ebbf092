//! Arrays, objects and variants in progress.

use bytes::BufMut;
use serde::ser::{self, Serialize};

use super::Serializer;
use crate::error::{Error, Result};

/// What closes the compound value being written.
#[derive(Clone, Copy)]
enum Close {
    /// An array: nothing (its length was written first).
    Array,
    /// An object: its end code.
    Object,
    /// A tuple variant: the end of the `{variant: [...]}` object.
    Variant,
    /// A struct variant: the ends of the inner and the `{variant: {...}}` objects.
    VariantObject,
}

/// A sequence, tuple, map or struct being serialized.
pub struct Compound<'a, B> {
    ser: &'a mut Serializer<B>,
    close: Close,
}

impl<'a, B: BufMut> Compound<'a, B> {
    pub(super) fn array(ser: &'a mut Serializer<B>) -> Self {
        Compound {
            ser,
            close: Close::Array,
        }
    }

    pub(super) fn object(ser: &'a mut Serializer<B>) -> Self {
        Compound {
            ser,
            close: Close::Object,
        }
    }

    pub(super) fn variant(ser: &'a mut Serializer<B>) -> Self {
        Compound {
            ser,
            close: Close::Variant,
        }
    }

    pub(super) fn variant_object(ser: &'a mut Serializer<B>) -> Self {
        Compound {
            ser,
            close: Close::VariantObject,
        }
    }

    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut *self.ser)
    }

    /// A POJO field: its name as a symbol, then the value.
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.ser.enc.write_static_symbol(key);
        value.serialize(&mut *self.ser)
    }

    fn finish(self) -> Result<()> {
        let enc = &mut self.ser.enc;
        match self.close {
            Close::Array => {}
            Close::Object | Close::Variant => enc.write_object_end(),
            Close::VariantObject => {
                enc.write_object_end();
                enc.write_object_end();
            }
        }
        Ok(())
    }
}

/// The four serde traits whose items are array items: `$method` writes one.
macro_rules! array_items {
    ($($trait:ident :: $method:ident),*) => {
        $(impl<B: BufMut> ser::$trait for Compound<'_, B> {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                self.item(value)
            }
            fn end(self) -> Result<()> {
                self.finish()
            }
        })*
    };
}

array_items!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl<B: BufMut> ser::SerializeMap for Compound<'_, B> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.item(key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.item(value)
    }
    fn end(self) -> Result<()> {
        self.finish()
    }
}

/// The two serde traits whose items are named fields (symbols).
macro_rules! fields {
    ($($trait:ident),*) => {
        $(impl<B: BufMut> ser::$trait for Compound<'_, B> {
            type Ok = ();
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<()> {
                self.field(key, value)
            }
            fn end(self) -> Result<()> {
                self.finish()
            }
        })*
    };
}

fields!(SerializeStruct, SerializeStructVariant);
