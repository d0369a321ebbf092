//! The serializations a body can be in, behind one interface.
//!
//! A Dubbo body is a sequence of values written by one Java `ObjectOutput`: the request's
//! strings (`writeUTF`), arguments (`writeObject`) and attachment map, or the response's flag
//! (`writeByte`), value or exception, and attachments. Which `ObjectOutput` wrote it is the
//! serialization id in the frame header. The layout of a body is the same in every
//! serialization, so [`request`](crate::request), [`response`](crate::response) and
//! [`peek`](mod@crate::peek) are written once, against the crate's `Format` trait, and each
//! serialization is one module that says how it reads and writes those few things:
//!
//! * `hessian2`: one Hessian2 stream for the whole body (tables shared by all its values),
//!   in hessian-lite 3 or 4 form ([`BodyFormat::Hessian2`]'s [`PeerVersion`]).
//! * `fastjson2`: one length-framed JSONB document per value, as fastjson2 2.0.52 (Dubbo 3.2)
//!   or 2.0.56 (Dubbo 3.3) writes it ([`BodyFormat::FASTJSON2`]'s
//!   [`fastjson2::PeerVersion`](::fastjson2::PeerVersion)).
//!
//! [`BodyFormat`] is the public choice of one of them; internally each is a type implementing
//! `Format`, picked with `with_format!`.
//!
//! # Dynamic values
//!
//! A body's dynamic values (arguments, results, exceptions, attachment values) are
//! [`::hessian2::value::Value`]s in every serialization: it keeps Java class names, field order,
//! list and map types, which every Dubbo serialization carries. A format whose own values are
//! richer or poorer converts at its edge. Typed (serde) values never go through `Value`: each
//! format serializes and deserializes them itself.

use std::borrow::Cow;

use ::hessian2::encode::PeerVersion;
use ::hessian2::value::Value;
use bytes::{BufMut, Bytes};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::attachments::{AttachmentValue, Attachments};
use crate::error::BodyError;
use crate::serialization::Serialization;

mod alone;
mod args;
pub(crate) mod fastjson2;
pub(crate) mod hessian2;

/// The serialization (and its options) a body is read or written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BodyFormat {
    /// Hessian2 (id 2), as hessian-lite 3 (Dubbo 2.7 and 3.2) or 4 (Dubbo 3.3) writes it. The
    /// two read the same; they write binaries in chunks of different sizes.
    Hessian2(PeerVersion),
    /// fastjson2's JSONB (id 23), as fastjson2 2.0.52 (Dubbo 3.2) or 2.0.56 (Dubbo 3.3)
    /// writes it: what Dubbo 3 prefers when both sides have it. The two read the same; they
    /// write some `float`s in different forms.
    Fastjson2(::fastjson2::PeerVersion),
}

impl Default for BodyFormat {
    /// Hessian2 as hessian-lite 3 writes it: what Dubbo 2.7 and 3.2 send by default.
    fn default() -> Self {
        BodyFormat::HESSIAN2
    }
}

impl BodyFormat {
    /// Hessian2 as hessian-lite 3 writes it (Dubbo 2.7 and 3.2): [`BodyFormat::default`].
    pub const HESSIAN2: BodyFormat = BodyFormat::Hessian2(PeerVersion::V3);
    /// fastjson2 as 2.0.52 writes it (Dubbo 3.2).
    pub const FASTJSON2: BodyFormat = BodyFormat::Fastjson2(::fastjson2::PeerVersion::V2_0_52);

    /// The format of bodies in `serialization`, with default options; `None` for a
    /// serialization this crate cannot read.
    pub const fn of(serialization: Serialization) -> Option<BodyFormat> {
        match serialization {
            Serialization::Hessian2 => Some(BodyFormat::HESSIAN2),
            Serialization::Fastjson2 => Some(BodyFormat::FASTJSON2),
            _ => None,
        }
    }

    /// [`BodyFormat::of`], or [`BodyError::UnsupportedSerialization`].
    pub fn require(serialization: Serialization) -> Result<BodyFormat, BodyError> {
        BodyFormat::of(serialization).ok_or(BodyError::UnsupportedSerialization(serialization))
    }

    /// The serialization id this format is announced with in a frame header.
    pub const fn serialization(self) -> Serialization {
        match self {
            BodyFormat::Hessian2(_) => Serialization::Hessian2,
            BodyFormat::Fastjson2(_) => Serialization::Fastjson2,
        }
    }
}

/// Runs `$body` with `$f` bound to the [`Format`] value of a [`BodyFormat`].
macro_rules! with_format {
    ($format:expr, $f:ident => $body:expr) => {
        match $format {
            $crate::format::BodyFormat::Hessian2(lite) => {
                let $f = $crate::format::hessian2::Hessian2 { lite };
                $body
            }
            $crate::format::BodyFormat::Fastjson2(version) => {
                let $f = $crate::format::fastjson2::Fastjson2 { version };
                $body
            }
        }
    };
}
pub(crate) use with_format;

