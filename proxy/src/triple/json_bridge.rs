//! Triple's HTTP/1.1 form (`curl` with JSON) bridged to a cluster whose providers speak only
//! the Dubbo protocol (`clusters.NAME.protocol = "dubbo"`): a Java 2.7 provider, or a Dubbo 3
//! one exporting `dubbo://` alone, answers `curl -d '["world"]' http://proxy/SERVICE/sayHello`.
//!
//! The proxy knows no parameter types, so the call goes as Dubbo's generic invocation, as a
//! `GenericService` consumer makes it:
//!
//! ```text
//! POST /{interface}/{method}   tri-service-version, tri-service-group, attachment headers
//! body: [arg0, arg1, ...] | one bare value (one argument) | empty (no argument)
//!   ─▶ Dubbo request (Hessian2): $invoke(method, null, [args as values])
//!      descriptor Ljava/lang/String;[Ljava/lang/String;[Ljava/lang/Object;, generic=true,
//!      version, group, timeout (the route's), the headers as attachments
//!   ◀─ 200 application/json: the result (POJOs generalized to maps with a "class" key)
//!      500 {"status": "500", "message": "<class>: <message>", "exception": "<class>"}
//!      for a Java exception; a Dubbo error status as its HTTP status with its message
//!      (a method the interface does not have: 404)
//! ```
//!
//! With the parameter types null, Java's `GenericFilter` finds the method by its name alone
//! (`ReflectUtils.findMethodByMethodSignature`, 2.7; `GenericFilter.findMethodByMethodSignature`,
//! 3.3): one method of that name is called, with the JSON values realized into its declared
//! parameter types (`PojoUtils.realize`: a JSON object becomes the POJO the method takes);
//! an overloaded name fails with Java's `IllegalStateException` ("Not unique method ...").
//! Java 3.3's own HTTP/1.1 form finds its method by name as well. The body shapes are those
//! Java 3.3's `JsonCodec` accepts: an array holds the arguments, any other value is the one
//! argument (so a method taking one list gets `[[1, 2]]`). Hessian2, which every Java Dubbo provider reads (there is no caller's
//! serialization to echo, as the gRPC bridge does). Bodies are at most [`MAX_BODY`] bytes;
//! one that is not JSON is answered `400` and nothing is sent.

use std::time::{Duration, Instant};

use dubbo_codec::attachments::{GENERIC_KEY, TIMEOUT_KEY};
use dubbo_codec::json::{to_json, untyped_value};
use dubbo_codec::response::{Outcome, Response as DubboResponse};
use dubbo_codec::{BodyFormat, Frame, Request as DubboRequest, Status as DubboStatus};
use dubbo_triple::metadata::{read_attachments, AttachmentValue};
use dubbo_triple::metadata::{TRI_SERVICE_GROUP, TRI_SERVICE_VERSION};
use hessian2::encode::PeerVersion;
use hessian2::value::{Stream, Value};
use http::{HeaderMap, Request, Response, StatusCode};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use hyper::body::Incoming;
use serde_json::Value as Json;

use super::call::Peer;
use super::http1_call::{strip_hop_by_hop, whole, Body, Routed};
use super::state::Triple;
use crate::core::route::Route;
use crate::core::Snapshot;

/// The largest request body read (the HTTP/1.1 form's buffers are bounded by this too).
pub const MAX_BODY: usize = 64 * 1024;

/// HTTP's own request headers, which are no call attachments (hop-by-hop ones are gone
/// already).
const NOT_ATTACHMENTS: [&str; 3] = ["accept", "expect", "origin"];

/// The text of the `NoSuchMethodException` Java's `GenericFilter` throws for a method the
/// interface does not have (2.7's `ReflectUtils.findMethodByMethodSignature`, 3.3's
/// `GenericFilter.findMethodByMethodSignature`): "No such method M in class C".
const NO_SUCH_METHOD: &str = "No such method ";

