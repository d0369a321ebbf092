//! The client and a handler as `tower::Service`s, each behind a timeout and a concurrency
//! limit: `cargo run -p dubbo-rpc --features tower --example tower`.
//!
//! The server's `slow` handler sleeps longer than its timeout layer allows, so the caller gets
//! the Java `RuntimeException` a Java consumer would see; `sayHello` answers.

use std::time::Duration;

use dubbo_codec::Request;
use dubbo_rpc::client::{CallError, Client};
use dubbo_rpc::server::{Call, Reply, Server, Service};
use tower::{service_fn, Service as _, ServiceBuilder, ServiceExt};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let hello = ServiceBuilder::new()
        .concurrency_limit(64)
        .timeout(Duration::from_millis(200))
        .service(service_fn(|call: Call| async move {
            let (name,): (String,) = call.args()?;
            Reply::typed(&format!("hello, {name}"))
        }));
    let slow = ServiceBuilder::new()
        .timeout(Duration::from_millis(200))
        .service(service_fn(|_call: Call| async move {
            tokio::time::sleep(Duration::from_secs(5)).await;
            Reply::null()
        }));
    let server = Server::builder()
        .service(
            Service::new("com.example.Greeter")
                .version("1.0.0")
                .method_service("sayHello", hello)
                .method_service("slow", slow),
        )
        .bind("127.0.0.1:0")
        .await?;
    println!("server on {}", server.local_addr());

    let client = Client::connect(server.local_addr().to_string()).await?;
    let mut greeter = ServiceBuilder::new()
        .concurrency_limit(16)
        .timeout(Duration::from_secs(2))
        .service(client.typed::<String>());

    let hello = Request::builder("com.example.Greeter", "sayHello")
        .version("1.0.0")
        .arg("java.lang.String", "tower")
        .build()?;
    println!("sayHello -> {}", greeter.ready().await?.call(hello).await?);

    let slow = Request::builder("com.example.Greeter", "slow")
        .version("1.0.0")
        .build()?;
    match client.clone().oneshot(slow).await {
        Err(CallError::Exception(e)) => println!("slow -> Java exception: {e}"),
        other => println!("slow -> {other:?}"),
    }
    server.shutdown(Duration::from_secs(1)).await;
    Ok(())
}
