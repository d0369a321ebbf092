//! The wire-level encoder: writes each value in the form Java's `Hessian2Output` chooses, so our
//! bytes equal Java's, into any [`BufMut`].
//!
//! Like the decoder it keeps the per-stream tables: type names already written (later ones are
//! written as an int index) and class definitions (written once, then referred to by index).
//! Value references (`Q`) need object identity, which only the caller knows: see
//! [`Encoder::write_ref`].

mod string;

use std::borrow::Cow;
use std::collections::HashMap;

use bytes::BufMut;

use crate::marker::{self, binary, date, double, int, list, long, map, object, reference};

/// Which generation of Java's hessian-lite to be byte-identical with. They differ in the size of
/// the internal buffer, which sets the size of binary chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum PeerVersion {
    /// `com.alibaba:hessian-lite` 3.2.x, shipped by Dubbo 2.7 and 3.2: binary chunks of 4093
    /// bytes (its `writeBytes` flushes its 4096-byte buffer first).
    #[default]
    V3,
    /// `org.apache.dubbo:hessian-lite` 4.x, shipped by Dubbo 3.3: binary chunks of up to 8189
    /// bytes; the first chunk fills what is left of its 8192-byte buffer (see
    /// [`Encoder::write_binary`]).
    V4,
}

impl PeerVersion {
    /// The data bytes per full binary chunk: Java's buffer size less the 3-byte chunk header.
    /// With [`PeerVersion::V4`] the first chunk of a binary is shorter when other values
    /// precede it in Java's buffer.
    pub const fn binary_chunk(self) -> usize {
        self.buffer_size() - 3
    }

    /// The size of Java's `Hessian2Output` buffer.
    const fn buffer_size(self) -> usize {
        match self {
            PeerVersion::V3 => 4096,
            PeerVersion::V4 => V4_BUFFER,
        }
    }
}

/// hessian-lite 4's output buffer.
const V4_BUFFER: usize = 8192;

/// The name of [`PeerVersion`] before 0.2.
#[deprecated(
    since = "0.2.0",
    note = "renamed to `PeerVersion`, the name both data-format crates use"
)]
pub type LiteVersion = PeerVersion;
/// A write that finds this many bytes or more in hessian-lite 4's buffer flushes it first
/// (`SIZE <= offset + 16`, the check of string text, ints, longs, doubles).
const V4_FLUSH_AT: usize = V4_BUFFER - 16;
/// Below this many buffered bytes no write of hessian-lite 4 flushes (the most cautious check
/// is `SIZE < offset + 32`).
const V4_NEVER_FLUSHED: usize = V4_BUFFER - 32;

/// Where a class definition came from: a `'static` definition (serde types) is recognised by
/// the address of its field list, a dynamic one by its field names.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Fields {
    Static(usize),
    Dynamic(Box<[Box<str>]>),
}

/// Encoder state over a [`BufMut`].
#[derive(Debug)]
pub struct Encoder<B> {
    buf: B,
    version: PeerVersion,
    /// Type names and class definitions to their index in the stream, or [`UNDEFINED`]: the
    /// entries of earlier streams are kept across [`Encoder::reset`] (up to [`KEPT`] of each),
    /// so that a reused encoder does not copy the same names again for every message.
    types: HashMap<Cow<'static, str>, u32>,
    classes: HashMap<Cow<'static, str>, (u32, Fields)>,
    type_count: u32,
    class_count: u32,
    /// `remaining_mut()` of the output when hessian-lite 4's buffer was last empty (the start
    /// of the stream, or Java's flush after a chunked binary): the bytes written since are
    /// what Java holds in its buffer (see [`Encoder::write_binary`]).
    java_empty_at: usize,
}

/// A type name or class definition known from an earlier stream, not yet written in this one.
const UNDEFINED: u32 = u32::MAX;

/// How many type names and class definitions a reset encoder keeps for reuse.
const KEPT: usize = 512;

