//! The serde [`Serializer`]: Rust values to Hessian 2.0 bytes that Java's hessian-lite reads
//! as the same Java values, in the exact forms Java writes them.
//!
//! ```
//! use serde::Serialize;
//!
//! #[derive(Serialize)]
//! #[serde(rename = "com.example.User")] // the Java class
//! struct User {
//!     name: String,
//!     id: i64,
//! }
//!
//! let bytes = hessian2::to_vec(&User { name: "Alice".into(), id: 1 })?;
//! assert_eq!(bytes, b"C\x10com.example.User\x92\x04name\x02id\x60\x05Alice\xe1");
//! # Ok::<(), hessian2::Error>(())
//! ```
//!
//! # Mapping
//!
//! | Rust (serde) | Hessian | Java |
//! |---|---|---|
//! | `bool` | `T` / `F` | `boolean` |
//! | `i8`, `i16`, `i32`, `u8`, `u16` | int | `int` (`byte`, `short` fields too) |
//! | `i64`, `u32` | long | `long` |
//! | `u64`, `i128`, `u128` | long when in `i64` range, else an object of class `java.math.BigInteger` (fields `mag` as `[int`, `signum`, and the four cached fields as 0, as Java writes it) | `long` / `BigInteger` |
//! | `f32`, `f64` | double (an `f32` is widened exactly, as Java does for `float` fields and `float[]`) | `double` / `float` |
//! | `char` | string of one character | `char` |
//! | `str`, `String` | string (UTF-16 length, CESU-8 for characters outside the BMP) | `String` |
//! | bytes (`serde_bytes`, `bytes::Bytes`) | binary | `byte[]` |
//! | `None`, `()`, unit struct | `N` | `null` |
//! | `Some(v)`, newtype struct | `v` | |
//! | sequence, tuple, tuple struct (`Vec`, arrays, `HashSet`, ...) | fixed-length list typed `java.util.ArrayList` with [`PeerVersion::V3`] (what hessian-lite 3 writes for an `ArrayList`), untyped with [`PeerVersion::V4`]; sequences of unknown length are variable-length lists | `ArrayList` |
//! | map (`HashMap`, `BTreeMap`, `#[serde(flatten)]` structs) | untyped map `H` | `HashMap` |
//! | struct | object of class = the serde name, fields = the serde field names | the class |
//! | unit variant | object of class = the enum's serde name with one field `name` = the variant's serde name (a repeat of the same constant in a stream is a `Q` reference, as Java's enum singletons are) | `enum` |
//! | newtype / tuple / struct variant | map `H` with one entry: the variant name to the value (a list for tuple variants, a map `H` of the fields for struct variants) — serde's externally tagged form | a `Map` |
//! | [`Date`](crate::types::Date) | date (`J`, or `K` on a whole minute) | `java.util.Date` |
//! | [`BigDecimal`](crate::types::BigDecimal) | object `java.math.BigDecimal` with field `value` | `BigDecimal` |
//! | [`Typed`](crate::types::Typed), [`java_array`](crate::types::java_array) | typed list or typed map `M` | arrays, `LinkedList`, `TreeMap`, ... |
//!
//! # Java classes
//!
//! A struct is a Java object: its serde name is the Java class (`#[serde(rename =
//! "com.example.User")]`), its serde field names are Java's field names (`#[serde(rename_all =
//! "camelCase")]` works), and the class definition is written once per stream, then each
//! instance refers to it by index, as Java does. Java matches fields by name, so any order
//! reads correctly; to produce **byte-identical** output, order the Rust fields as
//! hessian-lite writes them. Its `JavaSerializer` collects the fields of the class, then of each
//! superclass (skipping `static` and `transient` ones) into two groups, "primitive" fields
//! (primitive types and every `java.lang.*` type except `Object`: `int`, `Integer`, `String`,
//! ...) and the rest, concatenates primitive + rest, and **reverses** the whole list. So the
//! wire order is: the non-`java.lang` fields in reverse declaration order (superclass fields,
//! which came last, first), then the `java.lang` and primitive fields in reverse declaration
//! order. For
//! `class User { long id; String name; int age; String email; boolean active; Date created; }`
//! that is `created, active, email, age, name, id`.
//!
//! Fields skipped with `#[serde(skip_serializing_if = ...)]` are written as `null` (as Java
//! writes a null field): a class definition lists every field, so one struct type has one
//! definition. `#[serde(skip)]` fields are not part of the class at all.
//!
//! How the field names are learned before the first instance is written is explained in the
//! source of `ser/layout.rs`: once per Rust type per process, by a cheap probe of the first
//! value; afterwards writing an object costs one lookup by address. One limitation follows: a
//! struct serialized straight through `value.serialize(&mut serializer)` (instead of
//! [`Serializer::serialize`], [`to_vec`] or [`to_writer`], or as a part of another value), whose
//! type this process has not seen yet, is written as a typed map `M` with the class name as
//! type — which Java reads into the same class — and as an object from then on.
//!
//! # Streams of several values
//!
//! A Dubbo body is several Hessian values in a row sharing the class-definition, type-name and
//! reference tables: call [`Serializer::serialize`] once per value. [`Serializer::reset`]
//! starts a new stream (tables emptied, memory kept). Writing a struct into a reused serializer
//! allocates nothing once the types involved have been seen.
//!
//! ```
//! use hessian2::Serializer;
//!
//! let mut ser = Serializer::new(Vec::new());
//! ser.serialize("2.0.2")?;
//! ser.serialize(&42)?;
//! assert_eq!(ser.get_ref(), b"\x052.0.2\xba");
//! ser.reset();
//! ser.get_mut().clear();
//! # Ok::<(), hessian2::Error>(())
//! ```

