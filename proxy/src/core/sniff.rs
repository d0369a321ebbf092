//! Which protocol a caller's connection speaks, told from its first bytes.
//!
//! One listener serves both of Dubbo's protocols, as Java Dubbo 3.3's `ext-protocol: tri`
//! port does, so the first bytes of a connection decide its pipeline:
//!
//! ```text
//! da bb ...                               Dubbo 2: every frame starts with the magic 0xdabb
//! PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n        HTTP/2 client preface (RFC 9113 §3.4), 24 bytes:
//!                                         Triple (gRPC) over h2c, prior knowledge
//! POST /svc/method HTTP/1.1\r\n           HTTP/1.1 request line (3.3 serves Triple there too)
//! ```
//!
//! The answer is known after at most 24 bytes. Until then a connection whose bytes are a
//! strict prefix of some protocol's opening is [`Sniff::NeedMore`]: the engine keeps reading
//! (the worker's `first_frame_timeout` bounds the wait, as for a Dubbo frame that stalls).
//! Bytes that can begin none of them are [`Sniff::Unknown`]: closed, and counted.

/// The HTTP/2 client connection preface.
pub const H2_PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Dubbo 2's magic, the first two bytes of every frame.
const DUBBO_MAGIC: [u8; 2] = [0xda, 0xbb];

/// The request methods an HTTP/1.1 Triple caller may start with, each with the space that
/// ends it (RFC 9112 §3: `method SP request-target SP HTTP-version`).
const HTTP1_METHODS: [&[u8]; 7] = [
    b"POST ",
    b"GET ",
    b"PUT ",
    b"HEAD ",
    b"OPTIONS ",
    b"DELETE ",
    b"PATCH ",
];

/// What the first bytes of a connection say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sniff {
    /// Dubbo 2 frames.
    Dubbo,
    /// An HTTP/2 client preface: Triple (or plain gRPC).
    Http2,
    /// An HTTP/1.1 request line.
    Http1,
    /// Too few bytes to tell yet.
    NeedMore,
    /// Neither protocol: the connection is to be closed.
    Unknown,
}

/// `seen` opens `opening`, or is a strict prefix of it: `Some(true)` when all of `opening`
/// is there, `Some(false)` when more bytes are needed, `None` when it cannot be it.
fn opens(seen: &[u8], opening: &[u8]) -> Option<bool> {
    let n = seen.len().min(opening.len());
    (seen[..n] == opening[..n]).then_some(n == opening.len())
}

/// Tells a connection's protocol from the bytes read from it so far.
pub fn sniff(seen: &[u8]) -> Sniff {
    if seen.is_empty() {
        return Sniff::NeedMore;
    }
    // One byte of a magic is a prefix; the second tells.
    match opens(seen, &DUBBO_MAGIC) {
        Some(true) => return Sniff::Dubbo,
        Some(false) => return Sniff::NeedMore,
        None => {}
    }
    // "PRI " is also how an HTTP/1.1 method could start; the preface is checked first and
    // whole, so "PRI * HTTP/2.0" with a wrong tail is Unknown rather than HTTP/1.1.
    let mut more = false;
    match opens(seen, H2_PREFACE) {
        Some(true) => return Sniff::Http2,
        Some(false) => more = true,
        None => {}
    }
    for method in HTTP1_METHODS {
        match opens(seen, method) {
            Some(true) => return Sniff::Http1,
            Some(false) => more = true,
            None => {}
        }
    }
    if more {
        Sniff::NeedMore
    } else {
        Sniff::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_each_protocol() {
        assert_eq!(sniff(&[0xda, 0xbb, 0xc2, 0]), Sniff::Dubbo);
        assert_eq!(sniff(&[0xda, 0xbb]), Sniff::Dubbo);
        let mut h2 = H2_PREFACE.to_vec();
        assert_eq!(sniff(&h2), Sniff::Http2);
        h2.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 0, 0]); // SETTINGS after it
        assert_eq!(sniff(&h2), Sniff::Http2);
        assert_eq!(
            sniff(b"POST /a.B/c HTTP/1.1\r\nhost: x\r\n\r\n"),
            Sniff::Http1
        );
        assert_eq!(sniff(b"GET / HTTP/1.1\r\n"), Sniff::Http1);
    }

    #[test]
    fn every_strict_prefix_needs_more() {
        let openings: [&[u8]; 3] = [&DUBBO_MAGIC, H2_PREFACE, b"POST /x HTTP/1.1\r\n"];
        for whole in openings {
            let decided = sniff(whole);
            assert_ne!(decided, Sniff::NeedMore);
            // Up to the byte that decides: the magic's 2, the preface's 24, "POST "'s 5.
            let decisive = match decided {
                Sniff::Dubbo => 2,
                Sniff::Http2 => 24,
                _ => 5,
            };
            for n in 0..decisive {
                assert_eq!(sniff(&whole[..n]), Sniff::NeedMore, "{:?}", &whole[..n]);
            }
        }
        for method in HTTP1_METHODS {
            for n in 0..method.len() {
                assert_eq!(sniff(&method[..n]), Sniff::NeedMore, "{:?}", &method[..n]);
            }
            assert_eq!(sniff(method), Sniff::Http1);
        }
    }

    #[test]
    fn garbage_is_unknown() {
        assert_eq!(sniff(b"\x16\x03\x01\x02\x00"), Sniff::Unknown); // a TLS ClientHello
        assert_eq!(sniff(&[0xda, 0xbc]), Sniff::Unknown);
        assert_eq!(sniff(b"hello"), Sniff::Unknown);
        assert_eq!(sniff(b"PRI * HTTP/1.0\r\n"), Sniff::Unknown);
        assert_eq!(sniff(b"POSTX"), Sniff::Unknown);
        assert_eq!(sniff(b"get / HTTP/1.1"), Sniff::Unknown);
        assert_eq!(sniff(&[0]), Sniff::Unknown);
    }

    #[test]
    fn never_panics_on_any_short_input() {
        for a in 0..=255u8 {
            for b in [0u8, 0xbb, b' ', b'R', 255] {
                let _ = sniff(&[a]);
                let _ = sniff(&[a, b]);
            }
        }
    }
}
