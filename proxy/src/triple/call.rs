//! One Triple call (one HTTP/2 stream from a caller): routed, forwarded on a provider
//! connection, and relayed both ways until either side ends it.
//!
//! ```text
//! caller HEADERS ─▶ route (:path, tri-service-version/-group, attachments) ─▶ endpoint
//!               ─▶ provider HEADERS (the same, untouched)
//! caller DATA ... trailers  ──relay──▶ provider      (request direction)
//! caller ◀──relay── provider HEADERS, DATA ... trailers   (response direction)
//! ```
//!
//! The call's deadline is the route's `timeout_ms`, or the caller's `grpc-timeout` when that
//! is sooner. A reset on either side resets the other: dropping a stream's h2 handles before
//! its end sends RST_STREAM(CANCEL), and a provider's own reset code is passed on.

use std::borrow::Cow;
use std::future::{poll_fn, Future};
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use bytes::Bytes;
use dubbo_codec::Status as DubboStatus;
use dubbo_triple::metadata::{GRPC_TIMEOUT, TRI_SERVICE_GROUP, TRI_SERVICE_VERSION};
use dubbo_triple::timeout::parse_timeout;
use dubbo_triple::{Code, Status};
use h2::server::SendResponse;
use h2::{RecvStream, SendStream};
use http::{HeaderMap, HeaderName, Request, Response};

use super::answer;
use super::fail::Fail;
use super::relay::{relay, RelayError};
use super::state::Triple;
use super::to_dubbo;
use super::upstream::Chosen;
use crate::config::ProviderProtocol;
use crate::core::access::Caller;
use crate::core::peek::Call;
use crate::core::route::Route;
use crate::core::Reason;
use crate::core::Snapshot;

/// The header `name`, if it is text.
fn header(headers: &HeaderMap, name: impl http::header::AsHeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

// The headers every call is routed by, as names: a lookup by `&str` parses and
// lower-case-checks the name each time, by `HeaderName` it only hashes.
const VERSION: HeaderName = HeaderName::from_static(TRI_SERVICE_VERSION);
const GROUP: HeaderName = HeaderName::from_static(TRI_SERVICE_GROUP);
const TIMEOUT: HeaderName = HeaderName::from_static(GRPC_TIMEOUT);

/// Who a caller connection is: what routes' access rules and per-identity limits see.
#[derive(Debug, Clone, Default)]
pub(super) struct Peer {
    /// Its verified TLS client certificate's identity.
    pub(super) identity: Option<Arc<str>>,
    /// Its address.
    pub(super) source: Option<IpAddr>,
}

impl Peer {
    fn caller(&self) -> Caller<'_> {
        Caller {
            identity: self.identity.as_deref(),
            source: self.source,
        }
    }
}

/// Why a call is not forwarded.
pub(super) enum Unrouted {
    /// The path is not `/{interface}/{method}`.
    NotAPath,
    /// No route matches it (counted in the unrouted metrics here).
    NoRoute,
    /// Its route (this index) does not admit it: [`Reason::Denied`] or
    /// [`Reason::RateLimited`] (counted in the route's metrics by [`record_unrouted`]).
    Refused(usize, Reason),
}

impl Unrouted {
    /// The status the caller gets.
    pub(super) fn status(&self, path: &str, headers: &HeaderMap) -> Status {
        match self {
            Unrouted::NotAPath => {
                Status::new(Code::Unimplemented, format!("not a Triple path: {path}"))
            }
            Unrouted::NoRoute => Status::new(
                Code::Unimplemented,
                format!(
                    "no route for {} (version {:?}, group {:?})",
                    path.trim_start_matches('/'),
                    header(headers, &VERSION).unwrap_or(""),
                    header(headers, &GROUP).unwrap_or("")
                ),
            ),
            // gRPC's codes for "not allowed" and "quota spent": PERMISSION_DENIED and
            // RESOURCE_EXHAUSTED, which gRPC clients do not retry at once by default.
            Unrouted::Refused(_, reason) => {
                let code = match reason {
                    Reason::Denied => Code::PermissionDenied,
                    _ => Code::ResourceExhausted,
                };
                Status::new(code, reason.message())
            }
        }
    }

