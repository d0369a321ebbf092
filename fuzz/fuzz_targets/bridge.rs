//! The proxy's Dubbo <-> Triple bridge on arbitrary bytes, both directions, both
//! serializations (the first byte chooses): a Dubbo request body that a full decode reads
//! becomes a Triple request (`from_dubbo::triple_request`) whose wrapper crosses back into a
//! Dubbo body (`to_dubbo::dubbo_request`) carrying the same call: the same service, method,
//! descriptor and argument values, the string attachments. Any bytes as a Dubbo response body
//! or a Triple response message are answered (`triple_answer`, `dubbo_answer`) without a
//! panic, and a value that crosses is the value located in the body.
#![no_main]

use std::time::Duration;

use bytes::Bytes;
use dubbo_codec::header::Header;
use dubbo_codec::response::ResultSpan;
use dubbo_codec::{BodyFormat, Frame, Request, RequestHead, Status};
use dubbo_proxy::internals::{
    dubbo_answer, dubbo_request, triple_answer, triple_request, Answer, BridgeAnswer, TripleAnswer,
};
use dubbo_triple::metadata::AttachmentValue;
use dubbo_triple::{Code, Status as TriStatus};
use fuzz_support::values_eq;
use hessian2::encode::PeerVersion;
use libfuzzer_sys::fuzz_target;

const TIMEOUT: Duration = Duration::from_millis(1500);

fn request_frame(format: BodyFormat, body: &[u8]) -> Frame {
    let header = Header::request(1, format.serialization(), true).with_body_len(body.len() as u32);
    Frame::new(header, Bytes::copy_from_slice(body))
}

fuzz_target!(|data: &[u8]| {
    let Some((&plan, body)) = data.split_first() else {
        return;
    };
    let format = if plan & 1 == 0 {
        BodyFormat::Hessian2(PeerVersion::V3)
    } else {
        BodyFormat::FASTJSON2
    };

    // A Dubbo request across and back.
    let frame = request_frame(format, body);
    if let Ok(t) = triple_request(&frame, TIMEOUT) {
        // What crossed one way crosses back: the wrapper is the proxy's own.
        let mut m = bytes::BytesMut::from(&t.message[..]);
        let msg = dubbo_triple::message::MessageDecoder::new(u32::MAX)
            .decode(&mut m)
            .expect("a whole message")
            .expect("one message");
        let back = dubbo_request(&t.head, msg.data, TIMEOUT).expect("the wrapper crosses back");
        if let Ok(orig) = Request::decode_in(format, body) {
            let again = Request::decode_in(format, back.frame.body()).expect("the body reads");
            assert_eq!(again.method, orig.method);
            assert_eq!(again.descriptor, orig.descriptor);
            assert_eq!(again.service(), orig.service());
            assert!(
                values_eq(&again.args, &orig.args),
                "arguments changed:\n{:?}\n{:?}",
                orig.args,
                again.args
            );
            let head = RequestHead::decode_in(format, back.frame.body()).expect("the head reads");
            assert_eq!(head.arg_count, orig.args.len());
        }
    }

    // Any bytes as a Dubbo answer, then as a Triple answer.
    let status = if plan & 2 == 0 { Status::Ok } else { Status::ServiceError };
    let header = Header::response(1, format.serialization(), status).with_body_len(body.len() as u32);
    let response = Frame::new(header, Bytes::copy_from_slice(body));
    if let Answer::Message { body: message, .. } = triple_answer(&response, format, "hessian4") {
        let span = ResultSpan::locate_in(format, body).expect("an OK body was located");
        let mut m = bytes::BytesMut::from(&message[..]);
        let msg = dubbo_triple::message::MessageDecoder::new(u32::MAX)
            .decode(&mut m)
            .unwrap()
            .unwrap();
        let w = dubbo_triple::wrapper::ResponseWrapper::decode_bytes(msg.data).unwrap();
        match span.value {
            Some(at) => assert_eq!(&w.data[..], &body[at]),
            None => assert_eq!(&w.data[..], format.null_alone()),
        }
    }
    let answer = TripleAnswer {
        status: if plan & 4 == 0 {
            TriStatus::ok()
        } else {
            TriStatus::new(Code::from_i32(i32::from(plan >> 3)), "x")
        },
        exception: plan & 2 != 0,
        message: Some(Bytes::copy_from_slice(body)),
        attachments: vec![("k".to_owned(), AttachmentValue::Text("v".to_owned()))],
    };
    if let BridgeAnswer::Response { status, body } = dubbo_answer(answer, format, plan & 8 != 0) {
        assert!(!body.is_empty() || status != Status::Ok);
    }
});
