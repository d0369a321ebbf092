//! Hessian2 bodies (serialization id 2): the whole body is **one** Hessian2 stream, as Java's
//! `Hessian2ObjectOutput` writes it, so class definitions, type names and `Q` references are
//! shared by every value in it (two arguments of one class share its definition; an
//! attachment could refer back into an argument).
//!
//! `writeUTF` is a Hessian string (`N` for `null`), `writeByte` a Hessian **int**
//! (`0x90`..`0x95` for the result flags), `writeObject` any value, and `writeAttachments` an
//! untyped `H` map.
//!
//! Typed arguments are serialized with one [`hessian2::Serializer`] for the whole argument
//! section, which starts right after the head strings: Hessian2 never back-references a
//! string, so the head touches none of the stream's tables and the section is exactly what
//! Java writes after it (see [typed
//! arguments](crate::request#typed-arguments-are-written-once-never-through-value)).

use std::borrow::Cow;

use bytes::{BufMut, Bytes};
use hessian2::decode::{Decoder, Header, Reference};
use hessian2::encode::{Encoder, PeerVersion};
use hessian2::input::{BufInput, Input, SliceInput};
use hessian2::value::{Value, ValueDecoder};
use hessian2::Serializer;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::args::{ArgsDeserializer, NextArg};
use super::{BodyFormat, Format, Reader, Writer, ATTACHMENTS};
use crate::attachments::{str_size_hint, AttachmentValue, Attachments};
use crate::body::value_kind;
use crate::error::BodyError;
use crate::result_flag::{RESPONSE_NULL_VALUE, RESPONSE_VALUE};
use crate::typed;

/// The Hessian2 format, writing as hessian-lite `lite` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hessian2 {
    pub(crate) lite: PeerVersion,
}

impl Format for Hessian2 {
    type Reader<'de> = HessianReader<'de, SliceInput<'de>>;
    type BufReader = HessianReader<'static, BufInput<Bytes>>;
    type Writer<B: BufMut> = Encoder<B>;
    type Args = HessianArgs;

