//! End to end on 127.0.0.1: Rust callers -> the `dubbo-proxy` binary -> Rust test providers.
//! Every test runs against every engine (`for_each_engine!`).

mod common;

use std::time::Duration;

use common::*;
use dubbo_codec::{Frame, Request, Status};

for_each_engine!(
    routes_by_interface_method_group_and_attachment,
    weighted_round_robin_split,
    failures_answered_with_the_callers_id,
    oversize_and_garbage_disturb_no_one_else,
    dying_upstream_fails_only_its_inflight_calls,
    heartbeats_answered_locally_and_sent_upstream,
    read_only_provider_gets_no_new_calls,
    one_way_calls_are_forwarded,
    metadata_cache_names_the_interface_of_a_path,
    admin_endpoints,
    sigterm_drains_gracefully,
    sighup_reloads_without_dropping_connections,
    large_bodies_cross_intact,
    two_workers_serve_every_caller_and_see_a_close_right_after_a_call,
);

/// A provider "a" and a proxy of `workers` workers that routes every call to it (`before`:
/// TOML for the listener, put before the route).
async fn proxy_to_a(engine: &str, workers: usize, before: &str) -> (Upstream, Proxy) {
    let (a, conf) = conf_to_a(workers, before).await;
    (a, Proxy::start(engine, &conf))
}

/// Provider "a" and the configuration of [`proxy_to_a`].
async fn conf_to_a(workers: usize, before: &str) -> (Upstream, String) {
    let a = Upstream::start("a").await;
    let conf = config(
        workers,
        &format!(
            "{before}[[routes]]\ncluster = \"a\"\n{}",
            cluster("a", &[(&a, 1)], "")
        ),
    );
    (a, conf)
}

/// Providers "a" and "b" with weights `wa` and `wb` in cluster "x" (`route`: TOML added to the
/// route, `extra`: to the cluster), a one-worker proxy routing every call there, and a caller
/// connected to it once the proxy holds a connection to each provider (so nothing that follows
/// is skewed by start-up).
async fn proxy_to_a_and_b(
    engine: &str,
    (wa, wb): (u32, u32),
    route: &str,
    extra: &str,
) -> (Upstream, Upstream, Proxy, Client) {
    let a = Upstream::start("a").await;
    let b = Upstream::start("b").await;
    let conf = config(
        1,
        &format!(
            "[[routes]]\ncluster = \"x\"\n{route}{}",
            cluster("x", &[(&a, wa), (&b, wb)], extra)
        ),
    );
    let p = Proxy::start(engine, &conf);
    let cl = Client::connect(p.addr()).await;
    assert!(
        eventually(
            || a.seen.connections.load(std::sync::atomic::Ordering::SeqCst) > 0
                && b.seen.connections.load(std::sync::atomic::Ordering::SeqCst) > 0
        )
        .await
    );
    tokio::time::sleep(Duration::from_millis(50)).await;
    (a, b, p, cl)
}

fn cluster(name: &str, eps: &[(&Upstream, u32)], extra: &str) -> String {
    let list: Vec<String> = eps
        .iter()
        .map(|(u, w)| format!("{{ address = \"{}\", weight = {w} }}", u.addr))
        .collect();
    format!(
        "[clusters.{name}]\nendpoints = [{}]\n{extra}\n",
        list.join(", ")
    )
}

