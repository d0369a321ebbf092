//! The body of a response.
//!
//! What the body holds depends on the header's status:
//!
//! * **OK (20)**: the result, written by Java's `DubboCodec.encodeResponseData` as one
//!   Hessian2 stream: a **flag**, written with `writeByte`, which Hessian2 writes as an
//!   *int* (`0x90`..`0x95`), then what the flag says:
//!
//!   | flag | name | then |
//!   |------|------|------|
//!   | 0 | `RESPONSE_WITH_EXCEPTION` | the `Throwable` ([`crate::exception`]) |
//!   | 1 | `RESPONSE_VALUE` | the return value |
//!   | 2 | `RESPONSE_NULL_VALUE` | nothing (the method returned `null` or is `void`) |
//!   | 3 | `RESPONSE_WITH_EXCEPTION_WITH_ATTACHMENTS` | the `Throwable`, then an attachment map |
//!   | 4 | `RESPONSE_VALUE_WITH_ATTACHMENTS` | the value, then an attachment map |
//!   | 5 | `RESPONSE_NULL_VALUE_WITH_ATTACHMENTS` | an attachment map |
//!
//!   A provider uses 3..=5 exactly when the **request's** Dubbo version (field 1 of the
//!   request body) is between 2.0.2 and 2.0.99 (Java's `Version.isSupportResponseAttachment`,
//!   see [`supports_response_attachments`]), and then adds `dubbo=2.0.2` to the attachments.
//!   Java 2.7 and 3.x consumers send `2.0.2`, so they get attachments.
//! * **any other status**: an error message, one string (`writeUTF`; `null` is possible),
//!   e.g. `SERVICE_NOT_FOUND` with "Not found exported service: ...".
//!
//! ```
//! use dubbo_codec::response::{Outcome, RpcResult};
//! use hessian2::value::Value;
//!
//! // What a Java 2.7 provider answers to a 2.0.2 caller for `return "hi"`:
//! let result = RpcResult::for_request(Outcome::Value(Value::from("hi")), "2.0.2");
//! let body = result.to_bytes();
//! assert_eq!(&body[..4], b"\x94\x02hi"); // flag 4, then the value
//! assert_eq!(RpcResult::decode(&body)?, result);
//! assert_eq!(result.attachments.unwrap().get_str("dubbo"), Some("2.0.2"));
//! # Ok::<(), dubbo_codec::BodyError>(())
//! ```

use bytes::{BufMut, Bytes, BytesMut};
use hessian2::encode::Encoder;
use hessian2::value::Value;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::attachments::{Attachments, DUBBO_VERSION_KEY};
use crate::error::BodyError;
use crate::exception::JavaException;
use crate::format::{with_format, BodyFormat, Format, Reader, Writer, ATTACHMENTS};
use crate::frame::Frame;
use crate::request::DUBBO_PROTOCOL_VERSION;
use crate::status::Status;

pub use crate::result_flag::{
    RESPONSE_NULL_VALUE, RESPONSE_NULL_VALUE_WITH_ATTACHMENTS, RESPONSE_VALUE,
    RESPONSE_VALUE_WITH_ATTACHMENTS, RESPONSE_WITH_EXCEPTION,
    RESPONSE_WITH_EXCEPTION_WITH_ATTACHMENTS,
};

/// Java's `Version.LOWEST_VERSION_FOR_RESPONSE_ATTACHMENT` (2.0.2).
const LOWEST_VERSION_FOR_RESPONSE_ATTACHMENT: i32 = 2_000_200;
/// Java's `Version.HIGHEST_PROTOCOL_VERSION` (2.0.99).
const HIGHEST_PROTOCOL_VERSION: i32 = 2_009_900;
/// Java's `Version.LEGACY_DUBBO_PROTOCOL_VERSION` (1.0.0), for versions it cannot parse.
const LEGACY_DUBBO_PROTOCOL_VERSION: i32 = 10_000;

