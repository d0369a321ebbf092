//! Inputs found by the fuzz targets (`fuzz/`), kept as ordinary tests so that they run in the
//! default `cargo test`. Each says which target found it, what the cause was and how it was
//! fixed; a test marked `#[ignore]` would be a finding not fixed yet (the `KNOWN_*` constants
//! of the targets switch such a case off until the fix).

use dubbo_codec::descriptor::{desc_to_name, name_to_desc};

/// Found by `fuzz/fuzz_targets/descriptor.rs`, input `[LT\0ja.lang.Stririni;` (hex
/// `5b4c54006a612e6c616e672e5374726972696e693b`): `name_to_desc` checks a class name for
/// whitespace, control characters and `] < > ,` only in the plain spelling (`a.B[]`), not in
/// the JVM's array spelling (`[La.B;`), which it turns into a descriptor as it is. So
/// `name_to_desc("[La b;")` succeeds while `name_to_desc("a b[]")`, the same type, fails, and
/// name -> descriptor -> name -> descriptor is not stable. Both spellings should accept the
/// same class names.
///
/// Fixed: both spellings check class names by the JVM's rule (the one the descriptor parser
/// applies): non-empty segments without `/`, `;` or `[`; spaces, control characters and
/// `] < > ,` are allowed in both (`KNOWN_ARRAY_SPELLING_LENIENCY` is false).
#[test]
fn both_spellings_of_an_array_type_accept_the_same_class_names() {
    for array_spelling in [
        "[LT\0ja.lang.Stririni;",
        "[La b;",
        "[[Lx<y>;",
        "[La,b;",
        "[La]b;",
    ] {
        let desc = name_to_desc(array_spelling);
        let plain = desc.as_ref().map(|d| desc_to_name(d).unwrap());
        if let Ok(plain) = &plain {
            assert_eq!(
                name_to_desc(plain),
                desc,
                "{array_spelling:?} is accepted, the same type spelled {plain:?} is not"
            );
        }
    }
    // And the other way round: a plain name the JVM allows converts, back and forth.
    for plain in ["a b[]", "x<y>[][]", "a,b", "T\0ja.lang.Stririni[]"] {
        let desc = name_to_desc(plain).unwrap();
        assert_eq!(desc_to_name(&desc).unwrap(), plain);
        if desc.starts_with('[') {
            // The JVM's spelling of the same array type (`Class.getName()`).
            assert_eq!(name_to_desc(&desc.replace('/', ".")).unwrap(), desc);
        }
    }
    // What the JVM refuses, both spellings refuse.
    for (plain, array) in [
        ("a;b[]", "[La;b;"),
        ("a..b[]", "[La..b;"),
        ("a/b[]", "[La/b;"),
    ] {
        assert!(name_to_desc(plain).is_err(), "{plain:?}");
        assert!(name_to_desc(array).is_err(), "{array:?}");
    }
}

/// The consistent cases keep working.
#[test]
fn array_spellings_of_ordinary_classes_agree() {
    for (array_spelling, plain) in [
        ("[Ljava.lang.String;", "java.lang.String[]"),
        ("[[Lcom.example.Outer$Inner;", "com.example.Outer$Inner[][]"),
        ("[I", "int[]"),
    ] {
        let desc = name_to_desc(array_spelling).unwrap();
        assert_eq!(desc_to_name(&desc).unwrap(), plain);
        assert_eq!(name_to_desc(plain).unwrap(), desc);
    }
}

/// A request body with no arguments whose attachment map has the key `timeout` once per
/// (Hessian-encoded) value.
fn body_with_timeouts(values: &[&[u8]]) -> Vec<u8> {
    // "2.0.2", path "s", version "0.0.0", method "m", descriptor "" (no arguments).
    let mut body = b"\x052.0.2\x01s\x050.0.0\x01m\x00H".to_vec();
    for v in values {
        body.extend_from_slice(b"\x07timeout");
        body.extend_from_slice(v);
    }
    body.push(b'Z');
    body
}

/// Found by `fuzz/fuzz_targets/request_peek.rs` (a mutated request with the `timeout`
/// attachment twice, `"0.0.0"` then `"3000"`): an attachment key that appears twice is read
/// three ways. Java reads attachments into a `HashMap`, so the last entry wins; `peek` keeps
/// the last *string* value (a later non-string value does not clear it); the full decode
/// keeps every entry and `Attachments::get` / `get_str` / `group()` / `interface()` return
/// the first. So a router using `peek` and a server using `Request::decode` see different
/// `timeout`, `group` and `interface` for the same bytes. Expected: both as Java, last entry
/// wins.
///
/// Fixed: `Attachments::get` (and so `get_str`, `group()`, `interface()`) returns the last
/// entry of a key; the peek functions report every entry of a key they read (`peek`'s own
/// `interface` / `group` / `timeout` included), so the last one wins there too, and a value
/// that is not a string reads as no string (`KNOWN_DUPLICATE_KEYS` is false).
#[test]
fn duplicate_attachment_keys_read_as_java_does() {
    use dubbo_codec::{peek, Request, RequestHead};

    // Two strings: the last wins.
    let body = body_with_timeouts(&[b"\x011", b"\x012"]);
    let full = Request::decode(&body).unwrap();
    assert_eq!(peek(&body).unwrap().timeout.as_deref(), Some("2"));
    assert_eq!(full.attachments.get_str("timeout"), Some("2"));

    // A string, then an int: Java's `getAttachment` gives null for the non-string last value.
    let body = body_with_timeouts(&[b"\x011", b"\x92"]);
    let full = Request::decode(&body).unwrap();
    assert_eq!(full.attachments.get_str("timeout"), None);
    assert_eq!(peek(&body).unwrap().timeout.as_deref(), None);

    // An int, then a string: the string.
    let body = body_with_timeouts(&[b"\x92", b"\x013"]);
    let full = Request::decode(&body).unwrap();
    assert_eq!(full.attachments.get_str("timeout"), Some("3"));
    assert_eq!(peek(&body).unwrap().timeout.as_deref(), Some("3"));
    let (_, attachments) = RequestHead::decode_with_attachments(&body).unwrap();
    assert_eq!(attachments.get_str("timeout"), Some("3"));

    // The callbacks see every entry; the last one is Java's.
    for values in [&[&b"\x011"[..], b"\x92"][..], &[b"\x92", b"\x013"]] {
        let body = body_with_timeouts(values);
        let expected = Request::decode(&body)
            .unwrap()
            .attachments
            .get_str("timeout")
            .map(str::to_owned);
        let mut last = Some(None);
        dubbo_codec::peek_keys(&body, &["timeout"], |_, v| {
            last = Some(v.as_str().map(str::to_owned))
        })
        .unwrap();
        assert_eq!(last, Some(expected.clone()));
        let mut last = Some(None);
        dubbo_codec::peek::attachments(&body, |_, v| last = Some(v.as_str().map(str::to_owned)))
            .unwrap();
        assert_eq!(last, Some(expected));
    }
}
