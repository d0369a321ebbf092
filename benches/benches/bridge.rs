//! The proxy's Dubbo ⇄ Triple bridge, per call, beside the codec work of a plain Dubbo
//! forward in the same run: what issue 25's "the bridge costs little more than forwarding"
//! comes down to inside the proxy (the end-to-end CPU per call is benches/proxy-compare's).
//!
//! Groups (`<format>/<payload>`, a `sayHello(String)` call of 16 bytes or 1 KiB, hessian2
//! and fastjson2):
//! * `bridge_dubbo_caller`: a Dubbo request crossing to a Triple provider
//!   (`from_dubbo::triple_request`) and its answer crossing back (`dubbo_answer`);
//! * `bridge_triple_caller`: a Triple request crossing to a Dubbo provider
//!   (`to_dubbo::dubbo_request`) and the Dubbo answer crossing back (`triple_answer`);
//! * `forward_dubbo`: what the proxy does per forwarded Dubbo call, the routing peek of the
//!   request (`RequestHead::decode_in`), as the baseline.
//!
//! Allocations per call are counted before the timings (`benches::report`).
//!
//! ```sh
//! cargo bench -p benches --bench bridge -- --warm-up-time 1 --measurement-time 3
//! ```

use std::hint::black_box;
use std::time::Duration;

use benches::alloc::{count, CountingAlloc};
use benches::report;
use bytes::{Bytes, BytesMut};
use criterion::{criterion_group, criterion_main, Criterion};
use dubbo_codec::header::Header;
use dubbo_codec::response::encode_typed_result_in;
use dubbo_codec::{BodyFormat, Frame, Request, RequestHead, Status};
use dubbo_proxy::internals::{
    dubbo_answer, dubbo_request, triple_answer, triple_request, Answer, BridgeAnswer, TripleAnswer,
};
use dubbo_triple::status::Status as TriStatus;
use dubbo_triple::MessageDecoder;

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

const TIMEOUT: Duration = Duration::from_secs(3);

/// The data of one length-prefixed Triple message.
fn message_data(prefixed: &[u8]) -> Bytes {
    let mut buf = BytesMut::from(prefixed);
    MessageDecoder::new(u32::MAX)
        .decode(&mut buf)
        .expect("a whole message")
        .expect("one message")
        .data
}

/// One call's frames and messages, both directions, for `format` and `payload`.
struct Call {
    format: BodyFormat,
    request: Frame,
    response: Frame,
}

impl Call {
    fn new(format: BodyFormat, payload: &str) -> Call {
        let request = Request::builder("com.example.Greeter", "sayHello")
            .version("1.0.0")
            .format(format)
            .arg("java.lang.String", &payload)
            .build()
            .unwrap()
            .to_frame(1, true);
        let body = encode_typed_result_in(format, &format!("Hello, {payload}"), None).unwrap();
        let header = Header::response(1, format.serialization(), Status::Ok)
            .with_body_len(body.len() as u32);
        Call {
            format,
            request,
            response: Frame::new(header, body),
        }
    }

    /// A Dubbo caller's request to a Triple provider, and the provider's answer back.
    fn dubbo_caller(&self, answer: &Bytes) -> usize {
        let t = triple_request(&self.request, TIMEOUT).unwrap();
        let reply = TripleAnswer {
            status: TriStatus::ok(),
            exception: false,
            message: Some(answer.clone()),
            attachments: Vec::new(),
        };
        match dubbo_answer(reply, t.format, t.reply_attachments) {
            BridgeAnswer::Response { body, .. } => t.message.len() + body.len(),
            _ => unreachable!("an OK answer"),
        }
    }

    /// A Triple caller's request (`head`, `wrapper`) to a Dubbo provider, and its answer back.
    fn triple_caller(&self, head: &dubbo_triple::RequestHead, wrapper: &Bytes) -> usize {
        let bridged = dubbo_request(head, wrapper.clone(), TIMEOUT).unwrap();
        match triple_answer(&self.response, bridged.format, "hessian4") {
            Answer::Message { body, .. } => bridged.frame.body().len() + body.len(),
            Answer::Status(s) => unreachable!("an OK answer: {s:?}"),
        }
    }
}

fn rows(c: &mut Criterion, name: &str, format: BodyFormat, payload_name: &str, payload: &str) {
    let call = Call::new(format, payload);
    let function = format!("{name}/{payload_name}");
    // The Triple side of each direction, as the proxy holds it.
    let t = triple_request(&call.request, TIMEOUT).unwrap();
    let wrapper = message_data(&t.message);
    let head = t.head.clone();
    let Answer::Message { body: answer, .. } = triple_answer(&call.response, format, "hessian4")
    else {
        unreachable!()
    };
    let answer = message_data(&answer);

    let mut timed = |group: &str, f: &mut dyn FnMut() -> usize| {
        f(); // warm: thread-local tables
        let (bytes, allocs) = count(&mut *f);
        report::record(group, &function, allocs, Some(bytes));
        c.benchmark_group(group)
            .bench_function(&function, |b| b.iter(&mut *f));
    };
    timed("bridge_dubbo_caller", &mut || {
        call.dubbo_caller(black_box(&answer))
    });
    timed("bridge_triple_caller", &mut || {
        call.triple_caller(black_box(&head), black_box(&wrapper))
    });
    timed("forward_dubbo", &mut || {
        let h = RequestHead::decode_in(call.format, black_box(call.request.body())).unwrap();
        h.arg_count
    });
}

fn bench(c: &mut Criterion) {
    let kib = "x".repeat(1024);
    for (name, format) in [
        ("hessian2", BodyFormat::HESSIAN2),
        ("fastjson2", BodyFormat::FASTJSON2),
    ] {
        rows(c, name, format, "16B", "0123456789abcdef");
        rows(c, name, format, "1KiB", &kib);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
