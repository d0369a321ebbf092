//! A driver for counting instructions of a typed call's codec work under callgrind (not a
//! test of behaviour; `#[ignore]`d): the parts of `benches/benches/dubbo_call.rs`, on the
//! interop model's `User` and its typed call (`interop_model::call`, which both share).
//! `PROFILE_FORMAT` is `fastjson2` (default) or `hessian2`; `PROFILE_CASE` picks the part:
//! `server_request` (the head, the attachments and the typed argument), `client_result` (a
//! typed result with the attachments a provider sends a 2.0.2 caller), `server_result` (that
//! result's body, written from the typed value) or `client_request` (the request built and
//! framed). `PROFILE_ITERS` is the number of calls; instructions per call are the difference
//! of two runs divided by the difference of their iteration counts:
//!
//! ```sh
//! cargo test --release -p dubbo-codec --test call_profile --no-run
//! PROFILE_CASE=server_request PROFILE_ITERS=3000 valgrind --tool=callgrind \
//!     target/release/deps/call_profile-* --ignored --exact profile --test-threads 1
//! ```

use std::hint::black_box;

use dubbo_codec::response::{encode_typed_result_in, provider_attachments};
use dubbo_codec::BodyFormat;
use interop_model::call::{client_result, request, server_request};
use serde::de::DeserializeOwned;
use serde::Serialize;

fn run<U>(format: BodyFormat, user: &U, case: &str, iters: usize)
where
    U: Serialize + DeserializeOwned,
{
    let body = request(format, user).to_bytes();
    let attachments = provider_attachments("2.0.2");
    let answer = encode_typed_result_in(format, user, attachments).unwrap();
    for _ in 0..iters {
        match case {
            "server_request" => drop(black_box(server_request::<U>(format, black_box(&body)))),
            "client_result" => drop(black_box(client_result::<U>(format, black_box(&answer)))),
            "server_result" => drop(black_box(
                encode_typed_result_in(format, black_box(user), attachments).unwrap(),
            )),
            "client_request" => drop(black_box(
                request(format, black_box(user)).to_frame(1, true),
            )),
            other => panic!("unknown PROFILE_CASE {other}"),
        }
    }
}

#[test]
#[ignore = "a callgrind driver, run by hand"]
fn profile() {
    let iters: usize = std::env::var("PROFILE_ITERS").map_or(1, |v| v.parse().unwrap());
    let case = std::env::var("PROFILE_CASE").unwrap_or_else(|_| "server_request".into());
    match std::env::var("PROFILE_FORMAT").as_deref() {
        Ok("hessian2") => run(BodyFormat::HESSIAN2, &interop_model::alice(), &case, iters),
        _ => run(
            BodyFormat::FASTJSON2,
            &interop_model::jsonb::alice(),
            &case,
            iters,
        ),
    }
}