mod compound;
mod layout;
mod probe;
mod stream_slots;
mod type_table;

use std::any::type_name;
use std::cell::Cell;
use std::fmt::{self, Display};

use bytes::BufMut;
use serde::ser::{self, Serialize};

use crate::encode::{Encoder, PeerVersion};
use crate::error::{Error, ErrorKind, Result};
use crate::types::token;
use compound::StructState;
pub use compound::{Compound, StructSer};
use layout::{FxMap, Key, Layout, LocalLayouts};
use probe::{Millis, Probe};
use stream_slots::StreamSlots;
use type_table::TypeTable;

/// `java.math.BigInteger` as Java writes it (`JavaSerializer` over the JDK's fields).
const BIG_INTEGER: &str = "java.math.BigInteger";
const BIG_INTEGER_FIELDS: &[&str] = &[
    "mag",
    "firstNonzeroIntNumPlusTwo",
    "lowestSetBitPlusTwo",
    "bitLengthPlusOne",
    "bitCountPlusOne",
    "signum",
];
const ENUM_FIELDS: &[&str] = &["name"];

fn message(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::Message(msg.into()), 0)
}

impl ser::Error for Error {
    /// Serialization errors carry offset 0.
    fn custom<T: Display>(msg: T) -> Self {
        message(msg.to_string())
    }
}

/// Writes Rust values as Hessian 2.0 into a [`BufMut`], byte-identical with Java's
/// hessian-lite. See the [module docs](self) for the mapping.
///
/// `&mut Serializer` implements [`serde::Serializer`]; use [`serialize`](Self::serialize) to
/// write each value of a stream.
pub struct Serializer<B> {
    enc: Encoder<B>,
    st: State,
}

