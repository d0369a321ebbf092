//! Allocations of a typed call's codec work, counted by a global allocator of this test
//! binary: a typed result decodes with only what its value owns once the thread's decoder
//! tables are warm (the pooled tables, with the class definitions they know, go to the decoder
//! that reads the value, not to the one that read the flag); a server reads a request's
//! attachments straight into the map it returns; in fastjson2 a typed result is written
//! straight into its body.

use dubbo_codec::response::{encode_typed_result_in, provider_attachments, TypedResult};
use dubbo_codec::{BodyFormat, Request, RequestHead};
use dubbo_test_support::alloc::{count, CountingAlloc};
use serde::de::DeserializeOwned;
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
    // The attachments a provider sends a 2.0.2 caller add their own map and strings only
    // (`dubbo`, `2.0.2`), read straight into the map: the map was read into a `Value` map
    // first, then collected into the attachments (7 in all).
    let with = encode_typed_result_in(format, &user, provider_attachments("2.0.2")).unwrap();
    let decode = || TypedResult::<User>::decode_in(format, &with).unwrap();
    assert!(decode().attachments.is_some());
    assert_eq!(allocations_of(decode), 2 + 1 + 2);
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
/// `interface`, `version` and their values), read straight into the map, then the argument's
/// two strings. Before, fastjson2 read them into a fastjson2 `Value` tree, converted that into
/// a Hessian one and collected that (15), and hessian2 read them into a `Value` map and
/// collected that (8).
#[test]
fn a_server_reads_a_typed_request_with_only_what_it_owns() {
    let user = alice();
    for format in [BodyFormat::FASTJSON2, BodyFormat::HESSIAN2] {
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
            "{format:?}: the map and its six strings"
        );
        let args = || {
            format
                .decode_args_at::<(User,)>(&body, h.args_offset, h.arg_count)
                .unwrap()
        };
        assert_eq!(args().0, user);
        // Warm: hessian2's thread tables know the class definition now.
        assert_eq!(allocations_of(args), 2, "{format:?}: the two strings");
    }
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

/// A request's body is written into its one buffer, once the thread's writers are warm:
/// fastjson2 encodes each value into a document buffer the thread keeps, and both size the
/// body exactly for ASCII strings, so the buffer is frozen full (a `Bytes` frozen with room to
/// spare takes a shared header: one allocation more). The interop call's service and
/// descriptor are 39 and 40 bytes long, whose head fastjson2 writes in one byte where
/// Hessian2 takes two. Before, fastjson2's body was sized as Hessian2's (2: the header for
/// four bytes to spare); before that its document buffer was new for every body (and grew
/// four times for this one) and the body outgrew its first size: 7.
#[test]
fn a_request_body_is_written_into_one_buffer() {
    use interop_model::call::request;
    let body = |format, req: &Request| {
        let body = || req.to_bytes();
        assert_eq!(Request::decode_in(format, &body()).unwrap(), *req);
        assert_eq!(allocations_of(body), 1, "{format:?}: the body");
    };
    body(
        BodyFormat::FASTJSON2,
        &request(BodyFormat::FASTJSON2, &interop_model::jsonb::alice()),
    );
    body(
        BodyFormat::HESSIAN2,
        &request(BodyFormat::HESSIAN2, &interop_model::alice()),
    );
}

/// The parts of the interop model's typed call that `benches/benches/dubbo_call.rs` counts,
/// warm: `client-request` (the request built and framed), `client-result` (the typed result
/// with a provider's attachments read) and `server-request` (the head, attachments and typed
/// argument read).
fn call_parts<U>(format: BodyFormat, user: &U) -> [u64; 3]
where
    U: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    use interop_model::call::{client_result, request, server_request};
    let body = request(format, user).to_bytes();
    let answer = encode_typed_result_in(format, user, provider_attachments("2.0.2")).unwrap();
    let client_request = || request(format, user).to_frame(1, true);
    let client_result = || client_result::<U>(format, &answer);
    let server_request = || server_request::<U>(format, &body);
    assert_eq!(client_result(), *user);
    assert_eq!(server_request(), *user);
    client_request();
    [
        allocations_of(client_request),
        allocations_of(client_result),
        allocations_of(server_request),
    ]
}

/// Issue 26: the call parts allocate alike in both serializations, what their outputs own.
/// Before, fastjson2's `client-request` had one more (its body frozen with room to spare:
/// 16), and hessian2's `client-result` and `server-request` one more each (the attachments
/// read into a `Value` map, then collected: 6 and 10).
#[test]
fn the_call_parts_allocate_alike_in_both_serializations() {
    let fastjson2 = call_parts(BodyFormat::FASTJSON2, &interop_model::jsonb::alice());
    let hessian2 = call_parts(BodyFormat::HESSIAN2, &interop_model::alice());
    assert_eq!(fastjson2, [15, 5, 9], "fastjson2");
    assert_eq!(hessian2, [15, 5, 9], "hessian2");
}
