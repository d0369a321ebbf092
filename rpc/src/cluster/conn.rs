//! One connection of a cluster's provider, in the protocol chosen for it
//! ([`super::protocol`]): the Dubbo 2 client, or (feature `triple`) the Triple client, with
//! the Dubbo request turned into a Triple call. The cluster's modes, balancing and probes
//! are written once over this.

use std::time::Duration;

use dubbo_codec::request::Request;
use dubbo_codec::response::Response;
use hessian2::value::Value;
use serde::de::DeserializeOwned;

use super::ClusterError;
use crate::client::{CallError, Client, ClientConfig};

/// A provider connection.
#[derive(Debug, Clone)]
pub(super) enum Conn {
    /// The Dubbo 2 protocol.
    Dubbo(Client),
    /// Triple, and the deadline of a call whose request sets no `timeout`.
    #[cfg(feature = "triple")]
    Triple(crate::triple_client::Client, Duration),
}

/// Why one attempt failed, in its protocol's terms.
#[derive(Debug)]
pub(super) enum Failure {
    Dubbo(CallError),
    #[cfg(feature = "triple")]
    Triple(crate::triple_client::TripleError),
}

impl From<CallError> for Failure {
    fn from(e: CallError) -> Failure {
        Failure::Dubbo(e)
    }
}

#[cfg(feature = "triple")]
impl From<crate::triple_client::TripleError> for Failure {
    fn from(e: crate::triple_client::TripleError) -> Failure {
        Failure::Triple(e)
    }
}

#[cfg(feature = "triple")]
impl From<dubbo_codec::BodyError> for Failure {
    fn from(e: dubbo_codec::BodyError) -> Failure {
        Failure::Triple(e.into())
    }
}

impl Conn {
    /// A lazy connection to `addr` in `protocol` (`"tri"` is Triple with feature `triple`;
    /// anything else the Dubbo protocol, which the selector's protocols limit to `dubbo`).
    pub(super) fn new(protocol: &str, addr: String, config: &ClientConfig) -> Conn {
        #[cfg(feature = "triple")]
        if protocol == "tri" {
            let triple = crate::triple_client::ClientConfig::default()
                .connect_timeout(config.connect_timeout);
            return Conn::Triple(
                crate::triple_client::Client::lazy(addr, triple),
                config.timeout,
            );
        }
        let _ = protocol;
        Conn::Dubbo(Client::lazy(addr, config.clone()))
    }

    /// The protocol spoken: `dubbo` or `tri`.
    pub(super) fn protocol(&self) -> &'static str {
        match self {
            Conn::Dubbo(_) => "dubbo",
            #[cfg(feature = "triple")]
            Conn::Triple(..) => "tri",
        }
    }

    /// Whether the provider answers: a heartbeat on the Dubbo protocol, a connection (with
    /// its HTTP/2 handshake) on Triple.
    pub(super) async fn probe(&self, limit: Duration) -> bool {
        match self {
            Conn::Dubbo(c) => matches!(tokio::time::timeout(limit, c.heartbeat()).await, Ok(Ok(_))),
            #[cfg(feature = "triple")]
            Conn::Triple(c, _) => matches!(tokio::time::timeout(limit, c.ready()).await, Ok(Ok(_))),
        }
    }

    /// Calls and reads the result into `T`.
    pub(super) async fn call<T: DeserializeOwned>(&self, req: &Request) -> Result<T, Failure> {
        match self {
            Conn::Dubbo(c) => Ok(c.call::<T>(req).await?),
            #[cfg(feature = "triple")]
            Conn::Triple(c, timeout) => {
                let call = crate::triple_client::TripleCall::from_request(req, *timeout)?;
                Ok(c.call::<T>(&call).await?)
            }
        }
    }

    /// Calls and returns the result as a value.
    pub(super) async fn call_value(&self, req: &Request) -> Result<Value, Failure> {
        match self {
            Conn::Dubbo(c) => Ok(c.call_value(req).await?),
            #[cfg(feature = "triple")]
            Conn::Triple(c, timeout) => {
                let call = crate::triple_client::TripleCall::from_request(req, *timeout)?;
                Ok(c.call_value(&call).await?)
            }
        }
    }

    /// Calls and returns the provider's answer as a Dubbo response (over Triple: the value,
    /// or the exception the provider threw); an error status is a failure.
    pub(super) async fn invoke(&self, req: &Request) -> Result<Response, Failure> {
        match self {
            Conn::Dubbo(c) => match c.invoke(req).await? {
                Response::Error { status, message } => {
                    Err(CallError::Status { status, message }.into())
                }
                ok => Ok(ok),
            },
            #[cfg(feature = "triple")]
            Conn::Triple(c, timeout) => {
                use crate::triple_client::TripleError;
                use dubbo_codec::response::{Outcome, RpcResult};
                let call = crate::triple_client::TripleCall::from_request(req, *timeout)?;
                let outcome = match c.call_value(&call).await {
                    Ok(Value::Null) => Outcome::Null,
                    Ok(v) => Outcome::Value(v),
                    Err(TripleError::Exception(e)) => Outcome::Exception(e.value),
                    Err(e) => return Err(e.into()),
                };
                Ok(Response::Result(RpcResult::new(outcome)))
            }
        }
    }
}

impl Failure {
    /// The provider could not be connected to (it is taken out until a probe answers).
    pub(super) fn unreachable(&self) -> bool {
        match self {
            Failure::Dubbo(e) => matches!(
                e,
                CallError::Connect { .. } | CallError::ConnectTimeout { .. }
            ),
            #[cfg(feature = "triple")]
            Failure::Triple(e) => {
                use crate::triple_client::TripleError;
                matches!(
                    e,
                    TripleError::Connect { .. } | TripleError::ConnectTimeout { .. }
                )
            }
        }
    }

    /// Another provider may answer where this one failed (Java retries every
    /// `RpcException` but the provider's own exceptions; a request that cannot be written
    /// fails everywhere).
    pub(super) fn retryable(&self) -> bool {
        match self {
            Failure::Dubbo(e) => matches!(
                e,
                CallError::Connect { .. }
                    | CallError::ConnectTimeout { .. }
                    | CallError::Closed(_)
                    | CallError::Timeout { .. }
                    | CallError::Status { .. }
            ),
            #[cfg(feature = "triple")]
            Failure::Triple(e) => {
                use crate::triple_client::TripleError;
                !matches!(e, TripleError::Exception(_) | TripleError::Body(_))
            }
        }
    }

    /// The cluster's error for this failure at `provider`.
    pub(super) fn at(self, provider: std::net::SocketAddr) -> ClusterError {
        match self {
            Failure::Dubbo(source) => ClusterError::Call { provider, source },
            #[cfg(feature = "triple")]
            Failure::Triple(source) => ClusterError::Triple { provider, source },
        }
    }
}