/// One serialization of Dubbo bodies. See the [module documentation](self).
pub(crate) trait Format: Copy {
    /// Reads a body from a slice, borrowing strings where it can.
    type Reader<'de>: Reader<'de>;
    /// Reads a body held in [`Bytes`] (binaries can be zero-copy slices of it).
    type BufReader: Reader<'static>;
    /// Writes a body.
    type Writer<B: BufMut>: Writer<B>;
    /// Collects typed arguments into the bytes of an argument section.
    type Args: ArgsSink;

    /// `null` written alone (`writeObject(null)`): the body of a heartbeat.
    fn null_body(self) -> &'static [u8];

    /// Bytes each value of a body takes beyond its own encoding (for sizing a body's buffer).
    fn framing(self) -> usize;

    /// Bytes `s` takes written as a string value, without [`framing`](Self::framing) (for
    /// sizing a body's buffer): exact for ASCII, about right for other text.
    fn str_size(self, s: &str) -> usize;

    /// A reader of `body`, which starts `base` bytes into the whole body (for the offsets of
    /// errors). A reader started past the first bytes knows nothing the stream defined
    /// before; the body layer starts one only after the head strings, which define nothing.
    fn reader<'de>(self, body: &'de [u8], base: usize) -> Self::Reader<'de>;

    /// A reader of a body held in [`Bytes`].
    fn buf_reader(self, body: &Bytes) -> Self::BufReader;

    /// A writer of a new body appended to `buf`.
    fn writer<B: BufMut>(self, buf: B) -> Self::Writer<B>;

    /// A collector of typed arguments for a new argument section.
    fn args(self) -> Self::Args;

    /// Whether a value serialized alone (`alone`: one whole value) can follow other values of
    /// a body as it is: it uses none of the tables the stream's earlier values define.
    fn joins_as_is(self, alone: &[u8]) -> bool;

    /// Reads `count` arguments starting at byte `offset` of `body` into `T` (a tuple, or any
    /// type that deserializes from a sequence) through serde.
    fn decode_args<T: DeserializeOwned>(
        self,
        body: &Bytes,
        offset: usize,
        count: usize,
    ) -> Result<T, BodyError>;

    /// Reads arguments each serialized on its own (a Triple call's wrapper: a stream per
    /// argument) into `T` through serde.
    fn decode_separate_args<T: DeserializeOwned>(self, args: &[Bytes]) -> Result<T, BodyError>;

    /// The body of an OK response whose value is a Rust value, through serde: flag 1 (2 when
    /// the value serializes to `null`), the value, and with `attachments` flags 4/5 and the
    /// map.
    fn encode_typed_result<T: Serialize + ?Sized>(
        self,
        value: &T,
        attachments: Option<&Attachments>,
    ) -> Result<Bytes, BodyError>;

    /// Reads the value at byte `at` of `body` into `T` through serde, with a stream of its
    /// own (nothing defined before it is known, which is right where the body layer reads
    /// typed values: after the head strings or the flag); returns it and where it ends.
    fn deserialize_at<T: DeserializeOwned>(
        self,
        body: &Bytes,
        at: usize,
        field: &'static str,
    ) -> Result<(T, usize), BodyError>;
}

