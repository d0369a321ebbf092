//! Accepting connections: each counted against `max_connections`, then served in the
//! protocol its first bytes speak (inside TLS on a TLS server).

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};

use super::limits::{Open, TlsRefused};
use super::serve::serve_sniffed;
use super::sniff::{peek_first, Sniffed};
use super::State;

pub(super) async fn accept_loop(listener: TcpListener, state: Arc<State>) {
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                let max = state.limits.max_connections;
                if state.open.load(Ordering::Acquire) >= max {
                    // Closed at once: the caller sees the end of the stream, the open
                    // connections go on.
                    state.counters.refused(peer, max);
                    drop(stream);
                    continue;
                }
                let open = Open::new(&state);
                state.counters.accepted.fetch_add(1, Ordering::Relaxed);
                tokio::spawn(serve_any(stream, peer, state.clone(), open));
            }
            Err(_) => {
                // Out of file descriptors and the like: back off instead of spinning.
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// Serves a connection in the protocol its first bytes speak: Dubbo frames, or (feature
/// `triple`) HTTP/2 for Triple, on the same port as Java 3's `ext-protocol: tri` does; on a
/// TLS server (feature `tls`), the same inside TLS.
async fn serve_any(stream: TcpStream, peer: SocketAddr, state: Arc<State>, open: Open) {
    let _ = stream.set_nodelay(true);
    #[cfg(feature = "tls")]
    if let Some(tls) = state.tls.clone() {
        return super::tls_accept::serve_tls(stream, peer, state, tls, open).await;
    }
    match peek_first(&stream, &state).await {
        Ok(Sniffed::Tls) => state
            .counters
            .tls_refused(peer, TlsRefused::HandshakeOnPlain),
        Ok(sniffed) => serve_sniffed(sniffed, stream, peer, None, state, open).await,
        Err(Some(why)) => state.counters.closed(why, peer, &state.limits),
        Err(None) => {}
    }
}
