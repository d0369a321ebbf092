//! Triple on the server's port (feature `triple`): HTTP/2 connections, told from Dubbo frames
//! by their first bytes, served by h2; each stream is one call, routed to the same
//! [`Service`](super::Service)s and handlers as Dubbo calls.
//!
//! A unary interface-style call (what a Java Dubbo 3 consumer sends for a Java interface) is
//! read as: request headers ([`RequestHead`]: service, method, version, group, deadline,
//! attachments), exactly one message holding a [`RequestWrapper`] whose arguments are each a
//! complete Hessian2 or fastjson2 serialization, then the end of the stream. It is answered
//! as Java Dubbo answers: headers, one [`ResponseWrapper`] message in the caller's
//! serialization, trailers with `grpc-status: 0`. A handler's Java exception travels as the
//! message, flagged by `tri-exception-code: 3` in the headers (Java's `BIZ_EXCEPTION`), so a
//! Java consumer rethrows its class; every other failure is a `grpc-status` with a message.
//!
//! Limits: `max_inflight` bounds the streams open at once on a connection (HTTP/2's
//! `SETTINGS_MAX_CONCURRENT_STREAMS`), `max_payload` the request message (checked on its
//! 5-byte prefix: `RESOURCE_EXHAUSTED`, nothing buffered), the header block is at most 16
//! KiB, and h2 closes a connection whose peer resets streams faster than it opens them (the
//! "rapid reset" of CVE-2023-44487). A caller's RST_STREAM drops the handler's future.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use dubbo_triple::message::MessageEncoder;
use dubbo_triple::metadata::{AttachmentValue, MetadataError, RequestHead, TRI_EXCEPTION_CODE};
use dubbo_triple::unary::UnaryRequest;
use dubbo_triple::wrapper::{serialization_of_wire_name, RequestWrapper, ResponseWrapper};
use dubbo_triple::{Code, Status};
use h2::server::SendResponse;
use h2::RecvStream;
use hessian2::encode::PeerVersion;
use hessian2::value::Value;
use http::{HeaderMap, HeaderValue, Response, StatusCode};
use tokio::io::{AsyncRead, AsyncWrite};

use crate::identity::PeerIdentity;
use tokio::time::Instant;

use super::grpc::{GrpcCall, GrpcMethod};
use super::panic::{catch_panic, run_handler, Panicked};
use super::service::{service_key, Args, Call, HandlerError, Protocol, Reply};
use super::triple_reply::{deadline_passed, grpc_response, handler_panicked, trailers_only, until};
use super::{Phase, State};
use dubbo_codec::attachments::Attachments;
use dubbo_codec::status::Status as DubboStatus;
use dubbo_codec::BodyFormat;

/// The first bytes of every HTTP/2 connection (its preface, `PRI * HTTP/2.0...`), which no
/// Dubbo frame (`0xdabb`) starts with.
pub(super) const H2_PREFACE_START: &[u8] = b"PRI";

/// The largest request header block accepted (HTTP/2's `SETTINGS_MAX_HEADER_LIST_SIZE`).
const MAX_HEADER_LIST: u32 = 16 * 1024;

/// How long past a call's `grpc-timeout` the server gives up on it. The caller's own timer
/// ends the call first (Java's consumer counts a `DEADLINE_EXCEEDED` that races it as an
/// ordinary error, not a timeout, and its timer fires up to ~150 ms late); the server stops
/// the handler soon after, so abandoned work stays bounded.
const DEADLINE_GRACE: Duration = Duration::from_secs(1);

/// Java's `RpcException.BIZ_EXCEPTION`: the code of a business exception sent as a message.
const BIZ_EXCEPTION: &str = "3";

