//! TLS and mutual TLS on 127.0.0.1, with certificates made at run time: Dubbo and Triple
//! calls over TLS, the caller's certificate identity as a handler sees it, and each bad
//! input closed quickly, counted in `Server::stats` and logged, while a good caller is
//! served: a plain caller on a TLS port, a TLS caller on a plain port, client certificates
//! from another CA, self-signed, expired or missing, a server certificate the client does
//! not trust, a handshake that never finishes, and a flood of handshakes from one address.

use std::fmt::Write as _;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use dubbo_codec::Request;
use dubbo_rpc::client::{CallError, Client, ClientConfig};
use dubbo_rpc::server::{Reply, Server, ServerStats, Service};
use dubbo_rpc::tls::{ClientAuth, ClientTls, ServerTls};
use dubbo_rpc::triple_client::{Client as TripleClient, ClientConfig as TripleConfig, TripleCall};
use dubbo_test_support::pki::{Identity, Pki, CLIENT_SPIFFE_ID, CN_CLIENT};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const WHO: &str = "test.WhoAmI";

/// Every `tracing` event of this test binary, one line each: `LEVEL name=value ...`.
static EVENTS: Mutex<Vec<String>> = Mutex::new(Vec::new());

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

fn capture_events() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        use tracing_subscriber::layer::SubscriberExt;
        let subscriber = tracing_subscriber::registry().with(Capture);
        tracing::subscriber::set_global_default(subscriber).expect("the only subscriber");
    });
}

/// Whether an event names the caller at `peer` and says `what` (tests run at once: each
/// picks its own events by its caller's address).
fn logged(peer: std::net::SocketAddr, what: &str) -> bool {
    let peer = format!(" peer={peer}");
    EVENTS
        .lock()
        .unwrap()
        .iter()
        .any(|l| l.contains(&peer) && l.contains(what))
}

/// `whoAmI()`: the caller's certificate identity, or "anonymous".
fn who_service() -> Service {
    Service::new(WHO).method("whoAmI", |call| async move {
        let who = call
            .peer_identity
            .as_ref()
            .map_or("anonymous", |i| i.as_str());
        Reply::typed(who)
    })
}

async fn tls_server(pki: &Pki, auth: ClientAuth, handshake: Duration) -> Server {
    capture_events();
    let tls = ServerTls::builder(&pki.server.cert, &pki.server.key)
        .client_ca(&pki.ca, auth)
        .handshake_timeout(handshake)
        .build()
        .unwrap();
    Server::builder()
        .service(who_service())
        .tls(tls)
        .bind("127.0.0.1:0")
        .await
        .unwrap()
}

fn client_tls(pki: &Pki, identity: Option<&Identity>) -> ClientTls {
    let b = ClientTls::builder(&pki.ca);
    match identity {
        Some(id) => b.identity(&id.cert, &id.key),
        None => b,
    }
    .build()
    .unwrap()
}

fn who_am_i() -> Request {
    Request::builder(WHO, "whoAmI").build().unwrap()
}

async fn dubbo_who(server: &Server, tls: ClientTls) -> Result<String, CallError> {
    let client = Client::connect_tls(
        server.local_addr().to_string(),
        ClientConfig::default(),
        tls,
    )
    .await?;
    client.call(&who_am_i()).await
}

/// Waits (up to 10 s) until the server's stats satisfy `done`.
async fn stats_until(server: &Server, done: impl Fn(&ServerStats) -> bool) -> ServerStats {
    let until = Instant::now() + Duration::from_secs(10);
    while Instant::now() < until && !done(&server.stats()) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    server.stats()
}