/// Writes `$v`, an int or a long (`$family`: the marker module whose constants give the
/// forms), in its 1-, 2- or 3-byte form and returns, if it fits one.
macro_rules! put_compact {
    ($self:ident, $v:expr, $family:ident, $t:ty) => {{
        let v: $t = $v;
        if ($family::DIRECT_MIN..=$family::DIRECT_MAX).contains(&v) {
            return $self.buf.put_u8((v + $family::DIRECT_ZERO as $t) as u8);
        }
        if ($family::BYTE_MIN..=$family::BYTE_MAX).contains(&v) {
            let head = ((v >> 8) + $family::BYTE_ZERO as $t) as u8;
            return $self.buf.put_slice(&[head, v as u8]);
        }
        if ($family::SHORT_MIN..=$family::SHORT_MAX).contains(&v) {
            let head = ((v >> 16) + $family::SHORT_ZERO as $t) as u8;
            return $self.buf.put_slice(&[head, (v >> 8) as u8, v as u8]);
        }
    }};
}

impl<B: BufMut> Encoder<B> {
    /// An encoder writing to `buf`, byte-identical with hessian-lite 3.2.
    pub fn new(buf: B) -> Self {
        Self::with_version(buf, PeerVersion::default())
    }

    /// An encoder byte-identical with the given hessian-lite generation.
    pub fn with_version(buf: B, version: PeerVersion) -> Self {
        Encoder {
            java_empty_at: buf.remaining_mut(),
            buf,
            version,
            types: HashMap::new(),
            classes: HashMap::new(),
            type_count: 0,
            class_count: 0,
        }
    }

    /// Forgets the stream's type names and class definitions (keeping their memory), as a new
    /// Java `Hessian2Output` would. The new stream starts at the output's current state: with
    /// [`PeerVersion::V4`], clear or replace a reused buffer *before* calling this (see
    /// [`write_binary`](Self::write_binary)).
    pub fn reset(&mut self) {
        self.java_empty_at = self.buf.remaining_mut();
        // Callers with tables of their own (the serde `Serializer`) leave these empty.
        if !(self.types.is_empty() && self.classes.is_empty()) {
            self.forget_indexes();
        }
        self.type_count = 0;
        self.class_count = 0;
    }

    #[inline(never)]
    fn forget_indexes(&mut self) {
        if self.types.len() > KEPT {
            self.types.clear();
        } else if self.type_count > 0 {
            self.types.values_mut().for_each(|index| *index = UNDEFINED);
        }
        if self.classes.len() > KEPT {
            self.classes.clear();
        } else if self.class_count > 0 {
            self.classes
                .values_mut()
                .for_each(|(index, _)| *index = UNDEFINED);
        }
    }

    /// The output.
    pub fn get_ref(&self) -> &B {
        &self.buf
    }

    /// The output, mutably.
    pub fn get_mut(&mut self) -> &mut B {
        &mut self.buf
    }

    /// Returns the output.
    pub fn into_inner(self) -> B {
        self.buf
    }

    /// The hessian-lite generation this encoder follows.
    pub fn version(&self) -> PeerVersion {
        self.version
    }

    /// `N`.
    #[inline]
    pub fn write_null(&mut self) {
        self.buf.put_u8(marker::NULL);
    }

    /// `T` or `F`.
    #[inline]
    pub fn write_bool(&mut self, v: bool) {
        self.buf
            .put_u8(if v { marker::TRUE } else { marker::FALSE });
    }

    /// An int in its shortest form.
    #[inline]
    pub fn write_int(&mut self, v: i32) {
        put_compact!(self, v, int, i32);
        self.put_tagged(int::FULL, v.to_be_bytes());
    }

    /// A long in its shortest form (`Y` for longs that fit in 32 bits).
    #[inline]
    pub fn write_long(&mut self, v: i64) {
        put_compact!(self, v, long, i64);
        match i32::try_from(v) {
            Ok(v) => self.put_tagged(long::INT32, v.to_be_bytes()),
            Err(_) => self.put_tagged(long::FULL, v.to_be_bytes()),
        }
    }

