//! Triple's HTTP/1.1 form (feature `triple`): what Java Dubbo 3.3 answers on its port, so
//! that `curl` calls an interface-style method with JSON.
//!
//! ```text
//! $ curl -d '["world"]' http://127.0.0.1:20880/io.example.Greeter/sayHello
//! "Hello, world"
//! ```
//!
//! `POST /{interface}/{method}` (any method verb; `tri-service-version` and
//! `tri-service-group` headers when the service has them, else the one service of that
//! interface). The body is a JSON array of the arguments, or one bare value for a single
//! argument, or empty for none; each becomes a [`Value`](hessian2::value::Value) by the parameter type the service
//! declared with [`Service::signature`](super::Service::signature) (else by its JSON kind),
//! so typed handlers read them as they read any call. The answer is `200` with the result as
//! JSON (`application/json`); a Java exception is `500` with `{"message": ..., "status":
//! "500"}`, an unknown service or method `404`, a body that is not JSON `400`, one over the
//! payload limit `413`, as Java answers. Objects carry their Java class in a `class` key, and
//! dates are milliseconds (Java 3.3 writes local-time text).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use dubbo_triple::metadata::{split_path, RequestHead, TRI_SERVICE_GROUP, TRI_SERVICE_VERSION};
use hessian2::value::Stream;
use http::{Response, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::Value as Json;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::identity::PeerIdentity;

use super::service::{Args, Call, HandlerError, Protocol, Reply};
use super::triple::find_service;
use super::{Phase, State};
use dubbo_codec::format::BodyFormat;
use dubbo_codec::json::{to_hessian, to_json, untyped_value};
use dubbo_codec::status::Status as DubboStatus;

/// Serves one HTTP/1.1 connection (keep-alive) until the caller closes it or the server
/// shuts down.
pub(super) async fn serve_http1<S>(
    stream: S,
    peer: SocketAddr,
    identity: Option<PeerIdentity>,
    state: Arc<State>,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let handler_state = state.clone();
    let service = hyper::service::service_fn(move |request| {
        let state = handler_state.clone();
        let caller = (peer, identity.clone());
        async move { Ok::<_, Infallible>(handle(request, caller, &state).await) }
    });
    let slow_headers =
        super::limits::enabled(state.limits.frame_timeout).unwrap_or(Duration::from_secs(3600));
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(slow_headers)
        .max_buf_size(64 * 1024)
        .serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    let mut closing = state.closing.clone();
    tokio::select! {
        _ = conn.as_mut() => return,
        _ = closing.wait_for(|p| *p != Phase::Serving) => {}
    }
    // Answers the request in progress, then closes.
    conn.as_mut().graceful_shutdown();
    tokio::select! {
        _ = conn => {}
        _ = closing.wait_for(|p| *p == Phase::Aborted) => {}
    }
}

async fn handle(
    request: http::Request<Incoming>,
    (peer, peer_identity): (SocketAddr, Option<PeerIdentity>),
    state: &State,
) -> Response<Full<Bytes>> {
    let Some((service, method)) = split_path(request.uri().path()) else {
        return error(StatusCode::NOT_FOUND, "Invoker not found");
    };
    let header = |name: &str| {
        request
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let mut head = RequestHead::new(service, method);
    head.version = header(TRI_SERVICE_VERSION);
    head.group = header(TRI_SERVICE_GROUP);
    let Ok(svc) = find_service(&head, state) else {
        return error(StatusCode::NOT_FOUND, "Invoker not found");
    };
    let Some(handler) = svc.methods.get(&head.method).cloned() else {
        return error(StatusCode::NOT_FOUND, "Invoker not found");
    };
    let body = match Limited::new(request.into_body(), state.max_payload as usize)
        .collect()
        .await
    {
        Ok(b) => b.to_bytes(),
        Err(e) => return error(StatusCode::PAYLOAD_TOO_LARGE, &e.to_string()),
    };
    let json: Vec<Json> = if body.iter().all(u8::is_ascii_whitespace) {
        Vec::new()
    } else {
        match serde_json::from_slice(&body) {
            Ok(Json::Array(args)) => args,
            Ok(one) => vec![one],
            Err(e) => return error(StatusCode::BAD_REQUEST, &format!("body is not JSON: {e}")),
        }
    };
    // The declared parameter types of an overload with this many arguments, if any.
    let types = svc
        .signatures
        .iter()
        .find(|(name, params, _)| *name == head.method && params.len() == json.len())
        .map(|(_, params, _)| params);
    let mut values = Vec::with_capacity(json.len());
    for (i, j) in json.iter().enumerate() {
        let v = match types {
            Some(t) => match to_hessian(&t[i], j) {
                Ok(v) => v,
                Err(e) => return error(StatusCode::BAD_REQUEST, &format!("argument {i}: {e}")),
            },
            None => untyped_value(j),
        };
        values.push(v);
    }
    let call = Call {
        request_id: 0,
        two_way: true,
        dubbo_version: String::new(),
        protocol: Protocol::Triple,
        service: head.service,
        version: head.version,
        group: Some(head.group).filter(|g| !g.is_empty()),
        method: head.method,
        descriptor: types
            .map(|t| {
                t.iter()
                    .map(|n| dubbo_codec::descriptor::name_to_desc(n).unwrap_or_default())
                    .collect()
            })
            .unwrap_or_default(),
        attachments: Default::default(),
        generic: false,
        peer,
        peer_identity,
        // Typed answers come as Hessian2 bytes, read back as a value for JSON.
        format: BodyFormat::default(),
        args: Args::Values(values),
    };
    let result = super::panic::run_handler(&handler, call).await;
    match result {
        Ok(reply) => match reply_json(reply) {
            Ok(json) => json_response(StatusCode::OK, &json),
            Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, &e),
        },
        Err(HandlerError::Exception(e)) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            e.message.as_deref().unwrap_or(&e.class),
        ),
        Err(HandlerError::Status { status, message }) => {
            let code = match status {
                DubboStatus::BadRequest => StatusCode::BAD_REQUEST,
                DubboStatus::ServiceNotFound => StatusCode::NOT_FOUND,
                DubboStatus::ServerTimeout | DubboStatus::ClientTimeout => {
                    StatusCode::GATEWAY_TIMEOUT
                }
                DubboStatus::ServerThreadpoolExhaustedError => StatusCode::SERVICE_UNAVAILABLE,
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            };
            error(code, &message)
        }
    }
}

/// A handler's reply as JSON.
fn reply_json(reply: Reply) -> Result<Json, String> {
    match reply {
        Reply::Null => Ok(Json::Null),
        Reply::Value(v) => Ok(to_json(&v, &Stream { values: Vec::new() })),
        Reply::Encoded(bytes) | Reply::Body(bytes) => {
            let stream = Stream::from_slice(&bytes).map_err(|e| e.to_string())?;
            Ok(stream
                .values
                .first()
                .map_or(Json::Null, |v| to_json(v, &stream)))
        }
    }
}

fn json_response(status: StatusCode, json: &Json) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(json.to_string())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    response
}

/// Java's `ErrorResponse`: `{"message": ..., "status": "<code>"}`.
fn error(status: StatusCode, message: &str) -> Response<Full<Bytes>> {
    let body = serde_json::json!({ "message": message, "status": status.as_str() });
    json_response(status, &body)
}
