//! One frame read from a connection: heartbeats answered, calls routed to their handler and
//! run in a task of their own, bad requests answered with their request id.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::identity::PeerIdentity;

use hessian2::value::Value;
use tokio::sync::mpsc;

use super::service::{service_key, Args, Call, Handler, HandlerError, Protocol, Reply};
use super::State;
use dubbo_codec::attachments::{Attachments, GROUP_KEY, INTERFACE_KEY, PATH_KEY, VERSION_KEY};
use dubbo_codec::error::BodyError;
use dubbo_codec::event::Event;
use dubbo_codec::exception::JavaException;
use dubbo_codec::format::BodyFormat;
use dubbo_codec::frame::{Frame, FrameKind};
use dubbo_codec::request::{is_generic_call, RequestHead, ECHO_METHOD};
use dubbo_codec::response::{
    error_frame_in, hessian2_result_body, provider_attachments, Outcome, RpcResult,
};
use dubbo_codec::serialization::Serialization;
use dubbo_codec::status::Status;

/// What a frame's handling needs of its connection.
pub(super) struct Connection {
    pub(super) peer: SocketAddr,
    /// The identity of the caller's TLS client certificate.
    pub(super) identity: Option<PeerIdentity>,
    /// To the connection's writer.
    pub(super) tx: mpsc::Sender<Frame>,
    /// Calls of this connection running now (bounded by `max_inflight`).
    pub(super) inflight: Arc<AtomicUsize>,
}

pub(super) async fn on_frame(frame: Frame, state: &Arc<State>, conn: &Connection) {
    let Connection { peer, tx, .. } = conn;
    let peer = *peer;
    let id = frame.request_id();
    let two_way = frame.header().is_two_way();
    let serialization = frame.header().serialization();
    let reply_format = answer_format(serialization);
    match frame.kind() {
        FrameKind::EventRequest(Event::Heartbeat) if two_way => {
            let _ = tx
                .send(Frame::heartbeat_response_in(id, reply_format))
                .await;
        }
        FrameKind::Request | FrameKind::OneWayRequest => {
            let Some(format) = BodyFormat::of(serialization) else {
                if two_way {
                    let msg = format!(
                        "Fail to decode request due to: unsupported serialization id {} ({}); this server reads {}",
                        serialization.id(),
                        serialization.name().unwrap_or("unknown"),
                        readable_serializations()
                    );
                    let _ = tx
                        .send(error_frame_in(
                            id,
                            reply_format,
                            Status::BadRequest,
                            Some(&msg),
                        ))
                        .await;
                }
                return;
            };
            let running = conn.inflight.load(Ordering::Acquire);
            if running >= state.limits.max_inflight {
                state.counters.rejected(peer, id, state.limits.max_inflight);
                if two_way {
                    // Java's answer when its thread pool rejects a call.
                    let msg = format!(
                        "Server side({},{}) thread pool is exhausted, detail msg: {running} calls of this connection are running (max_inflight {})",
                        state.local_ip, state.port, state.limits.max_inflight
                    );
                    let status = Status::ServerThreadpoolExhaustedError;
                    let _ = tx
                        .send(error_frame_in(id, format, status, Some(&msg)))
                        .await;
                }
                return;
            }
            match route(frame, format, peer, &conn.identity, state) {
                Ok((handler, call)) => {
                    state.inflight.fetch_add(1, Ordering::AcqRel);
                    state.dispatched.fetch_add(1, Ordering::AcqRel);
                    conn.inflight.fetch_add(1, Ordering::AcqRel);
                    let conn_inflight = conn.inflight.clone();
                    let tx = tx.clone();
                    let state = state.clone();
                    tokio::spawn(async move {
                        let dubbo_version = call.dubbo_version.clone();
                        let result = super::panic::run_handler(&handler, call).await;
                        if two_way {
                            let frame =
                                answer(id, format, &dubbo_version, result, state.max_payload);
                            let _ = tx.send(frame).await;
                        }
                        conn_inflight.fetch_sub(1, Ordering::AcqRel);
                        if state.inflight.fetch_sub(1, Ordering::AcqRel) == 1 {
                            state.idle.notify_waiters();
                        }
                    });
                }
                Err((status, msg)) => {
                    if two_way {
                        let _ = tx
                            .send(error_frame_in(id, format, status, Some(&msg)))
                            .await;
                    }
                }
            }
        }
        // Responses, heartbeat answers and other events need nothing from a server.
        _ => {}
    }
}

/// The serialization an answer to a frame in `serialization` is written in: the same when
/// this crate writes it, else Hessian2 (the caller cannot read it either way; Hessian2 is the
/// dubbo protocol's default).
pub(super) fn answer_format(serialization: Serialization) -> BodyFormat {
    BodyFormat::of(serialization).unwrap_or_default()
}