    /// A double in the form Java picks: whole numbers as 0.0/1.0/byte/short, then thousandths if
    /// `0.001 * m` gives the value back exactly, else all eight bytes. Like Java, -0.0 is written
    /// as 0.0.
    #[inline]
    pub fn write_double(&mut self, v: f64) {
        // Java: `int intValue = (int) value` (saturating, NaN -> 0), as Rust's `as` does.
        let whole = v as i32;
        if whole as f64 == v {
            match whole {
                0 => return self.buf.put_u8(double::ZERO),
                1 => return self.buf.put_u8(double::ONE),
                -0x80..=0x7f => return self.buf.put_slice(&[double::BYTE, whole as u8]),
                -0x8000..=0x7fff => {
                    return self.put_tagged(double::SHORT, (whole as i16).to_be_bytes())
                }
                _ => {}
            }
        }
        let mills = (v * 1000.0) as i32;
        if 0.001 * mills as f64 == v {
            self.put_tagged(double::MILLS, mills.to_be_bytes());
        } else {
            self.put_tagged(double::FULL, v.to_be_bytes());
        }
    }

    /// A date, milliseconds since the epoch: the compact minutes form when on a whole minute
    /// whose count fits in 32 bits, as Java does.
    #[inline]
    pub fn write_date(&mut self, millis: i64) {
        if millis % 60_000 == 0 {
            if let Ok(minutes) = i32::try_from(millis / 60_000) {
                return self.put_tagged(date::MINUTES, minutes.to_be_bytes());
            }
        }
        self.put_tagged(date::MILLIS, millis.to_be_bytes());
    }

    /// A marker and its fixed-size payload (at most 8 bytes), in one write: one capacity
    /// check instead of two.
    #[inline(always)]
    fn put_tagged<const N: usize>(&mut self, tag: u8, payload: [u8; N]) {
        let mut out = [0u8; 9];
        out[0] = tag;
        out[1..=N].copy_from_slice(&payload);
        self.buf.put_slice(&out[..=N]);
    }

    /// A string: compact forms up to 1023 UTF-16 units, else `R` chunks of 0x8000 units (one
    /// less where a chunk would end on a high surrogate) and a final `S`. Characters outside the
    /// BMP are written as CESU-8 surrogate pairs, since Java's reader rejects 4-byte UTF-8.
    #[inline]
    pub fn write_str(&mut self, s: &str) {
        string::write_str(&mut self.buf, s);
    }

    /// A Java string given as its UTF-16 code units, which may hold lone surrogates (see
    /// [`Value::Utf16`](crate::value::Value::Utf16)), in the forms [`write_str`](Self::write_str)
    /// uses.
    pub fn write_utf16(&mut self, units: &[u16]) {
        string::write_utf16(&mut self.buf, units);
    }

    /// A binary: compact forms up to 1023 bytes, else `A` chunks sized as the chosen
    /// [`PeerVersion`] does and a final `B`.
    ///
    /// hessian-lite 3 flushes its buffer before a binary, so its chunks are always 4093 bytes.
    /// hessian-lite 4 does not: the first chunk takes what is left of its 8192-byte buffer
    /// (less the 3-byte header; when that is under 16 bytes it flushes and takes a whole
    /// buffer), so a binary of a few hundred bytes may be split when other values precede it.
    /// This encoder counts Java's buffered bytes as the bytes it wrote since the stream
    /// started ([`new`](Self::new), [`reset`](Self::reset)) or since the last chunked binary
    /// (after which Java flushes). That is exact while the count stays under 8160, where no
    /// write of Java's flushes; past it Java flushes at the first write that finds 8176 bytes
    /// or more (8161 for some), a write boundary this encoder does not record, so it assumes a
    /// flush every 8176 bytes: exact when those boundaries fall in the text of ASCII strings
    /// (Java checks before each character), off by a few bytes otherwise. Bytes put into the
    /// output by other means after the stream started count as Java's too.
    pub fn write_binary(&mut self, mut data: &[u8]) {
        let size = self.version.buffer_size();
        let mut buffered = match self.version {
            PeerVersion::V3 => 0,
            _ => self.java_buffered(),
        };
        let chunked = size - buffered - 3 < data.len();
        while size - buffered - 3 < data.len() {
            let mut chunk = size - buffered - 3;
            if chunk < 16 {
                // Java flushes, and takes a whole buffer (or the whole binary, in a chunk
                // that is not the last).
                chunk = (size - 3).min(data.len());
            }
            self.buf.put_u8(binary::CHUNK);
            self.buf.put_u16(chunk as u16);
            self.buf.put_slice(&data[..chunk]);
            data = &data[chunk..];
            // Java flushes after each chunk.
            buffered = 0;
        }
        if chunked {
            self.java_empty_at = self.buf.remaining_mut();
        }
        let len = data.len();
        let header = if len <= binary::DIRECT_MAX {
            self.buf.put_u8(binary::DIRECT_BASE + len as u8);
            1
        } else if len <= binary::SHORT_MAX {
            self.buf
                .put_slice(&[binary::SHORT_BASE + (len >> 8) as u8, len as u8]);
            2
        } else {
            self.buf.put_u8(binary::FINAL);
            self.buf.put_u16(len as u16);
            3
        };
        self.buf.put_slice(data);
        if self.version != PeerVersion::V3 && buffered + header + len >= V4_FLUSH_AT {
            // The binary filled Java's buffer past the flush mark: its next write flushes.
            self.java_empty_at = self.buf.remaining_mut();
        }
    }

