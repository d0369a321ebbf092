//! Allocations of the typed result path, counted by a global allocator of this test binary:
//! a typed result decodes with only what its value owns once the thread's decoder tables are
//! warm (the pooled tables, with the class definitions they know, go to the decoder that
//! reads the value, not to the one that read the flag).

use dubbo_codec::response::{encode_typed_result_in, provider_attachments, TypedResult};
use dubbo_codec::BodyFormat;
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
