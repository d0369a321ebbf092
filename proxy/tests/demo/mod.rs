//! Calls to the Java interop DemoService (`interop/dubbo-java`) for the tests that run real
//! Java providers behind the proxy (`java`, `java_routing`, `zookeeper`). The processes
//! themselves come from `dubbo-test-support`.

#![allow(dead_code)]

use dubbo_codec::response::{Outcome, Response};
use dubbo_codec::Request;
use hessian2::value::Value;

use crate::common::Client;

pub use dubbo_test_support::java::{DEMO_SERVICE as DEMO, DEMO_VERSION};

/// `sayHello(name)`.
pub fn hello(name: &str) -> Request {
    Request::builder(DEMO, "sayHello")
        .version(DEMO_VERSION)
        .arg("java.lang.String", name)
        .build()
        .unwrap()
}

/// `count()` of one provider, asked directly (in its `group`): how many calls it has had,
/// this one included.
pub async fn count_of(addr: &str, group: Option<&str>) -> i64 {
    let mut c = Client::connect(addr.parse().unwrap()).await;
    let mut b = Request::builder(DEMO, "count").version(DEMO_VERSION);
    if let Some(g) = group {
        b = b.group(g);
    }
    c.send_call(1, &b.build().unwrap()).await;
    let f = c.response(1).await;
    match Response::from_frame(&f).unwrap() {
        Response::Result(r) => match r.outcome {
            Outcome::Value(Value::Long(n)) => n,
            Outcome::Value(Value::Int(n)) => i64::from(n),
            other => panic!("count of {addr}: {other:?}"),
        },
        other => panic!("count of {addr}: {other:?}"),
    }
}