/// Java's `Version.getIntVersion`: `"2.0.2"` is 2000200, `"2.6.3"` 2060300, `"2.0.2.1"`
/// 2000201. Each `.`-separated part contributes its leading digits times 100 to the power of
/// the parts after it; a three-part version is then multiplied by 100. A part whose digits
/// overflow a Java `int` makes the whole version "legacy" (10000), as in Java.
pub fn java_int_version(version: &str) -> i32 {
    // Java's `split("\\.")` drops trailing empty strings; what is left of "." and ".." is no
    // part at all, which reads as 0 like the one empty part of "". Not collected: a server
    // asks this of every request.
    let version = version.trim_end_matches('.');
    let len = version.split('.').count();
    let mut v: i32 = 0;
    for (i, part) in version.split('.').enumerate() {
        let digits_len = part.bytes().take_while(u8::is_ascii_digit).count();
        let digits = &part[..digits_len];
        if digits.is_empty() {
            continue;
        }
        let Ok(n) = digits.parse::<i32>() else {
            return LEGACY_DUBBO_PROTOCOL_VERSION;
        };
        // `v += n * Math.pow(10, ...)`: double arithmetic, then a saturating cast to int.
        let exp = ((len - i - 1) * 2) as i32;
        v = (f64::from(v) + f64::from(n) * 10f64.powi(exp)) as i32;
    }
    if len == 3 {
        v = v.wrapping_mul(100);
    }
    v
}

/// Java's `Version.isSupportResponseAttachment`: true for request versions from 2.0.2 to
/// 2.0.99 (what Java 2.7 and 3.x send), false for an empty version and for 2.6.x-style
/// versions (older peers, which would not understand flags 3..=5).
pub fn supports_response_attachments(request_dubbo_version: &str) -> bool {
    if request_dubbo_version.is_empty() {
        return false;
    }
    let v = java_int_version(request_dubbo_version);
    (LOWEST_VERSION_FOR_RESPONSE_ATTACHMENT..=HIGHEST_PROTOCOL_VERSION).contains(&v)
}

/// What a call produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A return value (flag 1 / 4). `Value::Null` is encoded as [`Outcome::Null`], as Java
    /// does.
    Value(Value),
    /// `null` or `void` (flag 2 / 5).
    Null,
    /// The method threw (flag 0 / 3); the value is the `Throwable` object.
    Exception(Value),
}

/// The body of an OK response: the outcome and, for flags 3..=5, the attachments.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcResult {
    /// The value, null, or exception.
    pub outcome: Outcome,
    /// `Some` for flags 3..=5 (even if empty), `None` for flags 0..=2.
    pub attachments: Option<Attachments>,
}

impl RpcResult {
    /// A result without attachments (flags 0..=2).
    pub fn new(outcome: Outcome) -> Self {
        RpcResult {
            outcome,
            attachments: None,
        }
    }

    /// The result a Java provider writes for a request whose Dubbo version (field 1) is
    /// `request_dubbo_version`: with attachments `{dubbo: "2.0.2"}` when the caller supports
    /// them, without otherwise.
    pub fn for_request(outcome: Outcome, request_dubbo_version: &str) -> Self {
        let attachments = supports_response_attachments(request_dubbo_version).then(|| {
            let mut a = Attachments::new();
            a.insert(DUBBO_VERSION_KEY, DUBBO_PROTOCOL_VERSION);
            a
        });
        RpcResult {
            outcome,
            attachments,
        }
    }

    /// The flag this result is written with.
    pub fn flag(&self) -> i32 {
        let base = match &self.outcome {
            Outcome::Exception(_) => RESPONSE_WITH_EXCEPTION,
            Outcome::Value(Value::Null) | Outcome::Null => RESPONSE_NULL_VALUE,
            Outcome::Value(_) => RESPONSE_VALUE,
        };
        if self.attachments.is_some() {
            base + 3
        } else {
            base
        }
    }

    /// Writes the body in Hessian2 into `enc` (a fresh stream).
    pub fn encode_with<B: BufMut>(&self, enc: &mut Encoder<B>) {
        self.write(enc);
    }

    fn write<B: BufMut, W: Writer<B>>(&self, w: &mut W) {
        w.write_flag(self.flag());
        match &self.outcome {
            Outcome::Value(Value::Null) | Outcome::Null => {}
            Outcome::Value(v) | Outcome::Exception(v) => w.write_value(v),
        }
        if let Some(a) = &self.attachments {
            w.write_attachments(a);
        }
    }

