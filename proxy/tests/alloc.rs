//! The hot path allocates nothing in steady state: a counting global allocator watches the
//! sans-I/O worker forward calls and responses (no sockets: the engine's part is reads and
//! writes into long-lived buffers), for routes that read only the fixed fields, routes that
//! use the metadata cache for the group, routes on attachment values (arguments skipped), and
//! routes with access rules and rate limits (a caller with an address and a TLS identity).

use std::time::{Duration, Instant};

use bytes::BytesMut;
use dubbo_codec::response::{Outcome, RpcResult};
use dubbo_codec::Request;
use dubbo_proxy::config::Config;
use dubbo_proxy::internals::{Conn, Effect, Shared, Worker};
use dubbo_test_support::alloc::{count, CountingAlloc};
use hessian2::value::Value;

// Counts per thread: the worker runs on this test's thread, nothing else is counted.
#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

const SVC: &str = "com.example.DemoService";

fn run(routes: &str, metadata: &str, req: &Request) -> u64 {
    let toml = format!(
        r#"
workers = 1
[[listeners]]
address = "127.0.0.1:0"
{routes}
[clusters.c]
endpoints = [{{ address = "127.0.0.1:1" }}]
{metadata}
"#
    );
    let config = Config::from_toml(&toml).unwrap();
    let shared = Shared::new(config, 1);
    let mut now = Instant::now();
    let mut w = Worker::new(0, shared, now);
    let up = match w.poll_effect() {
        Some(Effect::Connect { up, .. }) => up,
        other => panic!("{other:?}"),
    };
    w.upstream_connected(up, now);
    let down = w.open_downstream(0, now);
    w.set_downstream_source(down, "127.0.0.1".parse().unwrap());
    w.set_downstream_identity(down, "spiffe://test/caller".into());

    let mut request = BytesMut::new();
    let f = req.to_frame(0, true);
    f.encode(&mut request).unwrap();
    let mut response = BytesMut::new();
    RpcResult::new(Outcome::Value(Value::String("ok".into())))
        .to_frame(0)
        .encode(&mut response)
        .unwrap();

    let mut dbuf = BytesMut::with_capacity(64 * 1024);
    let mut ubuf = BytesMut::with_capacity(64 * 1024);
    let mut round = |i: u64, now: Instant, w: &mut Worker| {
        // A caller sends a call with its own id.
        let start = dbuf.len();
        dbuf.extend_from_slice(&request);
        dbuf[start + 4..start + 12].copy_from_slice(&i.to_be_bytes());
        w.downstream_data(down, &mut dbuf, now);
        while w.poll_effect().is_some() {}
        // The provider answers the id it was given.
        let out = w.outbox(Conn::Up(up)).unwrap();
        assert_eq!(out.len(), request.len(), "forwarded as it arrived");
        let mut id = [0u8; 8];
        id.copy_from_slice(&out[4..12]);
        out.clear();
        let start = ubuf.len();
        ubuf.extend_from_slice(&response);
        ubuf[start + 4..start + 12].copy_from_slice(&id);
        w.upstream_data(up, &mut ubuf, now);
        while w.poll_effect().is_some() {}
        // The caller gets its own id back.
        let back = w.outbox(Conn::Down(down)).unwrap();
        assert_eq!(back.len(), response.len());
        assert_eq!(&back[4..12], &i.to_be_bytes());
        back.clear();
    };
    for i in 0..2_000 {
        now += Duration::from_micros(10);
        round(i, now, &mut w);
    }
    let ((), allocations) = count(|| {
        for i in 0..20_000 {
            now += Duration::from_micros(10);
            round(i, now, &mut w);
        }
    });
    allocations
}

#[test]
fn forwarding_allocates_nothing_in_steady_state() {
    let req = Request::builder(SVC, "sayHello")
        .version("1.0.0")
        .arg("java.lang.String", "world")
        .attach("env", "canary")
        .group("blue")
        .build()
        .unwrap();
    let by_interface = "[[routes]]\ninterface = \"com.example.*\"\ncluster = \"c\"";
    assert_eq!(run(by_interface, "", &req), 0, "interface route");
    let by_group = "[[routes]]\ngroup = \"blue\"\ncluster = \"c\"";
    let cache = format!("[[metadata]]\npath = \"{SVC}\"\nversion = \"1.0.0\"\ngroup = \"blue\"");
    assert_eq!(
        run(by_group, &cache, &req),
        0,
        "group from the metadata cache"
    );
    assert_eq!(run(by_group, "", &req), 0, "group from the attachments");
    let by_attachment =
        "[[routes]]\nmethod = \"sayHello\"\nattachments = { env = \"canary\" }\ncluster = \"c\"";
    assert_eq!(run(by_attachment, "", &req), 0, "attachment route");
    let guarded = "[[routes]]\ncluster = \"c\"\n[routes.access]\n\
                   allow_identities = [\"spiffe://test/*\"]\nallow_sources = [\"127.0.0.0/8\"]\n\
                   deny_methods = [\"refund\"]\n[routes.rate_limit]\n\
                   calls_per_second = 1e9\nburst = 1000000\n";
    assert_eq!(
        run(guarded, "", &req),
        0,
        "access rules and a route-wide limit"
    );
    let per_identity = format!("{guarded}per_identity = true\n");
    assert_eq!(run(&per_identity, "", &req), 0, "a per-identity limit");
}

#[test]
fn forwarding_fastjson2_calls_allocates_nothing_in_steady_state() {
    let req = Request::builder(SVC, "sayHello")
        .format(dubbo_codec::BodyFormat::FASTJSON2)
        .version("1.0.0")
        .arg("java.lang.String", "world")
        .attach("env", "canary")
        .group("blue")
        .build()
        .unwrap();
    let by_interface = "[[routes]]\ninterface = \"com.example.*\"\ncluster = \"c\"";
    assert_eq!(run(by_interface, "", &req), 0, "interface route");
    let by_group = "[[routes]]\ngroup = \"blue\"\ncluster = \"c\"";
    assert_eq!(run(by_group, "", &req), 0, "group from the attachments");
    let by_attachment =
        "[[routes]]\nmethod = \"sayHello\"\nattachments = { env = \"canary\" }\ncluster = \"c\"";
    assert_eq!(run(by_attachment, "", &req), 0, "attachment route");
}
