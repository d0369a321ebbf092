//! The client's bounds against providers that do not answer, on 127.0.0.1: a connect
//! timeout, a call timeout that covers connecting and queueing as well as waiting, and one
//! connect at a time that the calls made meanwhile wait for, each within its own timeout.

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::*;
use dubbo_rpc::client::{CallError, Client, ClientConfig};
use dubbo_rpc::server::Server;
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpSocket, TcpStream};

/// An address on 127.0.0.1 whose connects hang: a listener that never accepts, its accept
/// queue filled by connects of its own, so that the kernel drops further SYNs (the connect
/// waits for its retries). Holds the listener and the fillers.
struct BlackHole {
    addr: SocketAddr,
    _listener: TcpListener,
    _fillers: Vec<TcpStream>,
}

impl BlackHole {
    async fn new() -> BlackHole {
        let socket = TcpSocket::new_v4().unwrap();
        socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let listener = socket.listen(1).unwrap();
        let addr = listener.local_addr().unwrap();
        let mut fillers = Vec::new();
        while fillers.len() < 64 {
            match tokio::time::timeout(Duration::from_millis(300), TcpStream::connect(addr)).await {
                Ok(Ok(s)) => fillers.push(s),
                _ => break,
            }
        }
        assert!(fillers.len() < 64, "the accept queue never filled");
        BlackHole {
            addr,
            _listener: listener,
            _fillers: fillers,
        }
    }
}

fn config(timeout: Duration, connect_timeout: Duration) -> ClientConfig {
    ClientConfig::default()
        .timeout(timeout)
        .connect_timeout(connect_timeout)
}

fn add() -> dubbo_codec::Request {
    req("add").arg("int", &1).arg("int", &2).build().unwrap()
}

