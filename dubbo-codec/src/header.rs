//! The fixed 16-byte header that starts every Dubbo 2 frame.
//!
//! ```text
//!  0       1       2       3       4                              11 12            15
//! +-------+-------+-------+-------+-------------------------------+----------------+
//! |  0xda |  0xbb | flag  |status |     request id (u64, BE)      | body len (u32) |
//! +-------+-------+-------+-------+-------------------------------+----------------+
//!
//! flag:  bit 7  0x80  request (clear = response)
//!        bit 6  0x40  two-way (the caller waits for a response)
//!        bit 5  0x20  event (heartbeat, read-only, ...)
//!        bits 0-4     serialization id (2 = Hessian2)
//! ```
//!
//! Everything after the header is `body len` bytes of body, serialized with the
//! serialization the flag names. Java writes the header in `ExchangeCodec.encodeRequest` /
//! `encodeResponse`: the magic, then `FLAG_REQUEST | id (| FLAG_TWOWAY) (| FLAG_EVENT)` for a
//! request or `id (| FLAG_EVENT for a heartbeat)` for a response, the status (0 in requests),
//! the request id and the body length, all big-endian.
//!
//! Parsing is a few loads and compares on a borrowed slice: no allocation, no copy of the body.

use bytes::BufMut;

use crate::serialization::Serialization;
use crate::status::Status;

/// Length of the header in bytes.
pub const HEADER_LEN: usize = 16;

/// The magic number that opens every frame, `0xdabb`, sent big-endian (`0xda` first).
pub const MAGIC: u16 = 0xdabb;
/// First byte of [`MAGIC`] on the wire.
pub const MAGIC_HIGH: u8 = 0xda;
/// Second byte of [`MAGIC`] on the wire.
pub const MAGIC_LOW: u8 = 0xbb;

/// Flag bit: the frame is a request (clear: a response).
pub const FLAG_REQUEST: u8 = 0x80;
/// Flag bit: the request expects a response (Java `Request.isTwoWay()`).
pub const FLAG_TWO_WAY: u8 = 0x40;
/// Flag bit: the frame is an event (heartbeat, read-only, writeable), not a call.
pub const FLAG_EVENT: u8 = 0x20;
/// Mask of the flag bits that hold the serialization id.
pub const SERIALIZATION_MASK: u8 = 0x1f;

/// The first bytes of a buffer are not the magic `0xdabb`.
///
/// A Dubbo 2 stream has no way to re-synchronise (the magic can occur inside bodies), so this
/// is fatal for the connection; see [`crate::codec`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("bad magic: expected 0xdabb, found {}", hex(self.found()))]
pub struct BadMagic {
    bytes: [u8; 2],
    len: u8,
}

impl BadMagic {
    /// The one or two bytes found where the magic was expected.
    pub fn found(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:#04x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A parsed frame header.
///
/// It is `Copy` and 16 bytes big; the accessors decode the flag byte on the fly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Header {
    flag: u8,
    status: u8,
    request_id: u64,
    body_len: u32,
}

impl Header {
    /// A header from its raw fields (`flag` is the whole third byte).
    pub const fn new(flag: u8, status: u8, request_id: u64, body_len: u32) -> Self {
        Header {
            flag,
            status,
            request_id,
            body_len,
        }
    }

    /// The header of a request (a call, not an event), with a body length of 0.
    ///
    /// `two_way` is false for one-way calls (`return = false` in Dubbo), whose caller
    /// expects no response.
    pub const fn request(request_id: u64, serialization: Serialization, two_way: bool) -> Self {
        let mut flag = FLAG_REQUEST | (serialization.id() & SERIALIZATION_MASK);
        if two_way {
            flag |= FLAG_TWO_WAY;
        }
        Header::new(flag, 0, request_id, 0)
    }

    /// The header of a response, with a body length of 0.
    pub const fn response(request_id: u64, serialization: Serialization, status: Status) -> Self {
        Header::new(
            serialization.id() & SERIALIZATION_MASK,
            status.as_u8(),
            request_id,
            0,
        )
    }

    /// This header with the event flag set or cleared.
    #[must_use]
    pub const fn with_event(mut self, event: bool) -> Self {
        if event {
            self.flag |= FLAG_EVENT;
        } else {
            self.flag &= !FLAG_EVENT;
        }
        self
    }

    /// This header with another body length.
    #[must_use]
    pub const fn with_body_len(mut self, body_len: u32) -> Self {
        self.body_len = body_len;
        self
    }

    /// This header with another request id (a proxy forwarding a call under its own id, or
    /// answering with the caller's). Flag, status and body length are kept.
    ///
    /// ```
    /// use dubbo_codec::{Header, Serialization};
    ///
    /// let h = Header::request(7, Serialization::Hessian2, true).with_body_len(42);
    /// let fwd = h.with_request_id(1 << 40);
    /// assert_eq!((fwd.request_id(), fwd.body_len(), fwd.flag()), (1 << 40, 42, h.flag()));
    /// ```
    #[must_use]
    pub const fn with_request_id(mut self, request_id: u64) -> Self {
        self.request_id = request_id;
        self
    }