/// Serves one HTTP/2 connection until the caller closes it, the server shuts down, or it is
/// idle (no stream open) for the idle timeout.
pub(super) async fn serve_h2<S>(
    stream: S,
    peer: SocketAddr,
    identity: Option<PeerIdentity>,
    state: Arc<State>,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let mut builder = h2::server::Builder::new();
    builder
        .max_concurrent_streams(u32::try_from(state.limits.max_inflight).unwrap_or(u32::MAX))
        .max_header_list_size(MAX_HEADER_LIST)
        .initial_window_size(crate::h2_send::STREAM_WINDOW)
        .initial_connection_window_size(crate::h2_send::CONNECTION_WINDOW)
        // Streams reset by the caller before the server saw them: past this many pending, h2
        // closes the connection (rapid reset).
        .max_pending_accept_reset_streams(64)
        .max_local_error_reset_streams(Some(1024));
    let handshake = builder.handshake::<_, Bytes>(stream);
    let first = super::limits::enabled(state.limits.first_frame_timeout)
        .unwrap_or(Duration::from_secs(3600));
    let mut conn = match tokio::time::timeout(first, handshake).await {
        Ok(Ok(conn)) => conn,
        // Not HTTP/2 after all, or too slow to say so.
        _ => return,
    };
    let streams = Arc::new(AtomicUsize::new(0));
    let mut closing = state.closing.clone();
    let mut draining = false;
    let idle = super::limits::enabled(state.limits.idle_timeout);
    let mut last_active = Instant::now();
    loop {
        let idle_deadline = idle
            .filter(|_| streams.load(Ordering::Acquire) == 0)
            .map(|d| last_active + d);
        let idle_timer = async {
            match idle_deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            next = conn.accept() => match next {
                Some(Ok((request, respond))) => {
                    last_active = Instant::now();
                    let guard = StreamGuard::new(&streams, &state);
                    let caller = (peer, identity.clone());
                    tokio::spawn(serve_stream(request, respond, caller, state.clone(), guard));
                }
                // The connection failed (a protocol error, a flood h2 refused) or ended.
                Some(Err(_)) | None => break,
            },
            _ = idle_timer, if !draining => {
                state.counters.closed(super::limits::Closed::Idle, peer, &state.limits);
                break;
            }
            phase = closing.wait_for(|p| *p != Phase::Serving) => {
                match phase.map(|p| *p) {
                    Ok(Phase::Closing) if !draining => {
                        // GOAWAY: no new streams; the open ones finish.
                        conn.graceful_shutdown();
                        draining = true;
                    }
                    _ => break,
                }
            }
        }
    }
}

/// One stream counted open on its connection and in the server's calls in flight.
struct StreamGuard {
    streams: Arc<AtomicUsize>,
    state: Arc<State>,
}

impl StreamGuard {
    fn new(streams: &Arc<AtomicUsize>, state: &Arc<State>) -> StreamGuard {
        streams.fetch_add(1, Ordering::AcqRel);
        state.inflight.fetch_add(1, Ordering::AcqRel);
        state.dispatched.fetch_add(1, Ordering::AcqRel);
        StreamGuard {
            streams: streams.clone(),
            state: state.clone(),
        }
    }
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        self.streams.fetch_sub(1, Ordering::AcqRel);
        if self.state.inflight.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.state.idle.notify_waiters();
        }
    }
}

/// How a stream's call ended before a handler could answer it.
pub(super) enum Refusal {
    /// A status in the trailers (here, the only headers).
    Status(Status),
    /// Not a gRPC request: a plain HTTP status.
    Http(StatusCode),
    /// The caller reset the stream: nothing to answer.
    Gone,
}

impl From<Status> for Refusal {
    fn from(s: Status) -> Self {
        Refusal::Status(s)
    }
}

