//! Event frames: heartbeats and the graceful-shutdown notices.
//!
//! An event is a frame with [`FLAG_EVENT`](crate::header::FLAG_EVENT) set. Its body is a
//! single serialized value that says which event it is (Java's `CommonConstants`):
//!
//! | event      | Java data                       | Hessian2 body        | sent as                       |
//! |------------|---------------------------------|----------------------|-------------------------------|
//! | heartbeat  | `HEARTBEAT_EVENT = null`        | `N` (`0x4e`)         | two-way request, answered by a response with status OK and the same body |
//! | read-only  | `READONLY_EVENT = "R"`          | `0x01 0x52`          | one-way request from a server that is shutting down: send it no new calls |
//! | writeable  | `WRITEABLE_EVENT = "W"` (3.x)   | `0x01 0x57`          | one-way request: the server takes calls again |
//!
//! Java recognises a heartbeat by comparing the body byte for byte with the serialization's
//! encoding of `null` (`CodecSupport.isHeartBeat`); any other event body is read as a string
//! (`ObjectInput.readEvent` is `readUTF`) after a size check (`deserialization.event.size`,
//! 15 bytes by default). Hessian2 writes a string of one character as its length byte then
//! the UTF-8 (`0x01 'R'`); the long form `S 0x00 0x01 'R'` reads the same and is accepted too.
//!
//! Events in the other serializations this crate reads ([`BodyFormat`]) are recognised the
//! same way: the serialization's `null`, or a string read as `writeUTF` wrote it. An event in
//! a serialization it cannot read is [`Event::Other`] and its body is left to the caller.

use std::borrow::Cow;

use bytes::{Bytes, BytesMut};

use crate::format::{with_format, BodyFormat, Format, Reader, Writer};
use crate::serialization::Serialization;

/// Hessian2 `null`: the body of heartbeat requests and responses.
pub const HEARTBEAT_BODY: &[u8] = b"N";
/// Hessian2 string `"R"`: the body of the read-only event.
pub const READ_ONLY_BODY: &[u8] = &[0x01, b'R'];
/// Hessian2 string `"W"`: the body of the writeable event (Dubbo 3).
pub const WRITEABLE_BODY: &[u8] = &[0x01, b'W'];

/// Which event an event frame carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Event {
    /// A heartbeat (body `null`).
    Heartbeat,
    /// The read-only event `"R"`: the server is going away, stop sending it calls.
    ReadOnly,
    /// The writeable event `"W"`: the server accepts calls again.
    Writeable,
    /// Any other event body, or an event in a serialization other than Hessian2.
    Other,
}

impl Event {
    /// Recognises the event in an event frame's body.
    pub fn classify(serialization: Serialization, body: &[u8]) -> Event {
        if serialization == Serialization::Hessian2 {
            // The common case, without a reader.
            return match body {
                b"N" => Event::Heartbeat,
                [0x01, b'R'] | [b'S', 0x00, 0x01, b'R'] => Event::ReadOnly,
                [0x01, b'W'] | [b'S', 0x00, 0x01, b'W'] => Event::Writeable,
                _ => Event::Other,
            };
        }
        let Some(format) = BodyFormat::of(serialization) else {
            return Event::Other;
        };
        with_format!(format, f => {
            if body == f.null_body() {
                return Event::Heartbeat;
            }
            let mut r = f.reader(body, 0);
            match r.read_utf("event").ok().flatten() {
                Some(s) if r.is_empty() => Event::of_data(&s),
                _ => Event::Other,
            }
        })
    }

    /// The event whose data (`writeUTF`) is `data`.
    fn of_data(data: &str) -> Event {
        match data {
            "R" => Event::ReadOnly,
            "W" => Event::Writeable,
            _ => Event::Other,
        }
    }

    /// The body Java writes for this event in `format`; `None` for [`Event::Other`].
    pub fn body_in(self, format: BodyFormat) -> Option<Bytes> {
        if matches!(format, BodyFormat::Hessian2(_)) {
            return self.hessian2_body().map(Bytes::from_static);
        }
        let data: Option<Cow<'static, str>> = match self {
            Event::Heartbeat => None,
            Event::ReadOnly => Some("R".into()),
            Event::Writeable => Some("W".into()),
            Event::Other => return None,
        };
        Some(with_format!(format, f => match data {
            None => Bytes::from_static(f.null_body()),
            Some(d) => {
                let mut w = f.writer(BytesMut::new());
                w.write_utf(&d);
                Writer::into_inner(w).freeze()
            }
        }))
    }

    /// The Hessian2 body Java writes for this event; `None` for [`Event::Other`].
    pub const fn hessian2_body(self) -> Option<&'static [u8]> {
        match self {
            Event::Heartbeat => Some(HEARTBEAT_BODY),
            Event::ReadOnly => Some(READ_ONLY_BODY),
            Event::Writeable => Some(WRITEABLE_BODY),
            Event::Other => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classify_hessian2_bodies() {
        let h = Serialization::Hessian2;
        for e in [Event::Heartbeat, Event::ReadOnly, Event::Writeable] {
            assert_eq!(Event::classify(h, e.hessian2_body().unwrap()), e);
        }
        assert_eq!(Event::classify(h, &[0x53, 0, 1, b'R']), Event::ReadOnly);
        assert_eq!(Event::classify(h, &[0x01, b'H']), Event::Other);
        assert_eq!(Event::classify(h, b""), Event::Other);
        assert_eq!(Event::classify(h, b"NN"), Event::Other);
        assert_eq!(
            Event::classify(Serialization::Fastjson2, b"N"),
            Event::Other
        );
        assert_eq!(Event::Other.hessian2_body(), None);
    }
}
