//! fastjson2 bodies (serialization id 23, what Dubbo 3.2+ prefers): every value of the body
//! is a JSONB document of its own, after its length as a 4-byte big-endian int (Dubbo's
//! `FastJson2ObjectOutput`: `writeUTF`, `writeByte` and `writeAttachments` all go through
//! `writeObject`), read and written with the [`fastjson2`] crate.
//!
//! Documents share nothing (each has its own symbol table), so stepping over an argument is
//! reading its length, and an argument section can be copied into any body as it is.
//!
//! Dynamic values are converted to and from the body layer's Hessian `Value` ([`convert`]).
//! Typed (serde) arguments and results are serialized and deserialized by the `fastjson2`
//! crate's serde layer, one document each, never through a `Value`: see its `ser` and `de`
//! docs for the Rust shapes Java reads (fastjson2 leaves `null` fields and `false`/`0`
//! primitive fields out, so such fields need `#[serde(default)]` to be read back).

use std::borrow::Cow;
use std::cell::Cell;

use bytes::{BufMut, Bytes};
use fastjson2::decode::{Decoder, Header};
use fastjson2::encode::{Encoder, PeerVersion};
use fastjson2::frame::{read_framed, write_framed, write_framed_with, LENGTH_BYTES};
use fastjson2::marker::{int, string};
use hessian2::value::Value;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::args::{ArgsDeserializer, NextArg};
use super::{ArgsSink, BodyFormat, Format, Reader, Writer, ATTACHMENTS};
use crate::attachments::{AttachmentValue, Attachments};
use crate::error::BodyError;
use crate::result_flag::{RESPONSE_NULL_VALUE, RESPONSE_VALUE};
use crate::typed;

mod attachments;
mod convert;
mod jdk;

/// The fastjson2 format, writing as fastjson2 `version` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fastjson2 {
    pub(crate) version: PeerVersion,
}

/// `writeObject(null)`: a one-byte document, JSONB `null` (`0xaf`).
const NULL_BODY: &[u8] = &[0, 0, 0, 1, 0xaf];

impl Format for Fastjson2 {
    type Reader<'de> = JsonbReader<'de>;
    type BufReader = OwnedReader;
    type Writer<B: BufMut> = JsonbWriter<B>;
    type Args = JsonbArgs;

