//! The admin endpoint's request reader, sans I/O: the request line and headers of one
//! HTTP/1.1 request, with the limits that keep a client from holding memory, and the `Host`
//! check that keeps a web page from reaching the endpoint.
//!
//! Why the `Host` check: the endpoint listens on loopback only, but a browser on the same
//! machine can be made to send requests to it by a page whose host name resolves to
//! 127.0.0.1 (DNS rebinding). Such a request carries the page's host name in `Host`; a
//! request whose `Host` is not a loopback address or `localhost` is refused (421), so no page
//! can read `/config` or switch anything. Tools that send no `Host` (HTTP/1.0) are served.

use std::net::IpAddr;

/// Longest request line and headers, in bytes.
pub const MAX_HEAD: usize = 16 * 1024;
/// Longest body, in bytes.
pub const MAX_BODY: usize = 64 * 1024;

/// A request's head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestHead {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The request target: path and query.
    pub target: String,
    /// The body's length (`Content-Length`, 0 when absent).
    pub content_length: usize,
    /// Bytes of the head, through the blank line: the body starts there.
    pub head_len: usize,
}

/// Why a request is refused, with its HTTP status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// No blank line within [`MAX_HEAD`] bytes.
    #[error("request head too large")]
    HeadTooLarge,
    /// The request line is not `METHOD TARGET HTTP/1.x`, or a header line has no `:`.
    #[error("malformed request")]
    Malformed,
    /// `Content-Length` is not a number.
    #[error("bad Content-Length")]
    BadContentLength,
    /// `Content-Length` over [`MAX_BODY`].
    #[error("body too large")]
    BodyTooLarge,
    /// `Host` names something other than this machine's loopback.
    #[error("Host {0:?} is not a loopback address or localhost")]
    ForeignHost(String),
}

impl RequestError {
    /// The HTTP status answered.
    pub fn status(&self) -> u16 {
        match self {
            RequestError::HeadTooLarge => 431,
            RequestError::Malformed | RequestError::BadContentLength => 400,
            RequestError::BodyTooLarge => 413,
            RequestError::ForeignHost(_) => 421,
        }
    }
}

/// Reads the head at the start of `buf`: `Ok(None)` until the blank line that ends it has
/// arrived (and `buf` is still under [`MAX_HEAD`]).
pub fn parse_head(buf: &[u8]) -> Result<Option<RequestHead>, RequestError> {
    let Some(end) = memchr::memmem::find(buf, b"\r\n\r\n") else {
        return if buf.len() > MAX_HEAD {
            Err(RequestError::HeadTooLarge)
        } else {
            Ok(None)
        };
    };
    let head_len = end + 4;
    if head_len > MAX_HEAD {
        return Err(RequestError::HeadTooLarge);
    }
    let head = std::str::from_utf8(&buf[..end]).map_err(|_| RequestError::Malformed)?;
    let mut lines = head.split("\r\n");
    let mut parts = lines.next().unwrap_or_default().split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(RequestError::Malformed);
    };
    if method.is_empty() || !target.starts_with('/') || !version.starts_with("HTTP/1.") {
        return Err(RequestError::Malformed);
    }
    let mut content_length = 0;
    for line in lines {
        let (name, value) = line.split_once(':').ok_or(RequestError::Malformed)?;
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            content_length = value.parse().map_err(|_| RequestError::BadContentLength)?;
            if content_length > MAX_BODY {
                return Err(RequestError::BodyTooLarge);
            }
        } else if name.eq_ignore_ascii_case("host") && !is_loopback_host(value) {
            return Err(RequestError::ForeignHost(value.to_owned()));
        }
    }
    Ok(Some(RequestHead {
        method: method.to_owned(),
        target: target.to_owned(),
        content_length,
        head_len,
    }))
}

/// `localhost`, a loopback IPv4 address or `[::1]`, each with an optional `:port`.
fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        // `[v6]` or `[v6]:port`
        Some(rest) => match rest.split_once(']') {
            Some((v6, port)) if port.is_empty() || is_port(port) => v6,
            _ => return false,
        },
        None => match host.rsplit_once(':') {
            Some((name, port)) if is_port(port) => name,
            Some(_) => return false,
            None => host,
        },
    };
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// `:PORT`, or `PORT` after `rsplit_once(':')`.
fn is_port(s: &str) -> bool {
    s.strip_prefix(':').unwrap_or(s).parse::<u16>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(text: &str) -> Result<Option<RequestHead>, RequestError> {
        parse_head(text.as_bytes())
    }

    #[test]
    fn a_request_head_and_its_body_length() {
        let text = "POST /metadata?path=a HTTP/1.1\r\nHost: 127.0.0.1:20882\r\ncontent-length: 7\r\n\r\npath=b";
        let h = head(text).unwrap().unwrap();
        assert_eq!(h.method, "POST");
        assert_eq!(h.target, "/metadata?path=a");
        assert_eq!(h.content_length, 7);
        assert_eq!(&text[h.head_len..], "path=b");
        // Every strict prefix of the head is incomplete.
        for cut in 0..h.head_len {
            assert_eq!(head(&text[..cut]), Ok(None), "{cut}");
        }
    }

    #[test]
    fn only_loopback_hosts_are_served() {
        for ok in [
            "localhost",
            "LOCALHOST:20882",
            "127.0.0.1",
            "127.1.2.3:9",
            "[::1]",
            "[::1]:20882",
        ] {
            let text = format!("GET /config HTTP/1.1\r\nHost: {ok}\r\n\r\n");
            assert!(head(&text).unwrap().is_some(), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:20882",
            "localhost.evil.example",
            "10.0.0.1:20882",
            "0.0.0.0",
            "[::2]:1",
            "127.0.0.1:http",
            "[::1]x",
        ] {
            let text = format!("GET /config HTTP/1.1\r\nHost: {bad}\r\n\r\n");
            assert_eq!(
                head(&text),
                Err(RequestError::ForeignHost(bad.to_owned())),
                "{bad}"
            );
            assert_eq!(RequestError::ForeignHost(String::new()).status(), 421);
        }
        // No Host at all (HTTP/1.0 tools): served.
        assert!(head("GET /metrics HTTP/1.0\r\n\r\n").unwrap().is_some());
    }

    #[test]
    fn limits_and_malformed_heads_are_refused() {
        let long = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(MAX_HEAD));
        assert_eq!(head(&long), Err(RequestError::HeadTooLarge));
        assert_eq!(
            parse_head(&vec![b'a'; MAX_HEAD + 1]),
            Err(RequestError::HeadTooLarge)
        );
        let big = format!(
            "POST /metadata HTTP/1.1\r\nContent-Length: {}\r\n\r\n",
            MAX_BODY + 1
        );
        assert_eq!(head(&big), Err(RequestError::BodyTooLarge));
        assert_eq!(
            head("POST /m HTTP/1.1\r\nContent-Length: -1\r\n\r\n"),
            Err(RequestError::BadContentLength)
        );
        for bad in [
            "GET\r\n\r\n",
            "GET /x\r\n\r\n",
            "GET x HTTP/1.1\r\n\r\n",
            "GET /x SPDY/3\r\n\r\n",
            "GET /x HTTP/1.1 extra\r\n\r\n",
            "GET /x HTTP/1.1\r\nno colon\r\n\r\n",
        ] {
            assert_eq!(head(bad), Err(RequestError::Malformed), "{bad:?}");
        }
        assert_eq!(
            parse_head(b"GET /\xff HTTP/1.1\r\n\r\n"),
            Err(RequestError::Malformed)
        );
    }
}