    /// Replaces the request id in the raw bytes of a frame (or of its header) in place: bytes
    /// 4..12, big-endian. Nothing else is looked at or changed, so this also works on a frame
    /// whose header was already checked (for the magic, use [`Header::parse`]). Returns the
    /// id it replaced, or `None`, changing nothing, when `frame` is shorter than a header.
    ///
    /// ```
    /// use dubbo_codec::{Header, Serialization};
    ///
    /// let mut frame = Header::request(7, Serialization::Hessian2, true).to_bytes().to_vec();
    /// frame.push(b'N');
    /// assert_eq!(Header::set_request_id(&mut frame, 99), Some(7));
    /// assert_eq!(Header::parse(&frame).unwrap().unwrap().request_id(), 99);
    /// assert_eq!(Header::set_request_id(&mut [0xda, 0xbb], 1), None);
    /// ```
    #[inline]
    pub fn set_request_id(frame: &mut [u8], request_id: u64) -> Option<u64> {
        if frame.len() < HEADER_LEN {
            return None;
        }
        let id: &mut [u8; 8] = frame.get_mut(4..12)?.try_into().ok()?;
        let old = u64::from_be_bytes(*id);
        *id = request_id.to_be_bytes();
        Some(old)
    }

    /// Parses a header from the start of `src`.
    ///
    /// * `Ok(Some(header))`: the first 16 bytes are a header; the body may still be missing.
    /// * `Ok(None)`: fewer than 16 bytes, all consistent with a header so far: need more.
    /// * `Err(BadMagic)`: the first byte, or the first two, are not the magic. Like Java's
    ///   `ExchangeCodec.decode`, this is reported as soon as one wrong byte is seen, so telnet
    ///   text such as `ls\r\n` fails at once instead of waiting for 16 bytes.
    #[inline]
    pub fn parse(src: &[u8]) -> Result<Option<Header>, BadMagic> {
        match src.get(..HEADER_LEN) {
            Some(head) => {
                // Infallible: `head` is exactly HEADER_LEN long.
                let head: &[u8; HEADER_LEN] = match head.try_into() {
                    Ok(head) => head,
                    Err(_) => return Ok(None),
                };
                Header::from_bytes(head).map(Some)
            }
            None => match *src {
                [a, ..] if a != MAGIC_HIGH => {
                    let b = src.get(1).copied().unwrap_or(0);
                    Err(BadMagic {
                        bytes: [a, b],
                        len: src.len().min(2) as u8,
                    })
                }
                [a, b, ..] if b != MAGIC_LOW => Err(BadMagic {
                    bytes: [a, b],
                    len: 2,
                }),
                _ => Ok(None),
            },
        }
    }

    /// Parses exactly 16 header bytes.
    #[inline]
    pub fn from_bytes(src: &[u8; HEADER_LEN]) -> Result<Header, BadMagic> {
        let [m0, m1, flag, status, i0, i1, i2, i3, i4, i5, i6, i7, l0, l1, l2, l3] = *src;
        if m0 != MAGIC_HIGH || m1 != MAGIC_LOW {
            return Err(BadMagic {
                bytes: [m0, m1],
                len: 2,
            });
        }
        Ok(Header {
            flag,
            status,
            request_id: u64::from_be_bytes([i0, i1, i2, i3, i4, i5, i6, i7]),
            body_len: u32::from_be_bytes([l0, l1, l2, l3]),
        })
    }

    /// The 16 bytes of this header as sent on the wire.
    #[inline]
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let [i0, i1, i2, i3, i4, i5, i6, i7] = self.request_id.to_be_bytes();
        let [l0, l1, l2, l3] = self.body_len.to_be_bytes();
        [
            MAGIC_HIGH,
            MAGIC_LOW,
            self.flag,
            self.status,
            i0,
            i1,
            i2,
            i3,
            i4,
            i5,
            i6,
            i7,
            l0,
            l1,
            l2,
            l3,
        ]
    }

    /// Writes the 16 header bytes into `dst`.
    #[inline]
    pub fn encode<B: BufMut>(&self, dst: &mut B) {
        dst.put_slice(&self.to_bytes());
    }

    /// The raw flag byte.
    pub const fn flag(&self) -> u8 {
        self.flag
    }

    /// True for a request (including event requests such as heartbeats).
    pub const fn is_request(&self) -> bool {
        self.flag & FLAG_REQUEST != 0
    }

    /// True for a response (including heartbeat responses).
    pub const fn is_response(&self) -> bool {
        !self.is_request()
    }

    /// True when the sender of this request waits for a response. Java only sets it on
    /// requests; it means nothing on a response.
    pub const fn is_two_way(&self) -> bool {
        self.flag & FLAG_TWO_WAY != 0
    }

    /// True for an event frame (heartbeat, read-only, writeable).
    pub const fn is_event(&self) -> bool {
        self.flag & FLAG_EVENT != 0
    }