    /// The bytes hessian-lite 4 holds in its buffer at this point of the stream, as
    /// [`write_binary`](Self::write_binary) describes.
    fn java_buffered(&self) -> usize {
        match self.java_empty_at.saturating_sub(self.buf.remaining_mut()) {
            n if n < V4_NEVER_FLUSHED => n,
            n => n % V4_FLUSH_AT,
        }
    }

    /// Starts a list of `len` items (`None`: variable length, to be closed with
    /// [`write_end`](Self::write_end)), typed with a Java type name or untyped. Returns whether
    /// the list needs `write_end`. Type names that are not `'static` are copied into the
    /// encoder's table the first time.
    pub fn write_list_start(&mut self, len: Option<usize>, ty: Option<&str>) -> bool {
        self.list_start(len, ty.map(TypeName::Borrowed))
    }

    /// [`write_list_start`](Self::write_list_start) for a `'static` type name, which the type
    /// table keeps without copying.
    pub fn write_list_start_static(
        &mut self,
        len: Option<usize>,
        ty: Option<&'static str>,
    ) -> bool {
        self.list_start(len, ty.map(TypeName::Static))
    }

    fn list_start(&mut self, len: Option<usize>, ty: Option<TypeName<'_>>) -> bool {
        match (len, ty) {
            (None, Some(ty)) => {
                self.buf.put_u8(list::VARIABLE);
                self.write_type(ty);
            }
            (None, None) => self.buf.put_u8(list::VARIABLE_UNTYPED),
            (Some(n), Some(ty)) if n <= list::DIRECT_MAX => {
                self.buf.put_u8(list::DIRECT_TYPED + n as u8);
                self.write_type(ty);
            }
            (Some(n), None) if n <= list::DIRECT_MAX => {
                self.buf.put_u8(list::DIRECT_UNTYPED + n as u8)
            }
            (Some(n), Some(ty)) => {
                self.buf.put_u8(list::FIXED);
                self.write_type(ty);
                self.write_length(n);
            }
            (Some(n), None) => {
                self.buf.put_u8(list::FIXED_UNTYPED);
                self.write_length(n);
            }
        }
        len.is_none()
    }

    /// [`write_list_start`](Self::write_list_start) with a type the caller keeps track of
    /// (see [`TypeRef`]), bypassing the encoder's type table.
    #[inline]
    pub fn write_list_start_ref(&mut self, len: Option<usize>, ty: Option<TypeRef<'_>>) -> bool {
        // The usual list of a stream (a short one of a type already named): the compact length
        // and the type index as a 1-byte int, in one write.
        match (len, ty) {
            (Some(n), Some(TypeRef::Index(index)))
                if n <= list::DIRECT_MAX && index <= int::DIRECT_MAX as u32 =>
            {
                let index = int::DIRECT_ZERO + index as u8;
                self.buf.put_slice(&[list::DIRECT_TYPED + n as u8, index]);
                false
            }
            // Its first use in the stream (once per stream for `java.util.ArrayList`).
            (Some(n), Some(TypeRef::New(name))) if n <= list::DIRECT_MAX => {
                self.short_list_named(n, name);
                false
            }
            _ => self.list_start(len, ty.map(TypeRef::name)),
        }
    }