    /// Appends the body in Hessian2 to `buf`.
    pub fn encode<B: BufMut>(&self, buf: B) -> B {
        self.encode_in(BodyFormat::default(), buf)
    }

    /// Appends the body in `format` to `buf`.
    pub fn encode_in<B: BufMut>(&self, format: BodyFormat, buf: B) -> B {
        with_format!(format, f => {
            let mut w = f.writer(buf);
            self.write(&mut w);
            Writer::into_inner(w)
        })
    }

    /// The body in Hessian2.
    pub fn to_bytes(&self) -> Bytes {
        self.encode(BytesMut::new()).freeze()
    }

    /// An OK response frame carrying this result in Hessian2.
    pub fn to_frame(&self, request_id: u64) -> Frame {
        self.to_frame_in(request_id, BodyFormat::default())
    }

    /// An OK response frame carrying this result in `format`.
    pub fn to_frame_in(&self, request_id: u64, format: BodyFormat) -> Frame {
        let body = self.encode_in(format, BytesMut::new()).freeze();
        Frame::response(request_id, format.serialization(), Status::Ok, body)
    }

    /// Decodes the body of an OK Hessian2 response.
    pub fn decode(body: &[u8]) -> Result<RpcResult, BodyError> {
        RpcResult::decode_in(BodyFormat::default(), body)
    }

    /// Decodes the body of an OK response in `format`.
    pub fn decode_in(format: BodyFormat, body: &[u8]) -> Result<RpcResult, BodyError> {
        with_format!(format, f => decode_result(&mut f.reader(body, 0)))
    }

    /// Decodes the body of an OK Hessian2 response held in [`Bytes`] (binaries are zero-copy
    /// slices).
    pub fn decode_bytes(body: &Bytes) -> Result<RpcResult, BodyError> {
        RpcResult::decode_bytes_in(BodyFormat::default(), body)
    }

    /// [`RpcResult::decode_bytes`] for a body in `format`.
    pub fn decode_bytes_in(format: BodyFormat, body: &Bytes) -> Result<RpcResult, BodyError> {
        with_format!(format, f => decode_result(&mut f.buf_reader(body)))
    }

    /// The exception, when the call threw.
    pub fn exception(&self) -> Option<JavaException> {
        match &self.outcome {
            Outcome::Exception(v) => Some(JavaException::from_value(v.clone())),
            _ => None,
        }
    }
}

/// The field a flag's value is read as.
fn value_field(flag: i32) -> &'static str {
    if flag % 3 == RESPONSE_WITH_EXCEPTION {
        "exception"
    } else {
        "value"
    }
}

fn decode_result<'de, R: Reader<'de>>(r: &mut R) -> Result<RpcResult, BodyError> {
    let flag = r.read_flag()?;
    let field = value_field(flag);
    let outcome = match flag % 3 {
        RESPONSE_NULL_VALUE => Outcome::Null,
        _ => {
            let v = r.read_value(field)?.ok_or(BodyError::Missing { field })?;
            if flag % 3 == RESPONSE_VALUE {
                Outcome::Value(v)
            } else {
                Outcome::Exception(v)
            }
        }
    };
    let attachments = if flag >= 3 {
        Some(
            r.read_attachments()?
                .ok_or(BodyError::Missing { field: ATTACHMENTS })?,
        )
    } else {
        None
    };
    Ok(RpcResult {
        outcome,
        attachments,
    })
}

/// What an OK response's body holds, located rather than read: for moving a result into
/// another framing (a Triple answer wraps the value serialized alone) without decoding it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultSpan {
    /// The result flag, 0..=5 (see the [module documentation](self)).
    pub flag: i32,
    /// Where the value (or the exception) lies in the body; `None` for a null result. The
    /// value directly follows the flag, which uses none of the stream's tables, so its bytes
    /// are the value serialized alone.
    pub value: Option<std::ops::Range<usize>>,
}

impl ResultSpan {
    /// Locates the parts of an OK response's `body` in `format`, stepping over the value
    /// without building it (the attachments after it are not read).
    pub fn locate_in(format: BodyFormat, body: &[u8]) -> Result<ResultSpan, BodyError> {
        with_format!(format, f => ResultSpan::locate(&mut f.reader(body, 0)))
    }

