//! One listener, both protocols: what the core does with a caller's first bytes
//! ([`crate::core::sniff`]). Driven with no sockets.

use std::sync::atomic::Ordering::Relaxed;

use super::*;
use crate::core::sniff::H2_PREFACE;

fn effects(w: &mut Worker) -> Vec<Effect> {
    std::iter::from_fn(|| w.poll_effect()).collect()
}

fn rig() -> (Worker, Arc<Shared>, Instant) {
    let (mut w, shared, now) = super::test_rig::one_worker("", "");
    effects(&mut w);
    (w, shared, now)
}

/// A new caller connection whose first read is `bytes`: its key and the effects.
fn first_read(w: &mut Worker, now: Instant, bytes: &[u8]) -> (Key, Vec<Effect>) {
    let down = w.open_downstream(0, now);
    let mut buf = BytesMut::from(bytes);
    w.downstream_data(down, &mut buf, now);
    (down, effects(w))
}

#[test]
fn an_http2_preface_hands_the_connection_off_with_its_bytes_untouched() {
    let (mut w, shared, now) = rig();
    let down = w.open_downstream(0, now);
    // The preface in two reads: nothing decided on the first.
    let mut buf = BytesMut::from(&H2_PREFACE[..10]);
    w.downstream_data(down, &mut buf, now);
    assert!(effects(&mut w).is_empty());
    assert_eq!(&buf[..], &H2_PREFACE[..10]);
    buf.extend_from_slice(&H2_PREFACE[10..]);
    buf.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 0, 0]);
    let before = buf.clone();
    w.downstream_data(down, &mut buf, now);
    assert_eq!(
        effects(&mut w),
        vec![Effect::HandOff {
            conn: Conn::Down(down),
            listener: 0
        }]
    );
    assert_eq!(buf, before, "the engine hands on every byte read");
    assert_eq!(shared.metrics.protocol_errors.load(Relaxed), 0);
}

#[test]
fn garbage_is_closed_and_counted_and_dubbo_still_served() {
    let (mut w, shared, now) = rig();
    let (bad, done) = first_read(&mut w, now, b"\x16\x03\x01\x00\x10hello");
    assert_eq!(done, vec![Effect::Close(Conn::Down(bad))]);
    assert_eq!(shared.metrics.protocol_errors.load(Relaxed), 1);

    // A heartbeat on another connection is answered: Dubbo callers go on.
    let mut heartbeat = BytesMut::new();
    Frame::heartbeat_request(7).encode(&mut heartbeat).unwrap();
    let (good, done) = first_read(&mut w, now, &heartbeat);
    assert_eq!(done, vec![Effect::Flush(Conn::Down(good))]);
    assert_eq!(shared.metrics.heartbeats_answered.load(Relaxed), 1);
}

#[test]
fn an_http1_request_hands_the_connection_off_with_its_bytes_untouched() {
    let (mut w, shared, now) = rig();
    let down = w.open_downstream(0, now);
    let request = b"POST /a.B/c HTTP/1.1\r\nhost: x\r\n\r\n";
    let mut buf = BytesMut::from(&request[..]);
    w.downstream_data(down, &mut buf, now);
    assert_eq!(
        effects(&mut w),
        vec![Effect::HandOff {
            conn: Conn::Down(down),
            listener: 0
        }]
    );
    assert_eq!(
        &buf[..],
        &request[..],
        "the engine hands on every byte read"
    );
    assert_eq!(shared.metrics.protocol_errors.load(Relaxed), 0);
}