    #[inline(never)]
    fn short_list_named(&mut self, n: usize, name: &str) {
        self.buf.put_u8(list::DIRECT_TYPED + n as u8);
        self.write_str(name);
    }

    /// [`write_map_start`](Self::write_map_start) with a type the caller keeps track of (see
    /// [`TypeRef`]), bypassing the encoder's type table.
    pub fn write_map_start_ref(&mut self, ty: Option<TypeRef<'_>>) {
        self.map_start(ty.map(TypeRef::name))
    }

    /// Starts a map (`M` with a type, `H` without); close it with [`write_end`](Self::write_end).
    pub fn write_map_start(&mut self, ty: Option<&str>) {
        self.map_start(ty.map(TypeName::Borrowed))
    }

    /// [`write_map_start`](Self::write_map_start) for a `'static` type name.
    pub fn write_map_start_static(&mut self, ty: Option<&'static str>) {
        self.map_start(ty.map(TypeName::Static))
    }

    fn map_start(&mut self, ty: Option<TypeName<'_>>) {
        match ty {
            Some(ty) => {
                self.buf.put_u8(map::TYPED);
                self.write_type(ty);
            }
            None => self.buf.put_u8(map::UNTYPED),
        }
    }

    /// `Z`: ends a map or a variable-length list.
    #[inline]
    pub fn write_end(&mut self) {
        self.buf.put_u8(list::END);
    }

    /// `Q`: a reference to the `index`-th list, map or object written to the stream (counting
    /// from 0 in the order they were started).
    pub fn write_ref(&mut self, index: u32) {
        self.buf.put_u8(reference::REF);
        self.write_length(index as usize);
    }

    /// Starts an object of Java class `class` whose field values, in the order of `fields`,
    /// follow. The class definition is written the first time a class (with these fields) is
    /// seen in the stream.
    pub fn write_object_start<F: AsRef<str>>(&mut self, class: &str, fields: &[F]) {
        let found = match self.classes.get(class) {
            Some((index, Fields::Dynamic(known)))
                if known
                    .iter()
                    .map(|f| &**f)
                    .eq(fields.iter().map(AsRef::as_ref)) =>
            {
                Some(*index)
            }
            _ => None,
        };
        let index = match found {
            Some(UNDEFINED) => self.redefine_class(class, fields),
            Some(index) => index,
            None => {
                let known = fields.iter().map(|f| Box::from(f.as_ref())).collect();
                self.define_class(Cow::Owned(class.to_owned()), Fields::Dynamic(known), fields)
            }
        };
        self.write_instance(index);
    }

