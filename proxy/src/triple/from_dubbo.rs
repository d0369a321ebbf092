//! Dubbo callers bridged to a cluster whose providers speak only Triple
//! (`clusters.NAME.protocol = "tri"`): a Java 2.7 consumer reaches a Dubbo 3 provider that
//! exports `tri://` alone. The core hands such calls over ([`BridgeCall`]); they are made
//! here as Triple calls, and answered back to the core ([`BridgeAnswer`]).
//!
//! ```text
//! Dubbo request body: "2.0.2", path, version, method, descriptor, args, attachments
//!   ─▶ HEADERS :path /{interface}/{method}, tri-service-version ("0.0.0" is none),
//!              tri-service-group, grpc-timeout (the route's), the string attachments
//!      DATA    one message: TripleRequestWrapper { serializeType, args[i] (each argument
//!              serialized alone: RequestHead::args_alone), argTypes[i] (of the descriptor) }
//!   ◀─ HEADERS (tri-exception-code: 3 when the value is an exception), DATA one
//!      TripleResponseWrapper, trailers grpc-status and the response attachments; or
//!      trailers-only with a status
//! Dubbo response: OK, flag 1 / 2 / 0 and the wrapper's data as it is
//!   (result_body_alone_in); to a caller whose Dubbo version reads response attachments
//!   (2.0.2 to 2.0.99, as a Java provider decides), flag 4 / 5 / 3 and the attachments after
//!   the value, `dubbo=2.0.2` among them as Java adds it; or the status's Dubbo status
//!   (Code::to_dubbo_status) and its message
//! ```
//!
//! When no answer comes, the call ends as a Dubbo call to a Dubbo provider would: no
//! endpoint, no connection, or the route's timeout, answered by the proxy with the same
//! statuses and messages ([`Reason`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use dubbo_codec::attachments::{
    Attachments, DUBBO_VERSION_KEY, GROUP_KEY, INTERFACE_KEY, PATH_KEY, TIMEOUT_KEY, VERSION_KEY,
};
use dubbo_codec::descriptor::{desc_to_name, Descriptor};
use dubbo_codec::request::DUBBO_PROTOCOL_VERSION;
use dubbo_codec::response::{error_body_in, result_body_alone_in, supports_response_attachments};
use dubbo_codec::{BodyFormat, Frame, RequestHead as DubboHead, Status as DubboStatus};
use dubbo_triple::message::MessageEncoder;
use dubbo_triple::metadata::{
    read_attachments, AttachmentValue, RequestHead, CONTENT_TYPE_PROTO, TRI_EXCEPTION_CODE,
};
use dubbo_triple::unary::UnaryRequest;
use dubbo_triple::wrapper::{
    serialization_of_wire_name, wire_name_of_serialization, RequestWrapper, ResponseWrapper,
};
use dubbo_triple::{Code, Status};
use hessian2::value::Value;
use http::HeaderMap;

use super::state::Triple;
use super::upstream::Chosen;
use crate::core::{BridgeAnswer, BridgeCall, BridgeTicket, Reason};

/// A Dubbo call as a Triple request.
#[derive(Debug)]
pub struct TripleRequest {
    /// What the request headers say.
    pub head: RequestHead,
    /// The one message (a request wrapper), prefix included.
    pub message: Bytes,
    /// The serialization of the body, the arguments and the answer.
    pub format: BodyFormat,
    /// The caller reads response attachments (flags 3..=5): its Dubbo version says so.
    pub reply_attachments: bool,
}

