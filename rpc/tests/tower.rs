//! The tower adapters against our own server on 127.0.0.1: middleware on either side changes
//! what the other side sees exactly as it should.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use dubbo_codec::{Request, Status};
use dubbo_rpc::client::{CallError, Client};
use dubbo_rpc::server::{Call, HandlerError, Reply, Server, Service};
use hessian2::value::Value;
use tower::{service_fn, ServiceBuilder, ServiceExt};

const GREETER: &str = "com.example.Greeter";

/// Our server with `service` on a free port of 127.0.0.1, and a client connected to it.
async fn serve(service: Service) -> (Server, Client) {
    let server = Server::builder()
        .service(service)
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let client = Client::connect(server.local_addr().to_string())
        .await
        .unwrap();
    (server, client)
}

fn request(method: &str, arg: Option<&str>) -> Request {
    let mut b = Request::builder(GREETER, method);
    if let Some(a) = arg {
        b = b.arg("java.lang.String", a);
    }
    b.build().unwrap()
}

#[tokio::test]
async fn a_timeout_layer_on_a_handler_answers_a_java_exception_and_the_server_keeps_serving() {
    let slow = ServiceBuilder::new()
        .timeout(Duration::from_millis(100))
        .service(service_fn(|call: Call| async move {
            let (ms,): (String,) = call.args()?;
            tokio::time::sleep(Duration::from_millis(ms.parse().unwrap())).await;
            Reply::typed(&ms)
        }));
    let (server, client) = serve(Service::new(GREETER).method_service("wait", slow)).await;

    let late = client
        .typed::<String>()
        .oneshot(request("wait", Some("2000")));
    match late.await {
        Err(CallError::Exception(e)) => {
            assert_eq!(e.class, "java.lang.RuntimeException");
            assert!(
                e.message.as_deref().unwrap_or("").contains("timed out"),
                "{e:?}"
            );
        }
        other => panic!("expected the timeout as a Java exception, got {other:?}"),
    }
    // The same handler within its time, on the same connection.
    let fast = client.typed::<String>().oneshot(request("wait", Some("1")));
    assert_eq!(fast.await.unwrap(), "1");
    server.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test]
async fn a_concurrency_limit_on_a_handler_holds_calls_in_flight_to_its_limit() {
    let running = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let (r, m) = (running.clone(), most.clone());
    let limited = ServiceBuilder::new()
        .concurrency_limit(2)
        .service(service_fn(move |_call: Call| {
            let (r, m) = (r.clone(), m.clone());
            async move {
                let now = r.fetch_add(1, Ordering::SeqCst) + 1;
                m.fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(30)).await;
                r.fetch_sub(1, Ordering::SeqCst);
                Reply::null()
            }
        }));
    let (server, client) = serve(Service::new(GREETER).method_service("work", limited)).await;
    let calls: Vec<_> = (0..10)
        .map(|_| client.clone().oneshot(request("work", None)))
        .collect();
    for result in futures_join(calls).await {
        assert_eq!(result.unwrap(), Value::Null);
    }
    assert_eq!(
        most.load(Ordering::SeqCst),
        2,
        "the limit is reached, never passed"
    );
    server.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test]
async fn handler_errors_keep_their_status_and_client_layers_see_call_errors() {
    let refuse = service_fn(|_call: Call| async move {
        Err::<Reply, _>(HandlerError::Status {
            status: Status::BadRequest,
            message: "no thanks".into(),
        })
    });
    let (server, client) = serve(Service::new(GREETER).method_service("refuse", refuse)).await;
    match client.clone().oneshot(request("refuse", None)).await {
        Err(CallError::Status { status, message }) => {
            assert_eq!(status, Status::BadRequest);
            assert_eq!(message.as_deref(), Some("no thanks"));
        }
        other => panic!("expected BAD_REQUEST, got {other:?}"),
    }
    // A client-side timeout layer: its error is tower's, boxed, with the call still answered
    // later on the connection (and dropped).
    let (slow_server, slow_client) = serve(Service::new(GREETER).method(
        "slow",
        |_call: Call| async move {
            tokio::time::sleep(Duration::from_millis(500)).await;
            Reply::null()
        },
    ))
    .await;
    let timed = ServiceBuilder::new()
        .timeout(Duration::from_millis(50))
        .service(slow_client.clone());
    let err = timed.oneshot(request("slow", None)).await.unwrap_err();
    assert!(err.is::<tower::timeout::error::Elapsed>(), "{err}");
    server.shutdown(Duration::from_secs(1)).await;
    slow_server.shutdown(Duration::from_secs(1)).await;
}

/// Awaits every future, concurrently.
async fn futures_join<F>(futures: Vec<F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.into_iter().map(tokio::spawn).collect();
    let mut out = Vec::with_capacity(handles.len());
    for h in handles {
        out.push(h.await.unwrap());
    }
    out
}

/// The Triple client behind tower's timeout and concurrency limit.
#[tokio::test]
async fn the_triple_client_is_a_tower_service() {
    use dubbo_rpc::triple_client::{Client as TripleClient, TripleCall};
    use tower::Service as _;
    let greeter = Service::new("com.example.Greeter")
        .method("sayHello", |call| async move {
            let (name,): (String,) = call.args()?;
            Reply::typed(&format!("Hello, {name}"))
        })
        .method("slow", |_call| async move {
            tokio::time::sleep(Duration::from_secs(2)).await;
            Reply::null()
        });
    let server = Server::builder()
        .service(greeter)
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let client = TripleClient::connect(&server.local_addr().to_string())
        .await
        .unwrap();
    let mut svc = ServiceBuilder::new()
        .concurrency_limit(4)
        .timeout(Duration::from_millis(200))
        .service(client);
    let hello = TripleCall::new("com.example.Greeter", "sayHello")
        .arg("java.lang.String", "tower")
        .unwrap();
    let v = svc.ready().await.unwrap().call(hello).await.unwrap();
    assert_eq!(v, Value::from("Hello, tower"));
    // tower's timeout cuts a call the client would still wait for.
    let slow = TripleCall::new("com.example.Greeter", "slow");
    let err = svc.ready().await.unwrap().call(slow).await.unwrap_err();
    assert!(err.is::<tower::timeout::error::Elapsed>(), "{err}");
}
