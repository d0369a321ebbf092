//! The answers the proxy makes itself: a call it cannot forward ends with a `grpc-status`
//! and a message, as gRPC callers (and Java Dubbo's Triple consumers) read them.
//!
//! Before any response HEADERS went to the caller the answer is "trailers-only": one HEADERS
//! frame with `:status 200`, `content-type`, `grpc-status`, `grpc-message` and END_STREAM.
//! After them, the status goes in the trailers that end the stream.

use bytes::Bytes;
use dubbo_triple::metadata::CONTENT_TYPE_GRPC;
use dubbo_triple::Status;
use h2::server::SendResponse;
use h2::SendStream;
use http::{HeaderMap, HeaderValue, Response};

use crate::core::metrics_triple::TripleMetrics;

/// Answers a caller that has had no response HEADERS yet.
pub fn trailers_only(respond: &mut SendResponse<Bytes>, status: &Status, metrics: &TripleMetrics) {
    metrics.answered(status.code);
    let mut response = Response::new(());
    let headers = response.headers_mut();
    headers.insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static(CONTENT_TYPE_GRPC),
    );
    status.write_headers(headers);
    // The caller may have reset already: nothing to answer then.
    let _ = respond.send_response(response, true);
}

/// Ends a stream whose response HEADERS went out already.
pub fn trailers(stream: &mut SendStream<Bytes>, status: &Status, metrics: &TripleMetrics) {
    metrics.answered(status.code);
    let mut trailers = HeaderMap::new();
    status.write_headers(&mut trailers);
    let _ = stream.send_trailers(trailers);
}
