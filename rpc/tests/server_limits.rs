//! The server's limits against misbehaving callers on 127.0.0.1: too many connections, too
//! many calls in flight, a caller that does not read its answers, connections that send
//! nothing or half a frame, and a shutdown that a stuck caller cannot hold up. Each limit is
//! counted in `Server::stats` and reported as one `tracing` event naming the caller, and the
//! callers that behave are served throughout.

mod common;

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use common::*;
use dubbo_codec::response::Response;
use dubbo_codec::{Event, Frame, FrameKind, Request, Status};
use dubbo_rpc::client::Client;
use dubbo_rpc::server::{Reply, Server, ServerBuilder, Service};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::Semaphore;

/// Every `tracing` event of this test binary, one line each: `LEVEL name=value ...`.
static EVENTS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Records every event in [`EVENTS`] (the tests run on several runtime threads at once, so
/// one global subscriber; each test picks its own events out by the caller's address).
struct Capture;

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Capture {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        let mut line = event.metadata().level().to_string();
        event.record(
            &mut |field: &tracing::field::Field, value: &dyn std::fmt::Debug| {
                let _ = write!(line, " {}={value:?}", field.name());
            },
        );
        EVENTS.lock().unwrap().push(line);
    }
}

/// The events so far that name `peer` (as `peer=ADDRESS`) and `limit` (as `limit="NAME"`).
/// Tests run at once and a client port may be reused by another test's connection, so an
/// event is told apart by both.
fn events_of(peer: SocketAddr, limit: &str) -> Vec<String> {
    let (peer, limit) = (format!(" peer={peer} "), format!(r#" limit="{limit}" "#));
    EVENTS
        .lock()
        .unwrap()
        .iter()
        .filter(|line| {
            let line = format!("{line} ");
            line.contains(&peer) && line.contains(&limit)
        })
        .cloned()
        .collect()
}

/// Waits (up to 10 s) for `wanted` events naming `peer` and `limit`, and returns them.
async fn wait_events(peer: SocketAddr, limit: &str, wanted: usize) -> Vec<String> {
    eventually(|| events_of(peer, limit).len() >= wanted).await;
    events_of(peer, limit)
}

async fn start(builder: ServerBuilder) -> Server {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        use tracing_subscriber::layer::SubscriberExt;
        let subscriber = tracing_subscriber::registry().with(Capture);
        tracing::subscriber::set_global_default(subscriber).expect("the only subscriber");
    });
    builder
        .service(demo_service())
        .bind("127.0.0.1:0")
        .await
        .unwrap()
}

async fn connect(server: &Server) -> TcpStream {
    TcpStream::connect(server.local_addr()).await.unwrap()
}

/// A connection whose receive buffer is as small as the kernel allows, so that answers it
/// does not read back up on the server quickly.
async fn connect_small_window(server: &Server) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    socket.connect(server.local_addr()).await.unwrap()
}

/// Sends a heartbeat on `s` and reads its answer: the connection is open and served.
async fn heartbeat(s: &mut TcpStream, id: u64) -> bool {
    if s.write_all(&wire(&Frame::heartbeat_request(id)))
        .await
        .is_err()
    {
        return false;
    }
    let mut buf = BytesMut::new();
    matches!(read_frame(s, &mut buf).await, Some(f)
        if f.kind() == FrameKind::EventResponse(Event::Heartbeat) && f.request_id() == id)
}

/// Waits up to `limit` for the server to close `s` (end of stream or reset; what the server
/// had written before is read and dropped); how long that took.
async fn closed_within(s: &mut TcpStream, limit: Duration) -> Option<Duration> {
    let start = Instant::now();
    let mut sink = vec![0u8; 64 * 1024];
    loop {
        match tokio::time::timeout_at((start + limit).into(), s.read(&mut sink)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return Some(start.elapsed()),
            Ok(Ok(_)) => continue,
            Err(_) => return None,
        }
    }
}

fn call_frame(id: u64, service: &str, method: &str) -> Frame {
    Request::builder(service, method)
        .build()
        .unwrap()
        .to_frame(id, true)
}

