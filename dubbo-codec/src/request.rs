//! The body of a request: one method call.
//!
//! Java's `DubboCodec.encodeRequestData` writes the body as **one Hessian2 stream** (one
//! `Hessian2Output`, so class definitions, type names and `Q` references are shared by
//! everything in it):
//!
//! | # | value | Java | example |
//! |---|-------|------|---------|
//! | 1 | dubbo version | `writeUTF(Version.getProtocolVersion())` | `"2.0.2"` |
//! | 2 | service path  | `writeUTF(interface attachment, else path attachment)` | `"com.example.Greeter"` |
//! | 3 | service version | `writeUTF(version attachment)` | `"1.0.0"` (`"0.0.0"` when none) |
//! | 4 | method name | `writeUTF(getMethodName())` | `"sayHello"` |
//! | 5 | parameter descriptor | `writeUTF(getParameterTypesDesc())` | `"Ljava/lang/String;I"` |
//! | 6.. | one value per parameter | `writeObject(arg)` | `"world"`, `3` |
//! | last | attachments | `writeAttachments(map)`: an untyped `H` map | `{"path": ..., "group": "g1", ...}` |
//!
//! The number of arguments is not written anywhere: it is the number of types in the
//! descriptor ([`crate::arg_count`]). The **group** is not a field: it is the `group`
//! attachment, as are the `interface` name and the `timeout`. The provider
//! (`DecodeableRpcInvocation`) sets the `path` and `version` attachments from fields 2 and
//! 3, then lays the attachment map over them, so an attachment wins over its field; and the
//! consumer writes the `interface` attachment, when there is one, as the path (Dubbo issue
//! 6138). [`Request::service`] follows the same rule.
//!
//! [`Request`] holds a whole call. A decoded request (and one built with
//! [`RequestBuilder::value_arg`]) has its arguments as dynamic [`Value`]s in
//! [`Request::args`] (what a generic client, a proxy or a server that does not know the Java
//! types needs). Typed arguments go through serde with [`RequestBuilder::arg`]; on the server,
//! [`RequestHead`] and [`Request::decode_args`] read the arguments into Rust types without
//! building `Value`s.
//!
//! # Typed arguments are written once, never through `Value`
//!
//! [`RequestBuilder::arg`] serializes each typed argument with one [`hessian2::Serializer`]
//! for all the typed arguments of the request, into the bytes of the argument section: the
//! part of the body's stream after the five head strings. Hessian2 never back-references a
//! string, so the head strings touch none of the stream's tables, and the section is exactly
//! what Java writes after them: class definitions once per body (two arguments of one class
//! share it), type names and enum constants (`Q` references) shared across the arguments.
//! [`Request`] keeps these bytes (a private field, beside [`Request::args`]), and
//! [`Request::encode`] writes the head, copies the section and writes the attachments: one
//! allocation, the output buffer, for [`Request::to_bytes`]. The attachment map comes last;
//! its `H` takes the next reference number, but nothing after it refers to that number, and
//! string (and other scalar) values use no table, so the map is written the same whatever the
//! arguments defined.
//!
//! The arguments of a request are its encoded typed arguments followed by `args`. A request
//! built only from typed arguments has `args` empty: [`Request::arg_count`] and
//! [`Request::arg_values`] see both kinds, [`Request::materialize_args`] turns the encoded
//! ones into `Value`s, and requests compare equal when they carry the same call (the same
//! argument bytes when either holds encoded arguments), so a built request equals its decoded
//! body. The encoded section is used as it is unless it cannot be: when the attachments hold
//! lists, maps or objects (they must share the arguments' tables), when `args` has values
//! after it, or for an [`Encoder`] of another hessian-lite generation, the section is decoded
//! into `Value`s and everything is written through one encoder, as before.
//!
//! A request that mixes [`RequestBuilder::value_arg`] and [`RequestBuilder::arg`] is built the
//! dynamic way (`Value`s share an [`Encoder`]'s tables, which a serializer's cannot join): the
//! typed arguments before the first dynamic one are decoded into `Value`s, and later typed
//! ones are serialized each on its own and decoded, with their references moved to the body's
//! stream.
//!
//! ```
//! use dubbo_codec::request::Request;
//! use hessian2::value::Value;
//!
//! let req = Request::builder("com.example.Greeter", "sayHello")
//!     .version("1.0.0")
//!     .group("blue")
//!     .arg("java.lang.String", "world")
//!     .build()?;
//! assert_eq!(req.descriptor, "Ljava/lang/String;");
//! let body = req.to_bytes();
//! let back = Request::decode(&body)?;
//! assert_eq!(back, req);
//! assert_eq!(back.group(), Some("blue"));
//! assert_eq!(back.args, [Value::from("world")]);
//! # Ok::<(), dubbo_codec::BodyError>(())
//! ```

use std::borrow::Cow;
use std::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};
use hessian2::encode::Encoder;
use hessian2::value::Value;
use serde::Serialize;

