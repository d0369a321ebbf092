//! The response status, the fourth header byte.
//!
//! The codes and names are those of the constants in Java's
//! `org.apache.dubbo.remoting.exchange.Response`. Only [`Status::Ok`] carries a result body;
//! for every other status the body is a single Hessian string, the error message
//! (`ExchangeCodec.encodeResponse` writes it with `writeUTF`).
//!
//! A status this crate does not know is kept as [`Status::Unknown`], never rejected: a proxy
//! must pass it through untouched. `u8 -> Status -> u8` is the identity for all 256 values.

use std::fmt;

/// A response status code.
///
/// Build one from a byte with [`Status::from_u8`] (or `From<u8>`), which never yields
/// `Unknown` for a known code. A hand-made `Unknown(20)` still turns back into the byte 20
/// but does not compare equal to [`Status::Ok`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Status {
    /// 20, `OK`: the body is the result.
    Ok,
    /// 25, `SERIALIZATION_ERROR`: the response could not be serialized (Java also uses it
    /// when the response exceeds the payload limit).
    SerializationError,
    /// 30, `CLIENT_TIMEOUT`: made up by the client when no response came in time.
    ClientTimeout,
    /// 31, `SERVER_TIMEOUT`: the server gave up on the call.
    ServerTimeout,
    /// 35, `CHANNEL_INACTIVE`: made up by the client for calls pending on a closed channel.
    ChannelInactive,
    /// 40, `BAD_REQUEST`: the request could not be decoded.
    BadRequest,
    /// 50, `BAD_RESPONSE`: the response could not be encoded.
    BadResponse,
    /// 60, `SERVICE_NOT_FOUND`.
    ServiceNotFound,
    /// 70, `SERVICE_ERROR`.
    ServiceError,
    /// 80, `SERVER_ERROR`: an internal server error.
    ServerError,
    /// 90, `CLIENT_ERROR`: an internal client error (Java sets it, for example, when a
    /// response exceeds the payload limit).
    ClientError,
    /// 100, `SERVER_THREADPOOL_EXHAUSTED_ERROR`: the server's thread pool is full.
    ServerThreadpoolExhaustedError,
    /// Any other byte, kept as is.
    Unknown(u8),
}

impl Status {
    /// Every status Java's `Response` defines, in code order.
    pub const KNOWN: [Status; 12] = [
        Status::Ok,
        Status::SerializationError,
        Status::ClientTimeout,
        Status::ServerTimeout,
        Status::ChannelInactive,
        Status::BadRequest,
        Status::BadResponse,
        Status::ServiceNotFound,
        Status::ServiceError,
        Status::ServerError,
        Status::ClientError,
        Status::ServerThreadpoolExhaustedError,
    ];

    /// The status for a header byte.
    pub const fn from_u8(code: u8) -> Status {
        match code {
            20 => Status::Ok,
            25 => Status::SerializationError,
            30 => Status::ClientTimeout,
            31 => Status::ServerTimeout,
            35 => Status::ChannelInactive,
            40 => Status::BadRequest,
            50 => Status::BadResponse,
            60 => Status::ServiceNotFound,
            70 => Status::ServiceError,
            80 => Status::ServerError,
            90 => Status::ClientError,
            100 => Status::ServerThreadpoolExhaustedError,
            other => Status::Unknown(other),
        }
    }

    /// The header byte of this status.
    pub const fn as_u8(self) -> u8 {
        match self {
            Status::Ok => 20,
            Status::SerializationError => 25,
            Status::ClientTimeout => 30,
            Status::ServerTimeout => 31,
            Status::ChannelInactive => 35,
            Status::BadRequest => 40,
            Status::BadResponse => 50,
            Status::ServiceNotFound => 60,
            Status::ServiceError => 70,
            Status::ServerError => 80,
            Status::ClientError => 90,
            Status::ServerThreadpoolExhaustedError => 100,
            Status::Unknown(code) => code,
        }
    }

    /// True for [`Status::Ok`] (or `Unknown(20)`), the only status whose body is a result.
    pub const fn is_ok(self) -> bool {
        self.as_u8() == 20
    }

    /// The name of the Java constant (`"OK"`, `"BAD_REQUEST"`, ...), `None` when unknown.
    pub const fn java_name(self) -> Option<&'static str> {
        Some(match Status::from_u8(self.as_u8()) {
            Status::Ok => "OK",
            Status::SerializationError => "SERIALIZATION_ERROR",
            Status::ClientTimeout => "CLIENT_TIMEOUT",
            Status::ServerTimeout => "SERVER_TIMEOUT",
            Status::ChannelInactive => "CHANNEL_INACTIVE",
            Status::BadRequest => "BAD_REQUEST",
            Status::BadResponse => "BAD_RESPONSE",
            Status::ServiceNotFound => "SERVICE_NOT_FOUND",
            Status::ServiceError => "SERVICE_ERROR",
            Status::ServerError => "SERVER_ERROR",
            Status::ClientError => "CLIENT_ERROR",
            Status::ServerThreadpoolExhaustedError => "SERVER_THREADPOOL_EXHAUSTED_ERROR",
            Status::Unknown(_) => return None,
        })
    }
}

impl From<u8> for Status {
    fn from(code: u8) -> Status {
        Status::from_u8(code)
    }
}

impl From<Status> for u8 {
    fn from(status: Status) -> u8 {
        status.as_u8()
    }
}

impl fmt::Display for Status {
    /// `OK (20)`, `BAD_REQUEST (40)`, `unknown status (7)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.java_name() {
            Some(name) => write!(f, "{name} ({})", self.as_u8()),
            None => write!(f, "unknown status ({})", self.as_u8()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_256_bytes_round_trip() {
        for code in 0..=u8::MAX {
            let status = Status::from(code);
            assert_eq!(u8::from(status), code);
            let known = Status::KNOWN.contains(&status);
            assert_eq!(matches!(status, Status::Unknown(_)), !known, "{code}");
            assert_eq!(status.java_name().is_some(), known);
        }
    }

    #[test]
    fn java_values() {
        let expected: [(u8, &str); 12] = [
            (20, "OK"),
            (25, "SERIALIZATION_ERROR"),
            (30, "CLIENT_TIMEOUT"),
            (31, "SERVER_TIMEOUT"),
            (35, "CHANNEL_INACTIVE"),
            (40, "BAD_REQUEST"),
            (50, "BAD_RESPONSE"),
            (60, "SERVICE_NOT_FOUND"),
            (70, "SERVICE_ERROR"),
            (80, "SERVER_ERROR"),
            (90, "CLIENT_ERROR"),
            (100, "SERVER_THREADPOOL_EXHAUSTED_ERROR"),
        ];
        for (status, (code, name)) in Status::KNOWN.iter().zip(expected) {
            assert_eq!(status.as_u8(), code);
            assert_eq!(status.java_name(), Some(name));
        }
    }

    #[test]
    fn display_and_ok() {
        assert_eq!(Status::Ok.to_string(), "OK (20)");
        assert_eq!(Status::from(7).to_string(), "unknown status (7)");
        assert!(Status::Ok.is_ok());
        assert!(Status::Unknown(20).is_ok());
        assert!(!Status::BadRequest.is_ok());
        assert_eq!(Status::Unknown(40).java_name(), Some("BAD_REQUEST"));
    }
}