    /// [`ResultSpan::locate_in`], and the attachments after the value (flags 3..=5), read in
    /// the same pass: they are a small map, the value is still only stepped over. `None`
    /// without them, or when they cannot be read (a value in them that refers back into the
    /// result): the result is no less readable for that.
    pub fn locate_with_attachments_in(
        format: BodyFormat,
        body: &[u8],
    ) -> Result<(ResultSpan, Option<Attachments>), BodyError> {
        with_format!(format, f => {
            let mut r = f.reader(body, 0);
            let span = ResultSpan::locate(&mut r)?;
            let attachments = if span.flag >= 3 {
                r.read_attachments().ok().flatten()
            } else {
                None
            };
            Ok((span, attachments))
        })
    }

    fn locate<'de, R: Reader<'de>>(r: &mut R) -> Result<ResultSpan, BodyError> {
        let flag = r.read_flag()?;
        let value = if flag % 3 == RESPONSE_NULL_VALUE {
            None
        } else {
            let field = value_field(flag);
            if r.is_empty() {
                return Err(BodyError::Missing { field });
            }
            let start = r.offset();
            r.skip(field)?;
            Some(start..r.offset())
        };
        Ok(ResultSpan { flag, value })
    }

    /// True when the value is the exception the method threw (flags 0 and 3).
    pub fn is_exception(&self) -> bool {
        self.flag % 3 == RESPONSE_WITH_EXCEPTION
    }
}

/// A response, whatever its status.
#[derive(Debug, Clone, PartialEq)]
pub enum Response {
    /// Status OK: the call's result.
    Result(RpcResult),
    /// Any other status, with its error message.
    Error {
        /// The status.
        status: Status,
        /// The message (`None` when Java wrote `null`).
        message: Option<String>,
    },
}

impl Response {
    /// Decodes a response frame's body according to its status, in the serialization its
    /// header names. An event frame (a heartbeat answer) is not a call's response and reads
    /// as an OK null result.
    pub fn from_frame(frame: &Frame) -> Result<Response, BodyError> {
        let h = frame.header();
        let format = BodyFormat::require(h.serialization())?;
        if h.is_event() {
            return Ok(Response::Result(RpcResult::new(Outcome::Null)));
        }
        match h.status() {
            Status::Ok => RpcResult::decode_bytes_in(format, frame.body()).map(Response::Result),
            status => Ok(Response::Error {
                status,
                message: decode_error_message_in(format, frame.body())?,
            }),
        }
    }

    /// The frame of this response, in Hessian2.
    pub fn to_frame(&self, request_id: u64) -> Frame {
        self.to_frame_in(request_id, BodyFormat::default())
    }

    /// The frame of this response, in `format`.
    pub fn to_frame_in(&self, request_id: u64, format: BodyFormat) -> Frame {
        match self {
            Response::Result(r) => r.to_frame_in(request_id, format),
            Response::Error { status, message } => {
                error_frame_in(request_id, format, *status, message.as_deref())
            }
        }
    }
}

/// The body of a non-OK Hessian2 response: the message as one string (`N` for `None`).
pub fn error_body(message: Option<&str>) -> Bytes {
    error_body_in(BodyFormat::default(), message)
}

/// The body of a non-OK response in `format`: the message as `writeUTF` writes it.
pub fn error_body_in(format: BodyFormat, message: Option<&str>) -> Bytes {
    with_format!(format, f => {
        let mut w = f.writer(BytesMut::new());
        match message {
            Some(m) => w.write_utf(m),
            None => Writer::write_null(&mut w),
        }
        Writer::into_inner(w).freeze()
    })
}

/// A Hessian2 response frame with a non-OK status and an error message.
pub fn error_frame(request_id: u64, status: Status, message: Option<&str>) -> Frame {
    error_frame_in(request_id, BodyFormat::default(), status, message)
}

/// A response frame in `format` with a non-OK status and an error message.
pub fn error_frame_in(
    request_id: u64,
    format: BodyFormat,
    status: Status,
    message: Option<&str>,
) -> Frame {
    Frame::response(
        request_id,
        format.serialization(),
        status,
        error_body_in(format, message),
    )
}

/// Reads the error message of a non-OK Hessian2 response.
pub fn decode_error_message(body: &[u8]) -> Result<Option<String>, BodyError> {
    decode_error_message_in(BodyFormat::default(), body)
}

