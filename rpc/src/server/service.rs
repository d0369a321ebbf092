//! What a server serves: [`Service`]s of method handlers, the [`Call`] a handler gets and the
//! [`Reply`] or [`HandlerError`] it answers.

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;

use crate::identity::PeerIdentity;
use std::pin::Pin;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use hessian2::encode::Encoder;
use hessian2::value::Value;
use serde::de::DeserializeOwned;
use serde::Serialize;

use dubbo_codec::attachments::Attachments;
use dubbo_codec::error::BodyError;
use dubbo_codec::exception::JavaException;
use dubbo_codec::response::{encode_typed_result_in, provider_attachments};
use dubbo_codec::status::Status;
use dubbo_codec::BodyFormat;

/// The future a handler returns.
pub type HandlerFuture = Pin<Box<dyn Future<Output = Result<Reply, HandlerError>> + Send>>;
pub(super) type Handler = Arc<dyn Fn(Call) -> HandlerFuture + Send + Sync>;

/// What a handler answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A dynamic value (`Value::Null` is answered as a null result).
    Value(Value),
    /// `null` / `void`.
    Null,
    /// One value already serialized as a Hessian2 stream of its own (see [`Reply::typed`]).
    /// A caller in another serialization gets it through a `Value`.
    Encoded(Bytes),
    /// The whole body of an OK response, in the call's serialization (see
    /// [`Call::typed_reply`]); for a Triple call, the value alone.
    Body(Bytes),
}

impl Reply {
    /// A Rust value, serialized through serde (a value that serializes to `null`, such as
    /// `None` or `()`, is a null result, as Java answers a `null` return), never through a
    /// `Value`: the bytes are what the response body carries after its flag (an int, which
    /// touches none of the stream's tables), so the server copies them once into the body.
    pub fn typed<T: Serialize + ?Sized>(value: &T) -> Result<Reply, HandlerError> {
        hessian2::to_vec(value)
            .map(|v| Reply::Encoded(Bytes::from(v)))
            .map_err(|e| {
                HandlerError::Exception(JavaException::runtime(format!(
                    "serializing the result: {e}"
                )))
            })
    }

    /// A dynamic value.
    pub fn value(value: impl Into<Value>) -> Result<Reply, HandlerError> {
        Ok(Reply::Value(value.into()))
    }

    /// A null result (the answer of a `void` method).
    pub fn null() -> Result<Reply, HandlerError> {
        Ok(Reply::Null)
    }
}

/// Why a handler did not produce a value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum HandlerError {
    /// The method "threw": answered as a Java exception (status OK, exception flag).
    #[error("{0}")]
    Exception(JavaException),
    /// Answered with a non-OK status and a message (the arguments could not be read:
    /// `BAD_REQUEST`, ...).
    #[error("{status:?}: {message}")]
    Status {
        /// The status.
        status: Status,
        /// The error message.
        message: String,
    },
}

impl HandlerError {
    /// A `java.lang.RuntimeException` with `message`.
    pub fn runtime(message: impl Into<String>) -> Self {
        HandlerError::Exception(JavaException::runtime(message))
    }

    /// An exception of Java class `class` (e.g. `java.lang.IllegalStateException`).
    pub fn exception(class: impl Into<String>, message: impl Into<String>) -> Self {
        HandlerError::Exception(JavaException::new(class, Some(message.into())))
    }
}

impl From<JavaException> for HandlerError {
    fn from(e: JavaException) -> Self {
        HandlerError::Exception(e)
    }
}

impl From<BodyError> for HandlerError {
    /// Arguments that cannot be read are a bad request, as in Java (where the codec fails).
    fn from(e: BodyError) -> Self {
        HandlerError::Status {
            status: Status::BadRequest,
            message: format!("Fail to decode request due to: {e}"),
        }
    }
}

#[derive(Debug, Clone)]
pub(super) enum Args {
    /// The request body, its serialization and where its arguments start.
    Raw {
        body: Bytes,
        format: BodyFormat,
        offset: usize,
        count: usize,
    },
    /// Arguments taken out of a generic call.
    Values(Vec<Value>),
    /// Arguments each serialized on its own (a Triple call's wrapper).
    #[cfg_attr(not(feature = "triple"), allow(dead_code))]
    Separate {
        format: BodyFormat,
        args: Vec<Bytes>,
    },
}