async fn serve_stream(
    request: http::Request<RecvStream>,
    mut respond: SendResponse<Bytes>,
    (peer, peer_identity): (SocketAddr, Option<PeerIdentity>),
    state: Arc<State>,
    _guard: StreamGuard,
) {
    let request_id = u64::from(u32::from(respond.stream_id()));
    let (parts, body) = request.into_parts();
    let head = match RequestHead::from_parts(parts.uri.path(), &parts.headers) {
        Ok(head) => head,
        Err(MetadataError::NotGrpc(_)) => {
            return refuse(
                &mut respond,
                Refusal::Http(StatusCode::UNSUPPORTED_MEDIA_TYPE),
            )
        }
        Err(e) => {
            return refuse(
                &mut respond,
                Status::new(Code::Internal, e.to_string()).into(),
            )
        }
    };
    let deadline = head.timeout.map(|t| Instant::now() + t + DEADLINE_GRACE);
    let svc = match find_service(&head, &state) {
        Ok(svc) => svc,
        Err(refusal) => return refuse(&mut respond, refusal),
    };
    // A unary request arrives whole soon, deadline or not: `frame_timeout` bounds a caller
    // that opens streams and trickles (or never finishes) their bodies.
    let slow = super::limits::enabled(state.limits.frame_timeout).map(|t| Instant::now() + t);
    let read_by = [deadline, slow].into_iter().flatten().min();
    match svc.grpc_methods.get(&head.method) {
        Some(GrpcMethod::Streaming(handler)) => {
            let (messages, reader) = super::triple_stream::read_messages(body, state.max_payload);
            let call = GrpcCall {
                service: head.service,
                method: head.method,
                headers: parts.headers,
                peer,
                peer_identity,
                messages,
            };
            super::triple_stream::serve_grpc(handler.clone(), call, reader, respond, deadline).await
        }
        Some(GrpcMethod::Unary(handler)) => {
            let handler = handler.clone();
            let message = match read_unary(body, state.max_payload, read_by).await {
                Ok(message) => message,
                Err(refusal) => return refuse(&mut respond, refusal),
            };
            let running = catch_panic(handler(message, parts.headers));
            let Some(result) = run_inline(&mut respond, running, deadline).await else {
                return;
            };
            match result.unwrap_or_else(|Panicked| Err(handler_panicked())) {
                Ok(body) => send_unary(&mut respond, HeaderMap::new(), body),
                Err(status) => refuse(&mut respond, status.into()),
            }
        }
        None => {
            let outcome = async {
                let (handler, call) = route(&head, &svc, (peer, peer_identity), request_id)?;
                let message = read_unary(body, state.max_payload, read_by).await?;
                let (call, wire_serialization) = with_args(call, message)?;
                Ok::<_, Refusal>((handler, call, wire_serialization))
            }
            .await;
            let (handler, call, wire_serialization) = match outcome {
                Ok(ready) => ready,
                Err(refusal) => return refuse(&mut respond, refusal),
            };
            let format = call.format;
            let running = run_handler(&handler, call);
            let Some(result) = run_inline(&mut respond, running, deadline).await else {
                return;
            };
            answer(
                &mut respond,
                format,
                &wire_serialization,
                result,
                state.max_payload,
            );
        }
    }
}

/// Runs a unary call's handler in the stream's task until it answers; `None` when the call
/// ended first: the caller cancelled (RST_STREAM: the handler's future is dropped), or its
/// deadline passed (answered `DEADLINE_EXCEEDED` here).
///
/// The handler is polled once before the deadline's timer is armed: most handlers answer
/// at once, and arming a timer costs more than the call (tokio wakes its timer driver, an
/// `eventfd` write, for most new timers: two thirds of this server's system calls per unary
/// call before this).
async fn run_inline<F: Future>(
    respond: &mut SendResponse<Bytes>,
    running: F,
    deadline: Option<Instant>,
) -> Option<F::Output> {
    let mut running = std::pin::pin!(running);
    if let Poll::Ready(result) =
        std::future::poll_fn(|cx| Poll::Ready(running.as_mut().poll(cx))).await
    {
        return Some(result);
    }
    let reset = std::future::poll_fn(|cx| respond.poll_reset(cx));
    let outcome = tokio::select! {
        result = running => Ok(result),
        _ = reset => Err(None),
        _ = until(deadline) => Err(Some(deadline_passed())),
    };
    match outcome {
        Ok(result) => Some(result),
        Err(status) => {
            if let Some(status) = status {
                refuse(respond, status.into());
            }
            None
        }
    }
}