    fn null_body(self) -> &'static [u8] {
        b"N"
    }

    fn framing(self) -> usize {
        // One stream: values follow one another.
        0
    }

    fn str_size(self, s: &str) -> usize {
        str_size_hint(s)
    }

    fn reader<'de>(self, body: &'de [u8], base: usize) -> Self::Reader<'de> {
        HessianReader {
            values: ValueDecoder::new(SliceInput::new(body)),
            base,
        }
    }

    fn buf_reader(self, body: &Bytes) -> Self::BufReader {
        HessianReader {
            values: ValueDecoder::new(BufInput::new(body.clone())),
            base: 0,
        }
    }

    fn writer<B: BufMut>(self, buf: B) -> Self::Writer<B> {
        Encoder::with_version(buf, self.lite)
    }

    fn args(self) -> HessianArgs {
        HessianArgs {
            ser: match self.lite {
                // The generation `hessian2::Serializer` writes by default: pooled per thread.
                PeerVersion::V3 => typed::serializer(typed::ARGS.buffer()),
                lite => Serializer::with_version(Vec::new(), lite),
            },
        }
    }

    fn joins_as_is(self, alone: &[u8]) -> bool {
        // A scalar, string or binary names no class definition, type or earlier container; a
        // list, map or object may (its indexes count from its own stream's start).
        let header = Decoder::new(SliceInput::new(alone)).pull();
        matches!(
            header,
            Ok(Header::Null
                | Header::Bool(_)
                | Header::Int(_)
                | Header::Long(_)
                | Header::Double(_)
                | Header::Date(_)
                | Header::String { .. }
                | Header::Binary { .. })
        )
    }

    fn decode_args<T: DeserializeOwned>(
        self,
        body: &Bytes,
        offset: usize,
        count: usize,
    ) -> Result<T, BodyError> {
        let args = body.slice(offset.min(body.len())..);
        let mut de = hessian2::Deserializer::from_bytes(args);
        T::deserialize(ArgsDeserializer {
            args: &mut de,
            count,
        })
        .map_err(|source| BodyError::Deserialize {
            field: "arguments",
            source,
        })
    }

    fn decode_separate_args<T: DeserializeOwned>(self, args: &[Bytes]) -> Result<T, BodyError> {
        T::deserialize(ArgsDeserializer {
            args: SeparateStreams(args.iter()),
            count: args.len(),
        })
        .map_err(|source| BodyError::Deserialize {
            field: "arguments",
            source,
        })
    }

    fn encode_typed_result<T: Serialize + ?Sized>(
        self,
        value: &T,
        attachments: Option<&Attachments>,
    ) -> Result<Bytes, BodyError> {
        let serialize_error = |source| BodyError::Serialize {
            field: "value",
            source,
        };
        let mut ser = match self.lite {
            PeerVersion::V3 => typed::serializer(typed::RESULT.buffer()),
            lite => Serializer::with_version(Vec::new(), lite),
        };
        // A placeholder for the flag (an int, which starts no table entry, so the value's
        // stream is the body's), set once the value is known to be null or not.
        ser.get_mut().push(0x90);
        let written = ser.serialize(value);
        let mut out = if self.lite == PeerVersion::V3 {
            typed::finish(ser)
        } else {
            ser.into_inner()
        };
        written.map_err(serialize_error)?;
        let null = out[1..] == *b"N";
        if null {
            out.truncate(1);
        }
        finish_result(self.lite, &mut out, null, attachments);
        typed::RESULT.record(out.len());
        Ok(Bytes::from(out))
    }

    fn deserialize_at<T: DeserializeOwned>(
        self,
        body: &Bytes,
        at: usize,
        field: &'static str,
    ) -> Result<(T, usize), BodyError> {
        let rest = body.slice(at.min(body.len())..);
        let mut de = hessian2::Deserializer::from_bytes(rest.clone());
        if de.is_end() {
            return Err(BodyError::Missing { field });
        }
        let v = de
            .next_value::<T>()
            .map_err(|source| BodyError::Deserialize { field, source })?;
        Ok((v, at + (de.offset() as usize).min(rest.len())))
    }
}

/// The body of an OK response whose value (not `null`) or `null` result is already written
/// after a placeholder flag byte in `body`: sets the flag and appends the attachments, which
/// must be plain (no list, map or object: they would need the value's tables).
fn finish_result<B: BufMut + AsMut<[u8]>>(
    lite: PeerVersion,
    body: &mut B,
    null: bool,
    attachments: Option<&Attachments>,
) {
    let flag = if null {
        RESPONSE_NULL_VALUE
    } else {
        RESPONSE_VALUE
    } + if attachments.is_some() { 3 } else { 0 };
    body.as_mut()[0] = 0x90 + flag as u8;
    if let Some(a) = attachments {
        // Plain attachments use no table: a fresh encoder writes them as the value's own
        // stream would.
        a.encode(&mut Encoder::with_version(body, lite));
    }
}

/// The body of an OK response whose value is already serialized as one Hessian value (a
/// stream of its own, `N` for `null`), as [`hessian2::to_vec`] writes it, with plain
/// `attachments`.
pub(crate) fn encoded_result_body(value: &[u8], attachments: Option<&Attachments>) -> Bytes {
    let null = value == b"N";
    let len = 1 + if null { 0 } else { value.len() } + attachments.map_or(0, |a| a.size_hint());
    let mut body = bytes::BytesMut::with_capacity(len);
    body.put_u8(0x90);
    if !null {
        body.put_slice(value);
    }
    finish_result(PeerVersion::V3, &mut body, null, attachments);
    body.freeze()
}

