//! Triple callers bridged to a cluster whose providers speak only the Dubbo protocol
//! (`clusters.NAME.protocol = "dubbo"`): a Java Dubbo 3.3 consumer that prefers Triple, or a
//! gRPC tool, reaches a Java 2.7 provider.
//!
//! An interface-style unary call is read whole, moved into a Dubbo request, sent on the
//! endpoint's Dubbo connection, and its answer moved back:
//!
//! ```text
//! HEADERS  :path /{interface}/{method}, tri-service-version, tri-service-group,
//!          grpc-timeout, attachments
//! DATA     one message: TripleRequestWrapper { serializeType, args[i], argTypes[i] }
//!   ─▶ Dubbo request body: "2.0.2", interface, version, method, descriptor (of argTypes),
//!      the arguments (each copied where the body's one stream allows, else moved through
//!      values: RequestBuilder::encoded_arg), attachments (path, interface, version, group,
//!      timeout, the caller's own)
//!   ◀─ Dubbo response: OK: flag, then the value or the exception (located, not read:
//!      ResultSpan); any other status: an error message
//! HEADERS  content-type (and tri-exception-code: 3 for an exception, as Java's Triple
//!          provider flags a business exception)
//! DATA     one message: TripleResponseWrapper { serializeType as the caller wrote it,
//!          data: the value's bytes }
//! trailers grpc-status: 0; or, for a Dubbo error status, trailers-only with its gRPC code
//!          and message
//! ```
//!
//! Hessian2 and fastjson2 serialize each argument (and the result) of a Triple call on its
//! own, and a Dubbo body as one stream; the bytes move as they are except where Hessian2's
//! stream tables (class definitions, references) would make them mean something else.
//!
//! What cannot cross is refused with a status that says so: IDL (protobuf) calls and streams
//! (a Dubbo provider has no such method: the request is not a wrapper), compressed messages,
//! serializations other than Hessian2 and fastjson2.
//!
//! The provider's response attachments (flags 3..=5) come back as Java Dubbo 3's Triple
//! server sends its own: in the trailers, one header each (text, numbers and booleans as
//! text, `byte[]` as `-bin`), but for `dubbo`, the Dubbo protocol's version.

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use dubbo_codec::attachments::{Attachments, DUBBO_VERSION_KEY};
use dubbo_codec::response::{decode_error_message_in, ResultSpan};
use dubbo_codec::{BodyFormat, Frame, Request as DubboRequest, Status as DubboStatus};
use dubbo_triple::message::MessageEncoder;
use dubbo_triple::metadata::{
    write_attachments, AttachmentValue, MetadataError, RequestHead, CONTENT_TYPE_PROTO,
    TRI_EXCEPTION_CODE,
};
use dubbo_triple::unary::UnaryRequest;
use dubbo_triple::wrapper::{serialization_of_wire_name, RequestWrapper, ResponseWrapper};
use dubbo_triple::{Code, Status};
use h2::server::SendResponse;
use h2::RecvStream;
use hessian2::encode::PeerVersion;
use hessian2::value::Value;
use http::{HeaderMap, HeaderValue, Request, Response};

use super::fail::Fail;
use super::state::Triple;
use super::upstream::Chosen;

/// Java's `RpcException.BIZ_EXCEPTION`: a business exception travels as the message.
const BIZ_EXCEPTION: &str = "3";

/// A Triple call as a Dubbo request, and the serialization name the caller wrote (echoed in
/// the answer).
#[derive(Debug)]
pub struct Bridged {
    /// The request frame (its id is set when it is sent).
    pub frame: Frame,
    /// The caller's `serializeType`.
    pub wire_serialization: String,
    /// The body's serialization.
    pub format: BodyFormat,
}

/// What the caller gets for the provider's Dubbo answer.
#[derive(Debug, PartialEq)]
pub enum Answer {
    /// A response message (a wrapper), flagged as a business exception or not.
    Message {
        /// The wrapper, prefix included.
        body: Bytes,
        /// The value is the exception the method threw.
        exception: bool,
        /// The provider's response attachments, for the trailers.
        attachments: Vec<(String, AttachmentValue)>,
    },
    /// A status without a message.
    Status(Status),
}