    fn null_body(self) -> &'static [u8] {
        NULL_BODY
    }

    fn framing(self) -> usize {
        // Each value is a document after its length.
        LENGTH_BYTES
    }

    fn str_size(self, s: &str) -> usize {
        // As `Encoder::write_str` writes ASCII: up to `FIX_MAX` bytes after a one-byte head
        // (Hessian2's takes two from 32 bytes on), longer ones after Latin-1's code and the
        // length, an int. Other text is written as Latin-1, UTF-16 or UTF-8: about as long.
        let n = s.len();
        if n <= string::FIX_MAX {
            return 1 + n;
        }
        let len = i32::try_from(n).unwrap_or(i32::MAX);
        let len_size = if len <= int::BYTE_MAX {
            2
        } else if len <= int::SHORT_MAX {
            3
        } else {
            5
        };
        1 + len_size + n
    }

    fn reader<'de>(self, body: &'de [u8], base: usize) -> JsonbReader<'de> {
        JsonbReader { body, pos: 0, base }
    }

    fn buf_reader(self, body: &Bytes) -> OwnedReader {
        OwnedReader {
            body: body.clone(),
            pos: 0,
        }
    }

    fn writer<B: BufMut>(self, buf: B) -> JsonbWriter<B> {
        JsonbWriter {
            out: buf,
            doc: DOC.try_with(Cell::take).unwrap_or_default(),
            version: self.version,
        }
    }

    fn args(self) -> JsonbArgs {
        JsonbArgs {
            // The size of the thread's last argument section, as the Hessian2 format starts.
            out: typed::ARGS.buffer(),
            version: self.version,
        }
    }

    fn joins_as_is(self, _alone: &[u8]) -> bool {
        // Each value is a JSONB document of its own, framed by its length.
        true
    }

    fn decode_args<T: DeserializeOwned>(
        self,
        body: &Bytes,
        offset: usize,
        count: usize,
    ) -> Result<T, BodyError> {
        let rest = body.get(offset..).unwrap_or_default();
        T::deserialize(ArgsDeserializer {
            args: FramedArgs { rest },
            count,
        })
        .map_err(|source| BodyError::Fastjson2 {
            field: "arguments",
            source,
        })
    }

    fn decode_separate_args<T: DeserializeOwned>(self, args: &[Bytes]) -> Result<T, BodyError> {
        T::deserialize(ArgsDeserializer {
            args: SeparateDocs(args.iter()),
            count: args.len(),
        })
        .map_err(|source| BodyError::Fastjson2 {
            field: "arguments",
            source,
        })
    }

    fn encode_typed_result<T: Serialize + ?Sized>(
        self,
        value: &T,
        attachments: Option<&Attachments>,
    ) -> Result<Bytes, BodyError> {
        // Every document straight into the body (no document of its own to copy), the body
        // as long as the thread's last one: one allocation when results are alike.
        let mut out = typed::RESULT.buffer();
        // The flag as `RESPONSE_VALUE`, set once the value is known to be null or not (every
        // flag is the same two bytes: `byte`'s code, then the flag).
        write_framed_with(&mut out, |o| {
            Encoder::new(o).write_byte(RESPONSE_VALUE as i8)
        });
        let value_at = out.len();
        serialize_framed(&mut out, value, self.version).map_err(|source| BodyError::Fastjson2 {
            field: "value",
            source,
        })?;
        let null = out[value_at + LENGTH_BYTES..] == [NULL];
        if null {
            out.truncate(value_at);
        }
        let flag = if null {
            RESPONSE_NULL_VALUE
        } else {
            RESPONSE_VALUE
        } + if attachments.is_some() { 3 } else { 0 };
        // The flag's byte ends its document.
        out[value_at - 1] = flag as u8;
        if let Some(a) = attachments {
            write_framed_with(&mut out, |o| {
                write_attachment_map(&mut Encoder::with_version(o, self.version), a)
            });
        }
        typed::RESULT.record(out.len());
        Ok(Bytes::from(out))
    }

    fn deserialize_at<T: DeserializeOwned>(
        self,
        body: &Bytes,
        at: usize,
        field: &'static str,
    ) -> Result<(T, usize), BodyError> {
        let rest = body.get(at..).unwrap_or_default();
        let mut r = self.reader(rest, at);
        let (doc, doc_at) = r.next_doc(field)?;
        let v = fastjson2::from_slice::<T>(doc).map_err(error_at(field, doc_at))?;
        Ok((v, r.offset()))
    }
}

/// JSONB `null`.
const NULL: u8 = 0xaf;

/// Serializes `value` as one framed document at the end of `out`: straight into it, its
/// length patched in after. As 2.0.52 writes (the default) with the thread's pooled
/// serializer, which keeps its symbol table's memory from message to message.
fn serialize_framed<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
    version: PeerVersion,
) -> Result<(), fastjson2::Error> {
    let mut written = Ok(());
    write_framed_with(out, |out| {
        written = if version == PeerVersion::default() {
            let mut ser: fastjson2::Serializer<Vec<u8>> = typed::serializer(std::mem::take(out));
            let w = value.serialize(&mut ser);
            *out = typed::finish(ser);
            w
        } else {
            value.serialize(&mut fastjson2::Serializer::with_version(out, version))
        };
    });
    written
}

/// The arguments left in a body: each is one framed document.
struct FramedArgs<'de> {
    rest: &'de [u8],
}

impl<'de> NextArg<'de> for FramedArgs<'de> {
    type Error = fastjson2::Error;

    fn next_arg<T: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, Self::Error> {
        let (doc, rest) = read_framed(self.rest)?;
        self.rest = rest;
        let mut de = fastjson2::Deserializer::new(doc);
        seed.deserialize(&mut de).map_err(|e| de.locate(e))
    }
}