    /// The HTTP status an HTTP/1.1 caller gets.
    pub(super) fn http_status(&self) -> http::StatusCode {
        match self {
            Unrouted::Refused(_, Reason::Denied) => http::StatusCode::FORBIDDEN,
            Unrouted::Refused(..) => http::StatusCode::TOO_MANY_REQUESTS,
            Unrouted::NotAPath | Unrouted::NoRoute => http::StatusCode::NOT_FOUND,
        }
    }
}

/// The route of a call to `path` with `headers` that came in on `listener` from `peer`: by
/// the path's interface and method, `tri-service-version`, `tri-service-group` and the
/// attachment headers, through the same table as Dubbo calls, then admitted by the route
/// (its access rules and rate limit) as a Dubbo call is. A call with no route is counted
/// here. `now`: the call's arrival (its rate limit's clock).
pub(super) fn find_route(
    snap: &Snapshot,
    listener: usize,
    peer: &Peer,
    path: &str,
    headers: &HeaderMap,
    now: Instant,
) -> Result<usize, Unrouted> {
    // `/{interface}/{method}`: the interface may hold dots, never a slash.
    let (interface, method) = path
        .strip_prefix('/')
        .and_then(|p| p.split_once('/'))
        .filter(|(i, m)| !i.is_empty() && !m.is_empty() && !m.contains('/'))
        .ok_or(Unrouted::NotAPath)?;
    let call = Call {
        path: Cow::Borrowed(interface),
        version: Cow::Borrowed(header(headers, &VERSION).unwrap_or("")),
        method: Cow::Borrowed(method),
    };
    let group = header(headers, &GROUP).unwrap_or("");
    let ri = snap
        .routes
        .find_triple(listener, &call, group, |k| header(headers, k))
        .map_err(|_| {
            snap.routes.unrouted.request(0);
            Unrouted::NoRoute
        })?;
    snap.routes
        .admit(ri, &peer.caller(), Some(method), now)
        .map_err(|reason| Unrouted::Refused(ri, reason))?;
    Ok(ri)
}

/// Counts the end of a call that was not forwarded (answered by the proxy): in the unrouted
/// metrics, or its route's when the route refused it.
pub(super) fn record_unrouted(
    triple: &Triple,
    snap: &Snapshot,
    unrouted: &Unrouted,
    start: Instant,
    peer: &Peer,
) {
    match *unrouted {
        Unrouted::NotAPath => {}
        Unrouted::NoRoute => {
            let s = DubboStatus::ServiceNotFound.as_u8();
            snap.routes.unrouted.response(0, s, start.elapsed(), true);
        }
        Unrouted::Refused(ri, reason) => {
            let route = &snap.routes.routes[ri];
            route.stats.request(0);
            let identity = peer.identity.as_deref();
            record(triple, snap, route, reason.status(), true, start, identity);
        }
    }
}

/// With the listener's `identity_attachment`, the caller's identity as that header (Triple's
/// attachments are headers): the caller's own under the name go, the identity the proxy
/// vouches for takes its place. HTTP/2 and HTTP/1.1 callers alike.
pub(super) fn vouch_for_caller(
    snap: &Snapshot,
    listener: usize,
    headers: &mut HeaderMap,
    identity: Option<&str>,
) {
    let forwarded = snap.config.listeners.get(listener).and_then(|l| {
        let tls = l.tls.as_ref()?;
        tls.identity_attachment.as_deref()
    });
    if let Some(key) = forwarded {
        crate::core::identity::set_header(headers, key, identity);
    }
}