/// Reads the error message of a non-OK response in `format`.
pub fn decode_error_message_in(
    format: BodyFormat,
    body: &[u8],
) -> Result<Option<String>, BodyError> {
    with_format!(format, f => Ok(f.reader(body, 0).read_utf("error message")?.map(|s| s.into_owned())))
}

/// A result read into a Rust type through serde.
#[derive(Debug, Clone, PartialEq)]
pub struct TypedResult<T> {
    /// The value (a `null` result deserialized from `null`: `Option` is `None`, `()` is
    /// `()`), or the exception.
    pub outcome: Result<T, JavaException>,
    /// The attachments of flags 3..=5 (values that refer back into the result are left out).
    pub attachments: Option<Attachments>,
}

impl<T: DeserializeOwned> TypedResult<T> {
    /// Decodes the body of an OK Hessian2 response, reading the value into `T` without
    /// building a `Value` (exceptions are read as values).
    pub fn decode(body: &Bytes) -> Result<Self, BodyError> {
        TypedResult::decode_in(BodyFormat::default(), body)
    }

    /// [`TypedResult::decode`] for a body in `format`.
    pub fn decode_in(format: BodyFormat, body: &Bytes) -> Result<Self, BodyError> {
        with_format!(format, f => decode_typed(f, body))
    }
}

fn decode_typed<F: Format, T: DeserializeOwned>(
    f: F,
    body: &Bytes,
) -> Result<TypedResult<T>, BodyError> {
    // The flag's reader is dropped before the value is read: a decoder takes its thread's
    // pooled tables (and the class definitions they know) when it is made, so a second one
    // made while the first lives would read every class definition afresh.
    let (flag, at) = {
        let mut r = f.reader(body, 0);
        (r.read_flag()?, r.offset())
    };
    let (outcome, after) = match flag % 3 {
        RESPONSE_NULL_VALUE => {
            // What `null` deserializes to (`None`, `()`), as from a `null` on the wire.
            let unit = serde::de::value::UnitDeserializer::<serde::de::value::Error>::new();
            let v = T::deserialize(unit).map_err(|e| BodyError::Deserialize {
                field: "value",
                source: serde::de::Error::custom(e),
            })?;
            (Ok(v), at)
        }
        RESPONSE_VALUE => {
            let (v, end) = f.deserialize_at::<T>(body, at, "value")?;
            (Ok(v), end)
        }
        _ => {
            // The flag is an int, which starts no table entry: the exception reads the same
            // from a reader of its own.
            let mut r = f.reader(body.get(at..).unwrap_or_default(), at);
            let v = r
                .read_value("exception")?
                .ok_or(BodyError::Missing { field: "exception" })?;
            (Err(JavaException::from_value(v)), r.offset())
        }
    };
    let attachments = if flag >= 3 {
        // The attachments continue the stream: a value in them that refers back into the
        // result cannot be read on its own and is dropped with the whole map.
        let rest = body.get(after..).unwrap_or_default();
        let map = f.reader(rest, after).read_attachments();
        Some(map.ok().flatten().unwrap_or_default())
    } else {
        None
    };
    Ok(TypedResult {
        outcome,
        attachments,
    })
}

/// Writes the body of an OK Hessian2 response whose value is a Rust value, through serde:
/// flag 1 (or 2 when the value serializes to `null`, as Java writes a `null` return), the
/// value, and with `attachments` flags 4/5 and the map.
///
/// The value is serialized straight into the body, never through a `Value`: the flag is an
/// int, which starts no table entry, so the value's stream is the body's. Attachments with
/// lists, maps or objects must share the value's tables, which a serializer cannot hand to an
/// encoder: for those (rare) the value goes through a `Value` and one encoder.
pub fn encode_typed_result<T: Serialize + ?Sized>(
    value: &T,
    attachments: Option<&Attachments>,
) -> Result<Bytes, BodyError> {
    encode_typed_result_in(BodyFormat::default(), value, attachments)
}