/// The name of a header's value kind, for error messages.
pub(crate) fn header_kind(h: &Header) -> &'static str {
    match h {
        Header::Null => "null",
        Header::Bool(_) => "a boolean",
        Header::Int(_) => "an int",
        Header::Long(_) => "a long",
        Header::Double(_) => "a double",
        Header::Date(_) => "a date",
        Header::String { .. } => "a string",
        Header::Binary { .. } => "a binary",
        Header::List { .. } => "a list",
        Header::Map { .. } => "a map",
        Header::Object { .. } => "an object",
        Header::Ref(_) => "a reference",
        Header::End => "the end marker Z",
    }
}

/// Reads one Hessian2 body: a [`ValueDecoder`] (which counts references for the values it
/// builds) over the body from byte `base` on.
pub(crate) struct HessianReader<'de, I> {
    values: ValueDecoder<'de, I>,
    base: usize,
}

impl<'de, I: Input<'de>> HessianReader<'de, I> {
    fn dec(&mut self) -> &mut Decoder<'de, I> {
        self.values.decoder_mut()
    }

    fn at(&self, field: &'static str) -> impl FnOnce(hessian2::Error) -> BodyError {
        BodyError::hessian_at(field, self.base)
    }
}

impl<'de, I: Input<'de>> Reader<'de> for HessianReader<'de, I> {
    fn offset(&self) -> usize {
        self.base + self.values.decoder().offset() as usize
    }

    fn is_empty(&self) -> bool {
        self.values.decoder().is_empty()
    }

    fn read_utf(&mut self, field: &'static str) -> Result<Option<Cow<'de, str>>, BodyError> {
        if self.is_empty() {
            return Err(BodyError::Missing { field });
        }
        let err = self.at(field);
        let header = self.dec().pull().map_err(err)?;
        match header {
            Header::Null => Ok(None),
            Header::String { len, last } => {
                let err = self.at(field);
                let s = self.dec().read_str(len, last).map_err(err)?;
                Ok(Some(match s {
                    Reference::Borrowed(b) => Cow::Borrowed(b),
                    Reference::Copied(c) => Cow::Owned(c.to_owned()),
                }))
            }
            other => Err(BodyError::Unexpected {
                field,
                expected: "a string",
                found: header_kind(&other),
            }),
        }
    }

    fn read_flag(&mut self) -> Result<i32, BodyError> {
        const FIELD: &str = "result flag";
        if self.is_empty() {
            return Err(BodyError::Missing { field: FIELD });
        }
        let err = self.at(FIELD);
        match self.dec().pull().map_err(err)? {
            Header::Int(f @ 0..=5) => Ok(f),
            Header::Int(f) => Err(BodyError::UnknownResultFlag(f)),
            other => Err(BodyError::Unexpected {
                field: FIELD,
                expected: "an int",
                found: header_kind(&other),
            }),
        }
    }

    fn read_value(&mut self, field: &'static str) -> Result<Option<Value>, BodyError> {
        let err = self.at(field);
        self.values.next_value().map_err(err)
    }

    fn read_attachments(&mut self) -> Result<Option<Attachments>, BodyError> {
        // A map (what Java writes) straight into the attachments: no `Value` map to collect.
        let mut attachments = Attachments::new();
        let mut bad_key = None;
        let err = self.at(ATTACHMENTS);
        let map = self
            .values
            .next_map_entries(|key, value| match key {
                Value::String(key) => attachments.push(key, value),
                other => {
                    bad_key.get_or_insert(value_kind(&other));
                }
            })
            .map_err(err)?;
        if !map {
            // The end of the body, `null`, or another value the `Value` path names.
            return self
                .read_value(ATTACHMENTS)?
                .map(Attachments::from_value)
                .transpose();
        }
        match bad_key {
            Some(found) => Err(BodyError::AttachmentKey { found }),
            None => Ok(Some(attachments)),
        }
    }

    fn skip(&mut self, field: &'static str) -> Result<(), BodyError> {
        let err = self.at(field);
        self.dec().skip().map_err(err)
    }

    fn scan_attachments<S>(
        &mut self,
        mut select: impl FnMut(AttachmentValue<'de, '_>) -> Option<S>,
        mut found: impl FnMut(S, AttachmentValue<'de, '_>),
    ) -> Result<(), BodyError> {
        const FIELD: &str = "attachments";
        let base = self.base;
        let err = || BodyError::hessian_at(FIELD, base);
        let dec = self.values.decoder_mut();
        if dec.is_empty() {
            return Ok(());
        }
        match dec.pull().map_err(err())? {
            Header::Map { .. } => {}
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
            let chosen = match dec.pull().map_err(err())? {
                Header::End => return Ok(()),
                Header::String { len, last } => {
                    let key = dec.read_str(len, last).map_err(err())?;
                    select(key.into())
                }
                other => {
                    dec.skip_rest(other).map_err(err())?;
                    None
                }
            };
            match (chosen, dec.pull().map_err(err())?) {
                (_, Header::End) => {
                    return Err(BodyError::Unexpected {
                        field: FIELD,
                        expected: "a value",
                        found: "the end marker Z",
                    })
                }
                (Some(chosen), Header::String { len, last }) => {
                    let value = dec.read_str(len, last).map_err(err())?;
                    found(chosen, value.into());
                }
                (Some(chosen), other) => {
                    dec.skip_rest(other).map_err(err())?;
                    found(chosen, AttachmentValue::NotString);
                }
                (None, other) => dec.skip_rest(other).map_err(err())?,
            }
        }
    }
}

impl<'a: 'v, 'v> From<Reference<'a, 'v, str>> for AttachmentValue<'a, 'v> {
    fn from(r: Reference<'a, 'v, str>) -> Self {
        match r {
            Reference::Borrowed(b) => AttachmentValue::Borrowed(b),
            Reference::Copied(c) => AttachmentValue::Copied(c),
        }
    }
}