/// Everything but the output: per-stream tables and reusable scratch space.
#[derive(Default)]
struct State {
    /// Lists, maps and objects written in this stream: the index the next one would get as a
    /// `Q` reference.
    refs: u32,
    /// Layouts known to this serializer (a front for the process-wide registry).
    layouts: LocalLayouts,
    /// Class index of each layout (by `Layout::id`) in this stream.
    classes: StreamSlots,
    /// Enum constants written in this stream: (layout, variant name address, length) to the
    /// constant's reference index.
    enum_refs: FxMap<(u32, usize, usize), u32>,
    /// The Rust type of the value being handed to serde by `put` (as `type_name::<T>`, one
    /// word to store per value), until the first `serialize_struct` (or compound) call takes
    /// it.
    armed: Option<fn() -> &'static str>,
    /// `serialize_struct` asked the innermost `put` to probe its value.
    probe_wanted: bool,
    /// The error that carries a probe request, kept to avoid allocating one each time.
    spare: Option<Error>,
    /// A Java type name for the next list or map (from `Typed` and `java_array`).
    next_type: Option<&'static str>,
    /// The type of lists written for sequences (`java.util.ArrayList` or none).
    list_type: Option<&'static str>,
    /// List and map type names, and their indexes in this stream.
    types: TypeTable,
    probe: Probe,
    /// Scratch for `collect_str`.
    text: String,
}

impl<B: BufMut> Serializer<B> {
    /// A serializer writing to `buf`, byte-identical with hessian-lite 3 ([`PeerVersion::V3`]).
    pub fn new(buf: B) -> Self {
        Self::with_version(buf, PeerVersion::default())
    }

    /// A serializer byte-identical with the given hessian-lite generation.
    pub fn with_version(buf: B, version: PeerVersion) -> Self {
        let list_type = match version {
            PeerVersion::V3 => Some("java.util.ArrayList"),
            _ => None,
        };
        Serializer {
            enc: Encoder::with_version(buf, version),
            st: State {
                list_type,
                ..State::default()
            },
        }
    }

