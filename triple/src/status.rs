//! How a call ends: `grpc-status` and `grpc-message`.
//!
//! Every call, unary or streaming, ends with a status, normally in the trailers (the last
//! HEADERS frame of the response stream, with END_STREAM): `grpc-status` is a decimal
//! [`Code`], `grpc-message` a human-readable description, percent-encoded because header
//! values are ASCII. A call that fails before any response message may answer with the
//! status in its only HEADERS frame ("trailers-only"). Java Dubbo writes the same two
//! headers, and adds `tri-exception-code` when a business exception travels as a message
//! instead (see [`crate::metadata`]).

use std::borrow::Cow;
use std::fmt;

/// `grpc-status`: the call's [`Code`], in trailers.
pub const GRPC_STATUS: &str = "grpc-status";
/// `grpc-message`: the status's description, percent-encoded.
pub const GRPC_MESSAGE: &str = "grpc-message";

/// A gRPC status code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Code {
    /// 0: not an error.
    Ok,
    /// 1: the caller cancelled the call.
    Cancelled,
    /// 2: an error with no better code (Java Dubbo: an unexpected server exception).
    Unknown,
    /// 3: the caller's arguments are wrong whatever the server's state.
    InvalidArgument,
    /// 4: the deadline passed before the call completed.
    DeadlineExceeded,
    /// 5: the entity asked for does not exist.
    NotFound,
    /// 6: the entity to create already exists.
    AlreadyExists,
    /// 7: the caller may not do this.
    PermissionDenied,
    /// 8: a resource ran out (a message over the size limit, a quota, ...).
    ResourceExhausted,
    /// 9: the system is not in the state the call needs.
    FailedPrecondition,
    /// 10: aborted by a concurrency conflict.
    Aborted,
    /// 11: past the valid range.
    OutOfRange,
    /// 12: the service or method is not served here.
    Unimplemented,
    /// 13: an invariant broke (a message that cannot be read, ...).
    Internal,
    /// 14: the service cannot be reached now; retrying may help.
    Unavailable,
    /// 15: data was lost or corrupted.
    DataLoss,
    /// 16: the caller has no valid credentials.
    Unauthenticated,
}

impl Code {
    const ALL: [Code; 17] = [
        Code::Ok,
        Code::Cancelled,
        Code::Unknown,
        Code::InvalidArgument,
        Code::DeadlineExceeded,
        Code::NotFound,
        Code::AlreadyExists,
        Code::PermissionDenied,
        Code::ResourceExhausted,
        Code::FailedPrecondition,
        Code::Aborted,
        Code::OutOfRange,
        Code::Unimplemented,
        Code::Internal,
        Code::Unavailable,
        Code::DataLoss,
        Code::Unauthenticated,
    ];

    /// The code's number.
    pub const fn as_i32(self) -> i32 {
        self as i32
    }

    /// The code of a number; an unknown number is [`Code::Unknown`], as gRPC reads it.
    pub fn from_i32(n: i32) -> Code {
        usize::try_from(n)
            .ok()
            .and_then(|i| Code::ALL.get(i).copied())
            .unwrap_or(Code::Unknown)
    }

    /// The code of a `grpc-status` header value; `None` when it is not a decimal number.
    pub fn from_header(value: &[u8]) -> Option<Code> {
        let s = std::str::from_utf8(value).ok()?;
        s.parse::<i32>().ok().map(Code::from_i32)
    }

