//! One port, three ways in: a Rust server for `com.example.Greeter` that Java Dubbo consumers
//! call over the Dubbo protocol or Triple, gRPC tools over HTTP/2, and curl over HTTP/1.1
//! with JSON. It serves an interface-style method (Java-style, Hessian2 or fastjson2
//! arguments) and an IDL method (protobuf), calls both with the Triple client, and shuts down.
//!
//! ```sh
//! cargo run -p dubbo-rpc --features triple --example triple            # runs and exits
//! cargo run -p dubbo-rpc --features triple --example triple -- --serve # stays up on :50051
//! curl -d '["curl"]' http://127.0.0.1:50051/com.example.Greeter/sayHello
//! grpcurl -plaintext -import-path rpc/examples -proto greeter.proto \
//!     -d '"grpc"' 127.0.0.1:50051 com.example.Greeter/Shout
//! ```

use std::time::Duration;

use dubbo_rpc::server::{Server, Service};
use dubbo_rpc::triple_client::{Client, TripleCall};
use dubbo_triple::{Code, Status};

/// `google.protobuf.StringValue`, the message of the IDL method (any prost type will do).
#[derive(Clone, PartialEq, prost::Message)]
struct StringValue {
    #[prost(string, tag = "1")]
    value: String,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let serve = std::env::args().any(|a| a == "--serve");
    let greeter = Service::new("com.example.Greeter")
        // Interface style: what a Java `Greeter` interface's consumers send.
        .method("sayHello", |call| async move {
            let (name,): (Option<String>,) = call.args()?;
            call.typed_reply(&format!("Hello, {}", name.as_deref().unwrap_or("null")))
        })
        .signature("sayHello", &["java.lang.String"], "java.lang.String")
        // IDL style: a protobuf method, any call shape (unary here).
        .unary("Shout", |req: StringValue, _headers| async move {
            if req.value.is_empty() {
                return Err(Status::new(Code::InvalidArgument, "nothing to shout"));
            }
            Ok(StringValue {
                value: req.value.to_uppercase(),
            })
        });
    let bind = if serve {
        "127.0.0.1:50051"
    } else {
        "127.0.0.1:0"
    };
    let server = Server::builder().service(greeter).bind(bind).await?;
    let addr = server.local_addr().to_string();
    println!("serving com.example.Greeter on {addr}: dubbo://, tri:// (HTTP/2) and HTTP/1.1");

    let client = Client::connect(&addr).await?;
    let call = TripleCall::new("com.example.Greeter", "sayHello")
        .arg("java.lang.String", "triple")?
        .timeout(Duration::from_secs(3));
    let hello: String = client.call(&call).await?;
    println!("interface-style over Triple: {hello}");
    let shout: StringValue = client
        .grpc_unary(
            "/com.example.Greeter/Shout",
            &StringValue {
                value: "grpc".into(),
            },
            Some(Duration::from_secs(3)),
        )
        .await?;
    println!("IDL over Triple: {}", shout.value);

    if serve {
        println!("press Ctrl-C to stop");
        tokio::signal::ctrl_c().await?;
    }
    server.shutdown(Duration::from_secs(5)).await;
    Ok(())
}
