//! A connection whose protocol was told, handed to that protocol's server.

use std::net::SocketAddr;
use std::sync::Arc;

use super::connection::serve_conn;
use super::limits::Open;
use super::sniff::Sniffed;
use super::split::Split;
use super::State;
use crate::identity::PeerIdentity;

/// Serves a connection whose protocol was told, with the identity its TLS handshake proved.
pub(super) async fn serve_sniffed<S: Split>(
    sniffed: Sniffed,
    stream: S,
    peer: SocketAddr,
    identity: Option<PeerIdentity>,
    state: Arc<State>,
    open: Open,
) {
    match sniffed {
        #[cfg(feature = "triple")]
        Sniffed::Http2 => super::triple::serve_h2(stream, peer, identity, state).await,
        #[cfg(feature = "triple")]
        Sniffed::Http1 => super::http1::serve_http1(stream, peer, identity, state).await,
        // A TLS record inside TLS is not a Dubbo frame: the reader closes on its magic.
        Sniffed::Dubbo | Sniffed::Tls => {
            let (r, w) = stream.split();
            serve_conn(r, w, peer, identity, state, open).await
        }
    }
    // `open` (HTTP) drops here, when the connection is done.
}