/// The protocol a call came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Protocol {
    /// The Dubbo 2 protocol (`dubbo://`): frames with a 16-byte header.
    Dubbo,
    /// Triple (`tri://`, feature `triple`): gRPC over HTTP/2, arguments wrapped as Java
    /// Dubbo wraps an interface's calls.
    Triple,
}

/// One call, as a handler sees it.
#[derive(Debug, Clone)]
pub struct Call {
    /// The request id.
    pub request_id: u64,
    /// False for a one-way call (its reply is discarded).
    pub two_way: bool,
    /// The caller's Dubbo protocol version (empty for Triple).
    pub dubbo_version: String,
    /// The protocol the call came in.
    pub protocol: Protocol,
    /// The service (interface) name.
    pub service: String,
    /// The service version.
    pub version: String,
    /// The group, if any.
    pub group: Option<String>,
    /// The method name (for a generic call, the method it names).
    pub method: String,
    /// The parameter descriptor (for a generic call, built from the types it names).
    pub descriptor: String,
    /// The request's attachments.
    pub attachments: Attachments,
    /// True when the call came as a generic call (`$invoke`).
    pub generic: bool,
    /// The caller's address.
    pub peer: SocketAddr,
    /// The identity in the caller's verified TLS client certificate (feature `tls`, a
    /// server with a client CA); `None` for a caller without one.
    pub peer_identity: Option<PeerIdentity>,
    /// The serialization of the call, which the answer is written in.
    pub format: BodyFormat,
    pub(super) args: Args,
}

impl Call {
    /// The number of arguments.
    pub fn arg_count(&self) -> usize {
        match &self.args {
            Args::Raw { count, .. } => *count,
            Args::Values(v) => v.len(),
            Args::Separate { args, .. } => args.len(),
        }
    }

    /// The arguments as a Rust tuple, through serde: `let (name, n): (String, i32) =
    /// call.args()?;`. An error converts to a `BAD_REQUEST` answer with `?`.
    pub fn args<T: DeserializeOwned>(&self) -> Result<T, BodyError> {
        match &self.args {
            Args::Raw {
                body,
                format,
                offset,
                count,
            } => format.decode_args_at(body, *offset, *count),
            Args::Values(values) => {
                // Write the values as one Hessian2 stream and read them back typed.
                let mut enc = Encoder::new(BytesMut::new());
                for v in values {
                    v.encode(&mut enc);
                }
                BodyFormat::Hessian2(enc.version()).decode_args_at(
                    &enc.into_inner().freeze(),
                    0,
                    values.len(),
                )
            }
            Args::Separate { format, args } => format.decode_each(args),
        }
    }

    /// A Rust value as the answer to this call, serialized through serde in the call's
    /// serialization, never through a `Value` (for a Hessian2 call, [`Reply::typed`]).
    pub fn typed_reply<T: Serialize + ?Sized>(&self, value: &T) -> Result<Reply, HandlerError> {
        if let BodyFormat::Hessian2(_) = self.format {
            return Reply::typed(value);
        }
        if self.protocol == Protocol::Triple {
            // A Triple answer's body is the value alone, written as one argument is.
            return self
                .format
                .encode_alone(value)
                .map(Reply::Body)
                .map_err(|e| {
                    HandlerError::Exception(JavaException::runtime(format!(
                        "serializing the result: {e}"
                    )))
                });
        }
        let attachments = provider_attachments(&self.dubbo_version);
        encode_typed_result_in(self.format, value, attachments)
            .map(Reply::Body)
            .map_err(|e| {
                HandlerError::Exception(JavaException::runtime(format!(
                    "serializing the result: {e}"
                )))
            })
    }

    /// The arguments as dynamic values (references count from the first argument).
    pub fn values(&self) -> Result<Vec<Value>, BodyError> {
        match &self.args {
            Args::Raw {
                body,
                format,
                offset,
                count,
            } => format.read_args_at(body, *offset, *count),
            Args::Values(v) => Ok(v.clone()),
            Args::Separate { format, args } => {
                let mut out = Vec::with_capacity(args.len());
                for arg in args {
                    out.push(format.read_alone(arg)?);
                }
                Ok(out)
            }
        }
    }
}