/// `elapsed` is `expected`, give or take what a loaded machine adds.
fn about(elapsed: Duration, expected: Duration) -> bool {
    elapsed >= expected - Duration::from_millis(20)
        && elapsed < expected + Duration::from_millis(700)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_timeout_bounds_a_connect_to_a_black_hole() {
    let hole = BlackHole::new().await;
    let connect_timeout = Duration::from_millis(300);
    let start = Instant::now();
    let err = Client::connect_with(
        hole.addr.to_string(),
        config(Duration::from_secs(30), connect_timeout),
    )
    .await
    .unwrap_err();
    let took = start.elapsed();
    eprintln!("connect to a black hole gave up after {took:?} (connect_timeout {connect_timeout:?}): {err}");
    assert!(
        matches!(&err, CallError::ConnectTimeout { timeout, .. } if *timeout == connect_timeout),
        "{err}"
    );
    assert!(about(took, connect_timeout), "{took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_call_timeout_covers_connecting() {
    let hole = BlackHole::new().await;
    let timeout = Duration::from_millis(300);
    let client = Client::lazy(
        hole.addr.to_string(),
        config(timeout, Duration::from_secs(30)),
    );
    let start = Instant::now();
    let err = client.call::<i32>(&add()).await.unwrap_err();
    let took = start.elapsed();
    eprintln!("a call to a black hole timed out after {took:?} (timeout {timeout:?}, connect_timeout 30 s): {err}");
    assert!(matches!(err, CallError::Timeout { .. }), "{err}");
    assert!(about(took, timeout), "{took:?}");
    // A one-way call too.
    let start = Instant::now();
    let err = client.oneway(&add()).await.unwrap_err();
    assert!(matches!(err, CallError::Timeout { .. }), "{err}");
    assert!(about(start.elapsed(), timeout), "{:?}", start.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_during_a_connect_wait_for_it_each_within_its_own_timeout() {
    let hole = BlackHole::new().await;
    let connect_timeout = Duration::from_millis(1500);
    let client = Client::lazy(
        hole.addr.to_string(),
        config(Duration::from_secs(10), connect_timeout),
    );
    // Ten calls at once with timeouts of 100..1000 ms: each gives up at its own; none waits
    // for another's connect.
    let start = Instant::now();
    let calls: Vec<_> = (1..=10u64)
        .map(|i| {
            let client = client.clone();
            let timeout = Duration::from_millis(100 * i);
            tokio::spawn(async move {
                let r = client.call::<i32>(&add_within(timeout)).await;
                (timeout, r, start.elapsed())
            })
        })
        .collect();
    // And one with time to spare: it gets the outcome of the one connect under way, at
    // the connect timeout (ten connects one after another would take 15 s).
    let patient = client.call::<i32>(&add()).await.unwrap_err();
    let patient_took = start.elapsed();
    for call in calls {
        let (timeout, r, took) = call.await.unwrap();
        let err = r.unwrap_err();
        assert!(matches!(err, CallError::Timeout { .. }), "{err}");
        assert!(about(took, timeout), "{timeout:?}: {took:?}");
    }
    eprintln!("ten calls during a connect each ended at their own timeout; a patient one got the connect's outcome after {patient_took:?}: {patient}");
    assert!(
        matches!(patient, CallError::ConnectTimeout { .. }),
        "{patient}"
    );
    assert!(about(patient_took, connect_timeout), "{patient_took:?}");
    assert_eq!(client.connection_count(), 0);
}

fn add_within(timeout: Duration) -> dubbo_codec::Request {
    req("add")
        .arg("int", &1)
        .arg("int", &2)
        .timeout(timeout)
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_at_once_share_one_connect() {
    let server = Server::builder()
        .service(demo_service())
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let client = Client::lazy(server.local_addr().to_string(), ClientConfig::default());
    let calls: Vec<_> = (0..50)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move { client.call::<i32>(&add()).await })
        })
        .collect();
    for call in calls {
        assert_eq!(call.await.unwrap().unwrap(), 3);
    }
    assert_eq!(client.connection_count(), 1);
    server.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_call_timeout_covers_queueing_to_a_provider_that_does_not_read() {
    // A provider that accepts and then neither reads nor answers.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stall = tokio::spawn(async move {
        let (s, _) = listener.accept().await.unwrap();
        tokio::time::sleep(Duration::from_secs(60)).await;
        drop(s);
    });
    let timeout = Duration::from_millis(500);
    let client = Client::connect_with(addr.to_string(), config(timeout, Duration::from_secs(3)))
        .await
        .unwrap();
    // 3,000 calls of 16 KiB (47 MiB): the socket buffers fill, then the writer's queue
    // (1,024 frames), then calls wait to queue theirs. Every one ends at its timeout.
    let arg = "y".repeat(16 * 1024);
    let request = req("sayHello")
        .arg("java.lang.String", &arg)
        .build()
        .unwrap();
    let start = Instant::now();
    let calls: Vec<_> = (0..3_000)
        .map(|_| {
            let client = client.clone();
            let req = request.clone();
            tokio::spawn(async move { client.call::<String>(&req).await })
        })
        .collect();
    for call in calls {
        let err = call.await.unwrap().unwrap_err();
        assert!(matches!(err, CallError::Timeout { .. }), "{err}");
    }
    let took = start.elapsed();
    eprintln!("3,000 calls to a provider that does not read all timed out within {took:?} (timeout {timeout:?})");
    assert!(took < timeout + Duration::from_secs(2), "{took:?}");
    stall.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_black_hole_is_one() {
    // The helper's premise: a plain connect to it does not complete.
    let hole = BlackHole::new().await;
    let r = tokio::time::timeout(Duration::from_millis(500), TcpStream::connect(hole.addr)).await;
    assert!(r.is_err(), "connected: {r:?}");
    // While a listener that accepts answers at once, so the timeouts above are the hole's.
    let open = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = open.local_addr().unwrap();
    let accept = tokio::spawn(async move {
        let (mut s, _) = open.accept().await.unwrap();
        let mut b = [0u8; 1];
        let _ = s.read(&mut b).await;
    });
    let s = tokio::time::timeout(Duration::from_millis(500), TcpStream::connect(addr)).await;
    assert!(matches!(s, Ok(Ok(_))));
    drop(s);
    accept.await.unwrap();
}
