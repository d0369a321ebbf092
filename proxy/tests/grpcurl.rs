//! A stock gRPC client through the proxy: grpcurl (`interop/grpc-go`) -> dubbo-proxy -> a Rust
//! Triple server's IDL method (`rpc/examples/greeter.proto`'s `com.example.Greeter/Shout`), on
//! both engines, answering what the server answers directly; and a route's access rules and
//! rate limit answer grpcurl with gRPC's codes (`PermissionDenied`, `ResourceExhausted`).
//! Skipped with a note when Go is not installed (a failure under CI).

mod common;

use std::process::{Command, Output};

use common::*;
use dubbo_rpc::server::{Server, Service};
use dubbo_test_support::go::go_tool;
use dubbo_test_support::workspace_root;
use dubbo_triple::{Code, Status};

for_each_engine!(
    grpcurl_calls_an_idl_method_through_the_proxy,
    grpcurl_is_refused_by_access_rules_and_rate_limits,
);

/// `google.protobuf.StringValue`, the message of `Shout`.
#[derive(Clone, PartialEq, prost::Message)]
struct StringValue {
    #[prost(string, tag = "1")]
    value: String,
}

/// A Triple server of greeter.proto's `Shout`: the value in capitals, `InvalidArgument` for
/// an empty one.
async fn greeter() -> Server {
    let svc = Service::new("com.example.Greeter").unary(
        "Shout",
        |req: StringValue, _headers| async move {
            if req.value.is_empty() {
                return Err(Status::new(Code::InvalidArgument, "nothing to shout"));
            }
            Ok(StringValue {
                value: req.value.to_uppercase(),
            })
        },
    );
    Server::builder()
        .service(svc)
        .bind("127.0.0.1:0")
        .await
        .unwrap()
}

/// `grpcurl -plaintext -proto greeter.proto -d <data> <addr> com.example.Greeter/Shout`;
/// `None` when grpcurl cannot be had (see [`go_tool`]).
async fn shout(addr: String, data: &'static str) -> Option<Output> {
    let grpcurl = go_tool("grpcurl")?;
    let out = tokio::task::spawn_blocking(move || {
        Command::new(grpcurl)
            .arg("-plaintext")
            .arg("-import-path")
            .arg(workspace_root().join("rpc/examples"))
            .args(["-proto", "greeter.proto", "-d", data, &addr])
            .arg("com.example.Greeter/Shout")
            .output()
            .expect("run grpcurl")
    })
    .await
    .unwrap();
    Some(out)
}

/// What grpcurl printed: stdout, then stderr.
fn printed(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A one-worker proxy whose route `route` (TOML added to it) goes to `server`.
fn proxy_to(engine: &str, server: &Server, route: &str) -> Proxy {
    let conf = config(
        1,
        &format!(
            "[[routes]]\ninterface = \"com.example.Greeter\"\ncluster = \"greeter\"\n{route}\
             [clusters.greeter]\nendpoints = [{{ address = \"{}\" }}]\n",
            server.local_addr()
        ),
    );
    Proxy::start(engine, &conf)
}

async fn grpcurl_calls_an_idl_method_through_the_proxy(engine: &str) {
    let server = greeter().await;
    let Some(direct) = shout(server.local_addr().to_string(), r#""grpc""#).await else {
        return;
    };
    assert!(direct.status.success(), "direct: {}", printed(&direct));
    let proxy = proxy_to(engine, &server, "");
    let through = shout(proxy.addr().to_string(), r#""grpc""#).await.unwrap();
    assert!(through.status.success(), "{}", printed(&through));
    assert_eq!(through.stdout, direct.stdout);
    assert_eq!(String::from_utf8_lossy(&through.stdout).trim(), r#""GRPC""#);
    // The provider's error status, as it gave it.
    let failed = shout(proxy.addr().to_string(), r#""""#).await.unwrap();
    assert!(!failed.status.success());
    let text = printed(&failed);
    assert!(text.contains("Code: InvalidArgument"), "{text}");
    assert!(text.contains("nothing to shout"), "{text}");
    assert_eq!(proxy.metric("dubbo_proxy_triple_calls_total"), 2.0);
}

async fn grpcurl_is_refused_by_access_rules_and_rate_limits(engine: &str) {
    let server = greeter().await;
    let denied = proxy_to(
        engine,
        &server,
        "[routes.access]\ndeny_methods = [\"Shout\"]\n",
    );
    let Some(out) = shout(denied.addr().to_string(), r#""no""#).await else {
        return;
    };
    let text = printed(&out);
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("Code: PermissionDenied"), "{text}");

    // One call a minute, one at once: the first goes through, the second is refused.
    let limited = proxy_to(
        engine,
        &server,
        "[routes.rate_limit]\ncalls_per_second = 0.0167\nburst = 1\n",
    );
    let first = shout(limited.addr().to_string(), r#""one""#).await.unwrap();
    assert!(first.status.success(), "{}", printed(&first));
    let second = shout(limited.addr().to_string(), r#""two""#).await.unwrap();
    let text = printed(&second);
    assert!(!second.status.success(), "{text}");
    assert!(text.contains("Code: ResourceExhausted"), "{text}");
}
