//! Frames captured between real Java Dubbo consumers and providers (2.7, 3.2 and 3.3, in
//! Hessian2; 3.2 and 3.3 in fastjson2): every one decodes with our decoders, the peek agrees
//! with the full decode, and every body re-encodes byte-identically from its decoded form.
//!
//! The frames come from `interop/dubbo-java/captures/<flavour>/` when committed there;
//! otherwise they are captured live (Java provider + the jar's `capture` subcommand) into a
//! temporary directory. The fastjson2 frames are committed in
//! `captures/<flavour>-fastjson2/` (`capture ... --serialization fastjson2` against a provider
//! started with it).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use bytes::BytesMut;
use common::*;
use dubbo_codec::peek::{peek_with, PeekOptions};
use dubbo_codec::response::{Response, RpcResult};
use dubbo_codec::{BodyFormat, Event, Frame, FrameCodec, FrameKind, Request, RequestHead};

fn frame_of(path: &Path) -> Frame {
    let bytes = std::fs::read(path).unwrap();
    let mut buf = BytesMut::from(&bytes[..]);
    let mut codec = FrameCodec::new();
    let frame = codec
        .decode_frame_eof(&mut buf)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .unwrap_or_else(|| panic!("{}: empty", path.display()));
    assert!(buf.is_empty(), "{}: one frame per file", path.display());
    frame
}

/// The capture directory of `flavour`, captured live when not committed.
fn captures(flavour: &str) -> Option<PathBuf> {
    let committed = interop_dir("dubbo-java").join("captures").join(flavour);
    if committed.is_dir() {
        return Some(committed);
    }
    let jar = jar(flavour)?;
    // The capture waits for timed events (a timeout, a heartbeat): on a loaded machine, try
    // twice.
    let mut last = String::new();
    for _ in 0..2 {
        match capture_live(flavour, &jar) {
            Ok(dir) => return Some(dir),
            Err(e) => last = e,
        }
    }
    panic!("{flavour} capture failed twice: {last}");
}

