//! What a Triple call costs, against the Dubbo protocol for the same call and against tonic
//! (a stock Rust gRPC server) for the same IDL call, all from our clients, in one process on
//! one thread (client and server tasks share a current-thread runtime, so a call's time is
//! the CPU both sides spend on it, loopback system calls included).
//!
//! Groups (function `<protocol>/<server>`):
//!
//! * `rpc_unary/1`: one call at a time: `dubbo/ours` (interface-style `sayHello` over the
//!   Dubbo protocol, Hessian2), `triple/ours` (the same call over Triple), `idl/ours` (a
//!   protobuf unary `EchoService/unary` served by `Service::unary`), `idl/tonic` (the same IDL call
//!   served by tonic 0.12).
//! * `rpc_unary/16`: 16 calls in flight at once on the one connection, time per call.
//!
//! Allocations per call (both sides) are counted before the timings and recorded with
//! `benches::report`.
//!
//! ```sh
//! cargo bench -p benches --bench triple -- --warm-up-time 1 --measurement-time 3
//! ```

use std::time::Duration;

use benches::alloc::{count, CountingAlloc};
use benches::report;
use benches::triple_peer::{echo_service, serve_tonic, StringValue, ECHO_UNARY};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dubbo_codec::Request;
use dubbo_rpc::client::Client as DubboClient;
use dubbo_rpc::server::{Server, Service};
use dubbo_rpc::triple_client::{Client as TripleClient, TripleCall};
use tokio::runtime::Runtime;

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

const GREETER: &str = "com.example.Greeter";

fn services() -> Vec<Service> {
    let greeter = Service::new(GREETER).method("sayHello", |call| async move {
        let (name,): (String,) = call.args()?;
        call.typed_reply(&format!("Hello, {name}"))
    });
    vec![greeter, echo_service()]
}

struct Setup {
    rt: Runtime,
    dubbo: DubboClient,
    ours: TripleClient,
    tonic: TripleClient,
}

fn setup() -> Setup {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (dubbo, ours, tonic) = rt.block_on(async {
        let mut builder = Server::builder();
        for s in services() {
            builder = builder.service(s);
        }
        let server = builder.bind("127.0.0.1:0").await.unwrap();
        let addr = server.local_addr().to_string();
        // Kept serving for the whole run.
        std::mem::forget(server);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let tonic_addr = listener.local_addr().unwrap().to_string();
        tokio::spawn(serve_tonic(listener));
        (
            DubboClient::connect(addr.clone()).await.unwrap(),
            TripleClient::connect(&addr).await.unwrap(),
            TripleClient::connect(&tonic_addr).await.unwrap(),
        )
    });
    Setup {
        rt,
        dubbo,
        ours,
        tonic,
    }
}

/// One call of `which`, checked.
async fn call(s: &Setup, which: &str) {
    match which {
        "dubbo/ours" => {
            let req = Request::builder(GREETER, "sayHello")
                .arg("java.lang.String", "world")
                .build()
                .unwrap();
            let r: String = s.dubbo.call(&req).await.unwrap();
            assert_eq!(r, "Hello, world");
        }
        "triple/ours" => {
            let call = TripleCall::new(GREETER, "sayHello")
                .arg("java.lang.String", "world")
                .unwrap();
            let r: String = s.ours.call(&call).await.unwrap();
            assert_eq!(r, "Hello, world");
        }
        idl => {
            let client = if idl == "idl/tonic" {
                &s.tonic
            } else {
                &s.ours
            };
            let req = StringValue {
                value: "world".into(),
            };
            let r: StringValue = client
                .grpc_unary(ECHO_UNARY, &req, Some(Duration::from_secs(5)))
                .await
                .unwrap();
            assert_eq!(r.value, "echo: world");
        }
    }
}

const WHICH: [&str; 4] = ["dubbo/ours", "triple/ours", "idl/ours", "idl/tonic"];

fn rpc_unary(c: &mut Criterion) {
    let s = setup();
    for which in WHICH {
        // Warm the connections up, then count what one call allocates (both sides).
        for _ in 0..100 {
            s.rt.block_on(call(&s, which));
        }
        let (_, n) = count(|| s.rt.block_on(call(&s, which)));
        report::record("rpc_unary", &format!("{which}/1"), n, None);
    }
    let mut g = c.benchmark_group("rpc_unary");
    g.throughput(Throughput::Elements(1));
    for which in WHICH {
        g.bench_function(BenchmarkId::new(which, 1), |b| {
            b.iter(|| s.rt.block_on(call(&s, which)))
        });
    }
    g.throughput(Throughput::Elements(16));
    for which in WHICH {
        g.bench_function(BenchmarkId::new(which, 16), |b| {
            b.iter(|| {
                s.rt.block_on(futures::future::join_all((0..16).map(|_| call(&s, which))))
            })
        });
    }
    g.finish();
}

criterion_group!(benches, rpc_unary);
criterion_main!(benches);