/// A Hessian2 body is written through one [`Encoder`].
impl<B: BufMut> Writer<B> for Encoder<B> {
    fn write_utf(&mut self, s: &str) {
        self.write_str(s);
    }

    fn write_null(&mut self) {
        Encoder::write_null(self);
    }

    fn write_flag(&mut self, flag: i32) {
        self.write_int(flag);
    }

    fn write_value(&mut self, v: &Value) {
        v.encode(self);
    }

    fn write_attachments(&mut self, a: &Attachments) {
        a.encode(self);
    }

    fn copy_section(&mut self, section: BodyFormat, bytes: &[u8], plain_after: bool) -> bool {
        // Only hessian-lite 3's: 4 sizes a binary's first chunk by what precedes it in the
        // stream, which the section's own serializer did not see (the head strings).
        let copy = plain_after
            && self.version() == PeerVersion::V3
            && section == BodyFormat::Hessian2(PeerVersion::V3);
        if copy {
            self.get_mut().put_slice(bytes);
        }
        copy
    }

    fn into_inner(self) -> B {
        Encoder::into_inner(self)
    }
}

/// Typed arguments written by one serializer (one stream) into an argument section.
pub(crate) struct HessianArgs {
    ser: Serializer<Vec<u8>>,
}

impl super::ArgsSink for HessianArgs {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), BodyError> {
        self.ser
            .serialize(value)
            .map_err(|source| BodyError::Serialize {
                field: "argument",
                source,
            })
    }

    fn finish(self) -> Vec<u8> {
        let bytes = if self.ser.version() == PeerVersion::V3 {
            typed::finish(self.ser)
        } else {
            self.ser.into_inner()
        };
        typed::ARGS.record(bytes.len());
        bytes
    }
}

/// Each argument is the next value of the one Hessian stream of the body.
impl NextArg<'static> for &mut hessian2::Deserializer<'static, Bytes> {
    type Error = hessian2::Error;

    fn next_arg<T: serde::de::DeserializeSeed<'static>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, Self::Error> {
        seed.deserialize(&mut **self)
    }
}

/// Each argument is a Hessian stream of its own (class definitions and references start
/// afresh).
struct SeparateStreams<'a>(std::slice::Iter<'a, Bytes>);

impl NextArg<'static> for SeparateStreams<'_> {
    type Error = hessian2::Error;

