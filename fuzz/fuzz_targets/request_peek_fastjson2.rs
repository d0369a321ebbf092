//! The routing peek of fastjson2 bodies (`peek_with` in `BodyFormat::FASTJSON2`, which steps
//! over each argument by its length) against a full decode of the same body
//! (`Request::decode_in`): whenever the full decode succeeds, the peek succeeds too and
//! reports the same fixed fields, argument count and `interface` / `group` / `timeout`
//! attachments, `RequestHead::decode_with_attachments_in` the same head, and the decoded
//! request re-encodes to a body that decodes to the same fields.
#![no_main]

use dubbo_codec::peek::{peek_with, PeekOptions, Source};
use dubbo_codec::{BodyFormat, Request, RequestHead};
use fuzz_support::values_eq;
use libfuzzer_sys::fuzz_target;

const F: BodyFormat = BodyFormat::FASTJSON2;

fuzz_target!(|body: &[u8]| {
    let peeked = peek_with(body, PeekOptions::new(F), &[""; 0], |_, _| {});
    let head = RequestHead::decode_with_attachments_in(F, body);
    let Ok(full) = Request::decode_in(F, body) else {
        return;
    };
    let p = match peeked {
        Ok(p) => p,
        Err(e) => panic!("full decode succeeds, peek fails: {e:?}\nrequest: {full:?}"),
    };
    assert_eq!(
        (&*p.dubbo_version, &*p.path, &*p.version, &*p.method),
        (
            full.dubbo_version.as_str(),
            full.path.as_str(),
            full.version.as_str(),
            full.method.as_str()
        )
    );
    assert_eq!(p.descriptor.as_deref(), Some(full.descriptor.as_str()));
    assert_eq!(p.arg_count, Some(full.args.len()));
    assert_eq!(p.source, Source::Attachments);
    assert_eq!(p.group.as_deref(), full.group());
    assert_eq!(p.interface.as_deref(), full.attachments.get_str("interface"));
    assert_eq!(p.timeout.as_deref(), full.attachments.get_str("timeout"));
    match head {
        Ok((head, attachments)) => {
            assert_eq!(head.arg_count, full.args.len());
            // Doubles by bits (NaN attachments compare equal).
            assert!(values_eq(
                &[attachments.to_value()],
                &[full.attachments.to_value()]
            ));
        }
        Err(e) => panic!("full decode succeeds, decode_with_attachments fails: {e:?}"),
    }
    let again = match Request::decode_in(F, &full.to_bytes()) {
        Ok(r) => r,
        Err(e) => panic!("re-encoded request does not decode: {e:?}\nrequest: {full:?}"),
    };
    assert_eq!(
        (&again.path, &again.version, &again.method, &again.descriptor),
        (&full.path, &full.version, &full.method, &full.descriptor)
    );
    assert_eq!(again.args.len(), full.args.len());
});