/// Moves a Dubbo request `frame` into a Triple request whose deadline is `timeout`; the
/// answer the caller gets instead when it cannot cross.
pub fn triple_request(frame: &Frame, timeout: Duration) -> Result<TripleRequest, BridgeAnswer> {
    let Some(format) = BodyFormat::of(frame.header().serialization()) else {
        return Err(BridgeAnswer::Local(Reason::Unreadable));
    };
    let body = frame.body();
    let bad_body = |_| BridgeAnswer::Local(Reason::BadBody);
    let (dubbo, attachments) =
        DubboHead::decode_with_attachments_in(format, body).map_err(bad_body)?;
    let args = dubbo.args_alone(body).map_err(bad_body)?;
    let types =
        Descriptor::parse(&dubbo.descriptor).map_err(|_| BridgeAnswer::Local(Reason::BadBody))?;
    let arg_types = types
        .iter()
        .map(desc_to_name)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| BridgeAnswer::Local(Reason::BadBody))?;

    // As a Dubbo provider reads the call: an attachment wins over its field.
    let service = attachments
        .get_str(INTERFACE_KEY)
        .or_else(|| attachments.get_str(PATH_KEY))
        .unwrap_or(&dubbo.path);
    let version = attachments.get_str(VERSION_KEY).unwrap_or(&dubbo.version);
    let mut head = RequestHead::new(service, dubbo.method.as_ref());
    if version != "0.0.0" {
        head.version = version.to_owned();
    }
    head.group = attachments
        .get_str(GROUP_KEY)
        .unwrap_or_default()
        .to_owned();
    head.timeout = Some(timeout);
    let fixed = [
        PATH_KEY,
        INTERFACE_KEY,
        VERSION_KEY,
        GROUP_KEY,
        TIMEOUT_KEY,
        DUBBO_VERSION_KEY,
    ];
    for (key, value) in attachments.iter() {
        if let (false, Some(text)) = (fixed.contains(&key), value.as_str()) {
            head.attachments
                .push((key.to_owned(), AttachmentValue::Text(text.to_owned())));
        }
    }

    let wrapper = RequestWrapper {
        serialize_type: wire_name_of_serialization(
            format.serialization().name().unwrap_or("hessian2"),
        )
        .to_owned(),
        args,
        arg_types,
    };
    let mut message = BytesMut::new();
    MessageEncoder::new(&mut message).finish_with(|b| wrapper.encode_into(b));
    Ok(TripleRequest {
        head,
        message: message.freeze(),
        format,
        reply_attachments: supports_response_attachments(&dubbo.dubbo_version),
    })
}

/// What a Triple provider answered: its status, whether the message is an exception, and
/// the message.
#[derive(Debug)]
pub struct TripleAnswer {
    /// The call's `grpc-status` (and message).
    pub status: Status,
    /// `tri-exception-code` said the message is the exception the method threw.
    pub exception: bool,
    /// The response message (a wrapper), if one came.
    pub message: Option<Bytes>,
    /// The response attachments (of the trailers).
    pub attachments: Vec<(String, AttachmentValue)>,
}

/// Moves a Triple provider's answer into the Dubbo response to a request in `format`, with
/// the answer's attachments when the caller reads them (`reply_attachments`).
pub fn dubbo_answer(
    answer: TripleAnswer,
    format: BodyFormat,
    reply_attachments: bool,
) -> BridgeAnswer {
    let error = |status: DubboStatus, message: &str| BridgeAnswer::Response {
        status,
        body: error_body_in(format, Some(message)),
    };
    if !answer.status.is_ok() {
        let status = DubboStatus::from(answer.status.code.to_dubbo_status());
        return error(status, &answer.status.message);
    }
    let Some(message) = answer.message else {
        return error(
            DubboStatus::BadResponse,
            "the Triple provider answered no message",
        );
    };
    let wrapper = match ResponseWrapper::decode_bytes(message) {
        Ok(w) => w,
        Err(e) => return error(DubboStatus::BadResponse, &e.to_string()),
    };
    let answered_in = serialization_of_wire_name(&wrapper.serialize_type);
    if format.serialization().name() != Some(answered_in) {
        return error(
            DubboStatus::BadResponse,
            &format!("the Triple provider answered in {answered_in}"),
        );
    }
    let attachments = reply_attachments.then(|| dubbo_attachments(&answer.attachments));
    BridgeAnswer::Response {
        status: DubboStatus::Ok,
        body: result_body_alone_in(
            format,
            answer.exception,
            &wrapper.data,
            attachments.as_ref(),
        ),
    }
}

