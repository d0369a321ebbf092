//! The serde `Serializer`: Rust values to JSONB, the way Dubbo's fastjson2 writes Java values.
//!
//! | Rust | JSONB (Java) |
//! |---|---|
//! | `bool` | `true` / `false` |
//! | `i8`, `i16` | `byte`, `short` forms |
//! | `i32`, `u8`, `u16` | int32 (`int`) |
//! | `i64`, `u32`, `u64` (up to `i64::MAX`) | int64 (`long`) |
//! | `f32`, `f64` | `float`, `double` |
//! | `char` | `char` (`0x90`); outside the BMP a string |
//! | `str`, `String` | string, in Java's choice of Latin-1 / UTF-8 / UTF-16 |
//! | `&[u8]` with `serde_bytes`, `bytes::Bytes` | `byte[]` (binary) |
//! | `None`, `()`, unit struct | `null` |
//! | sequence, tuple | array (the length must be known) |
//! | map | object, keys as values (`String` keys as strings, as Java writes a `HashMap`) |
//! | struct `#[serde(rename = "com.example.User")]` | a POJO: its class name (`0x92`), then an object whose field names are symbols |
//! | unit variant | its name (Java reads an enum from its name) |
//! | other variants | an object `{variant: value}` |
//! | [`crate::types`] | their own forms (`Date`, `BigDecimal`, `LocalDate`, ...) |
//! | newtype struct `#[serde(rename = "[D")]` (a name starting with `[`) | its class name, then the value: a Java array held as `Object` |
//!
//! Java writes a POJO's class name only where the declared type does not already say it (a
//! field declared `User` holding a `User` has none, an enum field is its ordinal); serde cannot
//! know declared types, so every struct carries its name, which Java accepts everywhere (Dubbo
//! reads with autotype on for its allowed classes), unless it is wrapped in
//! [`crate::types::Declared`], which writes Java's own bytes there. Field order is the struct's: declare fields in name order to get
//! Java's bytes (fastjson2's `FieldBased` writes fields sorted by name), and skip `None` fields
//! (`#[serde(skip_serializing_if = "Option::is_none")]`) as Java's `NotWriteDefaultValue` does.

mod compound;

use bytes::BufMut;
use serde::ser::{self, Serialize};

use crate::encode::{Encoder, PeerVersion};
use crate::error::{Error, ErrorKind, Result};

pub use compound::Compound;

/// Serde name by which [`crate::types`] hand their already encoded JSONB bytes to this
/// serializer.
pub(crate) const RAW: &str = "$fastjson2::raw";

/// Serde name of a tuple struct `(class name, value)`: a value whose Java class is known only
/// at run time (an enum constant's class), written as Java writes it, the class name and then
/// the value (see `crate::types::named`).
pub(crate) const TYPED: &str = "$fastjson2::typed";

/// Serde name of the class name inside a [`TYPED`] tuple: a newtype around the name's UTF-8
/// bytes (`serialize_bytes` is never on a hot path, `serialize_str` is).
pub(crate) const TYPE_NAME: &str = "$fastjson2::type_name";

/// Serde name of [`crate::types::Declared`]: the next struct is written without its class name,
/// the next unit variant as its index.
pub(crate) const DECLARED: &str = "$fastjson2::declared";

/// What the next `serialize_bytes` carries.
#[derive(Clone, Copy, Default)]
enum NextBytes {
    /// A `byte[]`.
    #[default]
    Binary,
    /// Already encoded JSONB (see [`RAW`]).
    Raw,
    /// A class name (see [`TYPE_NAME`]).
    TypeName,
}

/// Bytes [`to_vec`] starts with: a POJO of a few fields, or two nested, in one allocation
/// (an allocation of 256 bytes costs what one of 128 does; growing costs a copy).
pub(crate) const INITIAL_CAPACITY: usize = 256;

/// Serializes `value` as one JSONB document.
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(INITIAL_CAPACITY);
    to_writer(&mut out, value)?;
    Ok(out)
}

