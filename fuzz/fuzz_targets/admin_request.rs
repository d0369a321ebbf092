//! The admin endpoint's request reader (`parse_head`, through `dubbo_proxy::internals`) on any
//! bytes: never panics; a head it accepts lies within the input, names a method, a target
//! starting with `/` and a body within the limit; every strict prefix of an accepted head is
//! incomplete (or already refused), never accepted as something else.
#![no_main]

use dubbo_proxy::internals::{parse_head, MAX_BODY, MAX_HEAD};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(Some(head)) = parse_head(data) else {
        return;
    };
    assert!(head.head_len <= data.len() && head.head_len <= MAX_HEAD);
    assert!(data[..head.head_len].ends_with(b"\r\n\r\n"));
    assert!(!head.method.is_empty() && head.target.starts_with('/'));
    assert!(head.content_length <= MAX_BODY);
    for cut in [0, head.head_len / 2, head.head_len - 1] {
        assert!(
            !matches!(parse_head(&data[..cut]), Ok(Some(_))),
            "a prefix of {cut} bytes was accepted"
        );
    }
});