/// Moves the call of `head` with its one request `message` into a Dubbo request that must
/// be answered within `timeout`.
pub fn dubbo_request(
    head: &RequestHead,
    message: Bytes,
    timeout: Duration,
) -> Result<Bridged, Status> {
    let wrapper = RequestWrapper::decode_bytes(message).map_err(|e| {
        Status::new(
            Code::Unimplemented,
            format!("only interface-style calls cross to a Dubbo provider: {e}"),
        )
    })?;
    let format = match serialization_of_wire_name(&wrapper.serialize_type) {
        "hessian2" => BodyFormat::Hessian2(PeerVersion::V3),
        "fastjson2" => BodyFormat::FASTJSON2,
        other => {
            return Err(Status::new(
                Code::Unimplemented,
                format!("serialization {other:?} does not cross to a Dubbo provider (hessian2, fastjson2 do)"),
            ))
        }
    };
    if wrapper.args.len() != wrapper.arg_types.len() {
        return Err(Status::new(
            Code::InvalidArgument,
            format!(
                "{} arguments but {} argument types",
                wrapper.args.len(),
                wrapper.arg_types.len()
            ),
        ));
    }
    let mut b = DubboRequest::builder(head.service.as_str(), head.method.as_str())
        .format(format)
        .timeout(timeout);
    if !head.version.is_empty() {
        b = b.version(head.version.as_str());
    }
    if !head.group.is_empty() {
        b = b.group(head.group.as_str());
    }
    for (arg, ty) in wrapper.args.iter().zip(&wrapper.arg_types) {
        b = b.encoded_arg(ty, arg);
    }
    for (k, v) in &head.attachments {
        let v = match v {
            AttachmentValue::Text(t) => Value::from(t.as_str()),
            AttachmentValue::Binary(b) => Value::Binary(b.clone()),
        };
        b = b.attach(k.as_str(), v);
    }
    if let Some(app) = &head.application {
        b = b.attach("remote.application", app.as_str());
    }
    let request = b
        .build()
        .map_err(|e| Status::new(Code::InvalidArgument, format!("the call's arguments: {e}")))?;
    Ok(Bridged {
        frame: request.to_frame(0, true),
        wire_serialization: wrapper.serialize_type,
        format,
    })
}

/// Moves a provider's Dubbo `response` to a request in `format` into the caller's answer
/// (`wire_serialization`: the caller's name for it).
pub fn triple_answer(response: &Frame, format: BodyFormat, wire_serialization: &str) -> Answer {
    let status = response.header().status();
    let body = response.body();
    if !status.is_ok() {
        let message = decode_error_message_in(format, body)
            .ok()
            .flatten()
            .unwrap_or_else(|| format!("the provider answered {status:?}"));
        return Answer::Status(Status::new(
            Code::from_dubbo_status(status.as_u8()),
            message,
        ));
    }
    let (span, attachments) = match ResultSpan::locate_with_attachments_in(format, body) {
        Ok(located) => located,
        Err(e) => {
            return Answer::Status(Status::new(
                Code::Internal,
                format!("the provider's answer: {e}"),
            ))
        }
    };
    let data = match &span.value {
        Some(at) => body.slice(at.clone()),
        None => Bytes::from_static(format.null_alone()),
    };
    let wrapper = ResponseWrapper {
        serialize_type: wire_serialization.to_owned(),
        data,
        r#type: String::new(),
    };
    let mut out = BytesMut::new();
    MessageEncoder::new(&mut out).finish_with(|b| wrapper.encode_into(b));
    Answer::Message {
        body: out.freeze(),
        exception: span.is_exception(),
        attachments: attachments
            .as_ref()
            .map(triple_attachments)
            .unwrap_or_default(),
    }
}

/// A Dubbo response's attachments as Triple ones: what a header can carry (a Java Triple
/// server writes `toString()` of a number or boolean), `dubbo` left out.
fn triple_attachments(attachments: &Attachments) -> Vec<(String, AttachmentValue)> {
    attachments
        .iter()
        .filter(|(k, _)| *k != DUBBO_VERSION_KEY)
        .filter_map(|(k, v)| {
            let v = match v {
                Value::String(s) => AttachmentValue::Text(s.clone()),
                Value::Binary(b) => AttachmentValue::Binary(b.clone()),
                Value::Bool(b) => AttachmentValue::Text(b.to_string()),
                Value::Int(n) => AttachmentValue::Text(n.to_string()),
                Value::Long(n) => AttachmentValue::Text(n.to_string()),
                Value::Double(n) => AttachmentValue::Text(n.to_string()),
                _ => return None,
            };
            Some((k.to_owned(), v))
        })
        .collect()
}