/// [`encode_typed_result`] in `format`.
pub fn encode_typed_result_in<T: Serialize + ?Sized>(
    format: BodyFormat,
    value: &T,
    attachments: Option<&Attachments>,
) -> Result<Bytes, BodyError> {
    if !attachments.is_none_or(Attachments::is_plain) {
        let serialize_error = |source| BodyError::Serialize {
            field: "value",
            source,
        };
        let bytes = hessian2::to_vec(value).map_err(serialize_error)?;
        let v = hessian2::value::from_slice(&bytes).map_err(serialize_error)?;
        let outcome = match v {
            Value::Null => Outcome::Null,
            v => Outcome::Value(v),
        };
        let result = RpcResult {
            outcome,
            attachments: attachments.cloned(),
        };
        return Ok(result.encode_in(format, BytesMut::new()).freeze());
    }
    with_format!(format, f => f.encode_typed_result(value, attachments))
}

/// The attachments a provider sends to a caller of `request_dubbo_version`: `{dubbo: "2.0.2"}`
/// when it supports them, as [`RpcResult::for_request`].
pub fn provider_attachments(request_dubbo_version: &str) -> Option<&'static Attachments> {
    static DUBBO: std::sync::OnceLock<Attachments> = std::sync::OnceLock::new();
    supports_response_attachments(request_dubbo_version).then(|| {
        DUBBO.get_or_init(|| {
            [(DUBBO_VERSION_KEY, DUBBO_PROTOCOL_VERSION)]
                .into_iter()
                .collect()
        })
    })
}

/// The body of an OK response in `format` around a value (or, when `exception`, the
/// `Throwable`) already serialized alone (as a Triple response wrapper carries it): the flag,
/// then the value's bytes copied as they are (the flag uses none of the stream's tables, so
/// the value starts where a stream of its own would), then `attachments` (flags 3..=5) if
/// any. A `null` value is flag 2 (5) without a value.
///
/// The attachments must be plain (strings, numbers, no list, map or object): they are
/// written as a stream of their own would write them, which only holds when they need none
/// of the value's tables.
pub fn result_body_alone_in(
    format: BodyFormat,
    exception: bool,
    value: &[u8],
    attachments: Option<&Attachments>,
) -> Bytes {
    let null = !exception && value == format.null_alone();
    let flag = match (exception, null) {
        (true, _) => RESPONSE_WITH_EXCEPTION,
        (false, true) => RESPONSE_NULL_VALUE,
        (false, false) => RESPONSE_VALUE,
    } + if attachments.is_some() { 3 } else { 0 };
    let len = 8 + value.len() + attachments.map_or(0, Attachments::size_hint);
    with_format!(format, f => {
        let mut w = f.writer(BytesMut::with_capacity(len));
        w.write_flag(flag);
        let mut body = w.into_inner();
        if !null {
            body.put_slice(value);
        }
        if let Some(a) = attachments {
            let mut w = f.writer(body);
            w.write_attachments(a);
            body = w.into_inner();
        }
        body.freeze()
    })
}

/// The body of an OK Hessian2 response whose value is already serialized alone (as
/// [`hessian2::to_vec`] writes it, `N` for `null`), with `attachments`, which must hold only
/// strings and numbers (as [`provider_attachments`] does): the value's bytes are copied, not
/// decoded.
pub fn hessian2_result_body(value: &[u8], attachments: Option<&Attachments>) -> Bytes {
    crate::format::hessian2::encoded_result_body(value, attachments)
}

#[cfg(test)]
mod tests {
    use super::ResultSpan;

    /// A value serialized alone, put into a body and located again: the same bytes, and
    /// the body reads as the result it carries.
    #[test]
    fn results_alone_make_bodies() {
        use crate::format::BodyFormat;
        use hessian2::encode::PeerVersion;
        for format in [BodyFormat::Hessian2(PeerVersion::V3), BodyFormat::FASTJSON2] {
            let value = super::Value::from("hi");
            let alone = format.value_alone(&value);
            for exception in [false, true] {
                let body = super::result_body_alone_in(format, exception, &alone, None);
                let r = super::RpcResult::decode_in(format, &body).unwrap();
                let want = if exception {
                    super::Outcome::Exception(value.clone())
                } else {
                    super::Outcome::Value(value.clone())
                };
                assert_eq!(r.outcome, want, "{format:?}");
                let span = ResultSpan::locate_in(format, &body).unwrap();
                assert_eq!(&body[span.value.unwrap()], &alone[..]);
            }
            let body = super::result_body_alone_in(format, false, format.null_alone(), None);
            let r = super::RpcResult::decode_in(format, &body).unwrap();
            assert_eq!(r.outcome, super::Outcome::Null, "{format:?}");
        }
    }