/// The service a call names (interface, version, group). A call that names no version (a
/// gRPC tool, curl) reaches the one service of its interface and group, whatever its
/// version, as Java Dubbo 3 serves it.
pub(super) fn find_service(
    head: &RequestHead,
    state: &State,
) -> Result<Arc<super::Service>, Refusal> {
    let group = Some(head.group.as_str()).filter(|g| !g.is_empty());
    let key = service_key(&head.service, &head.version, group);
    if let Some(svc) = state.service(&key) {
        return Ok(svc);
    }
    if head.version.is_empty() {
        let mut same = state
            .services
            .values()
            .filter(|s| s.interface == head.service && s.group.as_deref() == group);
        if let (Some(only), None) = (same.next(), same.next()) {
            return Ok(only.clone());
        }
    }
    Err(Status::new(
        Code::Unimplemented,
        format!("Not found exported service: {key} (version or group mismatch?)"),
    )
    .into())
}

/// Finds the method of an interface-style call, and builds its [`Call`] (arguments to come).
fn route(
    head: &RequestHead,
    svc: &super::Service,
    (peer, peer_identity): (SocketAddr, Option<PeerIdentity>),
    request_id: u64,
) -> Result<(super::service::Handler, Call), Refusal> {
    let group = Some(head.group.as_str()).filter(|g| !g.is_empty());
    let Some(handler) = svc.methods.get(&head.method) else {
        return Err(Status::new(
            Code::Unimplemented,
            format!(
                "Not found method {} in exported service {}",
                head.method,
                svc.key()
            ),
        )
        .into());
    };
    let mut attachments: Attachments = head
        .attachments
        .iter()
        .map(|(k, v)| {
            let v = match v {
                AttachmentValue::Text(t) => Value::from(t.as_str()),
                AttachmentValue::Binary(b) => Value::Binary(b.to_vec().into()),
            };
            (k.clone(), v)
        })
        .collect();
    if let Some(app) = &head.application {
        attachments.insert("remote.application", app.as_str());
    }
    let call = Call {
        request_id,
        two_way: true,
        dubbo_version: String::new(),
        protocol: Protocol::Triple,
        service: head.service.clone(),
        version: head.version.clone(),
        group: group.map(str::to_owned),
        method: head.method.clone(),
        descriptor: String::new(),
        attachments,
        generic: false,
        peer,
        peer_identity,
        format: BodyFormat::default(),
        args: Args::Values(Vec::new()),
    };
    Ok((handler.clone(), call))
}

/// Reads the one message of a unary request, then the end of the stream, by the deadline.
async fn read_unary(
    mut body: RecvStream,
    max_payload: u32,
    deadline: Option<Instant>,
) -> Result<Bytes, Refusal> {
    let read = async {
        let mut request = UnaryRequest::new(max_payload);
        while let Some(chunk) = body.data().await {
            let chunk = chunk.map_err(|_| Refusal::Gone)?;
            // The window is given back as soon as the bytes are taken, which the collector
            // bounds by `max_payload`.
            let _ = body.flow_control().release_capacity(chunk.len());
            request
                .push(&chunk)
                .map_err(|e| Refusal::Status(e.status()))?;
        }
        request.finish().map_err(|e| Refusal::Status(e.status()))
    };
    match deadline {
        Some(at) => tokio::time::timeout_at(at, read).await.unwrap_or_else(|_| {
            Err(Status::new(
                Code::DeadlineExceeded,
                "the request did not arrive whole by the call's deadline or the server's frame_timeout",
            )
            .into())
        }),
        None => read.await,
    }
}

/// The call with the arguments of its request wrapper; and the serialization's name as the
/// caller wrote it (echoed in the answer).
fn with_args(mut call: Call, message: Bytes) -> Result<(Call, String), Refusal> {
    let wrapper = RequestWrapper::decode_bytes(message)
        .map_err(|e| Status::new(Code::Internal, e.to_string()))?;
    call.format = format_of_wire_name(&wrapper.serialize_type)?;
    call.descriptor = wrapper
        .arg_types
        .iter()
        .map(|t| dubbo_codec::descriptor::name_to_desc(t).unwrap_or_default())
        .collect();
    call.args = Args::Separate {
        format: call.format,
        args: wrapper.args,
    };
    Ok((call, wrapper.serialize_type))
}