fn capture_live(flavour: &str, jar: &Path) -> Result<PathBuf, String> {
    let provider = java_provider(flavour).expect("the jar exists");
    let out = std::env::temp_dir()
        .join("dubbo-codec-interop")
        .join(format!("captures-{flavour}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let status = Command::new("java")
        .arg("-jar")
        .arg(jar)
        .arg("capture")
        .arg(provider.addr())
        .arg(&out)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .output()
        .unwrap();
    if !status.status.success() {
        return Err(String::from_utf8_lossy(&status.stdout).into_owned());
    }
    Ok(out)
}

fn check_flavour(flavour: &str) {
    let Some(dir) = captures(flavour) else { return };
    check_dir(flavour, &dir, BodyFormat::default());
}

/// Checks the frames of `dir`, in `format`, captured from `flavour`.
fn check_dir(flavour: &str, dir: &Path, format: BodyFormat) {
    let mut requests = 0;
    let mut responses = 0;
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let frame = frame_of(&path);
        match frame.kind() {
            FrameKind::Request | FrameKind::OneWayRequest => {
                let req = Request::from_frame(&frame).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(req.dubbo_version, "2.0.2", "{name}");
                assert_eq!(req.service(), INTERFACE, "{name}");
                assert_eq!(req.service_version(), VERSION, "{name}");
                assert_eq!(
                    req.to_bytes(),
                    frame.body(),
                    "{flavour}/{name}: the body re-encodes byte-identically"
                );
                // The peek and the head agree with the full decode.
                assert_eq!(req.format, format, "{name}");
                let p =
                    peek_with(frame.body(), PeekOptions::new(format), &[""; 0], |_, _| {}).unwrap();
                assert_eq!(p.method, req.method.as_str(), "{name}");
                assert_eq!(p.service(), req.service(), "{name}");
                assert_eq!(p.group.as_deref(), req.group(), "{name}");
                assert_eq!(p.arg_count, Some(req.args.len()), "{name}");
                let (head, attachments) =
                    RequestHead::decode_with_attachments_in(format, frame.body()).unwrap();
                assert_eq!(attachments, req.attachments, "{name}");
                assert_eq!(head.arg_count, req.args.len());
                if name.starts_with("fireAndForget") {
                    assert_eq!(frame.kind(), FrameKind::OneWayRequest, "{name}");
                }
                if name.starts_with("generic_") {
                    assert!(req.is_generic(), "{name}");
                    assert_eq!(req.attachments.get_str("generic"), Some("true"), "{name}");
                }
                requests += 1;
            }
            FrameKind::Response => {
                let resp = Response::from_frame(&frame).unwrap_or_else(|e| panic!("{name}: {e}"));
                let Response::Result(result) = &resp else {
                    panic!("{name}: {resp:?}")
                };
                // Java answers 2.0.2 callers with attachments (flags 3..=5).
                assert!(result.attachments.is_some(), "{name}");
                let reencoded = result.encode_in(format, BytesMut::new());
                // A Throwable in fastjson2 is not re-encoded byte for byte: the field names
                // of its untyped stack-trace entries are symbols, which the `Value` model
                // (maps with string keys) does not keep, and the class names of collections
                // in fields are left out (fastjson2 refuses some it did not write itself).
                // It still reads back as the same exception.
                if format == BodyFormat::FASTJSON2 && name.starts_with("throwError") {
                    let back = RpcResult::decode_in(format, &reencoded).unwrap();
                    let (e, back) = (result.exception().unwrap(), back.exception().unwrap());
                    assert_eq!((&back.class, &back.message), (&e.class, &e.message));
                } else {
                    assert_eq!(
                        reencoded,
                        frame.body(),
                        "{flavour}/{name}: the result re-encodes byte-identically"
                    );
                    assert_eq!(
                        resp.to_frame_in(frame.request_id(), format),
                        frame,
                        "{name}"
                    );
                }
                assert_eq!(RpcResult::decode_in(format, frame.body()).unwrap(), *result);
                if name.starts_with("throwError") {
                    let e = result.exception().unwrap();
                    assert_eq!(e.class, "java.lang.IllegalStateException", "{name}");
                    assert_eq!(e.message.as_deref(), Some("boom"), "{name}");
                }
                responses += 1;
            }
            FrameKind::EventRequest(Event::Heartbeat) => {
                assert_eq!(
                    frame,
                    Frame::heartbeat_request_in(frame.request_id(), format),
                    "{name}"
                );
            }
            FrameKind::EventResponse(Event::Heartbeat) => {
                assert_eq!(
                    frame,
                    Frame::heartbeat_response_in(frame.request_id(), format),
                    "{name}"
                );
            }
            FrameKind::EventRequest(Event::ReadOnly) => {
                assert_eq!(
                    frame.body(),
                    Frame::read_only_event_in(0, format).body(),
                    "{name}"
                );
            }
            other => panic!("{name}: unexpected {other:?}"),
        }
    }
    eprintln!(
        "{flavour}: {requests} requests, {responses} responses checked in {}",
        dir.display()
    );
    assert!(
        requests >= 20 && responses >= 15,
        "{flavour}: {requests} requests, {responses} responses"
    );
}

/// Every flavour in one test: live captures are timing-sensitive, so they run one at a time.
#[test]
fn java_2_7_3_2_and_3_3_frames_decode_and_reencode_identically() {
    for flavour in FLAVOURS {
        check_flavour(flavour);
    }
}

/// fastjson2 frames of Dubbo 3.2.19 and 3.3.6 (committed captures).
#[test]
fn java_3_2_and_3_3_fastjson2_frames_decode_and_reencode_identically() {
    for flavour in ["dubbo3", "dubbo33"] {
        let dir = interop_dir("dubbo-java")
            .join("captures")
            .join(format!("{flavour}-fastjson2"));
        check_dir(flavour, &dir, BodyFormat::FASTJSON2);
    }
}
