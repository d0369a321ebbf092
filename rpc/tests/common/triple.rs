//! The DemoService's calls over Triple, checked: shared by the tests against our server and
//! against Java Triple providers.

use std::time::Duration;

use dubbo_codec::format::BodyFormat;
use dubbo_rpc::triple_client::{Client, TripleCall, TripleError};
use hessian2::value::{List, Value};

use super::{user_for, User, INTERFACE, USER_CLASS, VERSION};

/// A call of the DemoService's `method`, version 1.0.0, with a 10 s deadline.
pub fn demo(method: &str) -> TripleCall {
    TripleCall::new(INTERFACE, method)
        .version(VERSION)
        .timeout(Duration::from_secs(10))
}

/// Typed and dynamic calls in `format`, a Java exception with its class; `what` names the
/// peer in failures.
pub async fn triple_demo_calls(client: &Client, format: BodyFormat, what: &str) {
    let call = demo("sayHello")
        .format(format)
        .arg("java.lang.String", "héllo, 世界 ✓ 😀")
        .unwrap();
    let hello: String = client.call(&call).await.unwrap();
    assert_eq!(hello, "Hello, héllo, 世界 ✓ 😀", "{what}");
    let call = demo("getUser").format(format).arg("long", &42i64).unwrap();
    let user: User = client.call(&call).await.unwrap();
    assert_eq!(user, user_for(42), "{what}");
    let u = user_for(1_234_567_890_123);
    let call = demo("echoUser").format(format).arg(USER_CLASS, &u).unwrap();
    assert_eq!(client.call::<User>(&call).await.unwrap(), u, "{what}");
    let call = demo("add")
        .format(format)
        .arg("int", &i32::MAX)
        .unwrap()
        .arg("int", &1)
        .unwrap();
    assert_eq!(client.call::<i32>(&call).await.unwrap(), i32::MIN, "{what}");
    let items = vec![Value::from("a"), Value::from("γ")];
    let list = Value::List(List {
        ty: None,
        items: items.clone(),
    });
    let call = demo("echoList")
        .format(format)
        .value_arg("java.util.List", &list);
    match client.call_value(&call).await.unwrap() {
        Value::List(back) => assert_eq!(back.items, items, "{what}"),
        other => panic!("{what}: {other:?}"),
    }
    let call = demo("doNothing").format(format);
    assert_eq!(
        client.call_value(&call).await.unwrap(),
        Value::Null,
        "{what}"
    );
    let call = demo("throwError")
        .format(format)
        .arg("java.lang.String", "boom")
        .unwrap();
    match client.call_value(&call).await {
        Err(TripleError::Exception(e)) => {
            assert_eq!(e.class, "java.lang.IllegalStateException", "{what}");
            assert_eq!(e.message.as_deref(), Some("boom"), "{what}");
        }
        other => panic!("{what}: {other:?}"),
    }
}