/// Serves one call; `listener`: the listener its connection came in on, `peer`: who its
/// caller is.
pub(super) async fn serve(
    triple: Arc<Triple>,
    mut request: Request<RecvStream>,
    mut respond: SendResponse<Bytes>,
    listener: usize,
    peer: Peer,
) {
    let identity = peer.identity.clone();
    let metrics = &triple.shared.metrics;
    metrics
        .triple
        .calls
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let start = Instant::now();
    let snap = triple.shared.snapshot();
    vouch_for_caller(&snap, listener, request.headers_mut(), identity.as_deref());

    let path = request.uri().path();
    let ri = match find_route(&snap, listener, &peer, path, request.headers(), start) {
        Ok(ri) => ri,
        Err(unrouted) => {
            let status = unrouted.status(path, request.headers());
            answer::trailers_only(&mut respond, &status, &metrics.triple);
            return record_unrouted(&triple, &snap, &unrouted, start, &peer);
        }
    };
    let route = &snap.routes.routes[ri];
    route.stats.request(0);

    // The sooner of the route's timeout and the caller's own deadline.
    let caller_deadline =
        header(request.headers(), &TIMEOUT).and_then(|v| parse_timeout(v.as_bytes()).ok());
    let timeout = caller_deadline.map_or(route.timeout, |t| t.min(route.timeout));
    let deadline = tokio::time::Instant::now() + timeout;

    let chosen = match triple.upstreams.pick(
        &snap,
        triple.shared.generation(),
        route.cluster,
        Instant::now(),
    ) {
        Ok(c) => c,
        Err(e) => {
            let fail = Fail::ProviderFailed(e.to_string());
            let (status, local) = finish(fail, None, &mut respond, &triple, timeout);
            return record(
                &triple,
                &snap,
                route,
                status,
                local,
                start,
                identity.as_deref(),
            );
        }
    };
    // The caller's response stream, once its HEADERS went out.
    let mut down = None;
    let bridged = snap
        .config
        .clusters
        .get(&snap.routes.clusters[route.cluster])
        .is_some_and(|c| c.protocol == ProviderProtocol::Dubbo);
    let outcome = if bridged {
        let max_request = snap
            .config
            .listeners
            .get(listener)
            .map_or(dubbo_codec::DEFAULT_MAX_PAYLOAD, |l| l.max_payload);
        let bridging = to_dubbo::forward(
            &triple,
            &chosen,
            request,
            &mut respond,
            max_request,
            timeout,
        );
        tokio::time::timeout_at(deadline, bridging).await
    } else {
        let forwarding = forward(&triple, &chosen, request, &mut respond, &mut down);
        // Dropping the forwarding resets the provider's stream.
        tokio::time::timeout_at(deadline, forwarding).await
    };
    let outcome = outcome.unwrap_or(Err(Fail::Deadline));
    match &outcome {
        Ok(_) | Err(Fail::ProviderReset(_)) => chosen.succeeded(),
        Err(Fail::ProviderFailed(_) | Fail::Deadline) => chosen.failed(&snap, Instant::now()),
        Err(Fail::CallerGone | Fail::Refused(_)) => {}
    }
    let (status, local) = match outcome {
        Ok(code) => (code, false),
        Err(fail) => finish(fail, down, &mut respond, &triple, timeout),
    };
    record(
        &triple,
        &snap,
        route,
        status,
        local,
        start,
        identity.as_deref(),
    );
}

/// Counts a call's end in its route's metrics (`status`: the Dubbo status its outcome counts
/// as, `local`: answered by the proxy), and writes its access log line (`log.access_log`,
/// unless downgraded), as the Dubbo 2 path does.
pub(super) fn record(
    triple: &Triple,
    snap: &Snapshot,
    route: &Route,
    status: DubboStatus,
    local: bool,
    start: Instant,
    identity: Option<&str>,
) {
    let latency = start.elapsed();
    route.stats.response(0, status.as_u8(), latency, local);
    if !triple.shared.downgraded() && snap.config.log.access_log {
        let status = status.as_u8();
        let identity = identity.unwrap_or("-");
        tracing::info!(target: "dubbo_proxy::access", route = %route.name, status, latency_us = latency.as_micros() as u64, protocol = "tri", identity);
    }
}

/// Ends a call that failed: a `grpc-status` to the caller (trailers-only, or trailers when
/// the response HEADERS went out: `down`), or the provider's reset passed on. Returns the
/// Dubbo status it counts as in the route's metrics, and whether the proxy answered.
fn finish(
    fail: Fail,
    down: Option<SendStream<Bytes>>,
    respond: &mut SendResponse<Bytes>,
    triple: &Triple,
    timeout: Duration,
) -> (DubboStatus, bool) {
    let metrics = &triple.shared.metrics.triple;
    let status = match fail {
        Fail::CallerGone => return (DubboStatus::ClientError, false),
        Fail::ProviderReset(reason) => {
            match down {
                Some(mut s) => s.send_reset(reason),
                None => respond.send_reset(reason),
            }
            return (DubboStatus::ServerError, false);
        }
        Fail::ProviderFailed(why) => {
            Status::new(Code::Unavailable, format!("provider failed: {why}"))
        }
        Fail::Deadline => Status::new(
            Code::DeadlineExceeded,
            format!("no answer within {} ms", timeout.as_millis()),
        ),
        Fail::Refused(status) => {
            answer::trailers_only(respond, &status, metrics);
            return (DubboStatus::BadRequest, true);
        }
    };
    match down {
        Some(mut s) => answer::trailers(&mut s, &status, metrics),
        None => answer::trailers_only(respond, &status, metrics),
    }
    let dubbo = match status.code {
        Code::DeadlineExceeded => DubboStatus::ServerTimeout,
        _ => DubboStatus::ServiceNotFound,
    };
    (dubbo, true)
}