    /// The `grpc-status` header value.
    pub fn header_value(self) -> &'static str {
        const VALUES: [&str; 17] = [
            "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15",
            "16",
        ];
        VALUES[self as usize]
    }

    /// The status a caller reports when the response is not gRPC at all (an HTTP status
    /// other than 200, say from a proxy), as the gRPC spec maps them.
    pub fn from_http_status(status: u16) -> Code {
        match status {
            400 => Code::Internal,
            401 => Code::Unauthenticated,
            403 => Code::PermissionDenied,
            404 => Code::Unimplemented,
            429 | 502..=504 => Code::Unavailable,
            _ => Code::Unknown,
        }
    }

    /// The code for a Dubbo protocol response status (the fourth byte of a Dubbo response's
    /// header: 20 OK, 30/31 client/server timeout, 35 channel inactive, 40 bad request, 60
    /// service not found, 70 service error, 100 thread pool exhausted; anything else is an
    /// internal error): how a call answered in Dubbo's terms is told to a Triple caller.
    pub fn from_dubbo_status(status: u8) -> Code {
        match status {
            20 => Code::Ok,
            30 | 31 => Code::DeadlineExceeded,
            35 => Code::Unavailable,
            40 => Code::InvalidArgument,
            60 => Code::Unimplemented,
            70 => Code::Unknown,
            100 => Code::ResourceExhausted,
            _ => Code::Internal,
        }
    }

    /// The Dubbo protocol response status a Dubbo caller gets for a call that ended with this
    /// code (see [`Code::from_dubbo_status`]): 20 OK, 31 server timeout, 40 bad request, 60
    /// service not found, 70 service error (`UNKNOWN`), 100 thread pool exhausted, 80 server
    /// error for the rest.
    pub fn to_dubbo_status(self) -> u8 {
        match self {
            Code::Ok => 20,
            Code::DeadlineExceeded => 31,
            Code::InvalidArgument => 40,
            Code::Unimplemented => 60,
            Code::Unknown => 70,
            Code::ResourceExhausted => 100,
            _ => 80,
        }
    }

    /// The name gRPC gives the code (`"UNIMPLEMENTED"`).
    pub fn name(self) -> &'static str {
        match self {
            Code::Ok => "OK",
            Code::Cancelled => "CANCELLED",
            Code::Unknown => "UNKNOWN",
            Code::InvalidArgument => "INVALID_ARGUMENT",
            Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
            Code::NotFound => "NOT_FOUND",
            Code::AlreadyExists => "ALREADY_EXISTS",
            Code::PermissionDenied => "PERMISSION_DENIED",
            Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
            Code::FailedPrecondition => "FAILED_PRECONDITION",
            Code::Aborted => "ABORTED",
            Code::OutOfRange => "OUT_OF_RANGE",
            Code::Unimplemented => "UNIMPLEMENTED",
            Code::Internal => "INTERNAL",
            Code::Unavailable => "UNAVAILABLE",
            Code::DataLoss => "DATA_LOSS",
            Code::Unauthenticated => "UNAUTHENTICATED",
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A call's end: a code and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// The code.
    pub code: Code,
    /// The description (`grpc-message`, decoded), empty for none.
    pub message: String,
}

impl Status {
    /// A status with a code and a message.
    pub fn new(code: Code, message: impl Into<String>) -> Status {
        Status {
            code,
            message: message.into(),
        }
    }

    /// `OK`, no message.
    pub fn ok() -> Status {
        Status::new(Code::Ok, "")
    }

    /// True for `OK`.
    pub fn is_ok(&self) -> bool {
        self.code == Code::Ok
    }

    /// The status of trailers: `grpc-status` and `grpc-message`. Trailers without a
    /// `grpc-status` are `None`.
    pub fn from_headers(headers: &http::HeaderMap) -> Option<Status> {
        let code = match headers.get(GRPC_STATUS) {
            Some(v) => Code::from_header(v.as_bytes()).unwrap_or(Code::Unknown),
            None => return None,
        };
        let message = headers
            .get(GRPC_MESSAGE)
            .map(|v| decode_message(v.as_bytes()))
            .unwrap_or_default();
        Some(Status { code, message })
    }

    /// Writes `grpc-status` and (when there is one) `grpc-message` into `headers`.
    pub fn write_headers(&self, headers: &mut http::HeaderMap) {
        headers.insert(
            GRPC_STATUS,
            http::HeaderValue::from_static(self.code.header_value()),
        );
        if !self.message.is_empty() {
            let encoded = encode_message(&self.message);
            if let Ok(v) = http::HeaderValue::from_str(&encoded) {
                headers.insert(GRPC_MESSAGE, v);
            }
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            write!(f, "{}", self.code)
        } else {
            write!(f, "{}: {}", self.code, self.message)
        }
    }
}

