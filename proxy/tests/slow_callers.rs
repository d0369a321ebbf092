//! Slow callers cannot pin the proxy's connection slots: 1,000 connections that each send 5
//! bytes of a header are closed by `frame_timeout_ms` while a well-behaved caller is served
//! throughout, on both engines, against the `dubbo-proxy` binary on 127.0.0.1.

mod common;

use std::time::{Duration, Instant};

use common::*;
use dubbo_codec::{Frame, Status};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

for_each_engine!(a_thousand_partial_headers_are_closed_while_others_are_served);

const TRICKLERS: usize = 1_000;

async fn a_thousand_partial_headers_are_closed_while_others_are_served(engine: &str) {
    let a = Upstream::start("a").await;
    let conf = config(
        2,
        &format!(
            "frame_timeout_ms = 1000\nmax_connections = {}\n[[routes]]\ncluster = \"a\"\n[clusters.a]\nendpoints = [{{ address = \"{}\" }}]\n",
            TRICKLERS + 10,
            a.addr
        ),
    );
    let p = Proxy::start(engine, &conf);
    let mut good = Client::connect(p.addr()).await;
    assert_eq!(good.call(1, &call("before")).await.0, Status::Ok);

    let partial = {
        let mut b = bytes::BytesMut::new();
        Frame::heartbeat_request(1).encode(&mut b).unwrap();
        b[..5].to_vec()
    };
    let started = Instant::now();
    let mut tricklers = Vec::with_capacity(TRICKLERS);
    for _ in 0..TRICKLERS {
        let mut s = TcpStream::connect(p.addr()).await.unwrap();
        s.write_all(&partial).await.unwrap();
        tricklers.push(s);
    }
    // All of them accepted (the first may be closed already while the last connect).
    assert!(
        eventually(|| p.metric("dubbo_proxy_downstream_accepted_total") > TRICKLERS as f64).await,
        "{} caller connections accepted",
        p.metric("dubbo_proxy_downstream_accepted_total")
    );

    // Each trickler sees its connection closed (end of stream or reset), well before the
    // 180 s idle timeout; the good caller is served all the while.
    let waiters: Vec<_> = tricklers
        .into_iter()
        .map(|mut s| {
            tokio::spawn(async move {
                let mut byte = [0u8; 1];
                tokio::time::timeout(Duration::from_secs(30), s.read(&mut byte)).await
            })
        })
        .collect();
    let mut id = 2;
    let mut served = 0;
    while waiters.iter().any(|w| !w.is_finished()) && started.elapsed() < Duration::from_secs(30) {
        assert_eq!(good.call(id, &call("during")).await.0, Status::Ok);
        id += 1;
        served += 1;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for w in waiters {
        match w.await.unwrap() {
            Ok(Ok(0)) | Ok(Err(_)) => {}
            Ok(Ok(n)) => panic!("a trickler was sent {n} bytes"),
            Err(_) => panic!("a trickler was still open after 30 s"),
        }
    }
    let took = started.elapsed();
    eprintln!("{engine}: {TRICKLERS} partial headers closed within {took:?}; {served} calls served meanwhile");
    assert!(served > 0);
    assert_eq!(
        p.metric("dubbo_proxy_downstream_slow_closed_total{reason=\"partial_frame\"}"),
        TRICKLERS as f64
    );
    assert_eq!(
        good.call(id, &call("after")).await,
        (Status::Ok, "a:after".into())
    );
    assert!(
        eventually(|| p.metric("dubbo_proxy_downstream_connections") == 1.0).await,
        "only the good caller is left"
    );
}