    /// With attachments: flags 3..=5, the map after the value, read back by a full decode
    /// and by the locating read alike.
    #[test]
    fn results_alone_carry_attachments() {
        use crate::format::BodyFormat;
        use hessian2::encode::PeerVersion;
        let attachments: super::Attachments = [
            ("dubbo", super::Value::from("2.0.2")),
            ("n", super::Value::Int(7)),
        ]
        .into_iter()
        .collect();
        for format in [BodyFormat::Hessian2(PeerVersion::V3), BodyFormat::FASTJSON2] {
            let user = super::Value::Object(hessian2::value::Object::new(
                "com.example.User",
                [("name", super::Value::from("ann"))],
            ));
            let alone = format.value_alone(&user);
            for (value, exception, flag) in [
                (&alone[..], false, 4),
                (&alone[..], true, 3),
                (format.null_alone(), false, 5),
            ] {
                let body =
                    super::result_body_alone_in(format, exception, value, Some(&attachments));
                let r = super::RpcResult::decode_in(format, &body).unwrap();
                assert_eq!(r.flag(), flag, "{format:?}");
                assert_eq!(r.attachments.as_ref(), Some(&attachments), "{format:?}");
                let (span, read) = ResultSpan::locate_with_attachments_in(format, &body).unwrap();
                assert_eq!(span.flag, flag);
                assert_eq!(read.as_ref(), Some(&attachments), "{format:?}");
                // Cut short: an error or no attachments, never a panic.
                for n in 0..body.len() {
                    let _ = ResultSpan::locate_with_attachments_in(format, &body[..n]);
                }
            }
            let body = super::result_body_alone_in(format, false, &alone, None);
            let (span, read) = ResultSpan::locate_with_attachments_in(format, &body).unwrap();
            assert_eq!((span.flag, read), (1, None));
        }
    }

    /// The value located in a body is the value serialized alone, for each flag.
    #[test]
    fn result_spans_hold_the_value_alone() {
        use crate::format::BodyFormat;
        use hessian2::encode::PeerVersion;
        for format in [BodyFormat::Hessian2(PeerVersion::V3), BodyFormat::FASTJSON2] {
            for dubbo in ["2.0.2", "2.0.0"] {
                let value = super::Value::from("hi");
                for outcome in [
                    super::Outcome::Value(value.clone()),
                    super::Outcome::Exception(value.clone()),
                    super::Outcome::Null,
                ] {
                    let r = super::RpcResult::for_request(outcome.clone(), dubbo);
                    let body = r.encode_in(format, Vec::new());
                    let span = ResultSpan::locate_in(format, &body).unwrap();
                    assert_eq!(span.flag, r.flag());
                    assert_eq!(
                        span.is_exception(),
                        matches!(outcome, super::Outcome::Exception(_))
                    );
                    match (span.value, outcome) {
                        (None, super::Outcome::Null) => {}
                        (Some(at), _) => {
                            assert_eq!(&body[at.clone()], &format.value_alone(&value)[..]);
                            // The flag alone: the value is missing.
                            assert!(ResultSpan::locate_in(format, &body[..at.start]).is_err());
                        }
                        (None, o) => panic!("{format:?}: no value for {o:?}"),
                    }
                    // Every strict prefix is answered, never a panic.
                    for n in 0..body.len() {
                        let _ = ResultSpan::locate_in(format, &body[..n]);
                    }
                }
            }
        }
    }

    use super::*;