/// The format of a wrapper's `serializeType` (`hessian4` is Hessian2).
pub(super) fn format_of_wire_name(wire: &str) -> Result<BodyFormat, Status> {
    match serialization_of_wire_name(wire) {
        "hessian2" => Ok(BodyFormat::Hessian2(PeerVersion::V3)),
        "fastjson2" => Ok(BodyFormat::FASTJSON2),
        other => Err(Status::new(
            Code::Unimplemented,
            format!("serialization {other:?} is not supported (hessian2, fastjson2 are)"),
        )),
    }
}

/// Answers a call that reached no handler.
fn refuse(respond: &mut SendResponse<Bytes>, refusal: Refusal) {
    match refusal {
        Refusal::Gone => {}
        Refusal::Http(status) => {
            let mut response = Response::new(());
            *response.status_mut() = status;
            let _ = respond.send_response(response, true);
        }
        Refusal::Status(status) => trailers_only(respond, HeaderMap::new(), &status),
    }
}

/// Sends a handler's answer: the value or the Java exception as a response wrapper, or a
/// status.
fn answer(
    respond: &mut SendResponse<Bytes>,
    format: BodyFormat,
    wire_serialization: &str,
    result: Result<Reply, HandlerError>,
    max_payload: u32,
) {
    let (data, exception) = match result {
        Ok(reply) => match reply_bytes(format, reply) {
            Ok(data) => (data, false),
            Err(status) => return refuse(respond, status.into()),
        },
        Err(HandlerError::Exception(e)) => (format.value_alone(&e.value), true),
        Err(HandlerError::Status { status, message }) => {
            return refuse(respond, Status::new(grpc_code(status), message).into())
        }
    };
    if data.len() > max_payload as usize {
        return refuse(
            respond,
            Status::new(
                Code::ResourceExhausted,
                format!(
                    "Data length too large: {}, max payload: {max_payload}",
                    data.len()
                ),
            )
            .into(),
        );
    }
    let wrapper = ResponseWrapper {
        serialize_type: wire_serialization.to_owned(),
        data,
        r#type: String::new(),
    };
    let mut body = BytesMut::new();
    MessageEncoder::new(&mut body).finish_with(|b| wrapper.encode_into(b));
    let mut headers = HeaderMap::new();
    if exception {
        headers.insert(TRI_EXCEPTION_CODE, HeaderValue::from_static(BIZ_EXCEPTION));
    }
    send_unary(respond, headers, body.freeze());
}

/// Answers a unary call: response headers, its one message (`body`, prefix included) and
/// `grpc-status: 0` trailers, queued together so that h2 writes them in one go. The message
/// is at most the payload limit, already in memory: queued whole rather than window by
/// window (h2 sends it as the caller's window opens).
fn send_unary(respond: &mut SendResponse<Bytes>, headers: HeaderMap, body: Bytes) {
    let Ok(mut send) = respond.send_response(grpc_response(headers), false) else {
        return;
    };
    let _ = send.send_data(body, false);
    let mut trailers = HeaderMap::new();
    Status::ok().write_headers(&mut trailers);
    let _ = send.send_trailers(trailers);
}

/// A reply as the bytes of one value in the call's serialization.
fn reply_bytes(format: BodyFormat, reply: Reply) -> Result<Bytes, Status> {
    Ok(match reply {
        Reply::Null => Bytes::from_static(format.null_alone()),
        Reply::Value(v) => format.value_alone(&v),
        Reply::Encoded(bytes) if matches!(format, BodyFormat::Hessian2(_)) => bytes,
        // For a Triple call, the whole body of an OK answer is the value (Call::typed_reply).
        Reply::Body(bytes) => bytes,
        // Hessian2 bytes for a caller in another serialization: through a value.
        Reply::Encoded(bytes) => {
            let v = hessian2::value::from_slice(&bytes)
                .map_err(|e| Status::new(Code::Internal, format!("serializing the result: {e}")))?;
            format.value_alone(&v)
        }
    })
}

/// The gRPC code of a Dubbo status a handler answered with.
fn grpc_code(status: DubboStatus) -> Code {
    Code::from_dubbo_status(status.as_u8())
}