    fn next_arg<T: serde::de::DeserializeSeed<'static>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, Self::Error> {
        let arg = self.0.next().cloned().unwrap_or_default();
        seed.deserialize(&mut hessian2::Deserializer::from_bytes(arg))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Request;
    use crate::response::{Outcome, RpcResult};

    /// The attachment map is read entry by entry into the attachments: typed or not, a key
    /// sent twice kept twice; a key that is no string, or a value that is no map, is an error
    /// as [`Attachments::from_value`] says it; `null` is none, the end of the body no map.
    #[test]
    fn attachments_are_read_straight_from_the_map() {
        let read = |v: &Value| {
            let bytes = hessian2::value::to_vec(v);
            Hessian2 {
                lite: PeerVersion::V3,
            }
            .reader(&bytes, 0)
            .read_attachments()
        };
        let entries = vec![
            (Value::from("k"), Value::from("v")),
            (Value::from("n"), Value::Int(1)),
            (Value::from("k"), Value::from("w")),
        ];
        for map in [
            Value::untyped_map(entries.clone()),
            Value::Map(hessian2::value::Map {
                ty: Some("java.util.HashMap".into()),
                entries: entries.clone(),
            }),
        ] {
            let a = read(&map).unwrap().unwrap();
            assert_eq!(a, Attachments::from_value(map).unwrap());
            assert_eq!(a.len(), 3);
        }
        let bad = Value::untyped_map(vec![(Value::Int(1), Value::from("x"))]);
        assert!(matches!(
            read(&bad),
            Err(BodyError::AttachmentKey { found: "an int" })
        ));
        assert!(read(&Value::Int(3)).is_err());
        assert!(read(&Value::Null).unwrap().unwrap().is_empty());
        let mut r = Hessian2 {
            lite: PeerVersion::V3,
        }
        .reader(&[], 0);
        assert!(r.read_attachments().unwrap().is_none());
    }

    /// hessian-lite 4 (Dubbo 3.3) chunks binaries by 8189 bytes less what its 8 KiB buffer
    /// already holds of the stream, 3 by 4093: a body asked for in lite 4 is written so, and
    /// reads back the same.
    #[test]
    fn lite4_bodies_when_asked() {
        let blob = vec![7u8; 10_000];
        for lite in [PeerVersion::V3, PeerVersion::V4] {
            let format = BodyFormat::Hessian2(lite);
            let req = Request::builder("S", "m")
                .format(format)
                .value_arg("byte[]", Value::Binary(Bytes::from(blob.clone())))
                .build()
                .unwrap();
            let body = req.to_bytes();
            // A non-final chunk 'A' with its 16-bit length, right where the argument starts.
            let head = crate::RequestHead::decode(&body).unwrap();
            let at = head.args_offset;
            // What precedes the binary in the stream shortens lite 4's first chunk.
            let first = |before: usize| match lite {
                PeerVersion::V4 => lite.binary_chunk() - before,
                _ => lite.binary_chunk(),
            };
            let chunk = first(at);
            assert_eq!(body[at], b'A');
            assert_eq!(
                usize::from(u16::from_be_bytes([body[at + 1], body[at + 2]])),
                chunk
            );
            assert_eq!(Request::decode(&body).unwrap().args, req.args);
            // Typed, the same bytes as dynamic.
            let typed = Request::builder("S", "m")
                .format(format)
                .descriptor("[B")
                .arg("byte[]", &Bytes::from(blob.clone()))
                .build()
                .unwrap();
            assert_eq!(typed.to_bytes(), body, "{lite:?}");

            let result = RpcResult::new(Outcome::Value(Value::Binary(Bytes::from(blob.clone()))));
            let body = result.encode_in(format, bytes::BytesMut::new());
            assert_eq!(
                usize::from(u16::from_be_bytes([body[2], body[3]])),
                first(1),
                "{lite:?}"
            );
            assert_eq!(RpcResult::decode(&body).unwrap(), result);
        }
    }
}