#[tokio::test]
async fn dubbo_call_over_mtls_carries_the_spiffe_id() {
    let pki = Pki::new();
    let server = tls_server(&pki, ClientAuth::Required, Duration::from_secs(5)).await;
    let who = dubbo_who(&server, client_tls(&pki, Some(&pki.client)))
        .await
        .unwrap();
    assert_eq!(who, CLIENT_SPIFFE_ID);
    // Without a URI SAN, the subject CN.
    let who = dubbo_who(&server, client_tls(&pki, Some(&pki.cn_client)))
        .await
        .unwrap();
    assert_eq!(who, CN_CLIENT);
    let stats = server.stats();
    assert_eq!(stats.tls_handshakes, 2, "{stats:?}");
    assert_eq!(stats.tls_handshake_failed, 0, "{stats:?}");
}

#[tokio::test]
async fn triple_call_over_mtls_negotiates_h2_and_carries_the_identity() {
    let pki = Pki::new();
    let server = tls_server(&pki, ClientAuth::Required, Duration::from_secs(5)).await;
    let addr = server.local_addr().to_string();
    let client = TripleClient::connect_tls(
        &addr,
        TripleConfig::default(),
        client_tls(&pki, Some(&pki.client)),
    )
    .await
    .unwrap();
    let who: String = client.call(&TripleCall::new(WHO, "whoAmI")).await.unwrap();
    assert_eq!(who, CLIENT_SPIFFE_ID);
    // A second call on the same connection.
    let who: String = client.call(&TripleCall::new(WHO, "whoAmI")).await.unwrap();
    assert_eq!(who, CLIENT_SPIFFE_ID);
    assert_eq!(server.stats().tls_handshakes, 1);
}

#[tokio::test]
async fn optional_client_certificates_serve_anonymous_callers() {
    let pki = Pki::new();
    let server = tls_server(&pki, ClientAuth::Optional, Duration::from_secs(5)).await;
    assert_eq!(
        dubbo_who(&server, client_tls(&pki, None)).await.unwrap(),
        "anonymous"
    );
    assert_eq!(
        dubbo_who(&server, client_tls(&pki, Some(&pki.client)))
            .await
            .unwrap(),
        CLIENT_SPIFFE_ID
    );
    // A certificate the CA did not sign is refused all the same.
    assert!(
        dubbo_who(&server, client_tls(&pki, Some(&pki.foreign_client)))
            .await
            .is_err()
    );
}

#[tokio::test]
async fn tls_without_client_ca_serves_dubbo_and_triple() {
    let pki = Pki::new();
    let tls = ServerTls::builder(&pki.server.cert, &pki.server.key)
        .build()
        .unwrap();
    let server = Server::builder()
        .service(who_service())
        .tls(tls)
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    // The client certificate is not asked for: no identity.
    assert_eq!(
        dubbo_who(&server, client_tls(&pki, Some(&pki.client)))
            .await
            .unwrap(),
        "anonymous"
    );
    // By name (the certificate is for localhost too), the name it is verified for.
    let port = server.local_addr().port();
    let triple = TripleClient::connect_tls(
        &format!("localhost:{port}"),
        TripleConfig::default(),
        client_tls(&pki, None),
    )
    .await
    .unwrap();
    let who: String = triple.call(&TripleCall::new(WHO, "whoAmI")).await.unwrap();
    assert_eq!(who, "anonymous");
}

/// Each bad client certificate (or none) is refused at the handshake, counted and logged;
/// a good caller is served after each.
#[tokio::test]
async fn bad_client_certificates_are_refused_and_counted() {
    let pki = Pki::new();
    let server = tls_server(&pki, ClientAuth::Required, Duration::from_secs(5)).await;
    let cases = [
        ("from another CA", Some(&pki.foreign_client)),
        ("self-signed", Some(&pki.self_signed_client)),
        ("expired", Some(&pki.expired_client)),
        ("missing", None),
    ];
    for (what, identity) in cases {
        let before = server.stats().tls_handshake_failed;
        let started = Instant::now();
        // TLS 1.3: the client's side of the handshake ends before the server verifies its
        // certificate, so the refusal comes as the connection closing under the first call.
        let err = dubbo_who(&server, client_tls(&pki, identity))
            .await
            .unwrap_err();
        assert!(
            matches!(err, CallError::Tls { .. } | CallError::Closed(_)),
            "{what}: {err:?}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{what}: closed quickly"
        );
        // At least one (the client may reconnect once for the call, and be refused again).
        let stats = stats_until(&server, |s| s.tls_handshake_failed > before).await;
        assert!(stats.tls_handshake_failed > before, "{what}: {stats:?}");
        let who = dubbo_who(&server, client_tls(&pki, Some(&pki.client))).await;
        assert_eq!(
            who.unwrap(),
            CLIENT_SPIFFE_ID,
            "served after a {what} certificate"
        );
    }
    let failures = EVENTS
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.contains("TLS handshake failed"))
        .count();
    assert!(failures >= 4, "each failure logged");
}

