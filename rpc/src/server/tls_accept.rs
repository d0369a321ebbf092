//! The TLS door of a server (feature `tls`): the handshake, bounded in time, then the
//! protocol inside, told apart as on a plain port (ALPN `h2` says HTTP/2 at once).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

use super::limits::{Closed, Open, TlsRefused};
use super::prefixed::Prefixed;
use super::serve::serve_sniffed;
use super::sniff::{bounded_sniff, classify, Sniffed, TLS_HANDSHAKE};
use super::{lock, State};
use crate::tls::peer_identity;
use crate::tls::ServerTls;

/// Serves a connection to a TLS server: refused unless it opens with a TLS handshake that
/// finishes within the handshake timeout.
pub(super) async fn serve_tls(
    stream: TcpStream,
    peer: SocketAddr,
    state: Arc<State>,
    tls: ServerTls,
    open: Open,
) {
    let Some(handshaking) = Handshaking::start(&state, peer.ip(), tls.max_handshakes_per_ip())
    else {
        let max = tls.max_handshakes_per_ip();
        return state.counters.tls_refused(peer, TlsRefused::Flood(max));
    };
    let timeout = tls.handshake_timeout();
    let handshake = async {
        let mut first = [0u8; 1];
        match stream.peek(&mut first).await {
            Ok(0) | Err(_) => return Err(None),
            Ok(_) if first[0] != TLS_HANDSHAKE => return Err(Some(TlsRefused::Plaintext)),
            Ok(_) => {}
        }
        TlsAcceptor::from(tls.config().clone())
            .accept(stream)
            .await
            .map_err(|e| Some(TlsRefused::Handshake(e.to_string())))
    };
    let mut stream = match tokio::time::timeout(timeout, handshake).await {
        Ok(Ok(stream)) => stream,
        Ok(Err(Some(why))) => return state.counters.tls_refused(peer, why),
        Ok(Err(None)) => return,
        Err(_) => {
            let ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
            return state
                .counters
                .tls_refused(peer, TlsRefused::HandshakeTimeout(ms));
        }
    };
    drop(handshaking);
    state
        .counters
        .tls_handshakes
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (_, session) = stream.get_ref();
    let identity = peer_identity(session.peer_certificates());
    #[cfg(feature = "triple")]
    if session.alpn_protocol() == Some(b"h2") {
        super::triple::serve_h2(stream, peer, identity, state).await;
        drop(open);
        return;
    }
    match read_first(&mut stream, &state).await {
        Ok((sniffed, seen)) => {
            let stream = Prefixed::new(seen, stream);
            serve_sniffed(sniffed, stream, peer, identity, state, open).await
        }
        Err(Some(why)) => state.counters.closed(why, peer, &state.limits),
        Err(None) => {}
    }
}

/// Reads the first bytes inside TLS (it has no peek) until they tell the protocol; returns
/// them, to be read again.
async fn read_first(
    stream: &mut TlsStream<TcpStream>,
    state: &State,
) -> Result<(Sniffed, Vec<u8>), Option<Closed>> {
    let mut seen = Vec::with_capacity(3);
    let sniffed = bounded_sniff(state, async {
        let mut byte = [0u8; 1];
        loop {
            // One byte at a time: never more than the few the protocol is told by.
            match stream.read(&mut byte).await {
                Ok(0) | Err(_) => return Err(None),
                Ok(_) => seen.push(byte[0]),
            }
            if let Some(sniffed) = classify(&seen) {
                return Ok(sniffed);
            }
        }
    })
    .await?;
    Ok((sniffed, seen))
}

/// One handshake under way from `ip`, counted in `State::handshaking` until dropped.
struct Handshaking<'a> {
    state: &'a State,
    ip: IpAddr,
}

impl<'a> Handshaking<'a> {
    /// `None` when `ip` has `max` under way already.
    fn start(state: &'a State, ip: IpAddr, max: usize) -> Option<Handshaking<'a>> {
        let mut all = lock(&state.handshaking);
        let n = all.entry(ip).or_insert(0);
        if *n >= max {
            return None;
        }
        *n += 1;
        Some(Handshaking { state, ip })
    }
}

impl Drop for Handshaking<'_> {
    fn drop(&mut self) {
        let mut all = lock(&self.state.handshaking);
        if let Some(n) = all.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                all.remove(&self.ip);
            }
        }
    }
}
