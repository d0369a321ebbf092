//! Two small serializers that look at a value instead of writing it: [`Probe`] learns a
//! struct's field names (see [`layout`](super::layout)), [`Millis`] takes the `i64` out of a
//! [`Date`](crate::types::Date).

use serde::ser::{self, Impossible, Serialize};

use crate::error::{Error, ErrorKind, Result};

fn refused(what: &'static str) -> Error {
    Error::new(ErrorKind::Message(what.to_owned()), 0)
}

/// Methods that only return an error.
macro_rules! refuse {
    ($msg:expr; $($method:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            fn $method(self, $($arg: $ty),*) -> Result<Self::Ok> {
                let _ = ($($arg,)*);
                Err(refused($msg))
            }
        )*
    };
}

/// Refusals of every method except the struct ones and the integer ones, which each user
/// writes itself.
macro_rules! refuse_rest {
    ($msg:expr) => {
        refuse! { $msg;
            serialize_bool(v: bool);
            serialize_f32(v: f32);
            serialize_f64(v: f64);
            serialize_char(v: char);
            serialize_str(v: &str);
            serialize_bytes(v: &[u8]);
            serialize_none();
            serialize_unit();
            serialize_unit_struct(name: &'static str);
            serialize_unit_variant(name: &'static str, index: u32, variant: &'static str);
        }

        fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<Self::Ok> {
            Err(refused($msg))
        }
        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok> {
            Err(refused($msg))
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
            Err(refused($msg))
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
            Err(refused($msg))
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct> {
            Err(refused($msg))
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant> {
            Err(refused($msg))
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
            Err(refused($msg))
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant> {
            Err(refused($msg))
        }
    };
}

const NOT_A_STRUCT: &str =
    "a value serialized as a struct, then as something else: its Serialize impl is not deterministic";

/// Records the class and field names of the struct a value serializes as, without serializing
/// the field values.
#[derive(Default)]
pub(crate) struct Probe {
    pub class: &'static str,
    pub fields: Vec<&'static str>,
}

impl ser::Serializer for &mut Probe {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), Error>;

    refuse! { NOT_A_STRUCT;
        serialize_i8(v: i8);
        serialize_i16(v: i16);
        serialize_i32(v: i32);
        serialize_i64(v: i64);
        serialize_i128(v: i128);
        serialize_u8(v: u8);
        serialize_u16(v: u16);
        serialize_u32(v: u32);
        serialize_u64(v: u64);
        serialize_u128(v: u128);
    }
    refuse_rest!(NOT_A_STRUCT);

    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, _: &T) -> Result<()> {
        Err(refused(NOT_A_STRUCT))
    }

    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Self> {
        self.class = name;
        self.fields.clear();
        Ok(self)
    }

    /// As the real serializer: a type that picks its form by this must pick the same one.
    fn is_human_readable(&self) -> bool {
        false
    }
}

impl ser::SerializeStruct for &mut Probe {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, _: &T) -> Result<()> {
        self.fields.push(key);
        Ok(())
    }

    fn skip_field(&mut self, key: &'static str) -> Result<()> {
        self.fields.push(key);
        Ok(())
    }

    fn end(self) -> Result<()> {
        Ok(())
    }
}

const NOT_MILLIS: &str = "a Date must hold an integer number of milliseconds";

/// Takes the integer out of a `Date`.
pub(crate) struct Millis;

impl ser::Serializer for Millis {
    type Ok = i64;
    type Error = Error;
    type SerializeSeq = Impossible<i64, Error>;
    type SerializeTuple = Impossible<i64, Error>;
    type SerializeTupleStruct = Impossible<i64, Error>;
    type SerializeTupleVariant = Impossible<i64, Error>;
    type SerializeMap = Impossible<i64, Error>;
    type SerializeStruct = Impossible<i64, Error>;
    type SerializeStructVariant = Impossible<i64, Error>;

    fn serialize_i8(self, v: i8) -> Result<i64> {
        Ok(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<i64> {
        Ok(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<i64> {
        Ok(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<i64> {
        Ok(v)
    }
    fn serialize_i128(self, v: i128) -> Result<i64> {
        i64::try_from(v).map_err(|_| refused(NOT_MILLIS))
    }
    fn serialize_u8(self, v: u8) -> Result<i64> {
        Ok(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<i64> {
        Ok(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<i64> {
        Ok(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<i64> {
        i64::try_from(v).map_err(|_| refused(NOT_MILLIS))
    }
    fn serialize_u128(self, v: u128) -> Result<i64> {
        i64::try_from(v).map_err(|_| refused(NOT_MILLIS))
    }
    refuse_rest!(NOT_MILLIS);

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<i64> {
        value.serialize(self)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(refused(NOT_MILLIS))
    }
}
