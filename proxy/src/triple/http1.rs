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

use dubbo_codec::Status as DubboStatus;
use http::{Request, Response, StatusCode};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};

use super::call::{find_route, record_unrouted, vouch_for_caller, Peer};
use super::head_limit::{HeadLimit, Heads};
use super::http1_call::{own, strip_hop_by_hop, Body, Routed};
use super::state::Triple;
use super::ConnLimits;
use crate::config::ProviderProtocol;

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