use crate::attachments::{
    Attachments, GENERIC_KEY, GROUP_KEY, INTERFACE_KEY, PATH_KEY, TIMEOUT_KEY, VERSION_KEY,
};
use crate::body::{count_containers, rebase};
use crate::descriptor::push_name_desc;
use crate::error::BodyError;
use crate::format::{
    arg_field, read_args, with_format, ArgsBuf, BodyFormat, Format, Reader, Writer,
};
use crate::frame::Frame;
use crate::head::Fixed;
pub use crate::head::RequestHead;

/// The Dubbo protocol version Java 2.7 and 3.x write in every request: `"2.0.2"`.
pub const DUBBO_PROTOCOL_VERSION: &str = "2.0.2";
/// The service version Java sends when none is configured.
pub const DEFAULT_SERVICE_VERSION: &str = "0.0.0";
/// The method name of Dubbo's generic invocation.
pub const GENERIC_METHOD: &str = "$invoke";
/// The descriptor of `$invoke(String method, String[] types, Object[] args)`.
pub const GENERIC_DESCRIPTOR: &str = "Ljava/lang/String;[Ljava/lang/String;[Ljava/lang/Object;";
/// The method name of Dubbo's echo service (`EchoService.$echo(Object)`).
pub const ECHO_METHOD: &str = "$echo";

/// A method call. See the [module documentation](self).
///
/// `args` hold `Q` references as stream indexes, as on the wire: a reference counts the
/// lists, maps and objects started in the body before it, across all arguments. A request
/// decoded from the wire re-encodes to the same bytes; [`RequestBuilder`] rebases each
/// argument it is given (whose references count from the argument's own start).
///
/// A request built with typed arguments ([`RequestBuilder::arg`]) keeps them encoded, not in
/// `args`: see [typed arguments](self#typed-arguments-are-written-once-never-through-value).
/// Build requests with [`Request::builder`] or decode them; a struct literal cannot name the
/// encoded arguments.
#[derive(Debug, Clone)]
pub struct Request {
    /// The Dubbo protocol version of the caller (field 1), `"2.0.2"` for Java 2.7 and 3.x.
    /// It decides whether the response carries attachments
    /// ([`crate::response::supports_response_attachments`]).
    pub dubbo_version: String,
    /// The service path (field 2). `null` on the wire reads as `""`.
    pub path: String,
    /// The service version (field 3), `"0.0.0"` when the service has none.
    pub version: String,
    /// The method name.
    pub method: String,
    /// The parameter descriptor (`Ljava/lang/String;I`).
    pub descriptor: String,
    /// One value per parameter; for a request built with typed arguments, the arguments
    /// after the encoded ones (none unless pushed here): see [`Request::arg_values`].
    pub args: Vec<Value>,
    /// The attachments.
    pub attachments: Attachments,
    /// The serialization the body is written in ([`Request::to_bytes`], [`Request::to_frame`]);
    /// a decoded request keeps the one it was read in.
    pub format: BodyFormat,
    /// Typed arguments, written as the body's stream writes them; they come before `args`.
    encoded: Option<EncodedArgs>,
}

/// The argument section of a body, as serialized by [`RequestBuilder::arg`] in `format`: the
/// body's bytes after the five head strings.
#[derive(Clone, PartialEq, Eq)]
struct EncodedArgs {
    format: BodyFormat,
    bytes: Vec<u8>,
    count: usize,
}

impl std::fmt::Debug for EncodedArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EncodedArgs")
            .field("format", &self.format)
            .field("count", &self.count)
            .field("bytes", &Bytes::copy_from_slice(&self.bytes))
            .finish()
    }
}

impl EncodedArgs {
    /// The arguments as values (references count from the section's start, which is the
    /// body's: the head strings start no list, map or object).
    fn values(&self) -> Result<Vec<Value>, BodyError> {
        with_format!(self.format, f => read_args(&mut f.reader(&self.bytes, 0), self.count))
    }
}

/// Two requests are equal when they carry the same call: the same fields and attachments, and
/// the same arguments (as values when both hold values only, else as the bytes they are
/// written as, so that a request built with typed arguments equals its decoded body).
impl PartialEq for Request {
    fn eq(&self, other: &Self) -> bool {
        self.dubbo_version == other.dubbo_version
            && self.path == other.path
            && self.version == other.version
            && self.method == other.method
            && self.descriptor == other.descriptor
            && self.attachments == other.attachments
            && match (&self.encoded, &other.encoded) {
                (None, None) => self.args == other.args,
                _ => self.args_bytes() == other.args_bytes(),
            }
    }
}

impl Request {
    /// A builder for a call of `method` on the service `service` (interface name).
    pub fn builder(service: impl Into<String>, method: impl Into<String>) -> RequestBuilder {
        RequestBuilder::new(service.into(), method.into())
    }

