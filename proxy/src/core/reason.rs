//! Why the proxy answers a call itself, with the Dubbo status and message it answers with.
//! Its own module because both routing (`route`) and the worker refuse calls with it.

use dubbo_codec::Status;

/// Why the proxy answers a call itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub enum Reason {
    /// No route matched: SERVICE_NOT_FOUND.
    NoRoute,
    /// The cluster has no endpoint that can take the call: SERVICE_ERROR.
    NoUpstream,
    /// The connection to the chosen provider could not be opened: SERVICE_ERROR.
    ConnectFailed,
    /// The provider's connection closed with the call in flight: CHANNEL_INACTIVE.
    UpstreamLost,
    /// No response within the route's timeout: SERVER_TIMEOUT.
    Timeout,
    /// The request body is over the listener's `max_payload`: BAD_REQUEST.
    Oversize,
    /// The request body cannot be read far enough to route it: BAD_REQUEST.
    BadBody,
    /// The provider's response is over the cluster's `max_payload`: BAD_RESPONSE.
    OversizeResponse,
    /// Every connection that could take the call is backed up past the hard cap (its
    /// provider is not reading): SERVER_THREADPOOL_EXHAUSTED_ERROR.
    BackedUp,
    /// The body is in a serialization the proxy cannot read and a route needs something
    /// from it: BAD_REQUEST, as a Java provider answers a serialization it does not have.
    Unreadable,
    /// The call's `path`, `version` or `interface` attachment names another service than
    /// its head (or is not a string), so the provider would dispatch it elsewhere than the
    /// route the head matched: BAD_REQUEST (see `route`).
    Disagrees,
    /// The route's `[routes.access]` rules refuse the caller or the method: SERVICE_ERROR
    /// (see [`Reason::status`]).
    Denied,
    /// The route's `[routes.rate_limit]` bucket is empty: SERVER_THREADPOOL_EXHAUSTED_ERROR,
    /// as a provider too busy to take the call answers.
    RateLimited,
}

impl Reason {
    /// Every reason, in declaration order.
    pub(crate) const ALL: [Reason; 13] = [
        Reason::NoRoute,
        Reason::NoUpstream,
        Reason::ConnectFailed,
        Reason::UpstreamLost,
        Reason::Timeout,
        Reason::Oversize,
        Reason::BadBody,
        Reason::OversizeResponse,
        Reason::BackedUp,
        Reason::Unreadable,
        Reason::Disagrees,
        Reason::Denied,
        Reason::RateLimited,
    ];

    /// The status sent to the caller.
    ///
    /// No provider / connect refused: SERVICE_ERROR (70), what a Java provider answers when
    /// it cannot hand a call to a service: `DubboProtocol.getInvoker` throws
    /// `RemotingException("Not found exported service ...")` and
    /// `HeaderExchangeHandler.handleRequest` turns any exception of dispatch into
    /// `res.setStatus(Response.SERVICE_ERROR)` (apache/dubbo,
    /// dubbo-remoting-api/.../exchange/support/header/HeaderExchangeHandler.java). Java never
    /// puts SERVICE_NOT_FOUND on the wire; the proxy uses it for "no route" only, as the
    /// issue asks (MOSN's Dubbo proxy maps both no-route and no-healthy-upstream to it). A
    /// Java consumer's `DefaultFuture.doReceived` turns every status but OK and the two
    /// timeouts into a `RemotingException` carrying the message, so the consumer sees the
    /// same exception type either way; only SERVER_TIMEOUT becomes a `TimeoutException`.
    ///
    /// A provider connection lost with calls in flight: CHANNEL_INACTIVE (35), what Java's
    /// own client gives its pending calls in `DefaultFuture.closeChannel` ("Channel ... is
    /// inactive. Directly return the unFinished request").
    ///
    /// Every connection to the call's providers backed up (the providers are not reading
    /// what the proxy writes): SERVER_THREADPOOL_EXHAUSTED_ERROR (100), what a Java provider
    /// answers when it cannot take a call now: its dispatcher's thread pool rejects the task
    /// and `AllChannelHandler.received` catches the `RejectedExecutionException` and answers
    /// with `Response.SERVER_THREADPOOL_EXHAUSTED_ERROR` ("Server side(...) thread pool is
    /// exhausted", `WrappedChannelHandler.sendFeedback`, apache/dubbo 2.7,
    /// dubbo-remoting-api/.../transport/dispatcher/).
    /// It says what SERVICE_ERROR does not: the provider is there but overloaded *now*, the
    /// call was not run, and trying again later or on another provider is right (a Java
    /// consumer's failover cluster retries it, as it does any `RemotingException`). The
    /// proxy's own answers never count against the provider's health. A route's rate limit
    /// answers the same: the call was not run, and later it may be.
    ///
    /// Refused by the route's access rules: SERVICE_ERROR (70). Dubbo 2 has no status for
    /// "not allowed"; Java's own access checks (`TokenFilter`'s "Invalid token!", an
    /// `RpcException` thrown in the provider's filter chain) reach the wire through
    /// `HeaderExchangeHandler.handleRequest`, which answers any exception of dispatch with
    /// SERVICE_ERROR and its message. BAD_REQUEST would say the bytes were wrong, which
    /// they are not; the message and `dubbo_proxy_access_denied_total` say what happened.
    pub const fn status(self) -> Status {
        match self {
            Reason::NoRoute => Status::ServiceNotFound,
            Reason::NoUpstream | Reason::ConnectFailed | Reason::Denied => Status::ServiceError,
            Reason::UpstreamLost => Status::ChannelInactive,
            Reason::Timeout => Status::ServerTimeout,
            Reason::Oversize | Reason::BadBody | Reason::Unreadable | Reason::Disagrees => {
                Status::BadRequest
            }
            Reason::OversizeResponse => Status::BadResponse,
            Reason::BackedUp | Reason::RateLimited => Status::ServerThreadpoolExhaustedError,
        }
    }

    /// The error message sent (encoded once per worker, never formatted per call).
    pub const fn message(self) -> &'static str {
        match self {
            Reason::NoRoute => "dubbo-proxy: no route matches this call",
            Reason::NoUpstream => "dubbo-proxy: no healthy provider for this call",
            Reason::ConnectFailed => "dubbo-proxy: cannot connect to the provider",
            Reason::UpstreamLost => {
                "dubbo-proxy: the connection to the provider closed with this call in flight"
            }
            Reason::Timeout => "dubbo-proxy: the provider did not answer in time",
            Reason::Oversize => "dubbo-proxy: request body exceeds the listener's max_payload",
            Reason::BadBody => "dubbo-proxy: cannot read the request body",
            Reason::OversizeResponse => {
                "dubbo-proxy: response body exceeds the cluster's max_payload"
            }
            Reason::BackedUp => {
                "dubbo-proxy: the providers of this call are not reading their requests (every connection is backed up); try again later"
            }
            // The answer names the serialization (see `replies`).
            Reason::Unreadable => "dubbo-proxy: cannot read the request body's serialization",
            Reason::Disagrees => {
                "dubbo-proxy: the call's path, version or interface attachment disagrees with its head"
            }
            Reason::Denied => "dubbo-proxy: the route's access rules do not allow this call",
            Reason::RateLimited => {
                "dubbo-proxy: the route's rate limit is spent; try again later"
            }
        }
    }
}