impl std::error::Error for Status {}

/// Percent-encodes a `grpc-message`: the UTF-8 bytes outside printable ASCII, and `%`
/// itself, as `%XX` (what gRPC and Java Dubbo write).
pub fn encode_message(message: &str) -> Cow<'_, str> {
    let plain = |b: u8| (0x20..=0x7e).contains(&b) && b != b'%';
    if message.bytes().all(plain) {
        return Cow::Borrowed(message);
    }
    let mut out = String::with_capacity(message.len() + 16);
    for b in message.bytes() {
        if plain(b) {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(char::from(b"0123456789ABCDEF"[usize::from(b >> 4)]));
            out.push(char::from(b"0123456789ABCDEF"[usize::from(b & 15)]));
        }
    }
    Cow::Owned(out)
}

/// Decodes a `grpc-message`: `%XX` sequences become bytes, anything that is not a valid one
/// is kept as it is, and bytes that are not UTF-8 become U+FFFD (the spec's lenient reading).
pub fn decode_message(value: &[u8]) -> String {
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(value.len());
    let mut i = 0;
    while i < value.len() {
        if value[i] == b'%' && i + 2 < value.len() {
            if let (Some(h), Some(l)) = (hex(value[i + 1]), hex(value[i + 2])) {
                out.push(h << 4 | l);
                i += 3;
                continue;
            }
        }
        out.push(value[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dubbo_statuses_map_both_ways() {
        for code in Code::ALL {
            let status = code.to_dubbo_status();
            // Every code Dubbo has a status of its own for comes back as itself.
            if status != 80 {
                assert_eq!(Code::from_dubbo_status(status), code, "{code}");
            }
        }
        assert_eq!(Code::from_dubbo_status(30), Code::DeadlineExceeded);
        assert_eq!(Code::from_dubbo_status(35), Code::Unavailable);
        assert_eq!(Code::from_dubbo_status(90), Code::Internal);
    }
    use proptest::prelude::*;

    #[test]
    fn codes_read_back_from_their_numbers() {
        for c in Code::ALL {
            assert_eq!(Code::from_i32(c.as_i32()), c);
            assert_eq!(Code::from_header(c.header_value().as_bytes()), Some(c));
        }
        assert_eq!(Code::from_i32(17), Code::Unknown);
        assert_eq!(Code::from_i32(-1), Code::Unknown);
        assert_eq!(Code::from_header(b"x"), None);
    }

    #[test]
    fn messages_are_percent_encoded_as_grpc_does() {
        assert_eq!(encode_message("plain text"), "plain text");
        assert_eq!(encode_message("50% ✓\n"), "50%25 %E2%9C%93%0A");
        assert_eq!(decode_message(b"50%25 %E2%9C%93%0A"), "50% ✓\n");
        // Not a valid escape: kept.
        assert_eq!(decode_message(b"100%"), "100%");
        assert_eq!(decode_message(b"%zz%4"), "%zz%4");
        // Not UTF-8 once decoded: replaced.
        assert_eq!(decode_message(b"%FF"), "\u{fffd}");
    }

    #[test]
    fn trailers_carry_the_status() {
        let mut h = http::HeaderMap::new();
        let s = Status::new(Code::Unimplemented, "no method ✗");
        s.write_headers(&mut h);
        assert_eq!(h["grpc-status"], "12");
        assert_eq!(Status::from_headers(&h), Some(s));
        assert_eq!(Status::from_headers(&http::HeaderMap::new()), None);
    }

    proptest! {
        #[test]
        fn any_message_round_trips(s in any::<String>()) {
            let e = encode_message(&s);
            prop_assert!(http::HeaderValue::from_str(&e).is_ok());
            prop_assert_eq!(decode_message(e.as_bytes()), s);
        }
    }
}