/// Serves a call routed to a Dubbo-only cluster on the `chosen` endpoint: reads it (at most
/// `max_request` bytes), calls, answers. Returns the Dubbo status the call counts as.
pub(super) async fn forward(
    triple: &Triple,
    chosen: &Chosen,
    request: Request<RecvStream>,
    respond: &mut SendResponse<Bytes>,
    max_request: u32,
    timeout: Duration,
) -> Result<DubboStatus, Fail> {
    let (parts, mut body) = request.into_parts();
    let head = RequestHead::from_parts(parts.uri.path(), &parts.headers).map_err(|e| {
        let code = match e {
            MetadataError::NotGrpc(_) => Code::Unimplemented,
            _ => Code::InvalidArgument,
        };
        Fail::Refused(Status::new(code, e.to_string()))
    })?;
    let mut unary = UnaryRequest::new(max_request);
    while let Some(chunk) = body.data().await {
        let chunk = chunk.map_err(|_| Fail::CallerGone)?;
        // Given back at once: the collector bounds what it holds by `max_request`.
        let _ = body.flow_control().release_capacity(chunk.len());
        unary.push(&chunk).map_err(|e| Fail::Refused(e.status()))?;
    }
    let message = unary.finish().map_err(|e| Fail::Refused(e.status()))?;
    let bridged = dubbo_request(&head, message, timeout).map_err(Fail::Refused)?;

    let client = triple.upstreams.dubbo_client(chosen);
    let response = client
        .send_frame(bridged.frame, timeout)
        .await
        .map_err(|e| match e {
            dubbo_rpc::client::CallError::Timeout { .. } => Fail::Deadline,
            e => Fail::ProviderFailed(e.to_string()),
        })?;
    let counted = response.header().status();
    match triple_answer(&response, bridged.format, &bridged.wire_serialization) {
        Answer::Message {
            body,
            exception,
            attachments,
        } => {
            let mut headers = HeaderMap::new();
            if exception {
                headers.insert(TRI_EXCEPTION_CODE, HeaderValue::from_static(BIZ_EXCEPTION));
            }
            send_unary(respond, headers, body, &attachments)?;
            triple.shared.metrics.triple.answered(Code::Ok);
        }
        Answer::Status(status) => {
            super::answer::trailers_only(respond, &status, &triple.shared.metrics.triple)
        }
    }
    Ok(counted)
}

