//! The codec work of one typed Dubbo call, without the network, in fastjson2 (Dubbo 3.2+'s
//! default, serialization 23) beside Hessian2: a `User updateUser(User)` call with the interop
//! model's `User` as argument and result (`interop_model::jsonb::User` in fastjson2,
//! `interop_model::User` in Hessian2: each the shape whose bytes are Java's).
//!
//! Group `dubbo_call/<side>`, functions `fastjson2` and `hessian2`; `<side>`:
//!
//! * `client`: what `dubbo_rpc::Client::call` does around the socket: build the `Request`
//!   with the typed argument, `to_frame`, then `TypedResult::<User>::decode_in` of the
//!   provider's answer. Its parts: `client-request` (build + `to_frame`) and `client-result`
//!   (the decode).
//! * `server`: what the server's dispatch does with a request body and a typed reply:
//!   `RequestHead::decode_with_attachments_in`, the arguments read into `(User,)`
//!   (`decode_args_at`), and the answer's body (`Call::typed_reply`: in Hessian2 `to_vec`
//!   then `hessian2_result_body`, in fastjson2 `encode_typed_result_in`), with the
//!   attachments a provider sends a 2.0.2 caller. Its parts: `server-request` (the decode)
//!   and `server-result` (the answer). The dispatch's own copies of the service key, method
//!   and descriptor are the same in both serializations and left out.
//!
//! Allocations per call are counted (after one warm-up call, as the timing loop runs warm)
//! and recorded with `benches::report::record`; the setup checks that every body reads back.
//!
//! Allocations per call (2026-11-29, after fastjson2's request body was sized exactly for
//! ASCII strings and hessian2's attachments were read straight into the map;
//! `cargo bench -p benches --bench dubbo_call -- nomatch` records them without timing):
//!
//! | | client | client-request | client-result | server | server-request | server-result |
//! | --- | ---: | ---: | ---: | ---: | ---: | ---: |
//! | fastjson2 | 20 | 15 | 5 | 10 | 9 | 1 |
//! | hessian2 | 20 | 15 | 5 | 11 | 9 | 2 |
//!
//! Each part allocates what its output owns: the attachments' map and strings, the `User`'s
//! two strings, the request's builder strings and argument section, the body (hessian2's
//! `server-result` copies a `to_vec` into it: 2). Before: fastjson2 21 / 16 / 5 / 10 / 9 / 1,
//! hessian2 21 / 15 / 6 / 12 / 10 / 2. Fastjson2's request body was sized as Hessian2
//! writes strings (two bytes of head from 32 bytes on, where JSONB takes one up to 47: the
//! service and descriptor are 39 and 40 bytes long), so it was frozen with room to spare,
//! which costs `Bytes` a shared header; hessian2 read the attachments into a `Value` map and
//! collected that again into `Attachments`.
//!
//! Before fastjson2's attachments were read straight into the map, its typed results
//! serialized straight into the body, its body writers given a document buffer per thread,
//! and the caller's version parsed without a `Vec`: fastjson2 31 / 22 / 9 / 25 / 17 / 8,
//! hessian2 21 / 15 / 6 / 13 / 10 / 3 (`provider_attachments` collected the caller's
//! version's parts into a `Vec`). Reading attachments built a fastjson2 `Value` tree, then a
//! Hessian `Value` tree of it, then collected that into `Attachments` (a `Vec` and a copy of
//! every string each time); a typed result was serialized into a document of its own, with a
//! fresh symbol table, and copied into the body; a body writer encoded each value into a new
//! document buffer (grown four times for the request) and the body outgrew its first size.
//! (Before the change before that, fastjson2 was 45 / 36 / 9 / 28 / 17 / 11.) Hessian2's
//! `client-result` was 28 until the reader of the result flag was dropped before the value's
//! deserializer was made: a hessian2 decoder takes its thread's pooled tables when it is made,
//! so the second one read the `User`'s class definition afresh (7 `Arc<str>` and its tables);
//! now 2 for the value and 3 for the attachments (`dubbo-codec/tests/allocations.rs`).
//!
//! ```sh
//! cargo bench -p benches --bench dubbo_call -- --warm-up-time 1 --measurement-time 3
//! ```

use std::fmt::Debug;
use std::hint::black_box;

use benches::alloc::{count, CountingAlloc};
use benches::report;
use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion};
use dubbo_codec::response::{encode_typed_result_in, hessian2_result_body, provider_attachments};
use dubbo_codec::BodyFormat;
use interop_model::call::{client_result, request, server_request};
use serde::de::DeserializeOwned;
use serde::Serialize;

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// The request a typed client call builds and frames: the body's length.
fn client_request<U: Serialize>(format: BodyFormat, user: &U) -> usize {
    request(format, user).to_frame(1, true).body().len()
}

/// The body of a server's typed answer to a 2.0.2 caller, as `Call::typed_reply` and the
/// dispatch write it.
fn server_result<U: Serialize>(format: BodyFormat, user: &U) -> Bytes {
    let attachments = provider_attachments("2.0.2");
    match format {
        BodyFormat::Hessian2(_) => {
            hessian2_result_body(&hessian2::to_vec(user).unwrap(), attachments)
        }
        _ => encode_typed_result_in(format, user, attachments).unwrap(),
    }
}

/// Records the allocations of one call of `f` (after a warm-up call), then times it.
fn timed<R>(c: &mut Criterion, side: &str, function: &str, mut f: impl FnMut() -> R) {
    black_box(f());
    let ((), allocs) = count(|| drop(black_box(f())));
    report::record(&format!("dubbo_call/{side}"), function, allocs, None);
    c.benchmark_group(format!("dubbo_call/{side}"))
        .bench_function(function, |b| b.iter(&mut f));
}

fn format_rows<U>(c: &mut Criterion, function: &str, format: BodyFormat, user: &U)
where
    U: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let request = request(format, user).to_bytes();
    let answer = server_result(format, user);
    assert_eq!(&server_request::<U>(format, &request), user);
    assert_eq!(&client_result::<U>(format, &answer), user);
    assert_eq!(
        answer,
        encode_typed_result_in(format, user, provider_attachments("2.0.2")).unwrap(),
        "the server's answer is the codec's typed result body"
    );

    timed(c, "client", function, || {
        client_request(format, black_box(user));
        client_result::<U>(format, black_box(&answer))
    });
    timed(c, "server", function, || {
        let u = server_request::<U>(format, black_box(&request));
        server_result(format, &u)
    });
    timed(c, "client-request", function, || {
        client_request(format, black_box(user))
    });
    timed(c, "client-result", function, || {
        client_result::<U>(format, black_box(&answer))
    });
    timed(c, "server-request", function, || {
        server_request::<U>(format, black_box(&request))
    });
    timed(c, "server-result", function, || {
        server_result(format, black_box(user))
    });
}

fn bench(c: &mut Criterion) {
    format_rows(
        c,
        "fastjson2",
        BodyFormat::FASTJSON2,
        &interop_model::jsonb::alice(),
    );
    format_rows(c, "hessian2", BodyFormat::HESSIAN2, &interop_model::alice());
}

criterion_group!(benches, bench);
criterion_main!(benches);