/// A service: interface, version, group and its methods' handlers.
#[derive(Clone)]
pub struct Service {
    pub(super) interface: String,
    pub(super) version: String,
    pub(super) group: Option<String>,
    pub(super) methods: HashMap<String, Handler>,
    /// Java signatures declared with [`Service::signature`]: (method, parameter types, return
    /// type), published as the service definition at `Server::register`.
    pub(super) signatures: Vec<(String, Vec<String>, String)>,
    /// IDL (protobuf) methods, served over Triple (see [`Service::grpc`]).
    #[cfg(feature = "triple")]
    pub(super) grpc_methods: HashMap<String, super::grpc::GrpcMethod>,
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("interface", &self.interface)
            .field("version", &self.version)
            .field("group", &self.group)
            .field("methods", &self.methods.keys().collect::<Vec<_>>())
            .field("signatures", &self.signatures)
            .finish()
    }
}

fn norm_version(v: &str) -> &str {
    if v == "0.0.0" {
        ""
    } else {
        v
    }
}

impl Service {
    /// A service with no version, no group and no methods.
    pub fn new(interface: impl Into<String>) -> Self {
        Service {
            interface: interface.into(),
            version: String::new(),
            group: None,
            methods: HashMap::new(),
            signatures: Vec::new(),
            #[cfg(feature = "triple")]
            grpc_methods: HashMap::new(),
        }
    }

    /// The version (`""` and `"0.0.0"` both mean none).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// The group.
    pub fn group(mut self, group: impl Into<String>) -> Self {
        self.group = Some(group.into()).filter(|g: &String| !g.is_empty());
        self
    }

    /// The handler of method `name` (every overload of it: see [`Call::descriptor`]).
    pub fn method<F, Fut>(mut self, name: impl Into<String>, handler: F) -> Self
    where
        F: Fn(Call) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Reply, HandlerError>> + Send + 'static,
    {
        let h: Handler = Arc::new(move |call| Box::pin(handler(call)));
        self.methods.insert(name.into(), h);
        self
    }

    /// Declares a Java signature of method `name` (once per overload): its parameter types
    /// (`java.lang.String`, `long`, `io.example.User`, `java.util.List<java.lang.String>`) and
    /// return type (`void` for none). With the `registry` feature, `Server::register`
    /// publishes the declared signatures as the service definition, as a Java provider does,
    /// so that `dubbo-call --describe` (or a Dubbo admin console) shows them; a method without
    /// one is known by name only.
    pub fn signature(
        mut self,
        name: impl Into<String>,
        parameter_types: &[&str],
        return_type: impl Into<String>,
    ) -> Self {
        let params = parameter_types.iter().map(|&t| t.to_owned()).collect();
        self.signatures
            .push((name.into(), params, return_type.into()));
        self
    }

    pub(super) fn key(&self) -> String {
        service_key(&self.interface, &self.version, self.group.as_deref())
    }
}

/// Java's service key form: `group/interface:version`.
pub(super) fn service_key(interface: &str, version: &str, group: Option<&str>) -> String {
    let mut k = String::new();
    if let Some(g) = group.filter(|g| !g.is_empty()) {
        k.push_str(g);
        k.push('/');
    }
    k.push_str(interface);
    let v = norm_version(version);
    if !v.is_empty() {
        k.push(':');
        k.push_str(v);
    }
    k
}

#[cfg(feature = "registry")]
impl Service {
    /// Its declared signatures as a Java provider's service definition, keyed as registered
    /// in `url`.
    pub(super) fn definition(
        &self,
        url: &dubbo_registry::ServiceUrl,
    ) -> (
        dubbo_registry::definition::DefinitionKey,
        dubbo_registry::definition::ServiceDefinition,
    ) {
        use dubbo_registry::definition::{DefinitionKey, MethodDefinition, ServiceDefinition};
        let key = DefinitionKey {
            interface: self.interface.clone(),
            version: norm_version(&self.version).to_owned(),
            group: self.group.clone().unwrap_or_default(),
            application: url.param("application").unwrap_or_default().into_owned(),
        };
        let parameters = [
            "application",
            "dubbo",
            "group",
            "interface",
            "methods",
            "release",
            "side",
            "version",
        ]
        .into_iter()
        .filter_map(|k| Some((k.to_owned(), url.param(k)?.into_owned())))
        .collect();
        let definition = ServiceDefinition {
            canonical_name: self.interface.clone(),
            methods: self
                .signatures
                .iter()
                .map(|(name, params, ret)| MethodDefinition {
                    name: name.clone(),
                    parameter_types: params.clone(),
                    return_type: ret.clone(),
                })
                .collect(),
            parameters,
            ..ServiceDefinition::default()
        };
        (key, definition)
    }
}
