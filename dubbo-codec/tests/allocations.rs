//! Allocations of a typed call's codec work, counted by a global allocator of this test
//! binary: a typed result decodes with only what its value owns once the thread's decoder
//! tables are warm (the pooled tables, with the class definitions they know, go to the decoder
//! that reads the value, not to the one that read the flag); in fastjson2 a server reads a
//! request's attachments straight into the map it returns, and a typed result is written
//! straight into its body.

use dubbo_codec::response::{encode_typed_result_in, provider_attachments, TypedResult};
use dubbo_codec::{BodyFormat, Request, RequestHead};
use dubbo_test_support::alloc::{count, CountingAlloc};
use serde::{Deserialize, Serialize};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

fn allocations_of<R>(f: impl FnOnce() -> R) -> u64 {
    count(|| drop(std::hint::black_box(f()))).1
}

/// Two owned strings: what any decoder returning it must allocate.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "com.example.User")]
struct User {
    id: i64,
    name: String,
    email: String,
    active: bool,
}

#[test]
fn a_typed_hessian2_result_allocates_only_what_its_value_owns() {
    let user = User {
        id: 7,
        name: "Alice".into(),
        email: "alice@example.com".into(),
        active: true,
    };
    let format = BodyFormat::default();
    let body = encode_typed_result_in(format, &user, None).unwrap();
    let decode = || TypedResult::<User>::decode_in(format, &body).unwrap();
    assert_eq!(decode().outcome.unwrap(), user);
    // Warm: the thread's tables know the class definition now.
    assert_eq!(allocations_of(decode), 2, "the two strings");
    // The attachments a provider sends a 2.0.2 caller add their own map and strings only.
    let with = encode_typed_result_in(format, &user, provider_attachments("2.0.2")).unwrap();
    let decode = || TypedResult::<User>::decode_in(format, &with).unwrap();
    assert!(decode().attachments.is_some());
    assert!(allocations_of(decode) <= 6);
}

fn alice() -> User {
    User {
        id: 7,
        name: "Alice".into(),
        email: "alice@example.com".into(),
        active: true,
    }
}

/// What a server reads of a typed call: the attachments, one map and its strings (`path`,
/// `interface`, `version` and their values), read straight into the map (fastjson2 read them
/// into a fastjson2 `Value` tree, converted that into a Hessian one and collected that: 15),
/// then the argument's two strings.
#[test]
fn a_fastjson2_server_reads_a_typed_request_with_only_what_it_owns() {
    let format = BodyFormat::FASTJSON2;
    let user = alice();
    let body = Request::builder("com.example.UserService", "updateUser")
        .version("1.0.0")
        .format(format)
        .arg("com.example.User", &user)
        .build()
        .unwrap()
        .to_bytes();
    let head = || RequestHead::decode_with_attachments_in(format, &body).unwrap();
    let (h, attachments) = head();
    assert_eq!(attachments.len(), 3);
    assert_eq!(attachments.get_str("version"), Some("1.0.0"));
    assert_eq!(
        allocations_of(head),
        1 + 2 * 3,
        "the map and its six strings"
    );
    let args = || {
        format
            .decode_args_at::<(User,)>(&body, h.args_offset, h.arg_count)
            .unwrap()
    };
    assert_eq!(args().0, user);
    assert_eq!(allocations_of(args), 2, "the two strings");
}

/// A typed fastjson2 result reads as a hessian2 one does: the value's own strings, and with
/// attachments their map and strings (`dubbo`, `2.0.2`). Before, the attachments went through
/// two `Value` trees (9 in all with them).
#[test]
fn a_typed_fastjson2_result_allocates_only_what_its_value_owns() {
    let user = alice();
    let format = BodyFormat::FASTJSON2;
    let body = encode_typed_result_in(format, &user, None).unwrap();
    let decode = || TypedResult::<User>::decode_in(format, &body).unwrap();
    assert_eq!(decode().outcome.unwrap(), user);
    assert_eq!(allocations_of(decode), 2, "the two strings");
    let with = encode_typed_result_in(format, &user, provider_attachments("2.0.2")).unwrap();
    let decode = || TypedResult::<User>::decode_in(format, &with).unwrap();
    assert_eq!(
        decode().attachments.unwrap().get_str("dubbo"),
        Some("2.0.2")
    );
    assert_eq!(allocations_of(decode), 2 + 1 + 2);
}

/// A typed result's body is its one allocation once the thread's serializer and body size
/// are known (as hessian2's): the value and attachments are serialized straight into it.
/// Before, fastjson2 serialized the value into a document of its own (with a fresh symbol
/// table) and copied it, and framed the flag and the attachments through a buffer of their
/// own: 5, 7 with attachments.
#[test]
fn a_typed_fastjson2_result_is_written_straight_into_its_body() {
    let user = alice();
    let attachments = provider_attachments("2.0.2");
    // Asked for every request a server answers: the caller's version is parsed in place.
    assert_eq!(allocations_of(|| provider_attachments("2.0.2")), 0);
    for format in [BodyFormat::FASTJSON2, BodyFormat::HESSIAN2] {
        for with in [None, attachments] {
            let encode = || encode_typed_result_in(format, &user, with).unwrap();
            let body = encode();
            let back = TypedResult::<User>::decode_in(format, &body).unwrap();
            assert_eq!(back.outcome.unwrap(), user);
            assert_eq!(allocations_of(encode), 1, "{format:?}: the body");
        }
    }
}

/// A request's body is written into its one buffer (and at most the header `Bytes` takes
/// for a buffer with room to spare), once the thread's writers are warm: fastjson2 encodes
/// each value into a document buffer the thread keeps, and sizes the body with the documents'
/// lengths. Before, fastjson2's document buffer was new for every body (and grew four times
/// for this one) and the body outgrew its first size: 7.
#[test]
fn a_request_body_is_written_into_one_buffer() {
    let user = alice();
    for format in [BodyFormat::FASTJSON2, BodyFormat::HESSIAN2] {
        let req = Request::builder("com.example.UserService", "updateUser")
            .version("1.0.0")
            .format(format)
            .arg("com.example.User", &user)
            .build()
            .unwrap();
        let body = || req.to_bytes();
        assert_eq!(Request::decode_in(format, &body()).unwrap(), req);
        assert!(allocations_of(body) <= 2, "{format:?}");
    }
}