/// The names of the serializations a server reads, for error messages.
fn readable_serializations() -> String {
    Serialization::KNOWN
        .iter()
        .filter(|s| BodyFormat::of(**s).is_some())
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Finds the handler of a request and builds its [`Call`].
fn route(
    frame: Frame,
    format: BodyFormat,
    peer: SocketAddr,
    identity: &Option<PeerIdentity>,
    state: &State,
) -> Result<(Handler, Call), (Status, String)> {
    let request_id = frame.request_id();
    let two_way = frame.header().is_two_way();
    let body = frame.body().clone();
    let bad = |e: BodyError| {
        (
            Status::BadRequest,
            format!("Fail to decode request due to: {e}"),
        )
    };
    let (head, attachments) =
        RequestHead::decode_with_attachments_in(format, &body).map_err(bad)?;
    let service = attachments
        .get_str(INTERFACE_KEY)
        .or_else(|| attachments.get_str(PATH_KEY))
        .unwrap_or(&head.path)
        .to_owned();
    let version = attachments
        .get_str(VERSION_KEY)
        .unwrap_or(&head.version)
        .to_owned();
    let group = attachments
        .get_str(GROUP_KEY)
        .filter(|g| !g.is_empty())
        .map(str::to_owned);
    let key = service_key(&service, &version, group.as_deref());
    let Some(svc) = state.service(&key) else {
        let mut known: Vec<_> = state.services.keys().map(String::as_str).collect();
        known.sort_unstable();
        return Err((
            Status::ServiceNotFound,
            format!(
                "Not found exported service: {key}:{} in [{}], may be version or group mismatch, channel: consumer: {peer}",
                state.port,
                known.join(", ")
            ),
        ));
    };
    let mut method = head.method.to_string();
    let mut descriptor = head.descriptor.to_string();
    let mut generic = false;
    let mut args = Args::Raw {
        body: body.clone(),
        format,
        offset: head.args_offset,
        count: head.arg_count,
    };
    if is_generic_call(&method, &descriptor) {
        // $invoke(String method, String[] types, Object[] args)
        let call_args = Call {
            request_id,
            two_way,
            dubbo_version: String::new(),
            protocol: Protocol::Dubbo,
            service: String::new(),
            version: String::new(),
            group: None,
            method: String::new(),
            descriptor: String::new(),
            attachments: Attachments::new(),
            generic: false,
            peer,
            peer_identity: None,
            format,
            args,
        }
        .values()
        .map_err(bad)?;
        let mut it = call_args.into_iter();
        let (Some(Value::String(m)), Some(types), Some(list)) = (it.next(), it.next(), it.next())
        else {
            return Err((
                Status::BadRequest,
                "Fail to decode request due to: malformed $invoke arguments".into(),
            ));
        };
        let types: Vec<String> = match types {
            Value::List(l) => l
                .items
                .iter()
                .filter_map(|t| t.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        };
        descriptor = types
            .iter()
            .map(|t| dubbo_codec::descriptor::name_to_desc(t).unwrap_or_default())
            .collect();
        let values = match list {
            Value::List(l) => l.items,
            Value::Null => Vec::new(),
            _ => {
                return Err((
                    Status::BadRequest,
                    "Fail to decode request due to: $invoke arguments are not a list".into(),
                ))
            }
        };
        method = m;
        generic = true;
        args = Args::Values(values);
    }
    let echo = !generic
        && method == ECHO_METHOD
        && head.arg_count == 1
        && !svc.methods.contains_key(ECHO_METHOD);
    let handler: Handler = if echo {
        Arc::new(|call: Call| {
            Box::pin(async move {
                let mut v = call.values()?;
                Ok(Reply::Value(v.pop().unwrap_or(Value::Null)))
            })
        })
    } else {
        let Some(handler) = svc.methods.get(&method) else {
            return Err((
                Status::ServiceNotFound,
                format!("Not found method {method}({descriptor}) in exported service {key}"),
            ));
        };
        handler.clone()
    };
    Ok((
        handler,
        Call {
            request_id,
            two_way,
            dubbo_version: head.dubbo_version.to_string(),
            protocol: Protocol::Dubbo,
            service,
            version,
            group,
            method,
            descriptor,
            attachments,
            generic,
            peer,
            peer_identity: identity.clone(),
            format,
            args,
        },
    ))
}

/// The response frame of a finished call.
fn answer(
    id: u64,
    format: BodyFormat,
    dubbo_version: &str,
    result: Result<Reply, HandlerError>,
    max_payload: u32,
) -> Frame {
    let result_frame =
        |outcome| RpcResult::for_request(outcome, dubbo_version).to_frame_in(id, format);
    let frame = match result {
        Ok(Reply::Value(v)) => result_frame(Outcome::Value(v)),
        Ok(Reply::Null) => result_frame(Outcome::Null),
        Ok(Reply::Encoded(bytes)) if matches!(format, BodyFormat::Hessian2(_)) => Frame::response(
            id,
            format.serialization(),
            Status::Ok,
            hessian2_result_body(&bytes, provider_attachments(dubbo_version)),
        ),
        Ok(Reply::Body(body)) => Frame::response(id, format.serialization(), Status::Ok, body),
        // Hessian2 bytes for a caller in another serialization: through a value.
        Ok(Reply::Encoded(bytes)) => match hessian2::value::from_slice(&bytes) {
            Ok(v) => result_frame(Outcome::Value(v)),
            Err(e) => result_frame(Outcome::Exception(
                JavaException::runtime(format!("serializing the result: {e}")).value,
            )),
        },
        Err(HandlerError::Exception(e)) => result_frame(Outcome::Exception(e.value)),
        Err(HandlerError::Status { status, message }) => {
            error_frame_in(id, format, status, Some(&message))
        }
    };
    if frame.body().len() > max_payload as usize {
        // Java's ExceedPayloadLimitException on encode: SERIALIZATION_ERROR with a message.
        return error_frame_in(
            id,
            format,
            Status::SerializationError,
            Some(&format!(
                "Data length too large: {}, max payload: {max_payload}",
                frame.body().len()
            )),
        );
    }
    frame
}