    /// A generic call: `$invoke(method, param_types, args)` as Java's `GenericService` sends
    /// it, with the `generic=true` attachment. `param_types` are Java type names
    /// (`java.lang.String`, `int`, `com.example.User`); `args` are the arguments (POJOs as
    /// objects, or as maps with a `class` entry, as Java's generic calls accept).
    pub fn generic(
        service: impl Into<String>,
        method: &str,
        param_types: &[&str],
        args: Vec<Value>,
    ) -> RequestBuilder {
        let mut b = Request::builder(service, GENERIC_METHOD);
        b.generic_args(method, Some(param_types), args);
        b
    }

    /// A generic call that names no parameter types: `$invoke(method, null, args)`. Java's
    /// `GenericFilter` then looks the method up by its name alone, which finds it when the
    /// interface has one method of that name and fails with an `IllegalStateException`
    /// ("Not unique method ...") for an overloaded one; the arguments (maps for POJOs) are
    /// realized into the method's declared parameter types (`PojoUtils.realize`).
    pub fn generic_by_name(
        service: impl Into<String>,
        method: &str,
        args: Vec<Value>,
    ) -> RequestBuilder {
        let mut b = Request::builder(service, GENERIC_METHOD);
        b.generic_args(method, None, args);
        b
    }

    /// The name of the service called: the `interface` attachment, else the `path`
    /// attachment, else the path field.
    pub fn service(&self) -> &str {
        self.attachments
            .get_str(INTERFACE_KEY)
            .or_else(|| self.attachments.get_str(PATH_KEY))
            .unwrap_or(&self.path)
    }

    /// The service version: the `version` attachment, else the version field.
    pub fn service_version(&self) -> &str {
        self.attachments
            .get_str(VERSION_KEY)
            .unwrap_or(&self.version)
    }

    /// The service group (`group` attachment), if any.
    pub fn group(&self) -> Option<&str> {
        self.attachments.group().filter(|g| !g.is_empty())
    }

    /// True for a generic call (`$invoke` / `$invokeAsync` with its descriptor).
    pub fn is_generic(&self) -> bool {
        is_generic_call(&self.method, &self.descriptor)
    }

    /// The number of arguments: the encoded typed ones and `args`.
    pub fn arg_count(&self) -> usize {
        self.encoded.as_ref().map_or(0, |e| e.count) + self.args.len()
    }