    /// [`write_object_start`](Self::write_object_start) for a `'static` class (a Rust type): the
    /// lookup compares the address of `fields`, and nothing is copied.
    pub fn write_object_start_static(
        &mut self,
        class: &'static str,
        fields: &'static [&'static str],
    ) {
        let identity = Fields::Static(fields.as_ptr() as usize ^ fields.len());
        let index = match self.classes.get(class) {
            Some((UNDEFINED, known)) if *known == identity => self.redefine_class(class, fields),
            Some((index, known)) if *known == identity => *index,
            _ => self.define_class(Cow::Borrowed(class), identity, fields),
        };
        self.write_instance(index);
    }

    /// Writes a class definition (`C`) with the next class index and returns that index,
    /// without entering it in the encoder's own class table: for a caller that keeps its own
    /// per-stream record of what it defined (the serde `Serializer`, whose lookup is keyed by
    /// Rust type) and then writes instances with
    /// [`write_object_instance`](Self::write_object_instance).
    pub fn write_class_definition(&mut self, class: &str, fields: &[&str]) -> u32 {
        let index = self.class_count;
        self.class_count += 1;
        self.buf.put_u8(object::DEFINITION);
        self.write_str(class);
        self.write_length(fields.len());
        for field in fields {
            self.write_str(field);
        }
        index
    }

    /// Writes the head of an instance of the `index`-th class definition of the stream
    /// (compact form up to 15, else `O` and the index); its field values follow.
    #[inline]
    pub fn write_object_instance(&mut self, index: u32) {
        self.write_instance(index);
    }

    /// Writes a class definition already encoded by
    /// [`write_class_definition`](Self::write_class_definition) (into another buffer, e.g.
    /// once per Rust type) and returns its index in this stream. `encoded` must be exactly such
    /// a definition.
    pub fn write_encoded_class_definition(&mut self, encoded: &[u8]) -> u32 {
        let index = self.class_count;
        self.class_count += 1;
        self.buf.put_slice(encoded);
        index
    }

    fn define_class<F: AsRef<str>>(
        &mut self,
        class: Cow<'static, str>,
        identity: Fields,
        fields: &[F],
    ) -> u32 {
        let index = self.write_definition(&class, fields);
        self.classes.insert(class, (index, identity));
        index
    }

    /// Defines in this stream a class whose entry an earlier stream left.
    fn redefine_class<F: AsRef<str>>(&mut self, class: &str, fields: &[F]) -> u32 {
        let index = self.write_definition(class, fields);
        if let Some(entry) = self.classes.get_mut(class) {
            entry.0 = index;
        }
        index
    }

    fn write_definition<F: AsRef<str>>(&mut self, class: &str, fields: &[F]) -> u32 {
        let index = self.class_count;
        self.class_count += 1;
        self.buf.put_u8(object::DEFINITION);
        self.write_str(class);
        self.write_length(fields.len());
        for field in fields {
            self.write_str(field.as_ref());
        }
        index
    }

    #[inline]
    fn write_instance(&mut self, index: u32) {
        if index as usize <= object::DIRECT_MAX {
            self.buf.put_u8(object::DIRECT_BASE + index as u8);
        } else {
            self.write_instance_by_int(index);
        }
    }

    #[inline(never)]
    fn write_instance_by_int(&mut self, index: u32) {
        self.buf.put_u8(object::INSTANCE);
        self.write_length(index as usize);
    }

    /// A type name the first time, its index afterwards.
    fn write_type(&mut self, ty: TypeName<'_>) {
        let name: &str = match ty {
            TypeName::Static(s) | TypeName::Borrowed(s) => s,
            TypeName::Index(index) => return self.write_int(index as i32),
            TypeName::Untracked(s) => return self.write_str(s),
        };
        let next = self.type_count;
        if let Some(index) = self.types.get_mut(name) {
            if *index != UNDEFINED {
                let index = *index;
                return self.write_int(index as i32);
            }
            // Known from an earlier stream: written again, no copy made.
            *index = next;
            self.type_count += 1;
            return self.write_str(name);
        }
        self.type_count += 1;
        self.write_str(name);
        let key = match ty {
            TypeName::Static(s) => Cow::Borrowed(s),
            TypeName::Borrowed(s) => Cow::Owned(s.to_owned()),
            TypeName::Index(_) | TypeName::Untracked(_) => unreachable!("returned above"),
        };
        self.types.insert(key, next);
    }

    /// Lengths, counts and indexes are ints on the wire; Java's are `int`s too.
    fn write_length(&mut self, n: usize) {
        self.write_int(i32::try_from(n).unwrap_or(i32::MAX));
    }
}

