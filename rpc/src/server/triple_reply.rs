//! What a Triple stream answers besides a handler's messages (feature `triple`): the
//! response headers, the statuses of calls that end early, and the deadline's timer; shared
//! by unary calls ([`super::triple`]) and calls of any shape ([`super::triple_stream`]).

use bytes::Bytes;
use dubbo_triple::message::MessageError;
use dubbo_triple::metadata::CONTENT_TYPE_PROTO;
use dubbo_triple::unary::UnaryError;
use dubbo_triple::{Code, Status};
use h2::server::SendResponse;
use http::{HeaderMap, HeaderValue, Response};
use tokio::time::Instant;

/// The status of an IDL call whose handler panicked.
pub(super) fn handler_panicked() -> Status {
    Status::new(Code::Unknown, "the handler panicked")
}

/// Sleeps until `deadline`; forever without one.
pub(super) async fn until(deadline: Option<Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// The status of a call whose deadline passed before its handler answered.
pub(super) fn deadline_passed() -> Status {
    Status::new(
        Code::DeadlineExceeded,
        "the call's deadline passed on the server",
    )
}

/// The status of a request stream that is not a sequence of messages within the limit:
/// `RESOURCE_EXHAUSTED` for a message over it (known from its prefix), else `INTERNAL`.
pub(super) fn message_status(e: &MessageError) -> Status {
    UnaryError::Message(e.clone()).status()
}

/// The status of a compressed request message.
pub(super) fn compressed() -> Status {
    UnaryError::Compressed.status()
}

/// A gRPC response's headers: `headers` and the content type.
pub(super) fn grpc_response(headers: HeaderMap) -> Response<()> {
    let mut response = Response::new(());
    *response.headers_mut() = headers;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static(CONTENT_TYPE_PROTO),
    );
    response
}

/// Ends a call with no message: the status in its one HEADERS frame ("trailers-only").
pub(super) fn trailers_only(
    respond: &mut SendResponse<Bytes>,
    headers: HeaderMap,
    status: &Status,
) {
    let mut response = grpc_response(headers);
    status.write_headers(response.headers_mut());
    let _ = respond.send_response(response, true);
}
