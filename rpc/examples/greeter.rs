//! A Rust Dubbo provider and a Rust consumer in one process: starts a server for
//! `com.example.Greeter` (version 1.0.0) on 127.0.0.1, calls it typed, dynamically and
//! generically, shows a Java-style exception, and shuts the server down gracefully.
//!
//! ```sh
//! cargo run -p dubbo-rpc --example greeter
//! ```
//!
//! While it runs (pass `--serve` to keep it up), Java consumers and `dubbo-call` can call it:
//! `dubbo-call 127.0.0.1:PORT com.example.Greeter sayHello --version 1.0.0 --types
//! java.lang.String --args '["java"]'`.

use std::time::Duration;

use dubbo_codec::Request;
use dubbo_rpc::client::Client;
use dubbo_rpc::server::{HandlerError, Reply, Server, Service};
use hessian2::value::Value;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let greeter = Service::new("com.example.Greeter")
        .version("1.0.0")
        .method("sayHello", |call| async move {
            let (name,): (Option<String>,) = call.args()?;
            Reply::typed(&format!("Hello, {}", name.as_deref().unwrap_or("null")))
        })
        .method("fail", |_call| async move {
            Err::<Reply, _>(HandlerError::exception(
                "java.lang.IllegalArgumentException",
                "no such greeting",
            ))
        });
    let server = Server::builder()
        .service(greeter)
        .bind("127.0.0.1:0")
        .await?;
    let addr = server.local_addr().to_string();
    println!("serving com.example.Greeter:1.0.0 on {addr}");

    let client = Client::connect(addr.clone()).await?;
    let req = Request::builder("com.example.Greeter", "sayHello")
        .version("1.0.0")
        .arg("java.lang.String", "typed")
        .build()?;
    let typed: String = client.call(&req).await?;
    println!("typed:   {typed}");

    let req = Request::builder("com.example.Greeter", "sayHello")
        .version("1.0.0")
        .value_arg("java.lang.String", Value::from("dynamic"))
        .build()?;
    println!("dynamic: {}", client.call_value(&req).await?);

    let generic = client
        .generic_call(
            "com.example.Greeter",
            "1.0.0",
            None,
            "sayHello",
            &["java.lang.String"],
            vec![Value::from("generic")],
        )
        .await?;
    println!("generic: {generic}");

    let req = Request::builder("com.example.Greeter", "fail")
        .version("1.0.0")
        .build()?;
    match client.call_value(&req).await {
        Err(e) => println!("error:   {e}"),
        Ok(v) => println!("unexpected: {v}"),
    }

    if std::env::args().any(|a| a == "--serve") {
        println!("serving until Ctrl-C");
        tokio::signal::ctrl_c().await?;
    }
    server.shutdown(Duration::from_secs(5)).await;
    Ok(())
}
