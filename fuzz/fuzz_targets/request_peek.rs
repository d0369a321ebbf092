//! The routing peek (`dubbo_codec::peek`, which skips the arguments) against a full decode of
//! the same request body (`Request::decode`): whenever the full decode succeeds, the peek
//! succeeds too and reports the same fixed fields, argument count and `interface` / `group` /
//! `timeout` attachments; `RequestHead::decode_with_attachments` gives the same head and
//! attachments; and the decoded request re-encodes to a body that decodes equal.
#![no_main]

use dubbo_codec::peek::{peek, Source};
use dubbo_codec::{Request, RequestHead};
use fuzz_support::values_eq;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|body: &[u8]| {
    let peeked = peek(body);
    let with_attachments = RequestHead::decode_with_attachments(body);
    let Ok(full) = Request::decode(body) else {
        return;
    };
    let p = match peeked {
        Ok(p) => p,
        Err(e) => panic!("full decode succeeds, peek fails: {e:?}\nrequest: {full:?}"),
    };
    assert_eq!(p.dubbo_version, full.dubbo_version);
    assert_eq!(p.path, full.path);
    assert_eq!(p.version, full.version);
    assert_eq!(p.method, full.method);
    assert_eq!(p.descriptor.as_deref(), Some(full.descriptor.as_str()));
    assert_eq!(p.arg_count, Some(full.args.len()));
    assert_eq!(p.source, Source::Attachments);
    let attachments = &full.attachments;
    for (key, peeked) in [
        ("interface", p.interface.as_deref()),
        ("group", p.group.as_deref()),
        ("timeout", p.timeout.as_deref()),
    ] {
        // With a key twice, Java (a HashMap) keeps the last value; so do the peek and
        // `Attachments::get` (once a finding here: see dubbo-codec/tests/fuzz_regressions.rs).
        let full_value = match key {
            "group" => full.group(),
            _ => attachments.get_str(key),
        };
        assert_eq!(
            peeked, full_value,
            "{key}: peek vs full decode; attachments {attachments:?}"
        );
    }

    match with_attachments {
        Ok((head, att)) => {
            assert_eq!(head.dubbo_version, full.dubbo_version);
            assert_eq!(head.path, full.path);
            assert_eq!(head.version, full.version);
            assert_eq!(head.method, full.method);
            assert_eq!(head.descriptor, full.descriptor);
            assert_eq!(head.arg_count, full.args.len());
            assert!(
                values_eq(&[att.to_value()], &[attachments.to_value()]),
                "decode_with_attachments: {att:?}\nfull decode: {attachments:?}"
            );
        }
        Err(e) => panic!("full decode succeeds, decode_with_attachments fails: {e:?}"),
    }

    let again = match Request::decode(&full.to_bytes()) {
        Ok(r) => r,
        Err(e) => panic!("re-encoded request does not decode: {e:?}\nrequest: {full:?}"),
    };
    assert_eq!(
        (
            &again.dubbo_version,
            &again.path,
            &again.version,
            &again.method,
            &again.descriptor
        ),
        (
            &full.dubbo_version,
            &full.path,
            &full.version,
            &full.method,
            &full.descriptor
        )
    );
    assert!(
        values_eq(&again.args, &full.args),
        "args changed: {:?} -> {:?}",
        full.args,
        again.args
    );
    assert!(values_eq(
        &[again.attachments.to_value()],
        &[attachments.to_value()]
    ));
});