    /// Every argument as a value: `args` itself (borrowed) unless the request holds encoded
    /// typed arguments, which are decoded (references count from the body's first argument,
    /// as in `args`). An error only for a typed argument the `Value` decoder refuses (nested
    /// deeper than its limit).
    pub fn arg_values(&self) -> Result<Cow<'_, [Value]>, BodyError> {
        match &self.encoded {
            None => Ok(Cow::Borrowed(&self.args)),
            Some(e) => {
                let mut values = e.values()?;
                values.extend(self.args.iter().cloned());
                Ok(Cow::Owned(values))
            }
        }
    }

    /// Moves encoded typed arguments into `args` as values (e.g. to edit them); nothing to do
    /// for a request without any. On error the request is unchanged.
    pub fn materialize_args(&mut self) -> Result<(), BodyError> {
        if let Some(e) = &self.encoded {
            let mut values = e.values()?;
            values.append(&mut self.args);
            self.args = values;
            self.encoded = None;
        }
        Ok(())
    }

    /// Writes the body in Hessian2 into `enc` (a fresh stream: call `enc.reset()` first if
    /// reused), as `enc`'s hessian-lite generation writes it, whatever [`Request::format`] says.
    pub fn encode_with<B: BufMut>(&self, enc: &mut Encoder<B>) {
        self.write(enc);
    }

    /// Writes the body with `w`.
    fn write<B: BufMut, W: Writer<B>>(&self, w: &mut W) {
        w.write_utf(&self.dubbo_version);
        w.write_utf(&self.path);
        w.write_utf(&self.version);
        w.write_utf(&self.method);
        w.write_utf(&self.descriptor);
        self.write_args(w, self.attachments.is_plain());
        w.write_attachments(&self.attachments);
    }

    /// Writes the arguments. The encoded section is copied when the writer can take it as it
    /// is (its format, and nothing after it needing the stream's tables: `plain_after`, the
    /// attachments hold no container); otherwise it goes through values.
    fn write_args<B: BufMut, W: Writer<B>>(&self, w: &mut W, plain_after: bool) {
        if let Some(e) = &self.encoded {
            let copied = self.args.is_empty() && w.copy_section(e.format, &e.bytes, plain_after);
            if !copied {
                match e.values() {
                    Ok(values) => values.iter().for_each(|v| w.write_value(v)),
                    // Deeper than the decoder's limit: the bytes as they are (what follows
                    // uses tables of its own).
                    Err(_) => {
                        w.copy_section(e.format, &e.bytes, true);
                    }
                }
            }
        }
        for arg in &self.args {
            w.write_value(arg);
        }
    }

    /// The argument section as written in a body of this request's format.
    fn args_bytes(&self) -> Vec<u8> {
        with_format!(self.format, f => {
            let mut w = f.writer(Vec::new());
            self.write_args(&mut w, true);
            Writer::into_inner(w)
        })
    }

    /// About how many bytes the body takes (exact for ASCII strings and encoded arguments; a
    /// guess for `Value` arguments).
    fn size_hint(&self) -> usize {
        with_format!(self.format, f => {
            [
                &self.dubbo_version,
                &self.path,
                &self.version,
                &self.method,
                &self.descriptor,
            ]
            .iter()
            .map(|s| f.str_size(s))
            .sum::<usize>()
                + self.encoded.as_ref().map_or(0, |e| e.bytes.len())
                + 32 * self.args.len()
                + self.attachments.size_hint_with(|s| f.str_size(s))
                // The five strings, each dynamic argument and the attachments.
                + f.framing() * (6 + self.args.len())
        })
    }

    /// Appends the body to `buf`, in [`Request::format`].
    pub fn encode<B: BufMut>(&self, buf: B) -> B {
        with_format!(self.format, f => {
            let mut w = f.writer(buf);
            self.write(&mut w);
            Writer::into_inner(w)
        })
    }

    /// The body.
    pub fn to_bytes(&self) -> Bytes {
        self.encode(BytesMut::with_capacity(self.size_hint()))
            .freeze()
    }

    /// A frame carrying this call, in [`Request::format`] (`two_way` false for a one-way
    /// call, which is never answered).
    pub fn to_frame(&self, request_id: u64, two_way: bool) -> Frame {
        Frame::request(
            request_id,
            self.format.serialization(),
            two_way,
            self.to_bytes(),
        )
    }

    /// Decodes a Hessian2 body. Strings are copied; binaries too (see
    /// [`Request::decode_bytes`]).
    pub fn decode(body: &[u8]) -> Result<Request, BodyError> {
        Request::decode_in(BodyFormat::default(), body)
    }

    /// Decodes a body in `format`.
    pub fn decode_in(format: BodyFormat, body: &[u8]) -> Result<Request, BodyError> {
        with_format!(format, f => decode_request(&mut f.reader(body, 0), format))
    }

    /// Decodes a Hessian2 body held in [`Bytes`]: binary arguments are zero-copy slices of it.
    pub fn decode_bytes(body: &Bytes) -> Result<Request, BodyError> {
        Request::decode_bytes_in(BodyFormat::default(), body)
    }

    /// [`Request::decode_bytes`] for a body in `format`.
    pub fn decode_bytes_in(format: BodyFormat, body: &Bytes) -> Result<Request, BodyError> {
        with_format!(format, f => decode_request(&mut f.buf_reader(body), format))
    }

    /// Decodes the body of a request frame, in the serialization its header names.
    pub fn from_frame(frame: &Frame) -> Result<Request, BodyError> {
        let format = BodyFormat::require(frame.header().serialization())?;
        Request::decode_bytes_in(format, frame.body())
    }

    /// Reads the arguments of a Hessian2 body into a Rust tuple (or any type that
    /// deserializes from a sequence of the arguments' values: `(String, i32)`, `(User,)`,
    /// `()`), through serde, without building `Value`s. The types must match the number of
    /// arguments.
    pub fn decode_args<T: serde::de::DeserializeOwned>(body: &Bytes) -> Result<T, BodyError> {
        let head = RequestHead::decode(body)?;
        head.decode_args(body)
    }
}

/// True for the method and descriptor of a generic call (Java's `RpcUtils.isGenericCall`).
pub fn is_generic_call(method: &str, descriptor: &str) -> bool {
    (method == GENERIC_METHOD || method == "$invokeAsync") && descriptor == GENERIC_DESCRIPTOR
}

fn decode_request<'de, R: Reader<'de>>(
    r: &mut R,
    format: BodyFormat,
) -> Result<Request, BodyError> {
    let fixed = Fixed::read(r)?;
    let head = RequestHead::after_fixed(r, fixed, format)?;
    let args = read_args(r, head.arg_count)?;
    // Java always writes the map; a body that ends after the arguments has none.
    let attachments = r.read_attachments()?.unwrap_or_default();
    Ok(Request {
        dubbo_version: head.dubbo_version.into_owned(),
        path: head.path.into_owned(),
        version: head.version.into_owned(),
        method: head.method.into_owned(),
        descriptor: head.descriptor.into_owned(),
        args,
        attachments,
        format,
        encoded: None,
    })
}