/// Each argument is a framed document of its own.
struct SeparateDocs<'a>(std::slice::Iter<'a, Bytes>);

impl<'de> NextArg<'de> for SeparateDocs<'de> {
    type Error = fastjson2::Error;

    fn next_arg<T: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, Self::Error> {
        let rest = self.0.next().map_or(&[][..], |a| &a[..]);
        FramedArgs { rest }.next_arg(seed)
    }
}

/// Reads the documents of a body held in a slice.
pub(crate) struct JsonbReader<'de> {
    body: &'de [u8],
    pos: usize,
    base: usize,
}

/// A fastjson2 error in `field`, its offset moved from the document at `doc` to the body.
fn error_at(field: &'static str, doc: usize) -> impl Fn(fastjson2::Error) -> BodyError {
    move |e| BodyError::Fastjson2 {
        field,
        source: fastjson2::Error::new(e.kind().clone(), e.offset() + doc as u64),
    }
}

impl<'de> JsonbReader<'de> {
    /// The next document and the body offset where it starts.
    fn next_doc(&mut self, field: &'static str) -> Result<(&'de [u8], usize), BodyError> {
        let rest = self.body.get(self.pos..).unwrap_or_default();
        if rest.is_empty() {
            return Err(BodyError::Missing { field });
        }
        let at = self.base + self.pos;
        let (doc, _) = read_framed(rest).map_err(error_at(field, at))?;
        self.pos += LENGTH_BYTES + doc.len();
        Ok((doc, at + LENGTH_BYTES))
    }
}