/// Answers with response headers, the one message and `grpc-status: 0` trailers with the
/// `attachments`, queued at once (the message is whole in memory, at most the cluster's
/// payload limit).
fn send_unary(
    respond: &mut SendResponse<Bytes>,
    headers: HeaderMap,
    body: Bytes,
    attachments: &[(String, AttachmentValue)],
) -> Result<(), Fail> {
    let mut response = Response::new(());
    *response.headers_mut() = headers;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static(CONTENT_TYPE_PROTO),
    );
    let mut send = respond
        .send_response(response, false)
        .map_err(|_| Fail::CallerGone)?;
    send.send_data(body, false).map_err(|_| Fail::CallerGone)?;
    let mut trailers = HeaderMap::new();
    Status::ok().write_headers(&mut trailers);
    write_attachments(attachments, &mut trailers);
    send.send_trailers(trailers).map_err(|_| Fail::CallerGone)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dubbo_codec::response::{error_frame_in, Outcome, RpcResult};
    use dubbo_codec::RequestHead as DubboHead;
    use dubbo_triple::message::MessageDecoder;

    fn head() -> RequestHead {
        let mut h = RequestHead::new("com.example.Greeter", "greet");
        h.version = "1.0.0".into();
        h.group = "blue".into();
        h.attachments
            .push(("trace-id".into(), AttachmentValue::Text("t-1".into())));
        h
    }

    fn wrapper(wire: &str, args: &[(&str, Bytes)]) -> Bytes {
        let w = RequestWrapper {
            serialize_type: wire.into(),
            args: args.iter().map(|(_, a)| a.clone()).collect(),
            arg_types: args.iter().map(|(t, _)| (*t).to_owned()).collect(),
        };
        let mut b = BytesMut::new();
        w.encode_into(&mut b);
        b.freeze()
    }

    /// A wrapper's call becomes the Dubbo request Java would send: service, version, group,
    /// method, descriptor, arguments and attachments, in the caller's serialization.
    #[test]
    fn a_wrapped_call_becomes_a_dubbo_request() {
        for (format, wire) in [
            (BodyFormat::Hessian2(PeerVersion::V3), "hessian4"),
            (BodyFormat::FASTJSON2, "fastjson2"),
        ] {
            let args = [
                (
                    "java.lang.String",
                    format.value_alone(&Value::from("world")),
                ),
                ("int", format.value_alone(&Value::Int(3))),
            ];
            let message = wrapper(wire, &args);
            let b = dubbo_request(&head(), message, Duration::from_millis(1500)).unwrap();
            assert_eq!(b.format, format);
            assert_eq!(b.wire_serialization, wire);
            let req = DubboRequest::decode_in(format, b.frame.body()).unwrap();
            assert_eq!(req.path, "com.example.Greeter");
            assert_eq!(req.version, "1.0.0");
            assert_eq!(req.method, "greet");
            assert_eq!(req.descriptor, "Ljava/lang/String;I");
            assert_eq!(req.args, [Value::from("world"), Value::Int(3)]);
            assert_eq!(req.group(), Some("blue"));
            assert_eq!(req.attachments.get_str("trace-id"), Some("t-1"));
            assert_eq!(req.attachments.get_str("timeout"), Some("1500"));
            let h = DubboHead::decode_in(format, b.frame.body()).unwrap();
            assert_eq!(h.arg_count, 2);
            assert!(b.frame.header().is_two_way());
        }
    }

    /// What cannot cross is refused with a status that says why.
    #[test]
    fn what_cannot_cross_is_refused() {
        let t = Duration::from_secs(1);
        // Not a wrapper (an IDL message): field 1 as a varint is not a string.
        let idl = Bytes::from_static(&[0x08, 0x96, 0x01]);
        let e = dubbo_request(&head(), idl, t).unwrap_err();
        assert_eq!(e.code, Code::Unimplemented, "{e}");
        let proto = wrapper("protobuf", &[]);
        let e = dubbo_request(&head(), proto, t).unwrap_err();
        assert_eq!(e.code, Code::Unimplemented, "{e}");
        // An argument that is not one value.
        let f = BodyFormat::Hessian2(PeerVersion::V3);
        let two = [
            &f.value_alone(&Value::Int(1))[..],
            &f.value_alone(&Value::Int(2))[..],
        ]
        .concat();
        let bad = wrapper("hessian4", &[("int", Bytes::from(two))]);
        let e = dubbo_request(&head(), bad, t).unwrap_err();
        assert_eq!(e.code, Code::InvalidArgument, "{e}");
    }

    fn message_of(answer: Answer) -> (ResponseWrapper, bool) {
        let Answer::Message {
            body, exception, ..
        } = answer
        else {
            panic!("not a message: {answer:?}");
        };
        let mut buf = BytesMut::from(&body[..]);
        let m = MessageDecoder::new(1 << 20)
            .decode(&mut buf)
            .unwrap()
            .unwrap();
        assert!(buf.is_empty());
        (ResponseWrapper::decode_bytes(m.data).unwrap(), exception)
    }

    /// A Dubbo answer's value (or exception) is the wrapper's data as it is; a null is the
    /// serialization's null; an error status is a gRPC status with its message.
    #[test]
    fn dubbo_answers_become_triple_answers() {
        for (format, wire) in [
            (BodyFormat::Hessian2(PeerVersion::V3), "hessian4"),
            (BodyFormat::FASTJSON2, "fastjson2"),
        ] {
            let value = Value::from("Hello, world");
            for (outcome, exception) in [
                (Outcome::Value(value.clone()), false),
                (Outcome::Exception(value.clone()), true),
            ] {
                let result = RpcResult::for_request(outcome, "2.0.2");
                let frame = result.to_frame_in(7, format);
                let (w, exc) = message_of(triple_answer(&frame, format, wire));
                assert_eq!(exc, exception);
                assert_eq!(w.serialize_type, wire);
                assert_eq!(w.data, format.value_alone(&value));
            }
            // A Java provider's attachments to a 2.0.2 caller: `dubbo` stays behind.
            let mut result = RpcResult::for_request(Outcome::Value(value.clone()), "2.0.2");
            let a = result.attachments.as_mut().unwrap();
            a.insert("trace", "t-9");
            a.insert("hits", Value::Int(3));
            a.insert("blob", Value::Binary(Bytes::from_static(b"\0\xff")));
            let answer = triple_answer(&result.to_frame_in(7, format), format, wire);
            let Answer::Message { attachments, .. } = &answer else {
                panic!("{answer:?}");
            };
            assert_eq!(
                attachments,
                &[
                    ("trace".to_owned(), AttachmentValue::Text("t-9".into())),
                    ("hits".to_owned(), AttachmentValue::Text("3".into())),
                    (
                        "blob".to_owned(),
                        AttachmentValue::Binary(Bytes::from_static(b"\0\xff"))
                    ),
                ]
            );
            assert_eq!(message_of(answer).0.data, format.value_alone(&value));

            let frame = RpcResult::for_request(Outcome::Null, "2.0.2").to_frame_in(7, format);
            let (w, exc) = message_of(triple_answer(&frame, format, wire));
            assert!(!exc);
            assert_eq!(&w.data[..], format.null_alone());

            let frame = error_frame_in(
                7,
                format,
                DubboStatus::ServiceNotFound,
                Some("Not found exported service"),
            );
            match triple_answer(&frame, format, wire) {
                Answer::Status(s) => {
                    assert_eq!(s.code, Code::Unimplemented);
                    assert_eq!(s.message, "Not found exported service");
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