#[tokio::test]
async fn a_client_refuses_a_server_it_does_not_trust() {
    let pki = Pki::new();
    let server = tls_server(&pki, ClientAuth::Optional, Duration::from_secs(5)).await;
    let untrusting = ClientTls::builder(&pki.other_ca).build().unwrap();
    let err = dubbo_who(&server, untrusting.clone()).await.unwrap_err();
    assert!(matches!(err, CallError::Tls { .. }), "{err:?}");
    let addr = server.local_addr().to_string();
    let err = TripleClient::connect_tls(&addr, TripleConfig::default(), untrusting)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("certificate"), "{err}");
    // A server name the certificate is not for.
    let wrong_name = ClientTls::builder(&pki.ca)
        .server_name("other.example")
        .build()
        .unwrap();
    let err = dubbo_who(&server, wrong_name).await.unwrap_err();
    assert!(matches!(err, CallError::Tls { .. }), "{err:?}");
}

#[tokio::test]
async fn a_plain_caller_on_a_tls_port_is_closed_and_counted() {
    let pki = Pki::new();
    let server = tls_server(&pki, ClientAuth::Required, Duration::from_secs(5)).await;
    let addr = server.local_addr().to_string();
    let started = Instant::now();
    let plain = Client::connect(addr.clone()).await.unwrap();
    let err = plain.call::<String>(&who_am_i()).await.unwrap_err();
    assert!(matches!(err, CallError::Closed(_)), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
    // Plain HTTP/2 (h2c) too.
    let h2c = TripleClient::lazy(addr.clone(), TripleConfig::default());
    let call = h2c.call::<String>(&TripleCall::new(WHO, "whoAmI")).await;
    assert!(call.is_err(), "{call:?}");
    let stats = stats_until(&server, |s| s.tls_plaintext_refused >= 2).await;
    assert_eq!(stats.tls_plaintext_refused, 2, "{stats:?}");
    let mut raw = TcpStream::connect(&addr).await.unwrap();
    let peer = raw.local_addr().unwrap();
    raw.write_all(b"POST /x HTTP/1.1\r\n\r\n").await.unwrap();
    let mut buf = [0u8; 16];
    assert_eq!(
        raw.read(&mut buf).await.unwrap_or(0),
        0,
        "closed without an answer"
    );
    let _ = stats_until(&server, |s| s.tls_plaintext_refused >= 3).await;
    assert!(logged(peer, "not TLS on a TLS port"));
    let who = dubbo_who(&server, client_tls(&pki, Some(&pki.client))).await;
    assert_eq!(who.unwrap(), CLIENT_SPIFFE_ID);
}

#[tokio::test]
async fn a_tls_caller_on_a_plain_port_is_closed_and_counted() {
    let pki = Pki::new();
    capture_events();
    let server = Server::builder()
        .service(who_service())
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let started = Instant::now();
    let err = dubbo_who(&server, client_tls(&pki, Some(&pki.client)))
        .await
        .unwrap_err();
    assert!(matches!(err, CallError::Tls { .. }), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
    let stats = stats_until(&server, |s| s.tls_on_plain_refused >= 1).await;
    assert_eq!(stats.tls_on_plain_refused, 1, "{stats:?}");
    // The plain callers go on.
    let plain = Client::connect(server.local_addr().to_string())
        .await
        .unwrap();
    assert_eq!(
        plain.call::<String>(&who_am_i()).await.unwrap(),
        "anonymous"
    );
}

/// A caller that starts a handshake and stops is cut at the handshake timeout, and one that
/// connects and says nothing too; another caller is served meanwhile.
#[tokio::test]
async fn a_handshake_that_never_finishes_is_cut_at_the_timeout() {
    let pki = Pki::new();
    let timeout = Duration::from_millis(400);
    let server = tls_server(&pki, ClientAuth::Required, timeout).await;
    let addr = server.local_addr();
    // A TLS record header announcing a ClientHello of 512 bytes, and 5 of them.
    let mut stalled = TcpStream::connect(addr).await.unwrap();
    stalled
        .write_all(&[0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03])
        .await
        .unwrap();
    let mut silent = TcpStream::connect(addr).await.unwrap();
    let started = Instant::now();
    let who = dubbo_who(&server, client_tls(&pki, Some(&pki.client))).await;
    assert_eq!(
        who.unwrap(),
        CLIENT_SPIFFE_ID,
        "served while two handshakes hang"
    );
    let mut buf = [0u8; 64];
    for conn in [&mut stalled, &mut silent] {
        let read = tokio::time::timeout(Duration::from_secs(3), conn.read(&mut buf)).await;
        assert!(
            matches!(read, Ok(Ok(0)) | Ok(Err(_))),
            "closed, not answered: {read:?}"
        );
    }
    let waited = started.elapsed();
    assert!(waited >= timeout - Duration::from_millis(50), "{waited:?}");
    assert!(waited < Duration::from_secs(2), "{waited:?}");
    let stats = stats_until(&server, |s| s.tls_handshake_timeout >= 2).await;
    assert_eq!(stats.tls_handshake_timeout, 2, "{stats:?}");
}

/// A flood of handshakes from one address: past `max_handshakes_per_ip` under way, its
/// connections are closed at once and counted, while a caller from another address is
/// served.
#[tokio::test]
async fn a_handshake_flood_from_one_address_is_cut_and_others_served() {
    let pki = Pki::new();
    capture_events();
    let tls = ServerTls::builder(&pki.server.cert, &pki.server.key)
        .client_ca(&pki.ca, ClientAuth::Required)
        .max_handshakes_per_ip(4)
        .build()
        .unwrap();
    let server = Server::builder()
        .service(who_service())
        .tls(tls)
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let addr = server.local_addr();
    let from_flooder = || async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind("127.0.0.2:0".parse().unwrap()).unwrap();
        let mut s = socket.connect(addr).await.unwrap();
        // A record header announcing a 512-byte ClientHello, and 5 bytes of it.
        s.write_all(&[0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03])
            .await
            .unwrap();
        s
    };
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(from_flooder().await);
    }
    // Held: their handshakes are under way (the timeout is 10 s).
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    let mut past = from_flooder().await;
    let peer = past.local_addr().unwrap();
    let mut buf = [0u8; 16];
    let read = tokio::time::timeout(Duration::from_secs(2), past.read(&mut buf)).await;
    assert!(
        matches!(read, Ok(Ok(0)) | Ok(Err(_))),
        "closed at once: {read:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(1));
    let stats = stats_until(&server, |s| s.tls_handshake_flood_refused >= 1).await;
    assert_eq!(stats.tls_handshake_flood_refused, 1, "{stats:?}");
    assert!(logged(peer, "max_handshakes_per_ip"));
    // Another address is served meanwhile.
    let who = dubbo_who(&server, client_tls(&pki, Some(&pki.client))).await;
    assert_eq!(who.unwrap(), CLIENT_SPIFFE_ID);
    drop(held);
}
