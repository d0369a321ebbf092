//! A whole frame: the header and its still-serialized body.
//!
//! Dubbo 2 has four kinds of frames, told apart by the flag byte (and, for events, by the
//! body):
//!
//! * a **request** (`FLAG_REQUEST`), two-way (`FLAG_TWO_WAY`, the caller waits for the
//!   response with the same request id) or one-way (no response is ever sent, not even on
//!   error);
//! * a **response** (no `FLAG_REQUEST`), whose status byte says whether the body is a result
//!   ([`Status::Ok`]) or an error message;
//! * an **event request** or **event response** (`FLAG_EVENT`): heartbeats, and the
//!   read-only / writeable notices of a server's graceful shutdown; see [`crate::event`].
//!
//! The body is kept as [`Bytes`]: decoding a frame never copies it, and building one from a
//! body someone else serialized (a proxy forwarding a call) does not either.

use bytes::{BufMut, Bytes};

use crate::error::EncodeError;
use crate::event::{Event, HEARTBEAT_BODY, READ_ONLY_BODY, WRITEABLE_BODY};
use crate::format::BodyFormat;
use crate::header::Header;
use crate::serialization::Serialization;
use crate::status::Status;

/// What a frame is, from its flag byte and, for events, its body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameKind {
    /// A two-way call: answer it with a response carrying the same request id.
    Request,
    /// A one-way call: never answer it.
    OneWayRequest,
    /// A response to a call; see the header's status.
    Response,
    /// An event request (`Event::Heartbeat` is answered when the request is two-way).
    EventRequest(Event),
    /// An event response (in practice, a heartbeat's answer).
    EventResponse(Event),
}

/// A frame: header and body.
///
/// The header's body length always equals the body's length (for bodies up to `u32::MAX`
/// bytes; a longer body cannot be encoded, see [`Frame::encode`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    header: Header,
    body: Bytes,
}

impl Frame {
    /// A frame from a header and a body; the header's body length is set from the body.
    pub fn new(header: Header, body: Bytes) -> Frame {
        let len = u32::try_from(body.len()).unwrap_or(u32::MAX);
        Frame {
            header: header.with_body_len(len),
            body,
        }
    }

    /// A call (not an event). `body` is the serialized invocation.
    pub fn request(
        request_id: u64,
        serialization: Serialization,
        two_way: bool,
        body: Bytes,
    ) -> Frame {
        Frame::new(Header::request(request_id, serialization, two_way), body)
    }

    /// A response. `body` is the serialized result, or for a status other than OK the
    /// serialized error message.
    pub fn response(
        request_id: u64,
        serialization: Serialization,
        status: Status,
        body: Bytes,
    ) -> Frame {
        Frame::new(Header::response(request_id, serialization, status), body)
    }

    /// The heartbeat Java's `HeartbeatTimerTask` sends: a two-way Hessian2 event request
    /// whose body is `null`.
    pub fn heartbeat_request(request_id: u64) -> Frame {
        Frame::new(
            Header::request(request_id, Serialization::Hessian2, true).with_event(true),
            Bytes::from_static(HEARTBEAT_BODY),
        )
    }

    /// The answer to a heartbeat, as Java's `HeartbeatHandler` sends it: an event response
    /// with status OK, the request's id and a `null` body, in Hessian2 (Java answers in the
    /// request's serialization: see [`Frame::heartbeat_response_in`]).
    pub fn heartbeat_response(request_id: u64) -> Frame {
        Frame::new(
            Header::response(request_id, Serialization::Hessian2, Status::Ok).with_event(true),
            Bytes::from_static(HEARTBEAT_BODY),
        )
    }

    /// A heartbeat in `format`.
    pub fn heartbeat_request_in(request_id: u64, format: BodyFormat) -> Frame {
        Frame::event_frame(
            Header::request(request_id, format.serialization(), true),
            Event::Heartbeat,
            format,
        )
    }

    /// The answer to a heartbeat in `format` (Java answers in the request's serialization).
    pub fn heartbeat_response_in(request_id: u64, format: BodyFormat) -> Frame {
        Frame::event_frame(
            Header::response(request_id, format.serialization(), Status::Ok),
            Event::Heartbeat,
            format,
        )
    }

    /// The read-only event in `format` (Java sends it in the connection's serialization).
    pub fn read_only_event_in(request_id: u64, format: BodyFormat) -> Frame {
        Frame::event_frame(
            Header::request(request_id, format.serialization(), false),
            Event::ReadOnly,
            format,
        )
    }

    fn event_frame(header: Header, event: Event, format: BodyFormat) -> Frame {
        let body = event.body_in(format).unwrap_or_default();
        Frame::new(header.with_event(true), body)
    }

    /// The read-only event a server sends on every connection when it starts shutting down
    /// (Java's `HeaderExchangeServer` / `DubboGracefulShutdown`): a one-way Hessian2 event
    /// request whose body is the string `"R"`. Clients stop sending calls on that connection.
    pub fn read_only_event(request_id: u64) -> Frame {
        Frame::new(
            Header::request(request_id, Serialization::Hessian2, false).with_event(true),
            Bytes::from_static(READ_ONLY_BODY),
        )
    }