/// Triple response attachments as a Java Dubbo provider's: strings and `byte[]`, and
/// `dubbo=2.0.2`, which Java's codec adds to every answer that has attachments.
fn dubbo_attachments(attachments: &[(String, AttachmentValue)]) -> Attachments {
    let mut out: Attachments = attachments
        .iter()
        .map(|(k, v)| {
            let v = match v {
                AttachmentValue::Text(t) => Value::from(t.as_str()),
                AttachmentValue::Binary(b) => Value::Binary(b.clone()),
            };
            (k.as_str(), v)
        })
        .collect();
    out.insert(DUBBO_VERSION_KEY, DUBBO_PROTOCOL_VERSION);
    out
}

/// Makes a bridged call; the answer goes back to the core with the call's ticket.
pub async fn call(triple: Arc<Triple>, call: BridgeCall) -> (BridgeTicket, BridgeAnswer) {
    let BridgeCall {
        ticket,
        frame,
        cluster,
        timeout,
    } = call;
    let snap = triple.shared.snapshot();
    let Some(ci) = snap.routes.clusters.iter().position(|c| *c == cluster) else {
        return (ticket, BridgeAnswer::Local(Reason::NoUpstream));
    };
    let chosen = match triple
        .upstreams
        .pick(&snap, triple.shared.generation(), ci, Instant::now())
    {
        Ok(c) => c,
        Err(_) => return (ticket, BridgeAnswer::Local(Reason::NoUpstream)),
    };
    let request = match triple_request(&frame, timeout) {
        Ok(r) => r,
        Err(answer) => return (ticket, answer),
    };
    let (format, reply_attachments) = (request.format, request.reply_attachments);
    let answer = match tokio::time::timeout(timeout, exchange(&triple, &chosen, request)).await {
        Ok(Ok(answer)) => {
            chosen.succeeded();
            dubbo_answer(answer, format, reply_attachments)
        }
        Ok(Err(reason)) => {
            chosen.failed(&snap, Instant::now());
            BridgeAnswer::Local(reason)
        }
        Err(_) => {
            chosen.failed(&snap, Instant::now());
            BridgeAnswer::Local(Reason::Timeout)
        }
    };
    (ticket, answer)
}

/// Sends the request on the endpoint's HTTP/2 connection and reads the answer whole (at
/// most the cluster's `max_payload`).
async fn exchange(
    triple: &Triple,
    chosen: &Chosen,
    request: TripleRequest,
) -> Result<TripleAnswer, Reason> {
    let mut sender = triple
        .upstreams
        .sender(chosen)
        .await
        .map_err(|_| Reason::ConnectFailed)?;
    let mut http = http::Request::builder()
        .method(http::Method::POST)
        .uri(format!("http://{}{}", chosen.addr, request.head.path()))
        .body(())
        .map_err(|_| Reason::BadBody)?;
    request
        .head
        .write_headers(CONTENT_TYPE_PROTO, http.headers_mut());
    let (response, mut stream) = sender
        .send_request(http, false)
        .map_err(|_| Reason::UpstreamLost)?;
    // A failed send is not the end: the provider may have answered first.
    let _ = stream.send_data(request.message, true);
    let response = response.await.map_err(|_| Reason::UpstreamLost)?;
    let (parts, mut body) = response.into_parts();
    let exception = parts
        .headers
        .get(TRI_EXCEPTION_CODE)
        .is_some_and(|v| v.as_bytes() != b"0");
    if body.is_end_stream() {
        // Trailers-only: the status is in the headers.
        return Ok(TripleAnswer {
            status: status_of(&parts.headers, parts.status),
            exception,
            message: None,
            attachments: Vec::new(),
        });
    }
    let mut unary = UnaryRequest::new(chosen.max_payload);
    while let Some(chunk) = body.data().await {
        let chunk = chunk.map_err(|_| Reason::UpstreamLost)?;
        let _ = body.flow_control().release_capacity(chunk.len());
        if unary.push(&chunk).is_err() {
            return Err(Reason::OversizeResponse);
        }
    }
    let trailers = body
        .trailers()
        .await
        .map_err(|_| Reason::UpstreamLost)?
        .unwrap_or_default();
    let status = status_of(&trailers, parts.status);
    // Where Java's Triple server puts them; one it cannot read is no reason to fail the call.
    let attachments = read_attachments(&trailers).unwrap_or_default();
    Ok(TripleAnswer {
        attachments,
        message: if status.is_ok() {
            unary.finish().ok()
        } else {
            None
        },
        status,
        exception,
    })
}

