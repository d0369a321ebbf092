//! What a connection's first bytes speak: Dubbo frames, HTTP/2's preface, an HTTP/1.1
//! request line, or a TLS handshake; told by peeking, within the first-frame timeout.

use std::time::Duration;

use tokio::net::TcpStream;

use super::limits::{enabled, Closed};
use super::State;

/// The first byte of a TLS handshake record (a ClientHello): never the first of a Dubbo
/// frame (magic `0xdabb`) nor of an HTTP request.
pub(super) const TLS_HANDSHAKE: u8 = 0x16;

/// What a connection's first bytes speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sniffed {
    /// Dubbo frames (or bytes the Dubbo reader refuses).
    Dubbo,
    /// HTTP/2: its preface, `PRI * HTTP/2.0`.
    #[cfg(feature = "triple")]
    Http2,
    /// HTTP/1.1: a request line, `POST /...`.
    #[cfg(feature = "triple")]
    Http1,
    /// A TLS handshake.
    Tls,
}

/// What `seen` (at least one byte) speaks, or `None` when more bytes are needed to tell.
pub(super) fn classify(seen: &[u8]) -> Option<Sniffed> {
    let first = *seen.first()?;
    if first == TLS_HANDSHAKE {
        return Some(Sniffed::Tls);
    }
    if !first.is_ascii_uppercase() {
        // Dubbo's magic 0xdabb, or not a protocol at all.
        return Some(Sniffed::Dubbo);
    }
    #[cfg(feature = "triple")]
    {
        use super::triple::H2_PREFACE_START;
        if !H2_PREFACE_START.starts_with(seen) {
            return Some(Sniffed::Http1);
        }
        // "P" or "PR": HTTP/2's preface or a POST / PUT.
        (seen.len() >= H2_PREFACE_START.len()).then_some(Sniffed::Http2)
    }
    #[cfg(not(feature = "triple"))]
    Some(Sniffed::Dubbo)
}

/// Peeks (does not read) the first bytes of a connection. An error when the caller sent
/// nothing in the first-frame timeout (`Some`) or closed (`None`).
pub(super) async fn peek_first(
    stream: &TcpStream,
    state: &State,
) -> Result<Sniffed, Option<Closed>> {
    bounded_sniff(state, async {
        let mut first = [0u8; 3];
        loop {
            let n = stream.peek(&mut first).await.map_err(|_| None)?;
            if n == 0 {
                return Err(None);
            }
            if let Some(sniffed) = classify(&first[..n]) {
                return Ok(sniffed);
            }
            // Wait for more without spinning.
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    })
    .await
}

/// `sniff` bounded by the first-frame timeout, and given up for the Dubbo protocol when the
/// server shuts down meanwhile.
pub(super) async fn bounded_sniff(
    state: &State,
    sniff: impl std::future::Future<Output = Result<Sniffed, Option<Closed>>>,
) -> Result<Sniffed, Option<Closed>> {
    let sniff = async {
        match enabled(state.limits.first_frame_timeout) {
            Some(t) => tokio::time::timeout(t, sniff)
                .await
                .unwrap_or(Err(Some(Closed::NoFrame))),
            None => sniff.await,
        }
    };
    // A caller that connects and says nothing is a Dubbo consumer waiting to call (HTTP
    // clients speak first): when the server shuts down meanwhile, it is told so as one.
    let mut read_only = state.read_only.clone();
    tokio::select! {
        sniffed = sniff => sniffed,
        _ = read_only.wait_for(|r| *r) => Ok(Sniffed::Dubbo),
    }
}