async fn routes_by_interface_method_group_and_attachment(engine: &str) {
    let a = Upstream::start("a").await;
    let b = Upstream::start("b").await;
    let c = Upstream::start("c").await;
    let conf = config(
        2,
        &format!(
            r#"
[[routes]]
name = "canary"
interface = "com.example.*"
attachments = {{ env = "canary" }}
cluster = "c"
[[routes]]
name = "blue"
interface = "*.DemoService"
group = "blue"
cluster = "b"
[[routes]]
name = "special"
interface = "com.example.DemoService"
method = "special"
cluster = "c"
[[routes]]
name = "rest"
interface = "com.example.*"
cluster = "a"
{}{}{}"#,
            cluster("a", &[(&a, 1)], ""),
            cluster("b", &[(&b, 1)], ""),
            cluster("c", &[(&c, 1)], "")
        ),
    );
    let p = Proxy::start(engine, &conf);
    let mut cl = Client::connect(p.addr()).await;
    assert_eq!(
        cl.call(1, &call("sayHello")).await,
        (Status::Ok, "a:sayHello".into())
    );
    let blue = Request::builder(SVC, "sayHello")
        .group("blue")
        .build()
        .unwrap();
    assert_eq!(cl.call(2, &blue).await, (Status::Ok, "b:sayHello".into()));
    assert_eq!(
        cl.call(3, &call("special")).await,
        (Status::Ok, "c:special".into())
    );
    let canary = Request::builder(SVC, "sayHello")
        .attach("env", "canary")
        .build()
        .unwrap();
    assert_eq!(cl.call(4, &canary).await, (Status::Ok, "c:sayHello".into()));
    let (st, msg) = cl.call(5, &call_on("org.Other", "x")).await;
    assert_eq!(st, Status::ServiceNotFound, "{msg}");
    // The caller's ids come back, whatever ids went upstream.
    let big_id = u64::MAX - 3;
    assert_eq!(
        cl.call(big_id, &call("sayHello")).await,
        (Status::Ok, "a:sayHello".into())
    );
}

async fn weighted_round_robin_split(engine: &str) {
    let (a, b, _p, mut cl) = proxy_to_a_and_b(engine, (3, 1), "", "lb = \"round_robin\"").await;
    for i in 0..400u64 {
        cl.send_call(i, &call("sayHello")).await;
    }
    for i in 0..400u64 {
        assert_eq!(outcome(&cl.response(i).await).0, Status::Ok);
    }
    assert_eq!((a.calls(), b.calls()), (300, 100));
}