    /// The serialization id, the low five bits of the flag.
    pub const fn serialization_id(&self) -> u8 {
        self.flag & SERIALIZATION_MASK
    }

    /// The serialization the body is written in.
    pub const fn serialization(&self) -> Serialization {
        Serialization::from_id(self.serialization_id())
    }

    /// The raw status byte. Requests carry 0 here.
    pub const fn status_byte(&self) -> u8 {
        self.status
    }

    /// The response status. Meaningless on a request (Java leaves the byte 0).
    pub const fn status(&self) -> Status {
        Status::from_u8(self.status)
    }

    /// The request id: chosen by the caller, echoed by the response.
    pub const fn request_id(&self) -> u64 {
        self.request_id
    }

    /// The body length in bytes.
    pub const fn body_len(&self) -> u32 {
        self.body_len
    }

    /// The length of the whole frame, header included.
    pub const fn frame_len(&self) -> usize {
        HEADER_LEN + self.body_len as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEARTBEAT: [u8; 17] = [
        0xda, 0xbb, 0xe2, 0x00, 0, 0, 0, 0, 0, 0, 0, 0x2a, 0, 0, 0, 1, b'N',
    ];

    #[test]
    fn parses_a_heartbeat_request_header() {
        let h = Header::parse(&HEARTBEAT).unwrap().unwrap();
        assert!(h.is_request());
        assert!(h.is_two_way());
        assert!(h.is_event());
        assert_eq!(h.serialization(), Serialization::Hessian2);
        assert_eq!(h.serialization_id(), 2);
        assert_eq!(h.request_id(), 42);
        assert_eq!(h.body_len(), 1);
        assert_eq!(h.frame_len(), 17);
        assert_eq!(h.flag(), 0xe2);
        assert_eq!(h.status_byte(), 0);
    }

    #[test]
    fn encode_matches_java_layout() {
        let h = Header::request(42, Serialization::Hessian2, true)
            .with_event(true)
            .with_body_len(1);
        assert_eq!(h.to_bytes(), HEARTBEAT[..16]);
        let mut v = Vec::new();
        h.encode(&mut v);
        assert_eq!(v, HEARTBEAT[..16]);

        let r = Header::response(u64::MAX, Serialization::Hessian2, Status::ServiceError)
            .with_body_len(0x0102_0304);
        assert_eq!(
            r.to_bytes(),
            [0xda, 0xbb, 0x02, 70, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4]
        );
        assert!(r.is_response());
        assert_eq!(r.status(), Status::ServiceError);
        assert_eq!(Header::from_bytes(&r.to_bytes()), Ok(r));
    }

    #[test]
    fn one_way_request_and_event_toggle() {
        let h = Header::request(1, Serialization::Hessian2, false);
        assert_eq!(h.flag(), 0x82);
        assert!(!h.is_two_way());
        assert_eq!(h.with_event(true).flag(), 0xa2);
        assert_eq!(h.with_event(true).with_event(false), h);
    }

    #[test]
    fn request_id_rewrites() {
        let h = Header::parse(&HEARTBEAT).unwrap().unwrap();
        let r = h.with_request_id(u64::MAX - 1);
        assert_eq!(r.request_id(), u64::MAX - 1);
        assert_eq!(r.with_request_id(42), h);
        let mut frame = HEARTBEAT;
        assert_eq!(Header::set_request_id(&mut frame, u64::MAX - 1), Some(42));
        assert_eq!(frame[..16], r.to_bytes());
        assert_eq!(frame[16], b'N');
        let mut short = [0xda, 0xbb, 0xe2, 0, 0, 0, 0, 0, 0, 0, 0, 0x2a, 0, 0, 0];
        assert_eq!(Header::set_request_id(&mut short, 1), None);
        assert_eq!(short[11], 0x2a);
    }

    #[test]
    fn serialization_id_is_masked() {
        let h = Header::request(1, Serialization::Unknown(0xff), true);
        assert_eq!(h.flag(), 0xdf);
        assert_eq!(h.serialization_id(), 0x1f);
        assert!(!h.is_event());
    }

    #[test]
    fn every_strict_prefix_needs_more() {
        for n in 0..HEADER_LEN {
            assert_eq!(Header::parse(&HEARTBEAT[..n]), Ok(None), "prefix {n}");
        }
    }

    #[test]
    fn bad_magic_is_seen_on_the_first_wrong_byte() {
        let e = Header::parse(b"l").unwrap_err();
        assert_eq!(e.found(), b"l");
        let e = Header::parse(b"ls\r\n").unwrap_err();
        assert_eq!(e.found(), b"ls");
        let e = Header::parse(&[0xda, 0x00]).unwrap_err();
        assert_eq!(e.found(), &[0xda, 0x00]);
        assert_eq!(e.to_string(), "bad magic: expected 0xdabb, found 0xda 0x00");
        let mut full = HEARTBEAT;
        full[1] = 0xbc;
        assert!(Header::parse(&full).is_err());
    }
}