    /// The writeable event of Dubbo 3 (`"W"`), which undoes [`Frame::read_only_event`].
    pub fn writeable_event(request_id: u64) -> Frame {
        Frame::new(
            Header::request(request_id, Serialization::Hessian2, false).with_event(true),
            Bytes::from_static(WRITEABLE_BODY),
        )
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The serialized body.
    pub fn body(&self) -> &Bytes {
        &self.body
    }

    /// The header and the body.
    pub fn into_parts(self) -> (Header, Bytes) {
        (self.header, self.body)
    }

    /// The request id.
    pub fn request_id(&self) -> u64 {
        self.header.request_id()
    }

    /// What this frame is.
    pub fn kind(&self) -> FrameKind {
        let h = &self.header;
        match (h.is_request(), h.is_event()) {
            (true, false) if h.is_two_way() => FrameKind::Request,
            (true, false) => FrameKind::OneWayRequest,
            (false, false) => FrameKind::Response,
            (true, true) => FrameKind::EventRequest(self.classify_event()),
            (false, true) => FrameKind::EventResponse(self.classify_event()),
        }
    }

    /// The event this frame carries, `None` when it is not an event.
    pub fn event(&self) -> Option<Event> {
        self.header.is_event().then(|| self.classify_event())
    }

    /// True for a heartbeat request or response.
    pub fn is_heartbeat(&self) -> bool {
        self.event() == Some(Event::Heartbeat)
    }

    fn classify_event(&self) -> Event {
        Event::classify(self.header.serialization(), &self.body)
    }

    /// Writes the header and the body into `dst` (this copies the body; to send without
    /// copying, write `header().to_bytes()` and `body()` with a vectored write).
    ///
    /// Fails, writing nothing, only for a body longer than `u32::MAX` bytes.
    pub fn encode<B: BufMut>(&self, dst: &mut B) -> Result<(), EncodeError> {
        if self.body.len() != self.header.body_len() as usize {
            return Err(EncodeError::PayloadTooLarge {
                request_id: self.request_id(),
                len: self.body.len(),
                limit: u32::MAX,
            });
        }
        self.header.encode(dst);
        dst.put_slice(&self.body);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::{FLAG_EVENT, FLAG_REQUEST, FLAG_TWO_WAY};

    fn wire(frame: &Frame) -> Vec<u8> {
        let mut v = Vec::new();
        frame.encode(&mut v).unwrap();
        v
    }

    #[test]
    fn heartbeat_request_bytes() {
        let f = Frame::heartbeat_request(7);
        assert_eq!(
            wire(&f),
            [0xda, 0xbb, 0xe2, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 1, 0x4e]
        );
        assert_eq!(f.kind(), FrameKind::EventRequest(Event::Heartbeat));
        assert!(f.is_heartbeat());
    }

    #[test]
    fn heartbeat_response_bytes() {
        let f = Frame::heartbeat_response(7);
        assert_eq!(
            wire(&f),
            [0xda, 0xbb, 0x22, 20, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 1, 0x4e]
        );
        assert_eq!(f.kind(), FrameKind::EventResponse(Event::Heartbeat));
        assert_eq!(f.header().status(), Status::Ok);
    }

    #[test]
    fn read_only_event_is_one_way_and_not_a_heartbeat() {
        let f = Frame::read_only_event(9);
        assert_eq!(
            wire(&f),
            [0xda, 0xbb, 0xa2, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 2, 0x01, 0x52]
        );
        assert_eq!(f.header().flag(), FLAG_REQUEST | FLAG_EVENT | 2);
        assert_eq!(f.kind(), FrameKind::EventRequest(Event::ReadOnly));
        assert!(!f.is_heartbeat());
        assert_eq!(
            Frame::writeable_event(1).kind(),
            FrameKind::EventRequest(Event::Writeable)
        );
    }

    #[test]
    fn call_kinds() {
        let body = Bytes::from_static(b"\x05hello");
        let f = Frame::request(1, Serialization::Hessian2, true, body.clone());
        assert_eq!(f.kind(), FrameKind::Request);
        assert_eq!(f.header().flag(), FLAG_REQUEST | FLAG_TWO_WAY | 2);
        assert_eq!(f.header().body_len(), 6);
        assert_eq!(f.event(), None);
        let f = Frame::request(1, Serialization::Hessian2, false, body.clone());
        assert_eq!(f.kind(), FrameKind::OneWayRequest);
        let f = Frame::response(1, Serialization::Hessian2, Status::ServiceError, body);
        assert_eq!(f.kind(), FrameKind::Response);
        let (h, b) = f.into_parts();
        assert_eq!(h.status(), Status::ServiceError);
        assert_eq!(&b[..], b"\x05hello");
    }

    #[test]
    fn new_overrides_body_len() {
        let h = Header::request(3, Serialization::Hessian2, true).with_body_len(999);
        let f = Frame::new(h, Bytes::from_static(b"abc"));
        assert_eq!(f.header().body_len(), 3);
    }
}