/// The `grpc-status` of `headers`; without one, what the HTTP status says.
fn status_of(headers: &HeaderMap, http: http::StatusCode) -> Status {
    Status::from_headers(headers).unwrap_or_else(|| {
        Status::new(
            Code::from_http_status(http.as_u16()),
            format!("the Triple provider answered HTTP {http} without grpc-status"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dubbo_codec::response::{Outcome, RpcResult};
    use dubbo_codec::Request;
    use dubbo_triple::message::MessageDecoder;
    use hessian2::encode::PeerVersion;

    const FORMATS: [BodyFormat; 2] = [BodyFormat::Hessian2(PeerVersion::V3), BodyFormat::FASTJSON2];

    /// A Dubbo request becomes the Triple call a Java Triple consumer would make.
    #[test]
    fn a_dubbo_request_becomes_a_triple_call() {
        for format in FORMATS {
            let req = Request::builder("com.example.Greeter", "greet")
                .format(format)
                .version("1.0.0")
                .group("blue")
                .attach("trace-id", "t-1")
                .arg("java.lang.String", "world")
                .arg("int", &3)
                .build()
                .unwrap();
            let t = triple_request(&req.to_frame(9, true), Duration::from_millis(800)).unwrap();
            assert_eq!(t.format, format);
            assert_eq!(t.head.service, "com.example.Greeter");
            assert_eq!(t.head.method, "greet");
            assert_eq!(t.head.version, "1.0.0");
            assert_eq!(t.head.group, "blue");
            assert_eq!(t.head.timeout, Some(Duration::from_millis(800)));
            assert!(
                t.reply_attachments,
                "a 2.0.2 caller reads response attachments"
            );
            assert_eq!(
                t.head.attachments,
                [("trace-id".to_owned(), AttachmentValue::Text("t-1".into()))]
            );
            let mut buf = BytesMut::from(&t.message[..]);
            let m = MessageDecoder::new(1 << 20)
                .decode(&mut buf)
                .unwrap()
                .unwrap();
            let w = RequestWrapper::decode_bytes(m.data).unwrap();
            assert_eq!(w.arg_types, ["java.lang.String", "int"]);
            let (s, n): (String, i32) = format.decode_each(&w.args).unwrap();
            assert_eq!((s.as_str(), n), ("world", 3));
        }
        // No version is Java's "0.0.0": not sent.
        let req = Request::builder("S", "m").build().unwrap();
        let t = triple_request(&req.to_frame(1, true), Duration::from_secs(1)).unwrap();
        assert_eq!(t.head.version, "");
        // A 2.6-style caller reads no response attachments.
        let req = Request::builder("S", "m")
            .dubbo_version("2.6.5")
            .build()
            .unwrap();
        let t = triple_request(&req.to_frame(1, true), Duration::from_secs(1)).unwrap();
        assert!(!t.reply_attachments);
    }

    /// A body the proxy cannot read is answered as for any Dubbo provider.
    #[test]
    fn unreadable_requests_are_answered_locally() {
        let req = Request::builder("S", "m").arg("int", &1).build().unwrap();
        let frame = req.to_frame(1, true);
        let cut = Frame::new(
            *frame.header(),
            frame.body().slice(..frame.body().len() - 8),
        );
        let err = triple_request(&cut, Duration::from_secs(1)).unwrap_err();
        assert_eq!(err, BridgeAnswer::Local(Reason::BadBody));
    }

    fn wrapped(format: BodyFormat, data: Bytes) -> Bytes {
        let w = ResponseWrapper {
            serialize_type: wire_name_of_serialization(format.serialization().name().unwrap())
                .to_owned(),
            data,
            r#type: String::new(),
        };
        let mut b = BytesMut::new();
        w.encode_into(&mut b);
        b.freeze()
    }

    /// A Triple answer becomes the Dubbo response a Java Dubbo provider would give.
    #[test]
    fn triple_answers_become_dubbo_responses() {
        for format in FORMATS {
            let value = Value::from("hi");
            for exception in [false, true] {
                let answer = TripleAnswer {
                    status: Status::ok(),
                    exception,
                    message: Some(wrapped(format, format.value_alone(&value))),
                    attachments: Vec::new(),
                };
                let BridgeAnswer::Response { status, body } = dubbo_answer(answer, format, false)
                else {
                    panic!("no response");
                };
                assert_eq!(status, DubboStatus::Ok);
                let r = RpcResult::decode_in(format, &body).unwrap();
                let want = if exception {
                    Outcome::Exception(value.clone())
                } else {
                    Outcome::Value(value.clone())
                };
                assert_eq!(r.outcome, want);
                assert_eq!(r.attachments, None);
            }
            let failed = TripleAnswer {
                status: Status::new(Code::Unimplemented, "no such method"),
                exception: false,
                message: None,
                attachments: Vec::new(),
            };
            let BridgeAnswer::Response { status, body } = dubbo_answer(failed, format, true) else {
                panic!("no response");
            };
            assert_eq!(status, DubboStatus::ServiceNotFound);
            let message = dubbo_codec::response::decode_error_message_in(format, &body).unwrap();
            assert_eq!(message.as_deref(), Some("no such method"));
        }
    }

    /// The provider's response attachments reach a caller that reads them as a Java
    /// provider's would (`dubbo=2.0.2` added), for a value, a null and an exception alike.
    #[test]
    fn response_attachments_cross_to_callers_that_read_them() {
        let from_trailers = vec![
            ("trace".to_owned(), AttachmentValue::Text("t-9".into())),
            (
                "blob".to_owned(),
                AttachmentValue::Binary(Bytes::from_static(b"\0\xff")),
            ),
        ];
        for format in FORMATS {
            let value = Value::from("hi");
            for (data, exception, want) in [
                (
                    format.value_alone(&value),
                    false,
                    Outcome::Value(value.clone()),
                ),
                (
                    format.value_alone(&value),
                    true,
                    Outcome::Exception(value.clone()),
                ),
                (
                    Bytes::from_static(format.null_alone()),
                    false,
                    Outcome::Null,
                ),
            ] {
                let answer = || TripleAnswer {
                    status: Status::ok(),
                    exception,
                    message: Some(wrapped(format, data.clone())),
                    attachments: from_trailers.clone(),
                };
                let BridgeAnswer::Response { body, .. } = dubbo_answer(answer(), format, true)
                else {
                    panic!("no response");
                };
                let r = RpcResult::decode_in(format, &body).unwrap();
                assert_eq!(r.outcome, want, "{format:?}");
                let a = r.attachments.expect("flags 3..=5");
                assert_eq!(a.get_str("trace"), Some("t-9"));
                assert_eq!(
                    a.get("blob"),
                    Some(&Value::Binary(Bytes::from_static(b"\0\xff")))
                );
                assert_eq!(a.get_str("dubbo"), Some("2.0.2"));
                // An older caller (no response attachments) gets flags 0..=2.
                let BridgeAnswer::Response { body, .. } = dubbo_answer(answer(), format, false)
                else {
                    panic!("no response");
                };
                let r = RpcResult::decode_in(format, &body).unwrap();
                assert_eq!((r.outcome, r.attachments), (want, None));
            }
        }
    }
}