/// Serializes `value` as one JSONB document into `out`.
pub fn to_writer<B: BufMut, T: Serialize + ?Sized>(out: B, value: &T) -> Result<()> {
    let mut s = Serializer::new(out);
    value.serialize(&mut s)
}

/// A serde serializer writing one JSONB document.
pub struct Serializer<B> {
    enc: Encoder<B>,
    /// What the next `serialize_bytes` carries.
    next_bytes: NextBytes,
    /// Inside a [`DECLARED`] value, before its struct or unit variant: the class is the
    /// declared one (cleared where an array or map starts, whose items are not declared so).
    declared: bool,
}

impl<B: BufMut> Serializer<B> {
    /// A serializer writing into `out` as fastjson2 2.0.52 does.
    pub fn new(out: B) -> Self {
        Self::with_version(out, PeerVersion::default())
    }

    /// A serializer writing into `out` as fastjson2 `version` does.
    pub fn with_version(out: B, version: PeerVersion) -> Self {
        Serializer {
            enc: Encoder::with_version(out, version),
            next_bytes: NextBytes::Binary,
            declared: false,
        }
    }

    /// The output.
    pub fn into_inner(self) -> B {
        self.enc.into_inner()
    }

    /// Starts a new document, keeping the symbol table's memory: a serializer reused this way
    /// (with its output cleared through [`get_mut`](Self::get_mut)) writes each message
    /// without allocating, as Dubbo reuses one writer per connection.
    ///
    /// ```
    /// let mut ser = fastjson2::Serializer::new(Vec::new());
    /// for id in [1i64, 2] {
    ///     ser.reset();
    ///     ser.get_mut().clear();
    ///     serde::Serialize::serialize(&id, &mut ser)?;
    ///     assert_eq!(fastjson2::from_slice::<i64>(ser.get_ref())?, id);
    /// }
    /// # Ok::<(), fastjson2::Error>(())
    /// ```
    pub fn reset(&mut self) {
        self.enc.reset();
        self.next_bytes = NextBytes::Binary;
        self.declared = false;
    }

    /// The output, read-only.
    pub fn get_ref(&self) -> &B {
        self.enc.get_ref()
    }

    /// The output (to clear it between messages, or to write raw bytes into).
    pub fn get_mut(&mut self) -> &mut B {
        self.enc.get_mut()
    }
}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::new(ErrorKind::Message(msg.to_string()), 0)
    }
}

