//! Values serialized each on its own: Triple's form of a call.
//!
//! A Dubbo body is one stream of values; a Triple call of an interface service instead carries
//! each argument, and the result, as a stream of its own inside its protobuf wrapper (Java's
//! `TripleRequestWrapper`: one `bytes` per argument, each written by a fresh `ObjectOutput`).
//! These are the same serializations and the same value shapes, read and written one value at
//! a time, so they live here beside the body layer and any runtime can use them.

use ::hessian2::value::Value;
use bytes::{Bytes, BytesMut};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{read_args, with_format, ArgsSink, BodyFormat, Format, Reader, Writer};
use crate::error::BodyError;

impl BodyFormat {
    /// `null` alone, as Java's `writeObject(null)` writes it (a `void` result).
    pub fn null_alone(self) -> &'static [u8] {
        with_format!(self, f => f.null_body())
    }

    /// A Rust value serialized alone, through serde.
    pub fn encode_alone<T: Serialize + ?Sized>(self, value: &T) -> Result<Bytes, BodyError> {
        with_format!(self, f => {
            let mut sink = f.args();
            sink.push(value)?;
            Ok(Bytes::from(sink.finish()))
        })
    }

    /// A dynamic value serialized alone.
    pub fn value_alone(self, value: &Value) -> Bytes {
        with_format!(self, f => {
            let mut w = f.writer(BytesMut::new());
            w.write_value(value);
            w.into_inner().freeze()
        })
    }

    /// Reads a value serialized alone into `T`, through serde.
    pub fn decode_alone<T: DeserializeOwned>(self, bytes: &Bytes) -> Result<T, BodyError> {
        with_format!(self, f => f.deserialize_at::<T>(bytes, 0, "value")).map(|(v, _)| v)
    }

    /// Reads a value serialized alone as a dynamic value (no bytes at all is an error: even
    /// `null` is written).
    pub fn read_alone(self, bytes: &[u8]) -> Result<Value, BodyError> {
        match with_format!(self, f => f.reader(bytes, 0).read_value("value"))? {
            Some(v) => Ok(v),
            None => Err(BodyError::Missing { field: "value" }),
        }
    }

    /// Checks that `bytes` hold exactly one value serialized alone (`field` names it in
    /// errors), stepping over it without building it.
    pub fn check_alone(self, bytes: &[u8], field: &'static str) -> Result<(), BodyError> {
        with_format!(self, f => {
            let mut r = f.reader(bytes, 0);
            if r.is_empty() {
                return Err(BodyError::Missing { field });
            }
            r.skip(field)?;
            if r.is_empty() {
                Ok(())
            } else {
                Err(BodyError::Unexpected {
                    field,
                    expected: "one value",
                    found: "more bytes after it",
                })
            }
        })
    }

    /// Whether a value serialized alone (checked by [`BodyFormat::check_alone`]) can follow
    /// other values of a body as it is, using none of the tables they define: any fastjson2
    /// value (each is a document of its own), a Hessian2 scalar, string or binary.
    pub fn joins_as_is(self, alone: &[u8]) -> bool {
        with_format!(self, f => f.joins_as_is(alone))
    }

    /// Reads arguments each serialized alone into `T` (a tuple, or any type that deserializes
    /// from a sequence), through serde.
    pub fn decode_each<T: DeserializeOwned>(self, args: &[Bytes]) -> Result<T, BodyError> {
        with_format!(self, f => f.decode_separate_args(args))
    }

    /// Reads the `count` arguments that start at byte `offset` of a request `body` (see
    /// [`RequestHead::args_offset`](crate::RequestHead::args_offset)) into `T`, through serde.
    pub fn decode_args_at<T: DeserializeOwned>(
        self,
        body: &Bytes,
        offset: usize,
        count: usize,
    ) -> Result<T, BodyError> {
        with_format!(self, f => f.decode_args(body, offset, count))
    }

    /// Reads the `count` arguments that start at byte `offset` of a request `body` as dynamic
    /// values.
    pub fn read_args_at(
        self,
        body: &[u8],
        offset: usize,
        count: usize,
    ) -> Result<Vec<Value>, BodyError> {
        let rest = body.get(offset..).unwrap_or_default();
        with_format!(self, f => read_args(&mut f.reader(rest, offset), count))
    }
}