    #[test]
    fn int_versions_like_java() {
        assert_eq!(java_int_version("2.0.2"), 2_000_200);
        assert_eq!(java_int_version("2.6.3"), 2_060_300);
        assert_eq!(java_int_version("2.0.2.1"), 2_000_201);
        assert_eq!(java_int_version("2.7.8-SNAPSHOT"), 2_070_800);
        assert_eq!(java_int_version("2.0.99"), 2_009_900);
        assert_eq!(java_int_version("3"), 3);
        assert_eq!(java_int_version("a.b.c"), 0);
        assert_eq!(java_int_version("99999999999.0.0"), 10_000);
        assert_eq!(java_int_version("2.0.2."), 2_000_200);
        assert_eq!(java_int_version("2.0.2.."), 2_000_200);
        assert_eq!(java_int_version(".5"), 5);
        for none in ["", ".", "..", "..."] {
            assert_eq!(java_int_version(none), 0, "{none:?}");
        }
        assert!(supports_response_attachments("2.0.2"));
        assert!(supports_response_attachments("2.0.10"));
        assert!(supports_response_attachments("2.0.99"));
        assert!(!supports_response_attachments("2.0.1"));
        assert!(!supports_response_attachments("2.0.100"));
        assert!(!supports_response_attachments("2.6.5"));
        assert!(!supports_response_attachments(""));
        assert!(!supports_response_attachments("1.0.0"));
    }

    #[test]
    fn flags_and_round_trips() {
        let cases = [
            (
                RpcResult::new(Outcome::Value(Value::Int(7))),
                1,
                &b"\x91\x97"[..],
            ),
            (RpcResult::new(Outcome::Null), 2, b"\x92"),
            (RpcResult::new(Outcome::Value(Value::Null)), 2, b"\x92"),
            (
                RpcResult::new(Outcome::Exception(JavaException::runtime("x").value)),
                0,
                b"",
            ),
            (
                RpcResult::for_request(Outcome::Null, "2.0.2"),
                5,
                b"\x95H\x05dubbo\x052.0.2Z",
            ),
        ];
        for (r, flag, prefix) in cases {
            assert_eq!(r.flag(), flag);
            let body = r.to_bytes();
            assert!(body.starts_with(prefix), "{body:x?}");
            let back = RpcResult::decode(&body).unwrap();
            if r.outcome == Outcome::Value(Value::Null) {
                assert_eq!(back.outcome, Outcome::Null);
            } else {
                assert_eq!(back, r);
            }
            assert_eq!(RpcResult::decode_bytes(&body).unwrap(), back);
        }
    }

    #[test]
    fn bad_flags() {
        assert!(matches!(
            RpcResult::decode(b"\x96"),
            Err(BodyError::UnknownResultFlag(6))
        ));
        assert!(matches!(
            RpcResult::decode(b"\x01x"),
            Err(BodyError::Unexpected { .. })
        ));
        assert!(matches!(
            RpcResult::decode(b""),
            Err(BodyError::Missing { .. })
        ));
        assert!(matches!(
            RpcResult::decode(b"\x91"),
            Err(BodyError::Missing { field: "value" })
        ));
        assert!(RpcResult::decode(b"\x94\x91").is_err());
    }

    #[test]
    fn error_messages() {
        let f = error_frame(9, Status::ServiceNotFound, Some("nope"));
        assert_eq!(
            Response::from_frame(&f).unwrap(),
            Response::Error {
                status: Status::ServiceNotFound,
                message: Some("nope".into())
            }
        );
        assert_eq!(decode_error_message(b"N").unwrap(), None);
    }

    #[test]
    fn typed_results() {
        let body = encode_typed_result("hi", None).unwrap();
        assert_eq!(&body[..], b"\x91\x02hi");
        let t = TypedResult::<String>::decode(&body).unwrap();
        assert_eq!(t.outcome, Ok("hi".to_owned()));
        let mut a = Attachments::new();
        a.insert("dubbo", "2.0.2");
        let body = encode_typed_result(&Option::<String>::None, Some(&a)).unwrap();
        assert_eq!(&body[..], b"\x95H\x05dubbo\x052.0.2Z");
        let t = TypedResult::<Option<String>>::decode(&body).unwrap();
        assert_eq!(t.outcome, Ok(None));
        assert_eq!(t.attachments, Some(a.clone()));
        let ex = RpcResult::for_request(
            Outcome::Exception(JavaException::runtime("boom").value),
            "2.0.2",
        )
        .to_bytes();
        let t = TypedResult::<String>::decode(&ex).unwrap();
        assert_eq!(t.outcome.unwrap_err().message.as_deref(), Some("boom"));
        assert_eq!(t.attachments, Some(a));
    }
}
