//! Overload that still answers: the proxy under `RLIMIT_NOFILE` 256 (soft and hard, so it
//! cannot raise it) flooded by 300 idle callers. Callers past the file descriptor budget are
//! accepted and closed at once, `/healthz` answers 503 `overloaded` at once, callers within
//! the budget are served (their provider connections come from the reserve), and once the
//! flood leaves everything is as before. Every test runs against every engine.

mod common;

use std::io::ErrorKind;
use std::time::{Duration, Instant};

use common::*;
use dubbo_codec::Status;
use tokio::net::TcpStream;

for_each_engine!(a_flood_of_idle_callers_leaves_the_proxy_answering);

const NOFILE: u64 = 256;
const FLOOD: usize = 300;

/// True when the proxy closed `s` (end of stream or reset); false while it holds it open.
fn closed_by_proxy(s: &TcpStream) -> bool {
    let mut byte = [0u8; 1];
    match s.try_read(&mut byte) {
        Ok(0) => true,
        Ok(_) => panic!("the proxy sent bytes to a caller that sent none"),
        Err(e) if e.kind() == ErrorKind::WouldBlock => false,
        Err(_) => true,
    }
}

async fn a_flood_of_idle_callers_leaves_the_proxy_answering(engine: &str) {
    let a = Upstream::start("a").await;
    let conf = config(
        2,
        &format!(
            "[[routes]]\ncluster = \"a\"\n[clusters.a]\nendpoints = [{{ address = \"{}\" }}]\n",
            a.addr
        ),
    );
    let p = Proxy::start_with_nofile(engine, &conf, NOFILE);
    let budget = p.metric("dubbo_proxy_caller_fd_budget") as usize;
    assert!(
        budget > 0 && (budget as u64) < NOFILE - 64,
        "the budget leaves the reserve: {budget}"
    );
    let mut first = Client::connect(p.addr()).await;
    assert_eq!(first.call(1, &call("hello")).await.0, Status::Ok);

    // The flood: every connect succeeds (the kernel completes it); the proxy keeps what the
    // budget allows and closes the rest at once.
    let mut idle = Vec::with_capacity(FLOOD);
    for _ in 0..FLOOD {
        idle.push(TcpStream::connect(p.addr()).await.unwrap());
    }
    let rejected = "dubbo_proxy_downstream_rejected_total{listener=\"main\"}";
    let expect_rejected = (FLOOD + 1 - budget) as f64;
    assert!(
        eventually(|| p.metric(rejected) == expect_rejected).await,
        "{} rejected, {expect_rejected} expected",
        p.metric(rejected)
    );
    let started = Instant::now();
    let (status, body) = p.admin("GET", "/healthz");
    let took = started.elapsed();
    assert_eq!(status, 503, "{body}");
    assert!(body.starts_with("overloaded"), "{body}");
    assert!(
        took < Duration::from_millis(100),
        "/healthz took {took:?} while overloaded"
    );
    assert_eq!(
        p.metric("dubbo_proxy_downstream_connections"),
        budget as f64
    );

    // Those the proxy kept and those it closed, as the callers see them.
    let (mut kept, mut gone) = (Vec::new(), 0);
    for s in idle {
        if closed_by_proxy(&s) {
            gone += 1;
        } else {
            kept.push(s);
        }
    }
    assert_eq!(kept.len(), budget - 1, "the first caller holds one place");
    assert_eq!(gone, FLOOD + 1 - budget);

    // Callers within the budget are served, on both workers (a worker with no provider
    // connection yet opens one from the reserve).
    assert_eq!(first.call(2, &call("hello")).await.0, Status::Ok);
    let mut served = Vec::new();
    for (i, s) in kept.drain(..2).enumerate() {
        let mut c = Client::over(s);
        let (status, answer) = c.call(10 + i as u64, &call("hello")).await;
        assert_eq!((status, answer.as_str()), (Status::Ok, "a:hello"));
        served.push(c);
    }
    // One more caller is closed at once, not left waiting in the backlog.
    let late = TcpStream::connect(p.addr()).await.unwrap();
    let closed = async {
        let mut byte = [0u8; 1];
        loop {
            late.readable().await.unwrap();
            match late.try_read(&mut byte) {
                Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
                other => return other.map(|n| n == 0).unwrap_or(true),
            }
        }
    };
    assert!(
        tokio::time::timeout(Duration::from_secs(2), closed)
            .await
            .expect("a caller over the budget was left open"),
        "a caller over the budget was sent bytes"
    );

    // The flood leaves: everything as before.
    drop((kept, served));
    assert!(
        eventually(|| p.admin("GET", "/healthz").0 == 200).await,
        "{:?}",
        p.admin("GET", "/healthz")
    );
    let mut after = Client::connect(p.addr()).await;
    assert_eq!(after.call(3, &call("hello")).await.0, Status::Ok);
    assert_eq!(first.call(4, &call("hello")).await.0, Status::Ok);
    assert!(
        eventually(|| p.metric("dubbo_proxy_downstream_connections") == 2.0).await,
        "{} caller connections",
        p.metric("dubbo_proxy_downstream_connections")
    );
}