/// Reads the values of one body in order.
pub(crate) trait Reader<'de> {
    /// Bytes of the whole body read so far.
    fn offset(&self) -> usize;

    /// True at the end of the body.
    fn is_empty(&self) -> bool;

    /// A string written with `writeUTF` (`None` for `null`).
    fn read_utf(&mut self, field: &'static str) -> Result<Option<Cow<'de, str>>, BodyError>;

    /// The result flag written with `writeByte`: 0..=5.
    fn read_flag(&mut self) -> Result<i32, BodyError>;

    /// The next value (`None` at the end of the body).
    fn read_value(&mut self, field: &'static str) -> Result<Option<Value>, BodyError>;

    /// The attachment map (`None` at the end of the body; `null` is no map): what
    /// [`Attachments::from_value`] makes of [`read_value`](Self::read_value), which is how
    /// a format without a reader of its own builds it.
    fn read_attachments(&mut self) -> Result<Option<Attachments>, BodyError> {
        self.read_value(ATTACHMENTS)?
            .map(Attachments::from_value)
            .transpose()
    }

    /// Steps over one value without building it (an error at the end of the body).
    fn skip(&mut self, field: &'static str) -> Result<(), BodyError>;

    /// Reads the attachment map (nothing at the end of the body; `null` is no map). For each
    /// entry with a string key, `select` sees the key (a string variant of
    /// [`AttachmentValue`]) and may choose it (`Some`); the value of
    /// a chosen key goes to `found`, a string or [`AttachmentValue::NotString`]. Everything
    /// else is stepped over. Nothing is allocated for strings the body holds plainly.
    fn scan_attachments<S>(
        &mut self,
        select: impl FnMut(AttachmentValue<'de, '_>) -> Option<S>,
        found: impl FnMut(S, AttachmentValue<'de, '_>),
    ) -> Result<(), BodyError>;
}

/// Writes the values of one body in order.
pub(crate) trait Writer<B: BufMut> {
    /// A string, as `writeUTF`.
    fn write_utf(&mut self, s: &str);
    /// `null` (a `writeUTF(null)`, or a heartbeat's body).
    fn write_null(&mut self);
    /// The result flag, as `writeByte`.
    fn write_flag(&mut self, flag: i32);
    /// A dynamic value, as `writeObject`.
    fn write_value(&mut self, v: &Value);
    /// The attachment map, as `writeAttachments`.
    fn write_attachments(&mut self, a: &Attachments);
    /// Copies an argument section written by [`Format::args`] of `section` when this writer
    /// can take it as it is (`plain_after`: what follows it in the body uses none of the
    /// stream's tables); false when it cannot (the arguments must then go through values).
    fn copy_section(&mut self, section: BodyFormat, bytes: &[u8], plain_after: bool) -> bool;
    /// The buffer written to.
    fn into_inner(self) -> B;
}

/// Typed arguments, serialized one after the other into an argument section.
pub(crate) trait ArgsSink {
    /// Serializes one argument.
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), BodyError>;
    /// The section's bytes.
    fn finish(self) -> Vec<u8>;
}

/// The typed arguments of a request being built, in the builder's format.
// The Hessian2 serializer is large and the common case: not boxed (one builder per call).
#[allow(clippy::large_enum_variant)]
pub(crate) enum ArgsBuf {
    Hessian2(BodyFormat, hessian2::HessianArgs),
    Fastjson2(BodyFormat, fastjson2::JsonbArgs),
}

impl std::fmt::Debug for ArgsBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ArgsBuf").field(&self.format()).finish()
    }
}

impl ArgsBuf {
    pub(crate) fn new(format: BodyFormat) -> ArgsBuf {
        match format {
            BodyFormat::Hessian2(lite) => {
                ArgsBuf::Hessian2(format, hessian2::Hessian2 { lite }.args())
            }
            BodyFormat::Fastjson2(version) => {
                ArgsBuf::Fastjson2(format, fastjson2::Fastjson2 { version }.args())
            }
        }
    }

    pub(crate) fn format(&self) -> BodyFormat {
        match self {
            ArgsBuf::Hessian2(format, _) => *format,
            ArgsBuf::Fastjson2(format, _) => *format,
        }
    }

    pub(crate) fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), BodyError> {
        match self {
            ArgsBuf::Hessian2(_, a) => a.push(value),
            ArgsBuf::Fastjson2(_, a) => a.push(value),
        }
    }

    pub(crate) fn finish(self) -> Vec<u8> {
        match self {
            ArgsBuf::Hessian2(_, a) => a.finish(),
            ArgsBuf::Fastjson2(_, a) => a.finish(),
        }
    }
}

/// The field name of the attachment map in errors.
pub(crate) const ATTACHMENTS: &str = "attachments";

/// Names of the arguments for error messages (the first few; later ones share a name).
const ARG_FIELDS: [&str; 8] = [
    "argument 0",
    "argument 1",
    "argument 2",
    "argument 3",
    "argument 4",
    "argument 5",
    "argument 6",
    "argument 7",
];

/// The name of argument `i` in error messages.
pub(crate) fn arg_field(i: usize) -> &'static str {
    ARG_FIELDS.get(i).copied().unwrap_or("an argument")
}

/// [`Reader::read_utf`] with `null` read as the empty string.
pub(crate) fn read_utf_or_empty<'de, R: Reader<'de>>(
    r: &mut R,
    field: &'static str,
) -> Result<Cow<'de, str>, BodyError> {
    Ok(r.read_utf(field)?.unwrap_or(Cow::Borrowed("")))
}

/// Steps over `n` arguments.
pub(crate) fn skip_args<'de, R: Reader<'de>>(r: &mut R, n: usize) -> Result<(), BodyError> {
    for i in 0..n {
        let field = arg_field(i);
        if r.is_empty() {
            return Err(BodyError::Missing { field });
        }
        r.skip(field)?;
    }
    Ok(())
}

/// Reads `n` arguments as values.
pub(crate) fn read_args<'de, R: Reader<'de>>(r: &mut R, n: usize) -> Result<Vec<Value>, BodyError> {
    let mut out = Vec::with_capacity(n.min(64));
    for i in 0..n {
        let field = arg_field(i);
        match r.read_value(field)? {
            Some(v) => out.push(v),
            None => return Err(BodyError::Missing { field }),
        }
    }
    Ok(out)
}
