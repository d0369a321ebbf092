//! Triple over HTTP/1.1: the form Java Dubbo 3.3 serves on its port for `curl` and gateways
//! (`POST /{interface}/{method}` with a JSON body; `tri-service-version`,
//! `tri-service-group` and attachment headers), forwarded as it is to a provider of the call's
//! route, over a pooled HTTP/1.1 connection.
//!
//! ```text
//! caller ── POST /com.example.Greeter/sayHello HTTP/1.1 ──▶ route ──▶ provider (HTTP/1.1)
//!        ◀─ 200 application/json "Hello, world" ──────────────────── (status, headers, body)
//! ```
//!
//! Bodies stream through both ways, undecoded; hop-by-hop headers stay on their hop. The
//! proxy's own answers are plain text with an HTTP status: no route `404`, no provider or a
//! failed connection `503`, no answer head within the route's timeout `504`, a provider that
//! broke off `502`. A route to a cluster whose providers speak only the Dubbo protocol is
//! bridged: the JSON call becomes a Dubbo generic invocation ([`super::json_bridge`]). A
//! request head, once begun, must arrive within the listener's `frame_timeout_ms`
//! ([`super::head_limit`]); a keep-alive connection waiting for its next request longer than
//! `idle_timeout_ms` is closed. Buffers are bounded by 64 KiB.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use dubbo_codec::Status as DubboStatus;
use http::{HeaderMap, Request, Response, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};

use super::call::{find_route, record, record_unrouted, vouch_for_caller, Peer};
use super::head_limit::{HeadLimit, Heads};
use super::state::Triple;
use super::upstream::Chosen;
use super::ConnLimits;
use crate::config::ProviderProtocol;
use crate::core::route::Route;
use crate::core::Snapshot;

/// What the caller gets: the provider's body, or the proxy's own text.
pub(super) type Body = BoxBody<Bytes, hyper::Error>;

/// The headers that belong to one hop (RFC 9110 §7.6.1), never forwarded.
const HOP_BY_HOP: [&str; 7] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "transfer-encoding",
    "upgrade",
    "proxy-authorization",
];

/// Serves one HTTP/1.1 caller connection (keep-alive) until it closes, or until the proxy
/// drains (`draining` turns true: the exchange under way ends, then the connection closes);
/// `io` holds the bytes read before the hand-off; `peer`: who the caller is.
pub(super) async fn serve_connection<T>(
    triple: Arc<Triple>,
    io: T,
    listener: usize,
    peer: Peer,
    limits: ConnLimits,
    mut draining: tokio::sync::watch::Receiver<bool>,
) where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let state = triple.clone();
    let peer = Arc::new(peer);
    let heads = Arc::new(Heads::default());
    let io = HeadLimit::new(io, heads.clone(), limits.handshake);
    let service = hyper::service::service_fn(move |request| {
        let triple = state.clone();
        let peer = peer.clone();
        let serving = heads.serve();
        async move {
            let response = call(&triple, request, listener, &peer).await;
            // Served until hyper has written the body, and drops it.
            let response = response.map(|body| {
                body.map_frame(move |frame| {
                    let _ = &serving;
                    frame
                })
                .boxed()
            });
            Ok::<_, Infallible>(response)
        }
    });
    // hyper's head timer runs while it waits for a request: the idle limit.
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.idle)
        .max_buf_size(64 * 1024)
        .serve_connection(TokioIo::new(io), service);
    tokio::pin!(conn);
    let served = tokio::select! {
        r = conn.as_mut() => r,
        _ = drained(&mut draining) => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    };
    if let Err(e) = served {
        tracing::debug!("triple http/1.1 caller: {e}");
    }
}

/// Returns once `draining` is true (never if its sender is gone).
async fn drained(draining: &mut tokio::sync::watch::Receiver<bool>) {
    while !*draining.borrow_and_update() {
        if draining.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// The proxy's own answer.
pub(super) fn own(status: StatusCode, message: String) -> Response<Body> {
    whole(status, "text/plain", message)
}

/// A response of `status` whose whole body is `body`, of `content_type`.
pub(super) fn whole(
    status: StatusCode,
    content_type: &'static str,
    body: impl Into<Bytes>,
) -> Response<Body> {
    let mut r = Response::new(
        Full::new(body.into())
            .map_err(|never| match never {})
            .boxed(),
    );
    *r.status_mut() = status;
    r.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static(content_type),
    );
    r
}

/// A call of the HTTP/1.1 form once routed: what its end is counted against (see
/// [`record`]).
pub(super) struct Routed<'a> {
    pub(super) triple: &'a Triple,
    pub(super) snap: &'a Snapshot,
    pub(super) route: &'a Route,
    /// When the call arrived.
    pub(super) start: Instant,
    /// Who called.
    pub(super) identity: Option<&'a str>,
}