/// What a call names besides its arguments.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JsonCall {
    /// The interface.
    pub service: String,
    /// The method.
    pub method: String,
    /// `tri-service-version`, empty for none.
    pub version: String,
    /// `tri-service-group`, empty for none.
    pub group: String,
    /// The other headers, as Triple reads attachments.
    pub attachments: Vec<(String, AttachmentValue)>,
}

impl JsonCall {
    /// The call of `service`/`method` with the request's `headers`; an attachment header
    /// Triple cannot read (not UTF-8, bad base64 in a `-bin` one) is an error.
    pub fn from_headers(service: &str, method: &str, headers: &HeaderMap) -> Result<Self, String> {
        let text = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned()
        };
        let mut attachments = read_attachments(headers).map_err(|e| e.to_string())?;
        attachments.retain(|(k, _)| !NOT_ATTACHMENTS.contains(&k.as_str()));
        Ok(JsonCall {
            service: service.to_owned(),
            method: method.to_owned(),
            version: text(TRI_SERVICE_VERSION),
            group: text(TRI_SERVICE_GROUP),
            attachments,
        })
    }
}

/// The arguments a request body holds, as Java 3.3's HTTP/1.1 form reads them: a JSON array
/// is the arguments, any other JSON value the one argument, an empty body none.
pub fn arguments(body: &[u8]) -> Result<Vec<Json>, String> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Vec::new());
    }
    match serde_json::from_slice(body) {
        Ok(Json::Array(args)) => Ok(args),
        Ok(one) => Ok(vec![one]),
        Err(e) => Err(format!("the body is not JSON: {e}")),
    }
}

/// The generic Dubbo request (Hessian2) for `call` with `args`, to be answered within
/// `timeout`.
pub fn dubbo_request(call: &JsonCall, args: &[Json], timeout: Duration) -> Result<Frame, String> {
    let values = args.iter().map(untyped_value).collect();
    let mut b = DubboRequest::generic_by_name(call.service.as_str(), &call.method, values)
        .format(BodyFormat::Hessian2(PeerVersion::V3))
        .timeout(timeout);
    if !call.version.is_empty() {
        b = b.version(call.version.as_str());
    }
    if !call.group.is_empty() {
        b = b.group(call.group.as_str());
    }
    // A caller's `generic` would change how Java reads the arguments (`nativejava`, `bean`),
    // its `timeout` would override the route's.
    let own = |k: &str| k == GENERIC_KEY || k == TIMEOUT_KEY;
    for (k, v) in call.attachments.iter().filter(|(k, _)| !own(k)) {
        let v = match v {
            AttachmentValue::Text(t) => Value::from(t.as_str()),
            AttachmentValue::Binary(b) => Value::Binary(b.clone()),
        };
        b = b.attach(k.as_str(), v);
    }
    let request = b
        .build()
        .map_err(|e| format!("the call's arguments: {e}"))?;
    Ok(request.to_frame(0, true))
}

/// What the caller gets for the provider's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The HTTP status.
    pub status: StatusCode,
    /// The JSON body.
    pub body: Json,
}

/// Java 3.3's `ErrorResponse` (`{"status", "message"}`), what its HTTP/1.1 form answers for a
/// failed call.
fn error_response(status: StatusCode, message: &str) -> Json {
    serde_json::json!({ "status": status.as_str(), "message": message })
}