/// Answers of `len` bytes whose bodies count themselves: `live` is how many of them exist
/// (queued, or held by a call waiting to queue it), so a test sees them freed.
fn big_answers(len: usize, live: Arc<AtomicUsize>) -> Service {
    // A whole OK response body: flag RESPONSE_VALUE (1), then a string.
    let mut body = hessian2::to_vec(&1i32).unwrap();
    body.extend(hessian2::to_vec(&"x".repeat(len)).unwrap());
    Service::new("Big").method("get", move |_call| {
        live.fetch_add(1, Ordering::SeqCst);
        let tracked = Tracked {
            bytes: body.clone(),
            live: live.clone(),
        };
        async move { Ok(Reply::Body(Bytes::from_owner(tracked))) }
    })
}

struct Tracked {
    bytes: Vec<u8>,
    live: Arc<AtomicUsize>,
}

impl AsRef<[u8]> for Tracked {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.live.fetch_sub(1, Ordering::SeqCst);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_connections_closes_the_excess_and_serves_the_others() {
    let server = start(Server::builder().max_connections(3)).await;
    let mut held = Vec::new();
    for i in 0..3 {
        let mut s = connect(&server).await;
        assert!(heartbeat(&mut s, i).await);
        held.push(s);
    }
    let mut excess = connect(&server).await;
    let took = closed_within(&mut excess, Duration::from_secs(2))
        .await
        .expect("the fourth connection is closed at once");
    eprintln!("the connection over max_connections was closed after {took:?}");
    let events = wait_events(excess.local_addr().unwrap(), "max_connections", 1).await;
    assert!(
        matches!(&events[..], [e] if e.starts_with("WARN ") && e.contains(r#"limit="max_connections" value=3"#)),
        "{events:?}"
    );
    let stats = server.stats();
    assert_eq!(
        (stats.connections_accepted, stats.connections_refused),
        (3, 1)
    );
    // The open ones go on being served.
    for (i, s) in held.iter_mut().enumerate() {
        assert!(heartbeat(s, 10 + i as u64).await);
    }
    // One closes: a new connection takes its place.
    drop(held.pop());
    assert!(eventually(|| server.connection_count() == 2).await);
    assert_serves(&server).await;
    assert_eq!(server.stats().connections_refused, 1);
    server.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_inflight_answers_threadpool_exhausted_with_the_request_id() {
    let gate = Arc::new(Semaphore::new(0));
    let g = gate.clone();
    let server = start(
        Server::builder()
            .max_inflight(4)
            .service(Service::new("Gate").method("wait", move |_call| {
                let g = g.clone();
                async move {
                    let _permit = g.acquire().await;
                    Reply::typed("released")
                }
            })),
    )
    .await;
    // Six calls pipelined at once: four run, the last two are turned away at once.
    let mut s = connect(&server).await;
    let mut bytes = Vec::new();
    for id in 1..=6 {
        bytes.extend(wire(&call_frame(id, "Gate", "wait")));
    }
    s.write_all(&bytes).await.unwrap();
    let mut buf = BytesMut::new();
    for id in [5, 6] {
        let f = read_frame(&mut s, &mut buf).await.expect("an answer");
        assert_eq!(f.request_id(), id);
        assert_eq!(f.header().status(), Status::ServerThreadpoolExhaustedError);
        assert_eq!(f.header().status().as_u8(), 100);
        let Response::Error { message, .. } = Response::from_frame(&f).unwrap() else {
            panic!("an error response");
        };
        let message = message.unwrap_or_default();
        assert!(
            message.contains("thread pool is exhausted") && message.contains("max_inflight 4"),
            "{message}"
        );
    }
    assert_eq!(server.inflight(), 4);
    assert_eq!(server.stats().calls_rejected, 2);
    let events = wait_events(s.local_addr().unwrap(), "max_inflight", 2).await;
    for (e, id) in events.iter().zip([5, 6]) {
        assert!(
            e.starts_with("WARN ")
                && e.contains(&format!(" request_id={id} "))
                && e.contains(r#"limit="max_inflight" value=4"#),
            "{events:?}"
        );
    }
    // A one-way call past the limit is dropped (nothing to answer), and counted.
    let oneway = Request::builder("Gate", "wait")
        .build()
        .unwrap()
        .to_frame(8, false);
    s.write_all(&wire(&oneway)).await.unwrap();
    assert!(eventually(|| server.stats().calls_rejected == 3).await);
    assert_eq!(server.inflight(), 4);
    // Another connection has its own four.
    assert_serves(&server).await;
    // Released, the four are answered and the connection takes calls again.
    gate.add_permits(4);
    let mut answered: Vec<u64> = Vec::new();
    for _ in 0..4 {
        let f = read_frame(&mut s, &mut buf).await.expect("an answer");
        assert_eq!(f.header().status(), Status::Ok);
        answered.push(f.request_id());
    }
    answered.sort_unstable();
    assert_eq!(answered, [1, 2, 3, 4]);
    gate.add_permits(1);
    s.write_all(&wire(&call_frame(7, "Gate", "wait")))
        .await
        .unwrap();
    let f = read_frame(&mut s, &mut buf).await.expect("an answer");
    assert_eq!((f.request_id(), f.header().status()), (7, Status::Ok));
    assert_eq!(server.stats().calls_rejected, 3);
    server.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_timeout_closes_a_caller_that_does_not_read_and_frees_its_answers() {
    const CALLS: u64 = 400;
    const ANSWER: usize = 64 * 1024;
    let live = Arc::new(AtomicUsize::new(0));
    let write_timeout = Duration::from_millis(500);
    let server = start(
        Server::builder()
            .write_timeout(write_timeout)
            .service(big_answers(ANSWER, live.clone())),
    )
    .await;
    let bystander = Client::connect(server.local_addr().to_string())
        .await
        .unwrap();
    // 400 answers of 64 KiB (25 MiB) to a caller that reads none of them.
    let mut sloth = connect_small_window(&server).await;
    let mut bytes = Vec::new();
    for id in 1..=CALLS {
        bytes.extend(wire(&call_frame(id, "Big", "get")));
    }
    sloth.write_all(&bytes).await.unwrap();
    let sent = Instant::now();
    let mut most_waiting = 0;
    while server.stats().closed_write_timeout == 0 && sent.elapsed() < Duration::from_secs(10) {
        most_waiting = most_waiting.max(live.load(Ordering::SeqCst));
        // The other caller is served while the sloth's answers back up.
        let r: i32 = bystander
            .call(&req("add").arg("int", &2).arg("int", &2).build().unwrap())
            .await
            .unwrap();
        assert_eq!(r, 4);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let closed_after = sent.elapsed();
    assert_eq!(
        server.stats().closed_write_timeout,
        1,
        "closed for not reading"
    );
    let events = wait_events(sloth.local_addr().unwrap(), "write_timeout", 1).await;
    assert!(
        matches!(&events[..], [e] if e.starts_with("WARN ") && e.contains(r#"limit="write_timeout" value_ms=500"#)),
        "{events:?}"
    );
    eprintln!(
        "a caller not reading {CALLS} answers of {ANSWER} B was closed {closed_after:?} after its calls (write timeout {write_timeout:?}); at most {most_waiting} answers waited"
    );
    assert!(closed_after >= write_timeout);
    assert!(
        most_waiting > (CALLS / 4) as usize,
        "many answers waited ({most_waiting})"
    );
    // Its answers are freed, its calls are over, its connection is gone; the bystander's
    // stays.
    assert!(
        eventually(|| live.load(Ordering::SeqCst) == 0).await,
        "{} answers still held",
        live.load(Ordering::SeqCst)
    );
    assert!(eventually(|| server.inflight() == 0).await);
    assert!(eventually(|| server.connection_count() == 1).await);
    assert!(closed_within(&mut sloth, Duration::from_secs(5))
        .await
        .is_some());
    let r: i32 = bystander
        .call(&req("add").arg("int", &3).arg("int", &4).build().unwrap())
        .await
        .unwrap();
    assert_eq!(r, 7);
    assert_eq!(bystander.connection_count(), 1);
    server.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_frame_timeout_closes_a_connection_that_sends_nothing() {
    let timeout = Duration::from_millis(300);
    let server = start(Server::builder().first_frame_timeout(timeout)).await;
    let mut talker = connect(&server).await;
    assert!(heartbeat(&mut talker, 1).await);
    let mut silent = connect(&server).await;
    let took = closed_within(&mut silent, Duration::from_secs(5))
        .await
        .expect("closed");
    eprintln!("a connection that sent nothing was closed after {took:?} (first_frame_timeout {timeout:?})");
    assert!(took >= timeout - Duration::from_millis(20), "{took:?}");
    assert_eq!(server.stats().closed_no_frame, 1);
    // The one that sent a frame is not bound by it: still served after twice the timeout.
    tokio::time::sleep(timeout * 2).await;
    assert!(heartbeat(&mut talker, 2).await);
    assert_eq!(server.stats().closed_no_frame, 1);
    server.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_timeout_counts_from_the_last_frame() {
    let idle = Duration::from_millis(400);
    let server = start(Server::builder().idle_timeout(idle)).await;
    let mut s = connect(&server).await;
    // Frames more often than the idle timeout keep the connection.
    for id in 0..4 {
        assert!(heartbeat(&mut s, id).await);
        tokio::time::sleep(idle / 2).await;
    }
    assert!(heartbeat(&mut s, 9).await);
    let took = closed_within(&mut s, Duration::from_secs(5))
        .await
        .expect("closed");
    eprintln!(
        "an idle connection was closed {took:?} after its last frame (idle_timeout {idle:?})"
    );
    assert!(took >= idle - Duration::from_millis(20), "{took:?}");
    let stats = server.stats();
    assert_eq!((stats.closed_idle, stats.closed_no_frame), (1, 0));
    server.shutdown(Duration::from_secs(1)).await;
}

/// The first 5 bytes of a heartbeat's header.
fn partial_header() -> Vec<u8> {
    wire(&Frame::heartbeat_request(1))[..5].to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frame_timeout_counts_from_the_start_of_each_frame() {
    let timeout = Duration::from_millis(300);
    let server = start(Server::builder().frame_timeout(timeout)).await;
    let mut s = connect(&server).await;
    // Idle for longer than the frame timeout between frames: fine.
    assert!(heartbeat(&mut s, 1).await);
    tokio::time::sleep(timeout * 2).await;
    // A frame sent in two parts, 100 ms apart: fine.
    let whole = wire(&Frame::heartbeat_request(2));
    s.write_all(&whole[..5]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    s.write_all(&whole[5..]).await.unwrap();
    let mut buf = BytesMut::new();
    assert_eq!(read_frame(&mut s, &mut buf).await.unwrap().request_id(), 2);
    // A frame that does not finish: closed, counting from its first byte.
    tokio::time::sleep(timeout * 2).await;
    s.write_all(&partial_header()).await.unwrap();
    let took = closed_within(&mut s, Duration::from_secs(5))
        .await
        .expect("closed");
    eprintln!("a connection that sent 5 bytes of a header was closed after {took:?} (frame_timeout {timeout:?})");
    assert!(took >= timeout - Duration::from_millis(20), "{took:?}");
    let stats = server.stats();
    assert_eq!((stats.closed_partial_frame, stats.closed_idle), (1, 0));
    let events = wait_events(s.local_addr().unwrap(), "frame_timeout", 1).await;
    let ours: Vec<&String> = events
        .iter()
        .filter(|e| e.contains(" value_ms=300"))
        .collect();
    assert!(
        matches!(&ours[..], [e] if e.starts_with("DEBUG ")),
        "{events:?}"
    );
    server.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_partial_headers_are_closed_by_the_frame_timeout_while_others_are_served() {
    const WANTED: usize = 1_000;
    // Both ends of each connection are in this process.
    let limit = dubbo_test_support::net::raise_fd_limit(2 * WANTED as u64 + 256);
    let tricklers = WANTED.min((limit.saturating_sub(256) / 2) as usize);
    if tricklers < WANTED {
        eprintln!("note: open files limited to {limit}: {tricklers} connections, not {WANTED}");
    }
    let frame_timeout = Duration::from_secs(1);
    let server = start(Server::builder().frame_timeout(frame_timeout)).await;
    let good = Client::connect(server.local_addr().to_string())
        .await
        .unwrap();

    let partial = partial_header();
    let started = Instant::now();
    let mut held = Vec::with_capacity(tricklers);
    for _ in 0..tricklers {
        let mut s = connect(&server).await;
        s.write_all(&partial).await.unwrap();
        held.push(s);
    }
    let connected = started.elapsed();
    let waiters: Vec<_> = held
        .into_iter()
        .map(|mut s| {
            tokio::spawn(async move { closed_within(&mut s, Duration::from_secs(30)).await })
        })
        .collect();
    let mut served = 0;
    while waiters.iter().any(|w| !w.is_finished()) && started.elapsed() < Duration::from_secs(30) {
        let r: i32 = good
            .call(
                &req("add")
                    .arg("int", &served)
                    .arg("int", &1)
                    .build()
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(r, served + 1);
        served += 1;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut latest = Duration::ZERO;
    for w in waiters {
        let took = w
            .await
            .unwrap()
            .expect("a trickler was still open after 30 s");
        latest = latest.max(took);
    }
    let took = started.elapsed();
    eprintln!(
        "{tricklers} partial headers (connected within {connected:?}) all closed within {took:?} of the first connect, the last {latest:?} after the last connect (frame_timeout {frame_timeout:?}); {served} calls served meanwhile"
    );
    // The frame timeout closed them, not the 90 s first-frame or 180 s idle timeouts.
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(served > 0);
    assert_eq!(server.stats().closed_partial_frame, tricklers as u64);
    assert_eq!(server.stats().closed_no_frame, 0);
    assert!(eventually(|| server.connection_count() == 1).await);
    let r: i32 = good
        .call(&req("add").arg("int", &1).arg("int", &1).build().unwrap())
        .await
        .unwrap();
    assert_eq!(r, 2);
    server.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_ends_within_its_grace_when_a_caller_never_reads() {
    const CALLS: u64 = 3_000;
    let live = Arc::new(AtomicUsize::new(0));
    // No write timeout: only the shutdown can end this connection.
    let server = start(
        Server::builder()
            .write_timeout(Duration::ZERO)
            .service(big_answers(16 * 1024, live.clone())),
    )
    .await;
    let mut sloth = connect_small_window(&server).await;
    let mut bytes = Vec::new();
    for id in 1..=CALLS {
        bytes.extend(wire(&call_frame(id, "Big", "get")));
    }
    sloth.write_all(&bytes).await.unwrap();
    // The writer is stuck, the connection's channel full (1,024 answers alive), calls wait
    // to queue their answer. (Waiting for the count itself: a count that did not move for one
    // 10 ms sample said "settled" too early on a loaded machine.)
    let stuck = || (server.inflight(), live.load(Ordering::SeqCst));
    assert!(
        eventually(|| { stuck().0 > 0 && stuck().1 >= 1024 }).await,
        "{:?}: the channel never filled",
        stuck()
    );
    let stuck = stuck();
    let grace = Duration::from_secs(1);
    let start = Instant::now();
    tokio::time::timeout(Duration::from_secs(10), server.shutdown(grace))
        .await
        .expect("the shutdown ends");
    let took = start.elapsed();
    eprintln!(
        "shutdown with {} calls stuck and {} answers waiting on a caller that never reads took {took:?} (grace {grace:?})",
        stuck.0, stuck.1
    );
    assert!(took < grace + Duration::from_millis(250), "{took:?}");
    // The connection is cut and what waited on it freed.
    assert!(
        eventually(|| live.load(Ordering::SeqCst) == 0).await,
        "{} answers still held",
        live.load(Ordering::SeqCst)
    );
    assert!(closed_within(&mut sloth, Duration::from_secs(10))
        .await
        .is_some());
}