    /// Writes `value` as the next value of the stream.
    pub fn serialize<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.put(value)
    }

    /// Starts a new stream: forgets the class definitions, type names and references written
    /// so far (keeping their memory), as a new Java `Hessian2Output` would. The output buffer
    /// is left as it is.
    pub fn reset(&mut self) {
        self.enc.reset();
        self.st.classes.reset();
        self.st.refs = 0;
        self.st.types.reset();
        self.st.enum_refs.clear();
        self.st.armed = None;
        self.st.probe_wanted = false;
        self.st.next_type = None;
    }

    /// The output.
    pub fn get_ref(&self) -> &B {
        self.enc.get_ref()
    }

    /// The output, mutably (e.g. to clear a reused buffer after [`reset`](Self::reset)).
    pub fn get_mut(&mut self) -> &mut B {
        self.enc.get_mut()
    }

    /// Returns the output.
    pub fn into_inner(self) -> B {
        self.enc.into_inner()
    }

    /// The hessian-lite generation this serializer follows.
    pub fn version(&self) -> PeerVersion {
        self.enc.version()
    }

    /// Hands `value` to serde, knowing its Rust type (see `layout.rs`): the one place that can
    /// probe a struct it has not seen.
    #[inline]
    fn put<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.st.armed = Some(type_name::<T>);
        let result = value.serialize(&mut *self);
        self.st.armed = None;
        match result {
            Ok(()) => Ok(()),
            Err(e) => self.probe_and_retry(value, e),
        }
    }

    #[cold]
    #[inline(never)]
    fn probe_and_retry<T: ?Sized + Serialize>(&mut self, value: &T, err: Error) -> Result<()> {
        if !std::mem::take(&mut self.st.probe_wanted) {
            return Err(err);
        }
        self.st.spare = Some(err);
        let mut probe = std::mem::take(&mut self.st.probe);
        let result = value.serialize(&mut probe).and_then(|()| {
            let key = Key::of::<T>(probe.class);
            let layout = layout::register(key, probe.class, &probe.fields);
            self.st.layouts.insert(key, layout);
            self.st.armed = Some(type_name::<T>);
            let result = value.serialize(&mut *self);
            self.st.armed = None;
            result
        });
        self.st.probe = probe;
        if result.is_err() && std::mem::take(&mut self.st.probe_wanted) {
            return Err(message(format!(
                "`{}` serialized as a different struct on a second call: its Serialize impl \
                 is not deterministic",
                type_name::<T>()
            )));
        }
        result
    }

    /// Asks the innermost `put` to probe its value; returns the error that unwinds to it.
    fn want_probe(&mut self) -> Error {
        self.st.probe_wanted = true;
        self.st.spare.take().unwrap_or_else(|| {
            message("a struct's field names were needed: serialize it with Serializer::serialize")
        })
    }

    /// A layout with a field list known at compile time (enums, `BigInteger`).
    fn static_layout(
        &mut self,
        key: Key,
        class: &'static str,
        fields: &'static [&'static str],
    ) -> &'static Layout {
        match self.st.layouts.get(key) {
            Some(layout) => layout,
            None => {
                let layout = layout::register_static(key, class, fields);
                self.st.layouts.insert(key, layout);
                layout
            }
        }
    }

    /// The class definition (the first time in the stream) and the instance head.
    #[inline]
    fn object_head(&mut self, layout: &'static Layout) {
        self.st.refs += 1;
        match self.st.classes.get(layout.id as usize) {
            Some(index) => self.enc.write_object_instance(index),
            None => self.define(layout),
        }
    }

    #[cold]
    fn define(&mut self, layout: &'static Layout) {
        let index = self.enc.write_encoded_class_definition(layout.definition);
        self.st.classes.set(layout.id as usize, index);
        self.enc.write_object_instance(index);
    }

    #[inline(always)]
    fn list_start(&mut self, len: Option<usize>) -> Compound<'_, B> {
        let ty = self.st.next_type.take().or(self.st.list_type);
        self.st.armed = None;
        self.st.refs += 1;
        let ty = ty.map(|t| self.st.types.get(t));
        let variable = self.enc.write_list_start_ref(len, ty);
        Compound {
            ends: u8::from(variable),
            ser: self,
        }
    }

    fn map_start(&mut self, ty: Option<&'static str>) {
        self.st.armed = None;
        self.st.refs += 1;
        let ty = ty.map(|t| self.st.types.get(t));
        self.enc.write_map_start_ref(ty);
    }

    /// A variant with data: `H`, the variant name, then the caller writes the value.
    fn variant_start(&mut self, variant: &'static str) {
        self.st.next_type = None;
        self.map_start(None);
        self.enc.write_str(variant);
    }

    /// An integer beyond `i64`: a `java.math.BigInteger` object.
    fn big_integer(&mut self, negative: bool, magnitude: u128) {
        let key = Key::new("$hessian2::BigInteger", BIG_INTEGER);
        let layout = self.static_layout(key, BIG_INTEGER, BIG_INTEGER_FIELDS);
        self.object_head(layout);
        // `mag`: the magnitude's 32-bit words, most significant first, no leading zeros.
        let words = magnitude.to_be_bytes();
        let words: [u32; 4] = std::array::from_fn(|i| {
            u32::from_be_bytes(words[i * 4..i * 4 + 4].try_into().unwrap())
        });
        let first = words.iter().position(|&w| w != 0).unwrap_or(4);
        self.st.refs += 1;
        let ty = self.st.types.get("[int");
        self.enc.write_list_start_ref(Some(4 - first), Some(ty));
        for &w in &words[first..] {
            self.enc.write_int(w as i32);
        }
        for _ in 0..4 {
            self.enc.write_int(0);
        }
        let signum = match (magnitude, negative) {
            (0, _) => 0,
            (_, true) => -1,
            (_, false) => 1,
        };
        self.enc.write_int(signum);
    }

    /// A newtype with one of the crate's private names (dates and Java arrays, common in Java
    /// models); `None` for any other name.
    #[inline]
    fn token<T: ?Sized + Serialize>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Option<Result<()>> {
        if name == token::DATE {
            return Some(value.serialize(Millis).map(|ms| self.enc.write_date(ms)));
        }
        if let Some(ty) = name.strip_prefix(token::TYPE) {
            self.st.next_type = Some(ty);
            let result = self.put(value);
            self.st.next_type = None;
            return Some(result);
        }
        if let Some(ty) = java_serde::JavaType::of_newtype(name) {
            return Some(self.java_value(ty, value));
        }
        None
    }

    /// A value of the [`java_serde`] vocabulary, written as its carrier in `crate::types`.
    fn java_value<T: ?Sized + Serialize>(
        &mut self,
        ty: java_serde::JavaType,
        value: &T,
    ) -> Result<()> {
        let parts = java_serde::Parts::capture(ty, value).map_err(ser::Error::custom)?;
        self.put(&crate::types::vocabulary::Carrier::of::<Error>(parts)?)
    }
}