/// Builds a [`Request`]: the fixed fields, the arguments (dynamic or typed) with their Java
/// types, and the attachments Java sends.
///
/// By default the request carries the attachments a Java consumer sends: `path` and
/// `interface` (the service), `version`, and `group` / `timeout` when set.
#[derive(Debug)]
pub struct RequestBuilder {
    service: String,
    method: String,
    version: String,
    group: Option<String>,
    timeout: Option<Duration>,
    dubbo_version: String,
    descriptor: String,
    explicit_descriptor: Option<String>,
    /// The serialization of the body.
    format: BodyFormat,
    /// The typed arguments so far, written into the argument section (while no dynamic
    /// argument came).
    typed: Option<ArgsBuf>,
    typed_count: usize,
    /// Arguments given already serialized alone ([`RequestBuilder::encoded_arg`]), copied
    /// one after the other into an argument section (while no other kind came).
    alone: Vec<u8>,
    alone_count: usize,
    args: Vec<Value>,
    /// Containers the arguments so far start: the reference base of the next argument.
    refs: u32,
    attachments: Attachments,
    error: Option<BodyError>,
}

impl RequestBuilder {
    fn new(service: String, method: String) -> Self {
        RequestBuilder {
            service,
            method,
            version: DEFAULT_SERVICE_VERSION.to_owned(),
            group: None,
            timeout: None,
            dubbo_version: DUBBO_PROTOCOL_VERSION.to_owned(),
            descriptor: String::new(),
            explicit_descriptor: None,
            format: BodyFormat::default(),
            typed: None,
            typed_count: 0,
            alone: Vec::new(),
            alone_count: 0,
            args: Vec::new(),
            refs: 0,
            attachments: Attachments::new(),
            error: None,
        }
    }

    /// The service version (default `"0.0.0"`, Java's "no version").
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// The service group (sent as the `group` attachment).
    pub fn group(mut self, group: impl Into<String>) -> Self {
        self.group = Some(group.into());
        self
    }

    /// The caller's timeout, sent as the `timeout` attachment in milliseconds.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The Dubbo protocol version written in field 1 (default `"2.0.2"`).
    pub fn dubbo_version(mut self, version: impl Into<String>) -> Self {
        self.dubbo_version = version.into();
        self
    }

    /// The serialization of the body (default Hessian2 as hessian-lite 3 writes it). Set it
    /// before the typed arguments: they are serialized in it as they come.
    pub fn format(mut self, format: BodyFormat) -> Self {
        // Arguments already serialized in the old format go through values.
        if let Err(e) = self.sections_to_values() {
            self.error = Some(e);
        }
        self.format = format;
        self
    }

    /// An attachment (added after the default ones; the same key replaces a default one).
    pub fn attach(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.attachments.insert(key, value);
        self
    }

    /// Sets the parameter descriptor explicitly, instead of building it from the Java types
    /// given with each argument.
    pub fn descriptor(mut self, descriptor: impl Into<String>) -> Self {
        self.explicit_descriptor = Some(descriptor.into());
        self
    }

    /// A typed argument of Java type `java_type` (`java.lang.String`, `int`, `long[]`,
    /// `com.example.User`), serialized through serde in the builder's [format](Self::format)
    /// straight into the body's argument section: in Hessian2 the typed arguments of a
    /// request share one serializer, so a class is defined once for all of them, as Java does
    /// (see the [module documentation](self#typed-arguments-are-written-once-never-through-value)).
    pub fn arg<T: Serialize + ?Sized>(mut self, java_type: &str, value: &T) -> Self {
        if self.error.is_some() || !self.push_desc(java_type) {
            return self;
        }
        let field = arg_field(self.arg_count());
        let to_error = |source| BodyError::Serialize { field, source };
        if self.alone_count > 0 {
            let section = self.take_alone();
            if let Err(e) = self.section_to_values(section) {
                self.error = Some(e);
                return self;
            }
        }
        if !self.args.is_empty() {
            // After a dynamic argument: the dynamic way (see the module documentation).
            let value = hessian2::to_vec(value)
                .and_then(|bytes| hessian2::value::from_slice(&bytes))
                .map_err(to_error);
            match value {
                Ok(v) => self.push_arg(v),
                Err(e) => self.error = Some(e),
            }
            return self;
        }
        let format = self.format;
        let args = self.typed.get_or_insert_with(|| ArgsBuf::new(format));
        match args.push(value) {
            Ok(()) => self.typed_count += 1,
            Err(e) => self.error = Some(e.in_field(field)),
        }
        self
    }

    /// A dynamic argument of Java type `java_type`. Its references (if any) count from the
    /// argument's own start; the builder moves them to the body's stream.
    pub fn value_arg(mut self, java_type: &str, value: impl Into<Value>) -> Self {
        if self.error.is_some() || !self.push_desc(java_type) {
            return self;
        }
        if let Err(e) = self.sections_to_values() {
            self.error = Some(e);
            return self;
        }
        self.push_arg(value.into());
        self
    }

