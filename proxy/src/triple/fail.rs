//! How a call the pipeline forwards (or bridges) ends when it does not end well: what
//! [`call`](super::call) answers the caller and counts for the endpoint, whichever way the
//! call went ([`to_dubbo`](super::to_dubbo) ends the same ways).

use dubbo_triple::Status;

/// How a forwarded call ended, short of both directions finishing.
pub(super) enum Fail {
    /// The caller reset its stream (or went away).
    CallerGone,
    /// The provider reset its stream with this code.
    ProviderReset(h2::Reason),
    /// The provider's connection failed.
    ProviderFailed(String),
    /// The deadline passed.
    Deadline,
    /// The proxy refused the call itself, before a provider saw it (a bridged call that
    /// cannot cross).
    Refused(Status),
}