/// The kind of a header, for error messages.
fn header_kind(h: &Header<'_>) -> &'static str {
    match h {
        Header::Null => "null",
        Header::Bool(_) => "a boolean",
        Header::Int(_) | Header::Long(_) | Header::Byte(_) | Header::Short(_) => "an integer",
        Header::String(_) | Header::Symbol(_) => "a string",
        Header::Array(_) => "an array",
        Header::Object => "an object",
        Header::Typed(_) => "a typed value",
        Header::Ref(_) => "a reference",
        _ => "a value",
    }
}

impl<'de> Reader<'de> for JsonbReader<'de> {
    fn offset(&self) -> usize {
        self.base + self.pos
    }

    fn is_empty(&self) -> bool {
        self.pos >= self.body.len()
    }

    fn read_utf(&mut self, field: &'static str) -> Result<Option<Cow<'de, str>>, BodyError> {
        let (doc, at) = self.next_doc(field)?;
        match Decoder::new(doc).pull().map_err(error_at(field, at))? {
            Header::Null => Ok(None),
            Header::String(s) | Header::Symbol(s) => Ok(Some(s)),
            other => Err(BodyError::Unexpected {
                field,
                expected: "a string",
                found: header_kind(&other),
            }),
        }
    }

    fn read_flag(&mut self) -> Result<i32, BodyError> {
        const FIELD: &str = "result flag";
        let (doc, at) = self.next_doc(FIELD)?;
        let flag = match Decoder::new(doc).pull().map_err(error_at(FIELD, at))? {
            Header::Byte(b) => i32::from(b),
            Header::Short(s) => i32::from(s),
            Header::Int(i) => i,
            other => {
                return Err(BodyError::Unexpected {
                    field: FIELD,
                    expected: "a byte",
                    found: header_kind(&other),
                })
            }
        };
        match flag {
            0..=5 => Ok(flag),
            f => Err(BodyError::UnknownResultFlag(f)),
        }
    }

    fn read_value(&mut self, field: &'static str) -> Result<Option<Value>, BodyError> {
        if self.is_empty() {
            return Ok(None);
        }
        let (doc, at) = self.next_doc(field)?;
        let v = fastjson2::value::from_slice(doc).map_err(error_at(field, at))?;
        Ok(Some(convert::to_hessian(&v)))
    }

    fn read_attachments(&mut self) -> Result<Option<Attachments>, BodyError> {
        if self.is_empty() {
            return Ok(None);
        }
        let (doc, at) = self.next_doc(ATTACHMENTS)?;
        if let Some(a) = attachments::read(doc) {
            return Ok(Some(a));
        }
        // Another shape, or an error: the `Value` path says which.
        let v = fastjson2::value::from_slice(doc).map_err(error_at(ATTACHMENTS, at))?;
        Attachments::from_value(convert::to_hessian(&v)).map(Some)
    }

    fn skip(&mut self, field: &'static str) -> Result<(), BodyError> {
        self.next_doc(field).map(|_| ())
    }

    fn scan_attachments<S>(
        &mut self,
        mut select: impl FnMut(AttachmentValue<'de, '_>) -> Option<S>,
        mut found: impl FnMut(S, AttachmentValue<'de, '_>),
    ) -> Result<(), BodyError> {
        const FIELD: &str = "attachments";
        if self.is_empty() {
            return Ok(());
        }
        let (doc, at) = self.next_doc(FIELD)?;
        let err = error_at(FIELD, at);
        let mut dec = Decoder::new(doc);
        let mut header = dec.pull().map_err(&err)?;
        if let Header::Typed(_) = header {
            // A map class other than `HashMap`.
            header = dec.pull().map_err(&err)?;
        }
        match header {
            Header::Object => {}
            Header::Null => return Ok(()),
            other => {
                return Err(BodyError::Unexpected {
                    field: FIELD,
                    expected: "a map",
                    found: header_kind(&other),
                })
            }
        }
        loop {
            let chosen = match dec.pull().map_err(&err)? {
                Header::End => return Ok(()),
                Header::String(key) | Header::Symbol(key) => select(cow_value(&key)),
                other => {
                    dec.skip_rest(other).map_err(&err)?;
                    None
                }
            };
            match (chosen, dec.pull().map_err(&err)?) {
                (_, Header::End) => {
                    return Err(BodyError::Unexpected {
                        field: FIELD,
                        expected: "a value",
                        found: "the end of the map",
                    })
                }
                (Some(chosen), Header::String(value)) => found(chosen, cow_value(&value)),
                (Some(chosen), other) => {
                    dec.skip_rest(other).map_err(&err)?;
                    found(chosen, AttachmentValue::NotString);
                }
                (None, other) => dec.skip_rest(other).map_err(&err)?,
            }
        }
    }
}

/// A string the decoder read: borrowed from the body, or (UTF-16 on the wire) its own.
fn cow_value<'de, 'v>(s: &'v Cow<'de, str>) -> AttachmentValue<'de, 'v> {
    match s {
        Cow::Borrowed(b) => AttachmentValue::Borrowed(b),
        Cow::Owned(o) => AttachmentValue::Copied(o),
    }
}

/// Reads the documents of a body held in [`Bytes`].
pub(crate) struct OwnedReader {
    body: Bytes,
    pos: usize,
}

impl OwnedReader {
    /// A slice reader over the rest of the body, and what it read after `f`.
    fn with<T>(&mut self, f: impl FnOnce(&mut JsonbReader<'_>) -> T) -> T {
        let mut r = JsonbReader {
            body: &self.body[self.pos.min(self.body.len())..],
            pos: 0,
            base: self.pos,
        };
        let out = f(&mut r);
        self.pos += r.pos;
        out
    }
}

impl Reader<'static> for OwnedReader {
    fn offset(&self) -> usize {
        self.pos
    }

    fn is_empty(&self) -> bool {
        self.pos >= self.body.len()
    }

    fn read_utf(&mut self, field: &'static str) -> Result<Option<Cow<'static, str>>, BodyError> {
        self.with(|r| {
            r.read_utf(field)
                .map(|s| s.map(|s| Cow::Owned(s.into_owned())))
        })
    }

    fn read_flag(&mut self) -> Result<i32, BodyError> {
        self.with(|r| r.read_flag())
    }

    fn read_value(&mut self, field: &'static str) -> Result<Option<Value>, BodyError> {
        self.with(|r| r.read_value(field))
    }

    fn read_attachments(&mut self) -> Result<Option<Attachments>, BodyError> {
        self.with(|r| r.read_attachments())
    }

    fn skip(&mut self, field: &'static str) -> Result<(), BodyError> {
        self.with(|r| r.skip(field))
    }

    fn scan_attachments<S>(
        &mut self,
        mut select: impl FnMut(AttachmentValue<'static, '_>) -> Option<S>,
        mut found: impl FnMut(S, AttachmentValue<'static, '_>),
    ) -> Result<(), BodyError> {
        self.with(|r| r.scan_attachments(|k| select(copied(k)), |s, v| found(s, copied(v))))
    }
}

/// A value borrowed from a reader that is not `'static` as one valid during the callback.
fn copied<'a: 'v, 'v>(v: AttachmentValue<'a, 'v>) -> AttachmentValue<'static, 'v> {
    match v {
        AttachmentValue::Borrowed(_) | AttachmentValue::Copied(_) => {
            AttachmentValue::Copied(v.as_str().unwrap_or_default())
        }
        AttachmentValue::NotString => AttachmentValue::NotString,
    }
}

thread_local! {
    /// The document buffer of the thread's body writers, kept from body to body: a
    /// `BufMut` cannot have a length patched in, so each value is encoded here first.
    static DOC: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// A document buffer larger than this is not kept (one huge value must not pin its memory).
const KEPT_DOC: usize = 64 * 1024;

/// Writes one fastjson2 body: each value is encoded into `doc`, then framed into `out`.
pub(crate) struct JsonbWriter<B> {
    out: B,
    doc: Vec<u8>,
    version: PeerVersion,
}

impl<B: BufMut> JsonbWriter<B> {
    fn document(&mut self, write: impl FnOnce(&mut Encoder<&mut Vec<u8>>)) {
        self.doc.clear();
        write(&mut Encoder::with_version(&mut self.doc, self.version));
        write_framed(&mut self.out, &self.doc);
    }

    fn jsonb(&mut self, v: &fastjson2::value::Value) {
        self.document(|e| fastjson2::value::write_value(e, v));
    }
}

impl<B: BufMut> Writer<B> for JsonbWriter<B> {
    fn write_utf(&mut self, s: &str) {
        // Straight from `s`: a `Value` would copy it into a `String` first.
        self.document(|e| e.write_str(s));
    }

    fn write_null(&mut self) {
        self.document(|e| e.write_null());
    }

    fn write_flag(&mut self, flag: i32) {
        // `writeByte`: a `Byte` object.
        self.document(|e| e.write_byte(flag as i8));
    }

    fn write_value(&mut self, v: &Value) {
        self.jsonb(&convert::to_jsonb(v));
    }

    fn write_attachments(&mut self, a: &Attachments) {
        self.document(|e| write_attachment_map(e, a));
    }

    fn copy_section(&mut self, section: BodyFormat, bytes: &[u8], _plain_after: bool) -> bool {
        // Documents share nothing: a section is copied into any fastjson2 body (documents
        // of either fastjson2 version read the same).
        let same = matches!(section, BodyFormat::Fastjson2(_));
        if same {
            self.out.put_slice(bytes);
        }
        same
    }

    fn into_inner(self) -> B {
        let JsonbWriter { out, mut doc, .. } = self;
        if doc.capacity() <= KEPT_DOC {
            doc.clear();
            let _ = DOC.try_with(|d| d.set(doc));
        }
        out
    }
}

/// The attachment map, entry by entry: keys and string values (all Java sends) straight from
/// the attachments, other values converted one by one (as a whole map converted would: each
/// value is converted on its own), so no tree of copies is built.
fn write_attachment_map<B: BufMut>(e: &mut Encoder<B>, a: &Attachments) {
    e.write_object_start();
    for (k, v) in a.iter() {
        e.write_str(k);
        match v {
            Value::String(s) => e.write_str(s),
            v => fastjson2::value::write_value(e, &convert::to_jsonb(v)),
        }
    }
    e.write_object_end();
}

/// Typed arguments, each a document of its own.
pub(crate) struct JsonbArgs {
    out: Vec<u8>,
    version: PeerVersion,
}

impl ArgsSink for JsonbArgs {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), BodyError> {
        // Straight into the section (on an error the builder drops the section).
        serialize_framed(&mut self.out, value, self.version).map_err(|source| {
            BodyError::Fastjson2 {
                field: "argument",
                source,
            }
        })
    }

    fn finish(self) -> Vec<u8> {
        typed::ARGS.record(self.out.len());
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;
    use crate::peek::{peek_with, PeekOptions, Source};
    use crate::request::Request;
    use crate::response::{
        decode_error_message_in, error_body_in, Outcome, RpcResult, TypedResult,
    };
    use crate::Serialization;
    use bytes::BytesMut;

    const F: BodyFormat = BodyFormat::FASTJSON2;

    #[test]
    fn requests_round_trip_and_peek() {
        let req = Request::builder("com.example.Greeter", "sayHello")
            .format(F)
            .version("1.0.0")
            .group("blue")
            .arg("java.lang.String", "world")
            .arg("int", &7)
            .attach("env", "canary")
            .build()
            .unwrap();
        let frame = req.to_frame(1, true);
        assert_eq!(frame.header().serialization(), Serialization::Fastjson2);
        // Each value a framed document: "2.0.2" first.
        assert_eq!(&frame.body()[..10], b"\x00\x00\x00\x06\x4e2.0.2");
        let back = Request::from_frame(&frame).unwrap();
        assert_eq!(back.format, F);
        assert_eq!(back.args, [Value::from("world"), Value::Int(7)]);
        assert_eq!(back.group(), Some("blue"));
        let (s, n): (String, i32) = crate::RequestHead::decode_in(F, frame.body())
            .unwrap()
            .decode_args(frame.body())
            .unwrap();
        assert_eq!((s.as_str(), n), ("world", 7));
        let mut env = None;
        let p = peek_with(frame.body(), PeekOptions::new(F), &["env"], |_, v| {
            env = v.as_str().map(str::to_owned)
        })
        .unwrap();
        assert_eq!((&*p.method, p.group.as_deref()), ("sayHello", Some("blue")));
        assert_eq!(
            (p.source, env.as_deref()),
            (Source::Attachments, Some("canary"))
        );
        assert!(matches!(p.method, Cow::Borrowed(_)));
        for n in 0..frame.body().len() {
            let _ = Request::decode_in(F, &frame.body()[..n]);
            let _ = peek_with(&frame.body()[..n], PeekOptions::new(F), &["env"], |_, _| {});
        }
    }

    /// Strings and attachments written straight (no `Value` tree in between) are the bytes
    /// the tree gives: plain, non-Latin and long strings, and non-string attachment values.
    #[test]
    fn strings_and_attachments_as_the_value_tree_writes_them() {
        let tree = |v: &fastjson2::value::Value| {
            let mut doc = Vec::new();
            fastjson2::value::write_value(&mut Encoder::new(&mut doc), v);
            let mut out = Vec::new();
            write_framed(&mut out, &doc);
            out
        };
        let long = "x".repeat(300);
        for s in [
            "",
            "2.0.2",
            "com.example.Greeter",
            "héllo",
            "你好",
            long.as_str(),
        ] {
            let mut w = Fastjson2::default_writer();
            w.write_utf(s);
            assert_eq!(w.out, tree(&fastjson2::value::Value::from(s)), "{s}");
        }
        let mut a = Attachments::new();
        a.insert("path", "com.example.Greeter");
        a.insert("timeout", Value::Int(3000));
        a.insert("tags", Value::untyped_list(vec![Value::from("a")]));
        a.insert("名前", "値");
        let entries = a
            .iter()
            .map(|(k, v)| (fastjson2::value::Value::from(k), convert::to_jsonb(v)))
            .collect();
        let mut w = Fastjson2::default_writer();
        w.write_attachments(&a);
        assert_eq!(w.out, tree(&fastjson2::value::Value::Object(entries)));
    }

    impl Fastjson2 {
        fn default_writer() -> JsonbWriter<Vec<u8>> {
            let BodyFormat::Fastjson2(version) = F else {
                unreachable!()
            };
            Fastjson2 { version }.writer(Vec::new())
        }
    }

    /// `BodyFormat::Fastjson2`'s version reaches the documents: a whole `float` outside
    /// -16..=47 is four bytes from 2.0.52 and `0xb6` with a short int from 2.0.56, in typed
    /// arguments as fastjson2's own serializer writes them.
    #[test]
    fn the_fastjson2_version_sets_the_float_form() {
        let framed = |version| {
            let mut doc = Vec::new();
            serde::Serialize::serialize(
                &1000.0f32,
                &mut fastjson2::Serializer::with_version(&mut doc, version),
            )
            .unwrap();
            let mut out = Vec::new();
            write_framed(&mut out, &doc);
            out
        };
        let (old, new) = (framed(PeerVersion::V2_0_52), framed(PeerVersion::V2_0_56));
        assert_ne!(old, new);
        for (version, want, other) in [
            (PeerVersion::V2_0_52, &old, &new),
            (PeerVersion::V2_0_56, &new, &old),
        ] {
            let format = BodyFormat::Fastjson2(version);
            let req = Request::builder("com.example.Meter", "set")
                .format(format)
                .arg("float", &1000.0f32)
                .build()
                .unwrap();
            let body = req.to_frame(1, true).body().clone();
            let has = |needle: &[u8]| body.windows(needle.len()).any(|w| w == needle);
            assert!(has(want) && !has(other), "{version:?}");
            let back = Request::from_frame(&req.to_frame(1, true)).unwrap();
            assert_eq!(back.format.serialization(), Serialization::Fastjson2);
        }
    }

    /// Fuzz finding (request_peek_fastjson2): an attachment whose value is a `java.time`
    /// value was a string to the full decode (its text) and not one to the peek. Now it is an
    /// object to both.
    #[test]
    fn a_java_time_attachment_is_not_a_string() {
        let body = Request::builder("S", "m")
            .format(F)
            .build()
            .unwrap()
            .to_bytes();
        let mut r = Fastjson2 {
            version: PeerVersion::default(),
        }
        .reader(&body, 0);
        for _ in 0..5 {
            r.skip("head").unwrap();
        }
        let mut body = body[..r.offset()].to_vec();
        let mut doc = Vec::new();
        let mut e = Encoder::new(&mut doc);
        e.write_object_start();
        e.write_str("timeout");
        e.write_local_date(&fastjson2::types::LocalDate {
            year: 2026,
            month: 11,
            day: 25,
        });
        e.write_object_end();
        write_framed(&mut body, &doc);
        let full = Request::decode_in(F, &body).unwrap();
        assert_eq!(full.attachments.get_str("timeout"), None);
        let p = peek_with(&body, PeekOptions::new(F), &["timeout"], |_, v| {
            assert!(!v.is_str())
        })
        .unwrap();
        assert_eq!(p.timeout, None);
    }

    #[test]
    fn results_errors_and_events() {
        let r = RpcResult::for_request(Outcome::Value(Value::from("hi")), "2.0.2");
        let body = r.encode_in(F, BytesMut::new()).freeze();
        assert_eq!(RpcResult::decode_in(F, &body).unwrap(), r);
        let t = TypedResult::<String>::decode_in(F, &body).unwrap();
        assert_eq!(t.outcome, Ok("hi".to_owned()));
        let typed = crate::response::encode_typed_result_in(F, &42i64, None).unwrap();
        assert_eq!(
            TypedResult::<i64>::decode_in(F, &typed).unwrap().outcome,
            Ok(42)
        );
        let e = error_body_in(F, Some("nope"));
        assert_eq!(
            decode_error_message_in(F, &e).unwrap().as_deref(),
            Some("nope")
        );
        for ev in [Event::Heartbeat, Event::ReadOnly, Event::Writeable] {
            let b = ev.body_in(F).unwrap();
            assert_eq!(Event::classify(Serialization::Fastjson2, &b), ev);
        }
        assert_eq!(&Event::Heartbeat.body_in(F).unwrap()[..], NULL_BODY);
    }
}