    /// An argument of Java type `java_type` already serialized on its own in the builder's
    /// [format](Self::format): one whole value, as a Triple request wrapper carries each
    /// argument. It is copied into the body as it is wherever the body's one stream allows:
    /// the first argument, and a later one that uses none of the tables earlier values define
    /// (a Hessian2 scalar, string or binary; any fastjson2 value, each being a document of its
    /// own). Otherwise the arguments are read as values and moved into the stream, as
    /// [`value_arg`](Self::value_arg) moves them. Bytes that are not exactly one value are an
    /// error.
    pub fn encoded_arg(mut self, java_type: &str, alone: &[u8]) -> Self {
        if self.error.is_some() || !self.push_desc(java_type) {
            return self;
        }
        let field = arg_field(self.arg_count());
        if let Err(e) = self.format.check_alone(alone, field) {
            self.error = Some(e);
            return self;
        }
        let copied = self.typed.is_none()
            && self.args.is_empty()
            && (self.alone_count == 0 || self.format.joins_as_is(alone));
        if copied {
            self.alone.extend_from_slice(alone);
            self.alone_count += 1;
            return self;
        }
        let value = self
            .sections_to_values()
            .and_then(|()| self.format.read_alone(alone));
        match value {
            Ok(v) => self.push_arg(v),
            Err(e) => self.error = Some(e),
        }
        self
    }

    /// Appends the descriptor of `java_type`; false (and the error recorded) for a bad name.
    fn push_desc(&mut self, java_type: &str) -> bool {
        match push_name_desc(java_type, &mut self.descriptor) {
            Ok(()) => true,
            Err(source) => {
                self.error = Some(BodyError::TypeName {
                    name: java_type.to_owned(),
                    source,
                });
                false
            }
        }
    }

    fn arg_count(&self) -> usize {
        self.typed_count + self.alone_count + self.args.len()
    }

    /// The typed arguments so far, taken out of the serializer.
    fn take_typed(&mut self) -> Option<EncodedArgs> {
        let args = self.typed.take()?;
        let format = args.format();
        let bytes = args.finish();
        let count = std::mem::take(&mut self.typed_count);
        Some(EncodedArgs {
            format,
            bytes,
            count,
        })
    }

    /// The arguments given serialized alone so far, as an argument section.
    fn take_alone(&mut self) -> Option<EncodedArgs> {
        if self.alone_count == 0 {
            return None;
        }
        Some(EncodedArgs {
            format: self.format,
            bytes: std::mem::take(&mut self.alone),
            count: std::mem::take(&mut self.alone_count),
        })
    }

    /// Turns the arguments so far that are bytes (typed or serialized alone) into values,
    /// before an argument that cannot join them.
    fn sections_to_values(&mut self) -> Result<(), BodyError> {
        let typed = self.take_typed();
        self.section_to_values(typed)?;
        let alone = self.take_alone();
        self.section_to_values(alone)
    }

    /// Turns an argument section into values.
    fn section_to_values(&mut self, section: Option<EncodedArgs>) -> Result<(), BodyError> {
        if let Some(encoded) = section {
            for v in encoded.values()? {
                self.refs = self.refs.saturating_add(count_containers(&v));
                self.args.push(v);
            }
        }
        Ok(())
    }

    fn push_arg(&mut self, mut value: Value) {
        rebase(&mut value, self.refs);
        self.refs = self.refs.saturating_add(count_containers(&value));
        self.args.push(value);
    }

    fn generic_args(&mut self, method: &str, param_types: Option<&[&str]>, args: Vec<Value>) {
        self.explicit_descriptor = Some(GENERIC_DESCRIPTOR.to_owned());
        self.attachments.insert(GENERIC_KEY, "true");
        self.push_arg(Value::from(method));
        self.push_arg(match param_types {
            Some(types) => {
                Value::typed_list("[string", types.iter().map(|t| Value::from(*t)).collect())
            }
            None => Value::Null,
        });
        // The Object[]: one container, then each argument rebased past what precedes it.
        let mut base = self.refs.saturating_add(1);
        let mut items = Vec::with_capacity(args.len());
        for mut a in args {
            rebase(&mut a, base);
            base = base.saturating_add(count_containers(&a));
            items.push(a);
        }
        let list = Value::typed_list("[object", items);
        self.refs = self.refs.saturating_add(count_containers(&list));
        self.args.push(list);
    }