impl Routed<'_> {
    /// Counts the call's end as `status` (`local`: answered by the proxy).
    pub(super) fn record(&self, status: DubboStatus, local: bool) {
        record(
            self.triple,
            self.snap,
            self.route,
            status,
            local,
            self.start,
            self.identity,
        );
    }

    /// A provider of the route's cluster; without one, the call ends answered `503` (counted
    /// as a Dubbo `SERVICE_ERROR`; boxed, as that answer is large beside a provider).
    pub(super) fn pick(&self) -> Result<Chosen, Box<Response<Body>>> {
        let generation = self.triple.shared.generation();
        self.triple
            .upstreams
            .pick(self.snap, generation, self.route.cluster, Instant::now())
            .map_err(|e| {
                Box::new(self.fail(
                    DubboStatus::ServiceError,
                    StatusCode::SERVICE_UNAVAILABLE,
                    e.to_string(),
                ))
            })
    }

    /// Ends the call with the proxy's own answer, `status` with `message`, counted as the
    /// Dubbo status `counted`.
    pub(super) fn fail(
        &self,
        counted: DubboStatus,
        status: StatusCode,
        message: String,
    ) -> Response<Body> {
        self.record(counted, true);
        own(status, message)
    }
}

/// Removes the hop-by-hop headers (and those `connection` names).
pub(super) fn strip_hop_by_hop(headers: &mut HeaderMap) {
    let named: Vec<String> = headers
        .get_all(http::header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(',').map(|s| s.trim().to_ascii_lowercase()))
        .collect();
    for name in HOP_BY_HOP
        .iter()
        .copied()
        .chain(named.iter().map(String::as_str))
    {
        headers.remove(name);
    }
}

/// Routes and forwards one request.
async fn call(
    triple: &Triple,
    mut request: Request<Incoming>,
    listener: usize,
    peer: &Peer,
) -> Response<Body> {
    let metrics = &triple.shared.metrics;
    metrics
        .triple
        .calls
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let start = Instant::now();
    let snap = triple.shared.snapshot();
    vouch_for_caller(
        &snap,
        listener,
        request.headers_mut(),
        peer.identity.as_deref(),
    );
    let path = request.uri().path().to_owned();
    let ri = match find_route(&snap, listener, peer, &path, request.headers(), start) {
        Ok(ri) => ri,
        Err(unrouted) => {
            let status = unrouted.status(&path, request.headers());
            record_unrouted(triple, &snap, &unrouted, start, peer);
            return own(unrouted.http_status(), status.message);
        }
    };
    let route = &snap.routes.routes[ri];
    route.stats.request(0);
    let cluster = snap
        .config
        .clusters
        .get(&snap.routes.clusters[route.cluster]);
    if cluster.is_some_and(|c| c.protocol == ProviderProtocol::Dubbo) {
        return super::json_bridge::serve(triple, &snap, route, request, peer, start).await;
    }
    let routed = Routed {
        triple,
        snap: &snap,
        route,
        start,
        identity: peer.identity.as_deref(),
    };
    let chosen = match routed.pick() {
        Ok(c) => c,
        Err(unavailable) => return *unavailable,
    };
    let exchange = async {
        let mut sender = triple
            .upstreams
            .http1(&chosen)
            .await
            .map_err(|e| (StatusCode::SERVICE_UNAVAILABLE, e.to_string()))?;
        let (mut parts, body) = request.into_parts();
        strip_hop_by_hop(&mut parts.headers);
        let upstream = Request::from_parts(parts, body);
        let response = sender.send_request(upstream).await.map_err(|e| {
            (
                StatusCode::BAD_GATEWAY,
                format!("the provider broke off: {e}"),
            )
        })?;
        triple.upstreams.give_back_http1(&chosen, sender);
        Ok::<_, (StatusCode, String)>(response)
    };
    match tokio::time::timeout(route.timeout, exchange).await {
        Ok(Ok(response)) => {
            chosen.succeeded();
            let status = if response.status().is_success() {
                DubboStatus::Ok
            } else {
                DubboStatus::ServiceError
            };
            routed.record(status, false);
            let (mut parts, body) = response.into_parts();
            strip_hop_by_hop(&mut parts.headers);
            Response::from_parts(parts, body.boxed())
        }
        Ok(Err((status, message))) => {
            chosen.failed(&snap, Instant::now());
            routed.fail(DubboStatus::ServiceError, status, message)
        }
        Err(_) => {
            chosen.failed(&snap, Instant::now());
            routed.fail(
                DubboStatus::ServerTimeout,
                StatusCode::GATEWAY_TIMEOUT,
                format!("no answer within {} ms", route.timeout.as_millis()),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hop_by_hop_headers_stay_on_their_hop() {
        let mut h = HeaderMap::new();
        h.insert("connection", "keep-alive, x-private".parse().unwrap());
        h.insert("keep-alive", "timeout=5".parse().unwrap());
        h.insert("x-private", "1".parse().unwrap());
        h.insert("te", "trailers".parse().unwrap());
        h.insert("tri-service-version", "1.0.0".parse().unwrap());
        h.insert("content-type", "application/json".parse().unwrap());
        strip_hop_by_hop(&mut h);
        let mut left: Vec<&str> = h.keys().map(|k| k.as_str()).collect();
        left.sort();
        assert_eq!(left, ["content-type", "tri-service-version"]);
    }
}