/// The HTTP status of a Dubbo error status.
fn http_status(status: DubboStatus) -> StatusCode {
    match status {
        DubboStatus::ServiceNotFound => StatusCode::NOT_FOUND,
        DubboStatus::BadRequest => StatusCode::BAD_REQUEST,
        DubboStatus::ServerTimeout | DubboStatus::ClientTimeout => StatusCode::GATEWAY_TIMEOUT,
        DubboStatus::ServerThreadpoolExhaustedError => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The caller's answer for a provider's Dubbo `response`.
pub fn http_answer(response: &Frame) -> Answer {
    let outcome = match DubboResponse::from_frame(response) {
        Ok(DubboResponse::Result(r)) => r,
        Ok(DubboResponse::Error { status, message }) => {
            // Java writes the whole stack trace: its first line says what went wrong.
            let message = message.unwrap_or_else(|| format!("the provider answered {status:?}"));
            let first = message.lines().next().unwrap_or_default().trim();
            // GenericFilter's NoSuchMethodException comes back as a SERVICE_ERROR; Java 3.3's
            // own HTTP/1.1 form answers an unknown method 404.
            let http = if first.contains(NO_SUCH_METHOD) {
                StatusCode::NOT_FOUND
            } else {
                http_status(status)
            };
            return Answer {
                status: http,
                body: error_response(http, first),
            };
        }
        Err(e) => {
            let status = StatusCode::BAD_GATEWAY;
            return Answer {
                status,
                body: error_response(status, &format!("the provider's answer: {e}")),
            };
        }
    };
    if let Some(e) = outcome.exception() {
        let status = StatusCode::INTERNAL_SERVER_ERROR;
        let mut body = error_response(status, &e.to_string());
        body["exception"] = Json::String(e.class);
        return Answer { status, body };
    }
    let body = match outcome.outcome {
        Outcome::Value(v) => {
            let stream = Stream { values: vec![v] };
            to_json(&stream.values[0], &stream)
        }
        Outcome::Null | Outcome::Exception(_) => Json::Null,
    };
    Answer {
        status: StatusCode::OK,
        body,
    }
}

fn json_response(answer: &Answer) -> Response<Body> {
    whole(answer.status, "application/json", answer.body.to_string())
}

/// Serves a call of `route` (whose cluster speaks only the Dubbo protocol) that arrived at
/// `start`: reads its body, calls a provider, answers, and counts it as the HTTP/1.1 path
/// counts forwarded calls.
pub(super) async fn serve(
    triple: &Triple,
    snap: &Snapshot,
    route: &Route,
    request: Request<Incoming>,
    peer: &Peer,
    start: Instant,
) -> Response<Body> {
    let routed = Routed {
        triple,
        snap,
        route,
        start,
        identity: peer.identity.as_deref(),
    };
    let refuse =
        |status: StatusCode, message: String| routed.fail(DubboStatus::BadRequest, status, message);
    let (mut parts, body) = request.into_parts();
    strip_hop_by_hop(&mut parts.headers);
    let Some((service, method)) = parts
        .uri
        .path()
        .strip_prefix('/')
        .and_then(|p| p.split_once('/'))
    else {
        return refuse(StatusCode::NOT_FOUND, "not /{interface}/{method}".into());
    };
    let call = match JsonCall::from_headers(service, method, &parts.headers) {
        Ok(c) => c,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, e),
    };
    // The body is read whole before a provider is chosen: one that is too large, too slow or
    // not JSON costs no provider anything.
    let read = Limited::new(body, MAX_BODY).collect();
    let body = match tokio::time::timeout(route.timeout, read).await {
        Ok(Ok(b)) => b.to_bytes(),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the body is over {MAX_BODY} bytes"),
            )
        }
        Ok(Err(e)) => return refuse(StatusCode::BAD_REQUEST, format!("the body: {e}")),
        Err(_) => {
            return refuse(
                StatusCode::REQUEST_TIMEOUT,
                format!("no whole body within {} ms", route.timeout.as_millis()),
            )
        }
    };
    let frame = match arguments(&body).and_then(|args| dubbo_request(&call, &args, route.timeout)) {
        Ok(f) => f,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, e),
    };
    let chosen = match routed.pick() {
        Ok(c) => c,
        Err(unavailable) => return *unavailable,
    };
    let client = triple.upstreams.dubbo_client(&chosen);
    match client.send_frame(frame, route.timeout).await {
        Ok(response) => {
            chosen.succeeded();
            let answer = http_answer(&response);
            routed.record(response.header().status(), false);
            json_response(&answer)
        }
        Err(dubbo_rpc::client::CallError::Timeout { .. }) => {
            chosen.failed(snap, Instant::now());
            routed.fail(
                DubboStatus::ServerTimeout,
                StatusCode::GATEWAY_TIMEOUT,
                format!("no answer within {} ms", route.timeout.as_millis()),
            )
        }
        Err(e) => {
            chosen.failed(snap, Instant::now());
            routed.fail(
                DubboStatus::ServiceError,
                StatusCode::SERVICE_UNAVAILABLE,
                e.to_string(),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dubbo_codec::exception::JavaException;
    use dubbo_codec::request::GENERIC_DESCRIPTOR;
    use dubbo_codec::response::{error_frame_in, RpcResult};

    fn call() -> JsonCall {
        JsonCall {
            service: "com.example.Greeter".into(),
            method: "greet".into(),
            version: "1.0.0".into(),
            group: "blue".into(),
            attachments: vec![
                ("trace-id".into(), AttachmentValue::Text("t-1".into())),
                ("generic".into(), AttachmentValue::Text("nativejava".into())),
                ("timeout".into(), AttachmentValue::Text("1".into())),
            ],
        }
    }

    /// The body shapes Java 3.3's HTTP/1.1 form takes.
    #[test]
    fn a_body_is_an_array_of_arguments_or_one_argument() {
        assert_eq!(
            arguments(br#"["a", 1]"#).unwrap(),
            [Json::from("a"), Json::from(1)]
        );
        assert_eq!(
            arguments(br#"[["a"]]"#).unwrap(),
            [serde_json::json!(["a"])]
        );
        assert_eq!(
            arguments(br#"{"id": 1}"#).unwrap(),
            [serde_json::json!({"id": 1})]
        );
        assert_eq!(arguments(b"\"a\"").unwrap(), [Json::from("a")]);
        assert_eq!(arguments(b"null").unwrap(), [Json::Null]);
        assert!(arguments(b"").unwrap().is_empty());
        assert!(arguments(b" \r\n").unwrap().is_empty());
        assert!(arguments(b"[]").unwrap().is_empty());
        let e = arguments(b"[\"a\"").unwrap_err();
        assert!(e.starts_with("the body is not JSON"), "{e}");
        assert!(arguments(b"world").is_err());
    }

    /// The call becomes `$invoke(method, null, args)` with `generic=true`, the route's
    /// timeout, the service's version and group and the caller's other attachments.
    #[test]
    fn a_json_call_becomes_a_generic_invocation() {
        let args = arguments(br#"["world", {"id": 7, "name": "n"}, 3]"#).unwrap();
        let frame = dubbo_request(&call(), &args, Duration::from_millis(1500)).unwrap();
        assert!(frame.header().is_two_way());
        let req = DubboRequest::from_frame(&frame).unwrap();
        assert_eq!(req.path, "com.example.Greeter");
        assert_eq!(req.version, "1.0.0");
        assert_eq!(req.method, "$invoke");
        assert_eq!(req.descriptor, GENERIC_DESCRIPTOR);
        assert_eq!(req.args.len(), 3);
        assert_eq!(req.args[0], Value::from("greet"));
        assert_eq!(
            req.args[1],
            Value::Null,
            "no parameter types: found by name"
        );
        let Value::List(list) = &req.args[2] else {
            panic!("{:?}", req.args[2]);
        };
        assert_eq!(list.items[0], Value::from("world"));
        // An object without a class is a map: Java realizes it into the parameter's type.
        let Value::Map(user) = &list.items[1] else {
            panic!("{:?}", list.items[1]);
        };
        assert_eq!(user.entries[0], (Value::from("id"), Value::Int(7)));
        assert_eq!(list.items[2], Value::Int(3));
        assert_eq!(req.group(), Some("blue"));
        assert_eq!(req.attachments.get_str("generic"), Some("true"));
        assert_eq!(req.attachments.get_str("timeout"), Some("1500"));
        assert_eq!(req.attachments.get_str("trace-id"), Some("t-1"));
        // Without a version, Java's "none".
        let bare = JsonCall {
            service: "S".into(),
            method: "m".into(),
            ..JsonCall::default()
        };
        let frame = dubbo_request(&bare, &[], Duration::from_secs(1)).unwrap();
        let req = DubboRequest::from_frame(&frame).unwrap();
        assert_eq!(req.version, "0.0.0");
        assert_eq!(req.args[2], Value::typed_list("[object", vec![]));
    }

    #[test]
    fn headers_are_version_group_and_attachments() {
        let mut h = HeaderMap::new();
        h.insert("tri-service-version", "1.0.0".parse().unwrap());
        h.insert("tri-service-group", "g".parse().unwrap());
        h.insert("content-type", "application/json".parse().unwrap());
        h.insert("accept", "*/*".parse().unwrap());
        h.insert("user-agent", "curl/8".parse().unwrap());
        h.insert("x-trace", "t".parse().unwrap());
        let c = JsonCall::from_headers("S", "m", &h).unwrap();
        assert_eq!((c.version.as_str(), c.group.as_str()), ("1.0.0", "g"));
        assert_eq!(
            c.attachments,
            [("x-trace".to_owned(), AttachmentValue::Text("t".into()))]
        );
        h.insert("x-blob-bin", "not base64!".parse().unwrap());
        assert!(JsonCall::from_headers("S", "m", &h).is_err());
    }

    /// Results become JSON, exceptions and error statuses Java 3.3's `ErrorResponse`.
    #[test]
    fn answers_become_json() {
        let f = BodyFormat::Hessian2(PeerVersion::V3);
        let answer = |outcome| http_answer(&RpcResult::new(outcome).to_frame_in(1, f));
        let a = answer(Outcome::Value(Value::from("Hello, world")));
        assert_eq!(
            (a.status, a.body),
            (StatusCode::OK, Json::from("Hello, world"))
        );
        let user = Value::untyped_map(vec![
            (Value::from("class"), Value::from("com.example.User")),
            (Value::from("id"), Value::Long(7)),
        ]);
        let a = answer(Outcome::Value(user));
        assert_eq!(
            a.body,
            serde_json::json!({"class": "com.example.User", "id": 7})
        );
        let a = answer(Outcome::Null);
        assert_eq!((a.status, a.body), (StatusCode::OK, Json::Null));
        let e = JavaException::new("java.lang.IllegalStateException", Some("boom".into()));
        let a = answer(Outcome::Exception(e.value));
        assert_eq!(a.status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(
            a.body,
            serde_json::json!({
                "status": "500",
                "message": "java.lang.IllegalStateException: boom",
                "exception": "java.lang.IllegalStateException",
            })
        );
        let frame = error_frame_in(
            1,
            f,
            DubboStatus::ServiceNotFound,
            Some("Not found exported service: S\n\tat x.y(Z.java:1)"),
        );
        let a = http_answer(&frame);
        assert_eq!(a.status, StatusCode::NOT_FOUND);
        assert_eq!(a.body["message"], "Not found exported service: S");
        // What Java 2.7 and 3.3 answer a generic call of a method they do not have.
        let frame = error_frame_in(
            1,
            f,
            DubboStatus::ServiceError,
            Some("org.apache.dubbo.rpc.RpcException: No such method nope in class interface S\n\tat x"),
        );
        let a = http_answer(&frame);
        assert_eq!(a.status, StatusCode::NOT_FOUND);
        assert_eq!(
            a.body["message"],
            "org.apache.dubbo.rpc.RpcException: No such method nope in class interface S"
        );
        let frame = error_frame_in(1, f, DubboStatus::ServiceError, None);
        assert_eq!(
            http_answer(&frame).status,
            StatusCode::INTERNAL_SERVER_ERROR
        );
    }
}