    /// The request, or the first error met (a bad Java type name, a serde error).
    pub fn build(mut self) -> Result<Request, BodyError> {
        // At most one of the two sections holds arguments (each kind turns the other's into
        // values).
        let encoded = self.take_typed().or_else(|| self.take_alone());
        if let Some(e) = self.error {
            return Err(e);
        }
        let mut attachments = Attachments::with_capacity(5 + self.attachments.len());
        attachments.insert(PATH_KEY, self.service.as_str());
        attachments.insert(INTERFACE_KEY, self.service.as_str());
        attachments.insert(VERSION_KEY, self.version.as_str());
        if let Some(g) = &self.group {
            attachments.insert(GROUP_KEY, g.as_str());
        }
        if let Some(t) = self.timeout {
            attachments.insert(TIMEOUT_KEY, t.as_millis().to_string());
        }
        attachments.extend(self.attachments);
        let descriptor = self.explicit_descriptor.unwrap_or(self.descriptor);
        Ok(Request {
            dubbo_version: self.dubbo_version,
            path: self.service,
            version: self.version,
            method: self.method,
            descriptor,
            args: self.args,
            attachments,
            format: self.format,
            encoded,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hessian2::encode::PeerVersion;
    use hessian2::value::Object;
    use serde::{Deserialize, Serialize};

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(rename = "com.example.User")]
    struct User {
        name: String,
        id: i64,
    }

    #[test]
    fn typed_args_share_one_stream() {
        let u = User {
            name: "a".into(),
            id: 7,
        };
        let req = Request::builder("com.example.Svc", "pair")
            .arg("com.example.User", &u)
            .arg("com.example.User", &u)
            .arg("int", &3)
            .attach("k", "v")
            .build()
            .unwrap();
        assert_eq!(req.descriptor, "Lcom/example/User;Lcom/example/User;I");
        let body = req.to_bytes();
        // One class definition for both users.
        assert_eq!(
            body.windows(b"com.example.User".len())
                .filter(|w| *w == b"com.example.User")
                .count(),
            1
        );
        let back = Request::decode(&body).unwrap();
        assert_eq!(back, req);
        assert_eq!(back.attachments.get_str("k"), Some("v"));
        assert_eq!(back.attachments.get_str("version"), Some("0.0.0"));
        let (a, b, n): (User, User, i32) = Request::decode_args(&body).unwrap();
        assert_eq!((a, b, n), (u.clone(), u, 3));
        // Wrong arity is an error, not a panic.
        assert!(Request::decode_args::<(User,)>(&body).is_err());
        let head = RequestHead::decode(&body).unwrap();
        assert_eq!(head.arg_count, 3);
        assert_eq!(head.method, "pair");
    }

    #[test]
    fn value_args_are_rebased() {
        let shared = Value::untyped_list(vec![Value::Int(1)]);
        let req = Request::builder("S", "m")
            .value_arg("java.util.List", shared.clone())
            .value_arg(
                "java.util.List",
                Value::untyped_list(vec![shared, Value::Ref(1)]),
            )
            .build()
            .unwrap();
        // The second argument's inner reference moved past the first argument's list.
        assert_eq!(
            req.args[1],
            Value::untyped_list(vec![
                Value::untyped_list(vec![Value::Int(1)]),
                Value::Ref(2)
            ])
        );
        assert_eq!(Request::decode(&req.to_bytes()).unwrap(), req);
    }

    /// Arguments serialized each on its own (a Triple wrapper's) join a body's one stream:
    /// copied while they use no table of the stream, through values once one would.
    #[test]
    fn encoded_args_join_one_stream() {
        let u = User {
            name: "a".into(),
            id: 7,
        };
        for format in [BodyFormat::Hessian2(PeerVersion::V3), BodyFormat::FASTJSON2] {
            let user = format.encode_alone(&u).unwrap();
            let name = format.encode_alone("x").unwrap();
            let three = format.encode_alone(&3).unwrap();
            // A user, then plain values: the three copied as they are, in order.
            let req = Request::builder("com.example.Svc", "m")
                .format(format)
                .encoded_arg("com.example.User", &user)
                .encoded_arg("java.lang.String", &name)
                .encoded_arg("int", &three)
                .build()
                .unwrap();
            assert_eq!(req.descriptor, "Lcom/example/User;Ljava/lang/String;I");
            assert!(req.args.is_empty(), "{format:?}: copied, not read");
            let body = req.to_bytes();
            let section = [&user[..], &name[..], &three[..]].concat();
            assert!(
                body.windows(section.len()).any(|w| w == section),
                "{format:?}: the arguments' bytes are in the body"
            );
            let head = RequestHead::decode_in(format, &body).unwrap();
            let args: (User, String, i32) = format
                .decode_args_at(&body, head.args_offset, head.arg_count)
                .unwrap();
            assert_eq!(args, (u.clone(), "x".to_owned(), 3));

            // Two users: in Hessian2 the second one's class index counts from its own
            // stream, so both go through values (fastjson2 documents still join as they are).
            let req = Request::builder("com.example.Svc", "pair")
                .format(format)
                .encoded_arg("com.example.User", &user)
                .encoded_arg("com.example.User", &user)
                .build()
                .unwrap();
            assert_eq!(req.args.is_empty(), format == BodyFormat::FASTJSON2);
            let body = req.to_bytes();
            let head = RequestHead::decode_in(format, &body).unwrap();
            let args: (User, User) = format
                .decode_args_at(&body, head.args_offset, head.arg_count)
                .unwrap();
            assert_eq!(args, (u.clone(), u.clone()));

            // Not exactly one value: an error naming the argument.
            let two = [&name[..], &name[..]].concat();
            for bad in [&two[..], &[][..], &user[..user.len() - 1]] {
                let err = Request::builder("S", "m")
                    .format(format)
                    .encoded_arg("java.lang.String", bad)
                    .build()
                    .unwrap_err();
                assert!(err.to_string().contains("argument 0"), "{format:?}: {err}");
            }
        }
    }

    /// A body's arguments, each serialized alone: copied while they stand alone, written
    /// from values (references moved) once one would not; what refers to an earlier argument
    /// cannot.
    #[test]
    fn args_alone_undo_one_stream() {
        let u = User {
            name: "a".into(),
            id: 7,
        };
        for format in [BodyFormat::Hessian2(PeerVersion::V3), BodyFormat::FASTJSON2] {
            let body = Request::builder("S", "m")
                .format(format)
                .arg("com.example.User", &u)
                .arg("java.lang.String", "x")
                .arg("com.example.User", &u)
                .build()
                .unwrap()
                .to_bytes();
            let head = RequestHead::decode_in(format, &body).unwrap();
            let alone = head.args_alone(&body).unwrap();
            assert_eq!(alone.len(), 3);
            let (a, x, b): (User, String, User) = format.decode_each(&alone).unwrap();
            assert_eq!((a, x.as_str(), b), (u.clone(), "x", u.clone()));
            // And back into one body, the same call.
            let mut again = Request::builder("S", "m").format(format);
            for (t, a) in ["com.example.User", "java.lang.String", "com.example.User"]
                .iter()
                .zip(&alone)
            {
                again = again.encoded_arg(t, a);
            }
            let again = again.build().unwrap().to_bytes();
            let h = RequestHead::decode_in(format, &again).unwrap();
            let (a, x, b): (User, String, User) = format
                .decode_args_at(&again, h.args_offset, h.arg_count)
                .unwrap();
            assert_eq!((a, x.as_str(), b), (u.clone(), "x", u.clone()));
        }
        // Hessian2: a second argument that is a reference to the first cannot stand alone.
        let shared = Value::untyped_list(vec![Value::Int(1)]);
        let body = Request::builder("S", "m")
            .value_arg("java.util.List", shared)
            .value_arg("java.util.List", Value::Ref(0))
            .build()
            .unwrap()
            .to_bytes();
        let head = RequestHead::decode(&body).unwrap();
        let err = head.args_alone(&body).unwrap_err();
        assert!(err.to_string().contains("argument 1"), "{err}");
    }

    #[test]
    fn generic_invoke_shape() {
        let user = Value::Object(Object::new("com.example.User", [("id", Value::Long(1))]));
        let req = Request::generic(
            "com.example.Svc",
            "echoUser",
            &["com.example.User"],
            vec![user.clone()],
        )
        .version("1.0.0")
        .build()
        .unwrap();
        assert!(req.is_generic());
        assert_eq!(req.method, "$invoke");
        assert_eq!(req.descriptor, GENERIC_DESCRIPTOR);
        assert_eq!(req.attachments.get_str("generic"), Some("true"));
        assert_eq!(
            req.args,
            [
                Value::from("echoUser"),
                Value::typed_list("[string", vec![Value::from("com.example.User")]),
                Value::typed_list("[object", vec![user]),
            ]
        );
        assert_eq!(Request::decode(&req.to_bytes()).unwrap(), req);
    }

    /// Without parameter types the `String[]` is null (not empty: an empty one names the
    /// method without parameters).
    #[test]
    fn generic_invoke_by_name_sends_null_types() {
        let map = Value::untyped_map(vec![(Value::from("id"), Value::Int(1))]);
        let req = Request::generic_by_name("com.example.Svc", "echoUser", vec![map.clone()])
            .build()
            .unwrap();
        assert!(req.is_generic());
        assert_eq!(req.attachments.get_str("generic"), Some("true"));
        assert_eq!(
            req.args,
            [
                Value::from("echoUser"),
                Value::Null,
                Value::typed_list("[object", vec![map]),
            ]
        );
        assert_eq!(Request::decode(&req.to_bytes()).unwrap(), req);
    }

    #[test]
    fn interface_attachment_names_the_service() {
        let mut req = Request::builder("p", "m").build().unwrap();
        req.attachments.remove("interface");
        req.attachments.remove("path");
        assert_eq!(req.service(), "p");
        req.attachments.insert("path", "q");
        assert_eq!(req.service(), "q");
        req.attachments.insert("interface", "I");
        assert_eq!(req.service(), "I");
        assert!(Request::builder("p", "m")
            .value_arg("not a type[", 1)
            .build()
            .is_err());
    }

    #[test]
    fn truncated_bodies_never_panic() {
        let body = Request::builder("com.example.Svc", "m")
            .arg("java.lang.String", "x")
            .arg("long[]", &vec![1i64, 2])
            .build()
            .unwrap()
            .to_bytes();
        for n in 0..body.len() {
            let _ = Request::decode(&body[..n]);
            let _ = RequestHead::decode(&body[..n]);
        }
        assert!(Request::decode(&body[..3]).is_err());
    }
}