/// Forwards the call to the `chosen` endpoint and relays it to its end (`down`: the caller's
/// response stream, once its HEADERS went out). Returns the Dubbo status the provider's
/// `grpc-status` counts as.
async fn forward(
    triple: &Triple,
    chosen: &Chosen,
    request: Request<RecvStream>,
    respond: &mut SendResponse<Bytes>,
    down: &mut Option<SendStream<Bytes>>,
) -> Result<DubboStatus, Fail> {
    let failed = |e: &dyn std::fmt::Display| Fail::ProviderFailed(e.to_string());
    let mut sender = triple
        .upstreams
        .sender(chosen)
        .await
        .map_err(|e| failed(&e))?;

    let (parts, mut from_caller) = request.into_parts();
    let end = from_caller.is_end_stream();
    let upstream = Request::from_parts(parts, ());
    let (response, mut to_provider) = sender.send_request(upstream, end).map_err(|e| failed(&e))?;

    let result = {
        let request_side = async {
            if end {
                return Ok(());
            }
            relay(&mut from_caller, &mut to_provider)
                .await
                .map(drop)
                .map_err(|e| match e {
                    RelayError::From(_) => Fail::CallerGone,
                    RelayError::To(Some(reason)) => Fail::ProviderReset(reason),
                    RelayError::To(None) => Fail::ProviderFailed("connection lost".into()),
                })
        };
        let response_side = async {
            // The caller may reset while the provider has not answered yet.
            let mut response = response;
            let response = poll_fn(|cx| {
                if respond.poll_reset(cx).is_ready() {
                    return Poll::Ready(Err(Fail::CallerGone));
                }
                Pin::new(&mut response)
                    .poll(cx)
                    .map_err(|e| match e.reason() {
                        Some(reason) if e.is_remote() => Fail::ProviderReset(reason),
                        _ => Fail::ProviderFailed(e.to_string()),
                    })
            })
            .await?;
            let (parts, mut from_provider) = response.into_parts();
            let end = from_provider.is_end_stream();
            // A trailers-only answer carries its grpc-status in these headers.
            let status = parts.headers.get(&super::relay::STATUS).cloned();
            let head = Response::from_parts(parts, ());
            let stream = respond
                .send_response(head, end)
                .map_err(|_| Fail::CallerGone)?;
            if end {
                return Ok(status);
            }
            let to_caller = down.insert(stream);
            relay_response(&mut from_provider, to_caller).await
        };
        tokio::pin!(request_side, response_side);
        let mut request_done = false;
        loop {
            tokio::select! {
                r = &mut request_side, if !request_done => match r {
                    Err(Fail::CallerGone) => break Err(Fail::CallerGone),
                    // The provider's end of the request (it answered before reading it all,
                    // and reset the rest with NO_ERROR, say): its response tells the rest.
                    _ => request_done = true,
                },
                r = &mut response_side => break r,
            }
        }
    };
    let status = result?;
    let ok = status.is_none_or(|s| s.as_bytes() == b"0");
    Ok(if ok {
        DubboStatus::Ok
    } else {
        DubboStatus::ServiceError
    })
}

/// Relays the provider's DATA and trailers to the caller; returns the trailers'
/// `grpc-status`.
async fn relay_response(
    from_provider: &mut RecvStream,
    to_caller: &mut SendStream<Bytes>,
) -> Result<Option<http::HeaderValue>, Fail> {
    relay(from_provider, to_caller).await.map_err(|e| match e {
        RelayError::From(e) => match e.reason() {
            Some(reason) if e.is_remote() => Fail::ProviderReset(reason),
            _ => Fail::ProviderFailed(e.to_string()),
        },
        RelayError::To(_) => Fail::CallerGone,
    })
}
