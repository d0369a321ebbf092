//! A call of the HTTP/1.1 form once routed, and what its answers are made of: shared by the
//! forwarding path ([`super::http1`]) and the bridge to Dubbo-only providers
//! ([`super::json_bridge`]).

use std::time::Instant;

use bytes::Bytes;
use dubbo_codec::Status as DubboStatus;
use http::{HeaderMap, Response, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};

use super::call::record;
use super::state::Triple;
use super::upstream::Chosen;
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