async fn failures_answered_with_the_callers_id(engine: &str) {
    let a = Upstream::start("a").await;
    // A port with nothing listening: bind, note the port, close.
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let conf = config(
        1,
        &format!(
            r#"
[[routes]]
interface = "dead.*"
cluster = "dead"
[[routes]]
interface = "com.example.*"
cluster = "a"
timeout_ms = 300
[clusters.dead]
endpoints = [{{ address = "{dead}" }}]
{}"#,
            cluster("a", &[(&a, 1)], "")
        ),
    );
    let p = Proxy::start(engine, &conf);
    let mut cl = Client::connect(p.addr()).await;
    let (st, msg) = cl.call(11, &call_on("nothing.Here", "x")).await;
    assert_eq!(st, Status::ServiceNotFound, "{msg}");
    // The dead endpoint: refused at start-up, so no healthy provider (or connect failed).
    let (st, msg) = cl.call(12, &call_on("dead.Svc", "x")).await;
    assert_eq!(st, Status::ServiceError, "{msg}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (st, msg) = cl.call(13, &call_on("dead.Svc", "x")).await;
    assert_eq!(st, Status::ServiceError, "{msg}");
    // Timeout.
    let t0 = std::time::Instant::now();
    let (st, msg) = cl.call(14, &call("hang")).await;
    assert_eq!(st, Status::ServerTimeout, "{msg}");
    assert!(
        t0.elapsed() >= Duration::from_millis(280),
        "{:?}",
        t0.elapsed()
    );
    // A slow answer that comes in time is fine, and the connection still works.
    assert_eq!(cl.call(15, &sleep_call(50)).await.0, Status::Ok);
}

async fn oversize_and_garbage_disturb_no_one_else(engine: &str) {
    let (_a, p) = proxy_to_a(engine, 1, "max_payload = 1024\n").await;
    let mut good = Client::connect(p.addr()).await;
    let mut big = Client::connect(p.addr()).await;
    let mut garbage = Client::connect(p.addr()).await;
    // A slow call in flight on the good connection while the others misbehave.
    good.send_call(1, &sleep_call(200)).await;
    let (st, msg) = big.call(7, &big_call(4096)).await;
    assert_eq!(st, Status::BadRequest, "{msg}");
    // The oversized frame was skipped: the same connection goes on.
    assert_eq!(
        big.call(8, &call("after")).await,
        (Status::Ok, "a:after".into())
    );
    // Neither Dubbo nor HTTP (an HTTP/1.1 request line would go to the Triple pipeline).
    garbage.send_raw(b"\x00\x01 not a frame\r\n\r\n").await;
    assert!(
        garbage.next_frame().await.is_none(),
        "garbage gets no frame"
    );
    assert!(*garbage.closed.lock().unwrap(), "garbage connection closed");
    assert_eq!(
        outcome(&good.response(1).await),
        (Status::Ok, "a:sleep".into())
    );
    assert_eq!(good.call(2, &call("x")).await.0, Status::Ok);
}

async fn dying_upstream_fails_only_its_inflight_calls(engine: &str) {
    let (a, b, _p, mut cl) = proxy_to_a_and_b(engine, (1, 1), "timeout_ms = 10000\n", "").await;
    // 10 calls in flight, alternating a, b (round-robin).
    for id in 100..110u64 {
        cl.send_call(id, &sleep_call(400)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!((a.calls(), b.calls()), (5, 5));
    a.kill();
    let mut lost = 0;
    let mut ok = 0;
    for id in 100..110u64 {
        let (st, s) = outcome(&cl.response(id).await);
        match st {
            Status::ChannelInactive => lost += 1,
            Status::Ok => {
                assert_eq!(s, "b:sleep");
                ok += 1
            }
            other => panic!("{other:?} {s}"),
        }
    }
    assert_eq!((lost, ok), (5, 5));
    // New calls go to b only.
    for id in 200..210u64 {
        assert_eq!(
            cl.call(id, &call("after")).await,
            (Status::Ok, "b:after".into())
        );
    }
}

async fn heartbeats_answered_locally_and_sent_upstream(engine: &str) {
    let a = Upstream::start("a").await;
    let conf = config(
        1,
        &format!(
            "[[routes]]\ncluster = \"a\"\n{}",
            cluster(
                "a",
                &[(&a, 1)],
                "[clusters.a.health_check]\ninterval_ms = 200\ntimeout_ms = 1000"
            )
        ),
    );
    let p = Proxy::start(engine, &conf);
    let mut cl = Client::connect(p.addr()).await;
    cl.send(&Frame::heartbeat_request(77)).await;
    let f = cl.next_frame().await.expect("heartbeat answer");
    assert_eq!(f, Frame::heartbeat_response(77));
    // The proxy keeps its provider connection alive with its own heartbeats.
    assert!(eventually(|| a.seen.heartbeats.load(std::sync::atomic::Ordering::SeqCst) >= 2).await);
    assert_eq!(a.calls(), 0);
    assert_eq!(cl.call(1, &call("x")).await.0, Status::Ok);
}

async fn read_only_provider_gets_no_new_calls(engine: &str) {
    let (a, _b, _p, mut cl) = proxy_to_a_and_b(engine, (1, 1), "", "").await;
    // One slow call in flight on each.
    cl.send_call(1, &sleep_call(300)).await;
    cl.send_call(2, &sleep_call(300)).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    a.read_only();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let before = a.calls();
    for id in 10..30u64 {
        assert_eq!(cl.call(id, &call("x")).await, (Status::Ok, "b:x".into()));
    }
    assert_eq!(a.calls(), before);
    // The calls in flight on the read-only provider still complete.
    assert_eq!(outcome(&cl.response(1).await).0, Status::Ok);
    assert_eq!(outcome(&cl.response(2).await).0, Status::Ok);
}

async fn one_way_calls_are_forwarded(engine: &str) {
    let (a, p) = proxy_to_a(engine, 1, "").await;
    let mut cl = Client::connect(p.addr()).await;
    for id in 0..5 {
        cl.send(&call("fire").to_frame(id, false)).await;
    }
    assert!(eventually(|| a.seen.one_way.load(std::sync::atomic::Ordering::SeqCst) == 5).await);
    // Nothing came back for them; the next two-way call's answer is the first frame.
    assert_eq!(cl.call(9, &call("x")).await.0, Status::Ok);
    assert!(cl.events.is_empty());
}

async fn metadata_cache_names_the_interface_of_a_path(engine: &str) {
    let a = Upstream::start("a").await;
    let b = Upstream::start("b").await;
    let conf = config(
        1,
        &format!(
            r#"
[[routes]]
name = "blue"
group = "blue"
cluster = "b"
[[routes]]
name = "public"
interface = "com.example.Public"
cluster = "b"
[[routes]]
cluster = "a"
{}{}"#,
            cluster("a", &[(&a, 1)], ""),
            cluster("b", &[(&b, 1)], "")
        ),
    );
    let p = Proxy::start(engine, &conf);
    let mut cl = Client::connect(p.addr()).await;
    // SVC's path, exported as the interface Public: refused until the operator says so.
    let as_public = Request::builder(SVC, "x")
        .version("1.0.0")
        .arg("java.lang.String", "x")
        .attach("interface", "com.example.Public")
        .build()
        .unwrap();
    assert_eq!(cl.call(1, &as_public).await.0, Status::BadRequest);
    let (st, _) = p.admin(
        "POST",
        &format!("/metadata?path={SVC}&version=1.0.0&interface=com.example.Public&group=blue"),
    );
    assert_eq!(st, 200);
    let (_, list) = p.admin("GET", "/metadata");
    assert!(list.contains("group=blue"), "{list}");
    let mut routed = false;
    for id in 2..50 {
        if cl.call(id, &as_public).await == (Status::Ok, "b:x".into()) {
            routed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(routed, "metadata cache not used for the interface");
    // The cache's group is not the call's: the provider dispatches on the group the call
    // carries (none), so the call goes where a call without a group goes.
    assert_eq!(cl.call(60, &call("x")).await, (Status::Ok, "a:x".into()));
}

async fn admin_endpoints(engine: &str) {
    let a = Upstream::start("a").await;
    let conf = config(
        1,
        &format!(
            "[[routes]]\nname = \"all\"\ncluster = \"a\"\n{}",
            cluster("a", &[(&a, 1)], "")
        ),
    );
    let p = Proxy::start(engine, &conf);
    let mut cl = Client::connect(p.addr()).await;
    for id in 0..3 {
        assert_eq!(cl.call(id, &call("x")).await.0, Status::Ok);
    }
    assert_eq!(cl.call(9, &call_on("", "x")).await.0, Status::Ok);
    let (st, m) = p.admin("GET", "/metrics");
    assert_eq!(st, 200);
    assert!(
        m.contains("dubbo_proxy_route_requests_total{route=\"all\"} 4"),
        "{m}"
    );
    assert!(
        m.contains(
            "dubbo_proxy_route_responses_total{route=\"all\",status=\"OK\",origin=\"upstream\"} 4"
        ),
        "{m}"
    );
    assert!(
        m.contains("dubbo_proxy_cluster_requests_total{cluster=\"a\"} 4"),
        "{m}"
    );
    assert!(
        m.contains("dubbo_proxy_route_latency_seconds_count{route=\"all\"} 4"),
        "{m}"
    );
    assert!(m.contains(&format!(
        "dubbo_proxy_upstream_connections{{cluster=\"a\",endpoint=\"{}\"}} 1",
        a.addr
    )));
    assert!(m.contains("dubbo_proxy_downstream_connections 1"), "{m}");
    assert_eq!(p.admin("GET", "/healthz"), (200, "ok\n".into()));
    let (st, c) = p.admin("GET", "/config");
    assert_eq!(st, 200);
    assert!(c.contains("[clusters.a]"), "{c}");
    assert_eq!(p.admin("POST", "/api/v1/downgrade/on").0, 200);
    assert_eq!(cl.call(20, &call("x")).await.0, Status::Ok);
    assert_eq!(p.admin("POST", "/api/v1/downgrade/off").0, 200);
    assert_eq!(p.admin("GET", "/nope").0, 404);
    // State changes on POST only; a page that reaches the port by DNS rebinding is refused.
    assert_eq!(p.admin("GET", "/api/v1/downgrade/on").0, 405);
    let admin = p.admin.unwrap();
    let foreign = http_raw(
        admin,
        "GET /config HTTP/1.1\r\nHost: rebind.example:20882\r\n\r\n",
    );
    assert!(foreign.starts_with("HTTP/1.1 421 "), "{foreign}");
    assert!(!foreign.contains("[clusters.a]"), "{foreign}");
    let local = http_raw(admin, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
    assert!(local.starts_with("HTTP/1.1 200 "), "{local}");
}

async fn sigterm_drains_gracefully(engine: &str) {
    // The binary: SIGTERM and its exit status are the point.
    let (_a, conf) = conf_to_a(2, "").await;
    let mut p = Proxy::start_process(engine, &conf);
    let mut cl = Client::connect(p.addr()).await;
    assert_eq!(cl.call(1, &call("x")).await.0, Status::Ok);
    cl.send_call(2, &sleep_call(400)).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    p.signal(libc::SIGTERM);
    // The read-only event first, then the call in flight completes.
    let ev = cl.next_frame().await.expect("read-only event");
    assert_eq!(ev.event(), Some(dubbo_codec::Event::ReadOnly), "{ev:?}");
    assert_eq!(
        outcome(&cl.response(2).await),
        (Status::Ok, "a:sleep".into())
    );
    assert_eq!(p.admin.map(|_| ()), Some(()));
    let code = tokio::task::spawn_blocking(move || {
        let c = p.wait_exit(Duration::from_secs(5));
        (c, p)
    })
    .await
    .unwrap();
    assert_eq!(code.0, Some(0), "proxy exit status");
    assert!(*cl.closed.lock().unwrap() || cl.next_frame().await.is_none());
}

async fn sighup_reloads_without_dropping_connections(engine: &str) {
    let a = Upstream::start("a").await;
    let b = Upstream::start("b").await;
    let conf_a = config(
        1,
        &format!(
            "[[routes]]\ncluster = \"x\"\n{}",
            cluster("x", &[(&a, 1)], "")
        ),
    );
    let p = Proxy::start_process(engine, &conf_a);
    let mut cl = Client::connect(p.addr()).await;
    assert_eq!(cl.call(1, &call("x")).await, (Status::Ok, "a:x".into()));
    // A slow call in flight across the reload.
    cl.send_call(2, &sleep_call(300)).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let conf_b = config(
        1,
        &format!(
            "[[routes]]\ncluster = \"x\"\n{}",
            cluster("x", &[(&b, 1)], "")
        ),
    );
    std::fs::write(&p.config_path, conf_b).unwrap();
    p.signal(libc::SIGHUP);
    let mut moved = false;
    for id in 10..100 {
        let (st, s) = cl.call(id, &call("x")).await;
        assert_eq!(st, Status::Ok);
        if s == "b:x" {
            moved = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(moved, "reload not applied");
    assert_eq!(
        outcome(&cl.response(2).await),
        (Status::Ok, "a:sleep".into())
    );
    // A broken file is refused; the running configuration stays.
    std::fs::write(&p.config_path, "this is not toml [").unwrap();
    p.signal(libc::SIGHUP);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(cl.call(200, &call("x")).await, (Status::Ok, "b:x".into()));
    let (_, m) = p.admin("GET", "/metrics");
    assert!(
        m.contains("dubbo_proxy_config_reload_failures_total 1"),
        "{m}"
    );
}

/// Calls and responses from 100 B to 1 MiB, many in flight on several callers multiplexed
/// onto one provider connection (frames spanning reads, writes that do not go through at
/// once; the epoll engine forwards the large bodies by reference): every byte comes back
/// to the caller that sent it.
async fn large_bodies_cross_intact(engine: &str) {
    let (a, p) = proxy_to_a(engine, 1, "").await;
    let sizes = [100usize, 20_000, 70_000, 300_000, 1 << 20, 5_000];
    let body = move |c: u64, i: u64| {
        let n = sizes[(i as usize + c as usize) % sizes.len()];
        let fill = (b'a' + ((c * 7 + i) % 26) as u8) as char;
        let mut s = format!("{c}/{i}:");
        s.extend(std::iter::repeat_n(fill, n));
        s
    };
    let mut tasks = Vec::new();
    for c in 0..3u64 {
        let addr = p.addr();
        tasks.push(tokio::spawn(async move {
            let mut cl = Client::connect(addr).await;
            for i in 0..12u64 {
                let req = Request::builder(SVC, "echo")
                    .version("1.0.0")
                    .arg("java.lang.String", &body(c, i))
                    .build()
                    .unwrap();
                cl.send_call(i, &req).await;
            }
            for i in 0..12u64 {
                let (st, got) = outcome(&cl.response(i).await);
                assert_eq!(st, Status::Ok);
                assert!(
                    got == body(c, i),
                    "call {c}/{i}: wrong body ({} bytes)",
                    got.len()
                );
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(a.calls(), 36);
}

/// With two workers, worker 0 accepts and hands the callers out in turn (the tokio and the
/// epoll engine alike): every caller is served, on either worker. A caller that writes a
/// one-way call and closes at once is seen closed: its bytes and its end of stream arrive
/// together, before the connection is even registered, and the read that takes the bytes is
/// short (a short read ends a read only while the peer has not closed: the end of stream
/// raises no edge of its own afterwards).
async fn two_workers_serve_every_caller_and_see_a_close_right_after_a_call(engine: &str) {
    use tokio::io::AsyncWriteExt;
    let (_a, p) = proxy_to_a(engine, 2, "").await;
    let mut callers = Vec::new();
    for i in 0..4u64 {
        let mut cl = Client::connect(p.addr()).await;
        assert_eq!(cl.call(i, &call("x")).await, (Status::Ok, "a:x".into()));
        callers.push(cl);
    }
    let open = "dubbo_proxy_listener_connections{listener=\"main\"}";
    assert!(eventually(|| p.metric(open) == 4.0).await);
    for round in 0..4u64 {
        // One-way: no answer is written back, whose failure would close it too.
        let frame = call("bye").to_frame(100 + round, false);
        let mut bytes = bytes::BytesMut::new();
        dubbo_codec::FrameCodec::with_max_payload(u32::MAX)
            .encode_frame(&frame, &mut bytes)
            .unwrap();
        let mut s = tokio::net::TcpStream::connect(p.addr()).await.unwrap();
        s.write_all(&bytes).await.unwrap();
        drop(s);
        let accepted = 5.0 + round as f64;
        assert!(
            eventually(
                || p.metric("dubbo_proxy_downstream_accepted_total") == accepted
                    && p.metric(open) == 4.0
            )
            .await,
            "a caller closed right after its call is still open ({} open)",
            p.metric(open)
        );
    }
    // The others were not disturbed.
    for (i, cl) in callers.iter_mut().enumerate() {
        assert_eq!(
            cl.call(10 + i as u64, &call("y")).await,
            (Status::Ok, "a:y".into())
        );
    }
}
