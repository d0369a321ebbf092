//! The interop model's typed call, `User UserService.updateUser(User)`, as the codec's
//! benchmark (`benches/benches/dubbo_call.rs`) and its callgrind driver
//! (`dubbo-codec/tests/call_profile.rs`) make and read it, without the network (feature
//! `call`). `U` is the shape of `User` whose bytes are Java's in the format: [`crate::User`]
//! in Hessian2, [`crate::jsonb::User`] in fastjson2.

use std::hint::black_box;

use bytes::Bytes;
use dubbo_codec::response::TypedResult;
use dubbo_codec::{BodyFormat, Request, RequestHead};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The interface.
pub const SERVICE: &str = "io.github.hessianrs.interop.UserService";
/// The argument's (and the result's) class.
pub const USER: &str = "io.github.hessianrs.interop.model.User";

/// The request a typed client call builds: `updateUser(user)`, version `1.0.0`, in `format`.
pub fn request<U: Serialize>(format: BodyFormat, user: &U) -> Request {
    Request::builder(SERVICE, "updateUser")
        .version("1.0.0")
        .format(format)
        .arg(USER, user)
        .build()
        .unwrap()
}

/// What a server reads of a request `body`: its head, its attachments (the group looked up,
/// as the dispatch does) and its typed argument.
pub fn server_request<U: DeserializeOwned>(format: BodyFormat, body: &Bytes) -> U {
    let (head, attachments) = RequestHead::decode_with_attachments_in(format, body).unwrap();
    black_box(attachments.group());
    let (user,): (U,) = format
        .decode_args_at(body, head.args_offset, head.arg_count)
        .unwrap();
    user
}

/// What a typed client call reads of the provider's `answer`: the result's value.
pub fn client_result<U: DeserializeOwned>(format: BodyFormat, answer: &Bytes) -> U {
    TypedResult::<U>::decode_in(format, answer)
        .unwrap()
        .outcome
        .unwrap()
}
