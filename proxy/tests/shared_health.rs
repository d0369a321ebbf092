//! Endpoint health shared by the workers, end to end with `workers = 2`: a failure seen by
//! each worker ejects the provider once, for both, and one worker at a time probes it back.

mod common;

use std::time::{Duration, Instant};

use common::*;
use dubbo_codec::Status;

for_each_engine!(failures_on_two_workers_eject_once_and_one_probes);

async fn failures_on_two_workers_eject_once_and_one_probes(engine: &str) {
    let a = Upstream::start("a").await;
    let b = Upstream::start("b").await;
    // Weights 2:1: each worker's round-robin starts with a. Two failures eject; probes every
    // 2 s (no idle heartbeats: every heartbeat a sees is a probe), two answered bring it back.
    let conf = config(
        2,
        &format!(
            r#"
[[routes]]
cluster = "c"
timeout_ms = 300
[clusters.c]
endpoints = [{{ address = "{}", weight = 2 }}, {{ address = "{}", weight = 1 }}]
[clusters.c.outlier]
consecutive_failures = 2
base_ejection_ms = 60000
[clusters.c.health_check]
interval_ms = 0
probe_interval_ms = 2000
healthy_threshold = 2
timeout_ms = 2000
"#,
            a.addr, b.addr
        ),
    );
    let p = Proxy::start(engine, &conf);
    let series = |name: &str, ep: &Upstream, extra: &str| {
        format!("{name}{{cluster=\"c\",endpoint=\"{}\"{extra}}}", ep.addr)
    };
    let conns = |ep| p.metric(&series("dubbo_proxy_upstream_connections", ep, ""));
    assert!(
        eventually(|| conns(&a) == 2.0 && conns(&b) == 2.0).await,
        "both workers connected"
    );

    // Two callers: one on each worker. Each sends a a call it never answers.
    let mut callers = [
        Client::connect(p.addr()).await,
        Client::connect(p.addr()).await,
    ];
    assert!(
        eventually(|| p.metric("dubbo_proxy_listener_connections{listener=\"main\"}") == 2.0).await
    );
    for (i, cl) in callers.iter_mut().enumerate() {
        assert_eq!(
            cl.call(i as u64, &call("hang")).await.0,
            Status::ServerTimeout
        );
    }
    // One failure on each worker: ejected once, and neither worker sends a calls now.
    let ejections = series("dubbo_proxy_endpoint_ejections_total", &a, "");
    assert_eq!(p.metric(&ejections), 1.0);
    assert_eq!(
        p.metric(&series("dubbo_proxy_endpoint_ejected", &a, "")),
        1.0
    );
    for (i, cl) in callers.iter_mut().enumerate() {
        for id in 0..3 {
            let (st, v) = cl.call(10 + 10 * i as u64 + id, &call("x")).await;
            assert_eq!((st, v.as_str()), (Status::Ok, "b:x"));
        }
    }
    // Probed back: two probes answered, sent by one worker at a time (each worker on its own
    // would need two of its own).
    let ok = series("dubbo_proxy_endpoint_probes_total", &a, ",result=\"ok\"");
    let failed = series(
        "dubbo_proxy_endpoint_probes_total",
        &a,
        ",result=\"failed\"",
    );
    let end = Instant::now() + Duration::from_secs(20);
    while p.metric(&ok) < 2.0 && Instant::now() < end {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(p.metric(&ok), 2.0);
    assert!(eventually(|| p.metric(&series("dubbo_proxy_endpoint_ejected", &a, "")) == 0.0).await);
    // Nothing more after it is back.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let probes = p.metric(&ok) + p.metric(&failed);
    assert_eq!(p.metric(&ok), 2.0);
    assert_eq!(
        a.seen.heartbeats.load(std::sync::atomic::Ordering::SeqCst) as f64,
        probes
    );
    assert_eq!(p.metric(&ejections), 1.0);
    // And both workers send it calls again.
    for (i, cl) in callers.iter_mut().enumerate() {
        let mut to_a = 0;
        for id in 0..3 {
            let (st, v) = cl.call(100 + 10 * i as u64 + id, &call("x")).await;
            assert_eq!(st, Status::Ok);
            to_a += usize::from(v == "a:x");
        }
        assert_eq!(to_a, 2, "caller {i}");
    }
}