impl<B> fmt::Debug for Serializer<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Serializer")
            .field("refs", &self.st.refs)
            .finish_non_exhaustive()
    }
}

thread_local! {
    /// A serializer whose tables and scratch space `to_vec` and `to_writer` reuse.
    static POOL: Cell<Option<Serializer<Vec<u8>>>> = const { Cell::new(None) };
    /// The size of the last `to_vec` output on this thread: the next one starts with that
    /// capacity, so that it is usually allocated once.
    static LAST_LEN: Cell<usize> = const { Cell::new(0) };
}

/// Capacity hint for `to_vec` outputs, at most this.
const MAX_HINT: usize = 64 * 1024;

/// Runs `f` on this thread's pooled serializer writing to `buf`; returns the output.
fn pooled(buf: Vec<u8>, f: impl FnOnce(&mut Serializer<Vec<u8>>) -> Result<()>) -> Result<Vec<u8>> {
    let mut ser = POOL.take().unwrap_or_else(|| Serializer::new(Vec::new()));
    *ser.get_mut() = buf;
    let result = f(&mut ser);
    let out = std::mem::take(ser.get_mut());
    ser.reset();
    POOL.set(Some(ser));
    result.map(|()| out)
}

/// Serializes `value` as one Hessian value (a stream of its own, as hessian-lite 3 writes it).
///
/// ```
/// assert_eq!(hessian2::to_vec(&vec![1, 2])?, b"\x72\x13java.util.ArrayList\x91\x92");
/// # Ok::<(), hessian2::Error>(())
/// ```
pub fn to_vec<T: ?Sized + Serialize>(value: &T) -> Result<Vec<u8>> {
    let out = pooled(Vec::with_capacity(LAST_LEN.get()), |ser| {
        ser.serialize(value)
    })?;
    LAST_LEN.set(out.len().min(MAX_HINT));
    Ok(out)
}

/// Serializes `value` as one Hessian value at the end of `buf`.
///
/// The value is written into a per-thread reusable buffer and then copied into `buf` (one
/// `put_slice`), so nothing is allocated in steady state; to write straight into a buffer,
/// use a [`Serializer`] over it.
pub fn to_writer<W: BufMut, T: ?Sized + Serialize>(mut buf: W, value: &T) -> Result<()> {
    thread_local! {
        static SCRATCH: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
    }
    let mut scratch = SCRATCH.take();
    scratch.clear();
    let out = pooled(scratch, |ser| ser.serialize(value))?;
    buf.put_slice(&out);
    SCRATCH.set(out);
    Ok(())
}