#[derive(Clone, Copy)]
enum TypeName<'a> {
    Static(&'static str),
    Borrowed(&'a str),
    /// Written by the caller's own type table: an index or a new name, not recorded here.
    Index(u32),
    Untracked(&'a str),
}

/// A list or map type for a caller that keeps its own per-stream table of type names (the serde
/// `Serializer`, keyed by the address of `'static` names): the first use of a name in a stream
/// is [`TypeRef::New`], which takes the next type index, later ones are [`TypeRef::Index`].
/// Do not mix with the encoder's own typed starts (`write_list_start`, ...) in one stream:
/// each table would number the names from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeRef<'a> {
    /// The name, written out; it is the stream's next type index.
    New(&'a str),
    /// The index of a name written earlier in the stream.
    Index(u32),
}

impl<'a> TypeRef<'a> {
    fn name(self) -> TypeName<'a> {
        match self {
            TypeRef::New(s) => TypeName::Untracked(s),
            TypeRef::Index(i) => TypeName::Index(i),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two objects of one class, a typed list twice, then another class.
    fn stream(enc: &mut Encoder<Vec<u8>>, other_fields: &[&str]) {
        for _ in 0..2 {
            enc.write_object_start("com.example.A", &["x", "y"]);
            enc.write_int(1);
            enc.write_list_start(Some(1), Some("[int"));
            enc.write_int(2);
        }
        enc.write_object_start("com.example.B", other_fields);
        for _ in other_fields {
            enc.write_null();
        }
        enc.write_object_start_static("com.example.S", &["s"]);
        enc.write_null();
    }

    /// The quick heads of short typed lists (a type index, a new name), at the edges of the
    /// compact forms.
    #[test]
    fn short_list_heads_match_the_general_form() {
        let types = [0, 47, 48, 2047, 2048]
            .map(TypeRef::Index)
            .into_iter()
            .chain([TypeRef::New("[int")]);
        for ty in types.map(Some) {
            for len in [Some(0), Some(7), Some(8), None] {
                let mut fast = Encoder::new(Vec::new());
                let variable = fast.write_list_start_ref(len, ty);
                let mut general = Encoder::new(Vec::new());
                assert_eq!(variable, general.list_start(len, ty.map(TypeRef::name)));
                assert_eq!(fast.get_ref(), general.get_ref(), "{len:?} {ty:?}");
            }
        }
        let mut enc = Encoder::new(Vec::new());
        enc.write_list_start_ref(Some(3), Some(TypeRef::Index(47)));
        assert_eq!(enc.get_ref(), b"\x73\xbf");
    }

    /// hessian-lite 4 fills its buffer: the first chunk of a binary takes what the values
    /// before it left (the Java vectors `binary_after_*` check the same against Java).
    #[test]
    fn v4_first_binary_chunk_fills_javas_buffer() {
        let data = vec![7u8; 10_000];
        let stream = |enc: &mut Encoder<Vec<u8>>| {
            enc.write_str("hello");
            enc.write_binary(&data);
        };
        let mut fresh = Encoder::with_version(Vec::new(), PeerVersion::V4);
        stream(&mut fresh);
        assert_eq!(&fresh.get_ref()[6..9], &[b'A', 0x1f, 0xf7]); // 8183 = 8189 - 6
                                                                 // A reused encoder whose buffer is cleared before `reset` starts a new Java buffer.
        let mut reused = fresh;
        reused.get_mut().clear();
        reused.reset();
        stream(&mut reused);
        let mut again = Encoder::with_version(Vec::new(), PeerVersion::V4);
        stream(&mut again);
        assert_eq!(reused.get_ref(), again.get_ref());
        // An encoder over a buffer that already holds other bytes (a frame header) counts
        // from where it started.
        let mut after_header = Encoder::with_version(vec![0u8; 16], PeerVersion::V4);
        stream(&mut after_header);
        assert_eq!(&after_header.get_ref()[16..], again.get_ref());
        // hessian-lite 3 flushes first: always 4093-byte chunks.
        let mut v3 = Encoder::new(Vec::new());
        stream(&mut v3);
        assert_eq!(&v3.get_ref()[6..9], &[b'A', 0x0f, 0xfd]);
    }

    #[test]
    fn a_reset_encoder_writes_what_a_new_one_writes() {
        let mut reused = Encoder::new(Vec::new());
        for fields in [&["p"][..], &["p"], &["q", "r"], &["p"]] {
            reused.reset();
            reused.get_mut().clear();
            stream(&mut reused, fields);
            let mut fresh = Encoder::new(Vec::new());
            stream(&mut fresh, fields);
            assert_eq!(reused.get_ref(), fresh.get_ref(), "{fields:?}");
        }
        // A class met in an earlier stream only, then a new one: indexes start from 0.
        reused.reset();
        reused.get_mut().clear();
        reused.write_object_start("com.example.C", &["z"]);
        assert_eq!(&reused.get_ref()[..2], b"C\x0d");
        assert_eq!(reused.get_ref().last(), Some(&0x60));
    }
}