impl<'a, B: BufMut> ser::Serializer for &'a mut Serializer<B> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, B>;
    type SerializeTuple = Compound<'a, B>;
    type SerializeTupleStruct = Compound<'a, B>;
    type SerializeTupleVariant = Compound<'a, B>;
    type SerializeMap = Compound<'a, B>;
    type SerializeStruct = Compound<'a, B>;
    type SerializeStructVariant = Compound<'a, B>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_bool(self, v: bool) -> Result<()> {
        self.enc.write_bool(v);
        Ok(())
    }

    fn serialize_i8(self, v: i8) -> Result<()> {
        self.enc.write_byte(v);
        Ok(())
    }

    fn serialize_i16(self, v: i16) -> Result<()> {
        self.enc.write_short(v);
        Ok(())
    }

    fn serialize_i32(self, v: i32) -> Result<()> {
        self.enc.write_int(v);
        Ok(())
    }

    fn serialize_i64(self, v: i64) -> Result<()> {
        self.enc.write_long(v);
        Ok(())
    }

    fn serialize_u8(self, v: u8) -> Result<()> {
        self.serialize_i32(i32::from(v))
    }

    fn serialize_u16(self, v: u16) -> Result<()> {
        self.serialize_i32(i32::from(v))
    }

    fn serialize_u32(self, v: u32) -> Result<()> {
        self.serialize_i64(i64::from(v))
    }

    fn serialize_u64(self, v: u64) -> Result<()> {
        match i64::try_from(v) {
            Ok(v) => self.serialize_i64(v),
            Err(_) => Err(ser::Error::custom(format!(
                "u64 {v} does not fit a Java long"
            ))),
        }
    }

    fn serialize_f32(self, v: f32) -> Result<()> {
        self.enc.write_float(v);
        Ok(())
    }

    fn serialize_f64(self, v: f64) -> Result<()> {
        self.enc.write_double(v);
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<()> {
        match u16::try_from(u32::from(v)) {
            Ok(unit) => self.enc.write_char(unit),
            Err(_) => self.enc.write_str(v.encode_utf8(&mut [0; 4])),
        }
        Ok(())
    }

    fn serialize_str(self, v: &str) -> Result<()> {
        self.enc.write_str(v);
        Ok(())
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        match std::mem::take(&mut self.next_bytes) {
            NextBytes::Binary => self.enc.write_binary(v),
            NextBytes::Raw => self.enc.get_mut().put_slice(v),
            NextBytes::TypeName => {
                let class = std::str::from_utf8(v).map_err(ser::Error::custom)?;
                if !class.is_empty() {
                    self.enc.write_type_name(class);
                }
            }
        }
        Ok(())
    }

    fn serialize_none(self) -> Result<()> {
        self.enc.write_null();
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<()> {
        self.serialize_none()
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.serialize_none()
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<()> {
        if std::mem::take(&mut self.declared) {
            // An enum field: Java writes its ordinal.
            let ordinal = i32::try_from(index).map_err(ser::Error::custom)?;
            return self.serialize_i32(ordinal);
        }
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        if name == RAW {
            // The value is the JSONB bytes of a `crate::types` value, via `serialize_bytes`.
            self.next_bytes = NextBytes::Raw;
        } else if name == TYPE_NAME {
            // The class name of a `TYPED` tuple, via `serialize_bytes`.
            self.next_bytes = NextBytes::TypeName;
        } else if name == DECLARED {
            self.declared = true;
            let written = value.serialize(&mut *self);
            self.declared = false;
            return written;
        } else if name.starts_with('[') {
            // A Java array class (`[D`, `[I`, `[String`): the name Java writes before an array
            // held where the declared type is `Object`.
            self.enc.write_static_type_name(name);
        } else if let Some(ty) = java_serde::JavaType::of_newtype(name) {
            // A value of the `java_serde` vocabulary, written as its carrier in `crate::types`.
            let parts = java_serde::Parts::capture(ty, value).map_err(ser::Error::custom)?;
            return crate::types::vocabulary::Carrier::of::<Error>(parts)?.serialize(self);
        }
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        self.declared = false;
        self.enc.write_object_start();
        self.enc.write_str(variant);
        value.serialize(&mut *self)?;
        self.enc.write_object_end();
        Ok(())
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'a, B>> {
        let len = len.ok_or_else(|| {
            <Error as ser::Error>::custom("JSONB arrays need their length up front")
        })?;
        self.enc.write_array_header(len);
        self.declared = false;
        Ok(Compound::array(self))
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, B>> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(self, name: &'static str, len: usize) -> Result<Compound<'a, B>> {
        if name == TYPED {
            // `(class name, value)`: no array around them.
            return Ok(Compound::array(self));
        }
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, B>> {
        self.declared = false;
        self.enc.write_object_start();
        self.enc.write_str(variant);
        self.enc.write_array_header(len);
        Ok(Compound::variant(self))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a, B>> {
        self.declared = false;
        self.enc.write_object_start();
        Ok(Compound::object(self))
    }

    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Compound<'a, B>> {
        if !std::mem::take(&mut self.declared) {
            self.enc.write_static_type_name(name);
        }
        self.enc.write_object_start();
        Ok(Compound::object(self))
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a, B>> {
        self.declared = false;
        self.enc.write_object_start();
        self.enc.write_str(variant);
        self.enc.write_object_start();
        Ok(Compound::variant_object(self))
    }
}