impl<'a, B: BufMut> ser::Serializer for &'a mut Serializer<B> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, B>;
    type SerializeTuple = Compound<'a, B>;
    type SerializeTupleStruct = Compound<'a, B>;
    type SerializeTupleVariant = Compound<'a, B>;
    type SerializeMap = Compound<'a, B>;
    type SerializeStruct = StructSer<'a, B>;
    type SerializeStructVariant = Compound<'a, B>;

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<()> {
        self.enc.write_bool(v);
        Ok(())
    }

    #[inline]
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.enc.write_int(v.into());
        Ok(())
    }

    #[inline]
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.enc.write_int(v.into());
        Ok(())
    }

    #[inline]
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.enc.write_int(v);
        Ok(())
    }

    #[inline]
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.enc.write_long(v);
        Ok(())
    }

    fn serialize_i128(self, v: i128) -> Result<()> {
        match i64::try_from(v) {
            Ok(v) => self.enc.write_long(v),
            Err(_) => self.big_integer(v < 0, v.unsigned_abs()),
        }
        Ok(())
    }

    #[inline]
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.enc.write_int(v.into());
        Ok(())
    }

    #[inline]
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.enc.write_int(v.into());
        Ok(())
    }

    #[inline]
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.enc.write_long(v.into());
        Ok(())
    }

    #[inline]
    fn serialize_u64(self, v: u64) -> Result<()> {
        match i64::try_from(v) {
            Ok(v) => self.enc.write_long(v),
            Err(_) => self.big_integer(false, v.into()),
        }
        Ok(())
    }

    fn serialize_u128(self, v: u128) -> Result<()> {
        match i64::try_from(v) {
            Ok(v) => self.enc.write_long(v),
            Err(_) => self.big_integer(false, v),
        }
        Ok(())
    }

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.enc.write_double(v.into());
        Ok(())
    }

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.enc.write_double(v);
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<()> {
        self.enc.write_str(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        self.enc.write_str(v);
        Ok(())
    }

    #[inline]
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.enc.write_binary(v);
        Ok(())
    }

    #[inline]
    fn serialize_none(self) -> Result<()> {
        self.enc.write_null();
        Ok(())
    }

    #[inline]
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        self.put(value)
    }

    fn serialize_unit(self) -> Result<()> {
        self.enc.write_null();
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.enc.write_null();
        Ok(())
    }

    fn serialize_unit_variant(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<()> {
        let layout = self.static_layout(Key::enumeration(name), name, ENUM_FIELDS);
        let constant = (layout.id, variant.as_ptr() as usize, variant.len());
        if let Some(&index) = self.st.enum_refs.get(&constant) {
            self.enc.write_ref(index);
            return Ok(());
        }
        self.st.enum_refs.insert(constant, self.st.refs);
        self.object_head(layout);
        self.enc.write_str(variant);
        Ok(())
    }

    #[inline]
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        if name.as_bytes().first() == Some(&b'$') {
            if let Some(result) = self.token(name, value) {
                return result;
            }
        }
        self.put(value)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        self.variant_start(variant);
        self.put(value)?;
        self.enc.write_end();
        Ok(())
    }

    #[inline(always)]
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'a, B>> {
        Ok(self.list_start(len))
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, B>> {
        Ok(self.list_start(Some(len)))
    }

    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a, B>> {
        Ok(self.list_start(Some(len)))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, B>> {
        self.variant_start(variant);
        let mut list = self.list_start(Some(len));
        list.ends += 1;
        Ok(list)
    }

    #[inline]
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a, B>> {
        let ty = self.st.next_type.take();
        self.map_start(ty);
        Ok(Compound { ser: self, ends: 1 })
    }

    #[inline(always)]
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<StructSer<'a, B>> {
        self.st.next_type = None;
        let layout = match self.st.armed.take() {
            Some(holder) => match self.st.layouts.get(Key::new(holder(), name)) {
                Some(layout) => layout,
                None => return Err(self.want_probe()),
            },
            None => {
                let key = Key::unknown_holder(name);
                match self
                    .st
                    .layouts
                    .get(key)
                    .or_else(|| layout::find_by_class(name))
                {
                    Some(layout) => {
                        self.st.layouts.insert(key, layout);
                        layout
                    }
                    None => {
                        // Not known and cannot be probed: a typed map, which Java reads into
                        // the class too; the fields are learned on the way.
                        self.map_start(Some(name));
                        return Ok(StructSer(StructState::Map {
                            ser: self,
                            class: name,
                            keys: Vec::new(),
                        }));
                    }
                }
            }
        };
        self.object_head(layout);
        Ok(StructSer(StructState::Object {
            ser: self,
            layout,
            next: 0,
        }))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a, B>> {
        self.variant_start(variant);
        self.map_start(None);
        Ok(Compound { ser: self, ends: 2 })
    }

    fn collect_str<T: ?Sized + Display>(self, value: &T) -> Result<()> {
        use std::fmt::Write;
        let mut text = std::mem::take(&mut self.st.text);
        text.clear();
        let result = write!(text, "{value}");
        self.enc.write_str(&text);
        self.st.text = text;
        result.map_err(|_| message("a Display implementation returned an error"))
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}
