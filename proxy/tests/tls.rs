//! TLS on both engines (`for_each_engine!`), on 127.0.0.1, with certificates made at run
//! time: Dubbo calls through a TLS listener that requires client certificates, and each bad
//! input closed quickly, counted in `/metrics` and logged while a good caller is served: a
//! plain caller, client certificates from another CA, self-signed, expired or missing, and a
//! handshake that never finishes; the caller's identity forwarded, TLS clusters, a Triple
//! caller over TLS, and certificates read again on SIGHUP.

mod common;

use std::time::{Duration, Instant};

use common::*;
use dubbo_rpc::client::{CallError, Client as RpcClient, ClientConfig};
use dubbo_rpc::tls::ClientTls;
use dubbo_test_support::pki::{Identity, Pki, CLIENT_SPIFFE_ID};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

for_each_engine!(
    dubbo_calls_cross_a_mutual_tls_listener,
    bad_callers_are_closed_counted_and_others_served,
    a_handshake_that_never_finishes_is_cut_at_the_timeout,
    a_flood_of_handshakes_from_one_address_is_turned_away,
    the_identity_is_forwarded_as_the_named_attachment,
    clusters_speak_mutual_tls_to_their_providers,
    triple_over_mutual_tls_reaches_the_triple_pipeline,
    sighup_reads_renewed_certificates_without_dropping_connections,
    renewed_certificates_are_read_without_a_signal,
);

/// A provider "a" and a proxy on `engine` whose listener requires client certificates of
/// the test CA (`extra`: more `[listeners.tls]` keys), with its access log on, written to
/// [`Proxy::log`].
async fn tls_proxy(engine: &str, pki: &Pki, extra: &str) -> (Upstream, Proxy) {
    let a = Upstream::start("a").await;
    let conf = config(
        1,
        &format!(
            "[listeners.tls]\ncert = {:?}\nkey = {:?}\nclient_ca = {:?}\n{extra}\n\
             [log]\naccess_log = true\n\
             [[routes]]\ncluster = \"a\"\n[clusters.a]\nendpoints = [{{ address = \"{}\" }}]\n",
            pki.server.cert, pki.server.key, pki.ca, a.addr
        ),
    );
    let log = "warn,dubbo_proxy::access=info,dubbo_proxy::core::metrics_tls=debug";
    (a, Proxy::start_logging(engine, &conf, Some(log)))
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

/// One call on one connection: a caller refused after its handshake (TLS 1.3 lets a client
/// finish before the server checks its certificate) is not reconnected, so that each bad
/// caller is one refusal to count.
async fn call_over(proxy: &Proxy, tls: ClientTls) -> Result<String, CallError> {
    let once = ClientConfig::default().reconnect(false);
    let client = RpcClient::connect_tls(proxy.addr().to_string(), once, tls).await?;
    client.call(&call("sayHello")).await
}

async fn metric_reaches(proxy: &Proxy, series: &str, value: f64) -> f64 {
    eventually(|| proxy.metric(series) >= value).await;
    proxy.metric(series)
}

async fn dubbo_calls_cross_a_mutual_tls_listener(engine: &str) {
    let pki = Pki::new();
    let (a, proxy) = tls_proxy(engine, &pki, "").await;
    let answer = call_over(&proxy, client_tls(&pki, Some(&pki.client))).await;
    assert_eq!(answer.unwrap(), "a:sayHello");
    // Many calls on one connection, concurrently.
    let client = RpcClient::connect_tls(
        proxy.addr().to_string(),
        ClientConfig::default(),
        client_tls(&pki, Some(&pki.client)),
    )
    .await
    .unwrap();
    let mut calls = tokio::task::JoinSet::new();
    for _ in 0..50 {
        let client = client.clone();
        calls.spawn(async move { client.call::<String>(&call("sayHello")).await });
    }
    while let Some(answer) = calls.join_next().await {
        assert_eq!(answer.unwrap().unwrap(), "a:sayHello");
    }
    assert_eq!(a.calls(), 51);
    // Each call's access log line names the caller's SPIFFE ID.
    let spiffe = format!("\"{CLIENT_SPIFFE_ID}\"");
    eventually(|| proxy.log().matches(&spiffe).count() >= 51).await;
    assert_eq!(proxy.log().matches(&spiffe).count(), 51, "{}", proxy.log());
    assert_eq!(
        metric_reaches(&proxy, "dubbo_proxy_tls_handshakes_total", 2.0).await,
        2.0
    );
}

async fn bad_callers_are_closed_counted_and_others_served(engine: &str) {
    let pki = Pki::new();
    let (_a, proxy) = tls_proxy(engine, &pki, "").await;
    let failed = "dubbo_proxy_tls_handshake_failed_total";
    let cases = [
        ("from another CA", Some(&pki.foreign_client)),
        ("self-signed", Some(&pki.self_signed_client)),
        ("expired", Some(&pki.expired_client)),
        ("missing", None),
    ];
    for (n, (what, identity)) in cases.into_iter().enumerate() {
        let started = Instant::now();
        let err = call_over(&proxy, client_tls(&pki, identity))
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
        let count = metric_reaches(&proxy, failed, (n + 1) as f64).await;
        assert_eq!(count, (n + 1) as f64, "{what}");
        let good = call_over(&proxy, client_tls(&pki, Some(&pki.client))).await;
        assert_eq!(
            good.unwrap(),
            "a:sayHello",
            "served after a {what} certificate"
        );
    }
    // A plain Dubbo caller: closed without an answer.
    let mut plain = Client::connect(proxy.addr()).await;
    plain.send_call(1, &call("sayHello")).await;
    assert!(eventually(|| *plain.closed.lock().unwrap()).await, "closed");
    assert!(
        plain.next_frame().await.is_none(),
        "no answer in plain text"
    );
    let plaintext = "dubbo_proxy_tls_plaintext_refused_total";
    assert_eq!(metric_reaches(&proxy, plaintext, 1.0).await, 1.0);
    let log = proxy.log();
    assert!(log.contains("not TLS on a TLS listener"), "{log}");
    assert!(log.matches("TLS handshake failed").count() >= 4, "{log}");
}

async fn a_handshake_that_never_finishes_is_cut_at_the_timeout(engine: &str) {
    let pki = Pki::new();
    let (_a, proxy) = tls_proxy(engine, &pki, "handshake_timeout_ms = 400").await;
    // A record header announcing a 512-byte ClientHello, and 5 bytes of it.
    let mut stalled = TcpStream::connect(proxy.addr()).await.unwrap();
    stalled
        .write_all(&[0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03])
        .await
        .unwrap();
    let mut silent = TcpStream::connect(proxy.addr()).await.unwrap();
    let started = Instant::now();
    let good = call_over(&proxy, client_tls(&pki, Some(&pki.client))).await;
    assert_eq!(
        good.unwrap(),
        "a:sayHello",
        "served while two handshakes hang"
    );
    let mut buf = [0u8; 64];
    for conn in [&mut stalled, &mut silent] {
        let read = tokio::time::timeout(Duration::from_secs(3), conn.read(&mut buf)).await;
        assert!(matches!(read, Ok(Ok(0)) | Ok(Err(_))), "closed: {read:?}");
    }
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(350), "{waited:?}");
    assert!(waited < Duration::from_secs(2), "{waited:?}");
    let timeouts = "dubbo_proxy_tls_handshake_timeout_total";
    assert_eq!(metric_reaches(&proxy, timeouts, 2.0).await, 2.0);
    let log = proxy.log();
    assert_eq!(
        log.matches("TLS handshake not finished in time").count(),
        2,
        "{log}"
    );
}

/// A connection from `from` to `to` that opens a TLS record (a ClientHello of 512 bytes
/// announced) and sends no more: a handshake under way until the proxy gives up on it.
async fn stalled_handshake(from: &str, to: std::net::SocketAddr) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    let mut stream = socket.connect(to).await.unwrap();
    stream
        .write_all(&[0x16, 0x03, 0x01, 0x02, 0x00])
        .await
        .unwrap();
    stream
}

/// A flood of handshakes from one address: past `max_handshakes_per_ip` under way, its
/// connections are closed at accept, counted and logged, while another address's handshake
/// goes on; once the stalled ones are gone, the address is served again.
async fn a_flood_of_handshakes_from_one_address_is_turned_away(engine: &str) {
    let pki = Pki::new();
    let (_a, proxy) = tls_proxy(engine, &pki, "max_handshakes_per_ip = 3").await;
    let mut three = Vec::new();
    for _ in 0..3 {
        three.push(stalled_handshake("127.0.0.1", proxy.addr()).await);
    }
    let mut buf = [0u8; 64];
    // The fourth is closed at once, not at the 10 s handshake timeout.
    let mut fourth = stalled_handshake("127.0.0.1", proxy.addr()).await;
    let read = tokio::time::timeout(Duration::from_secs(3), fourth.read(&mut buf)).await;
    assert!(matches!(read, Ok(Ok(0)) | Ok(Err(_))), "closed: {read:?}");
    let crowded = "dubbo_proxy_tls_handshake_crowded_total";
    assert_eq!(metric_reaches(&proxy, crowded, 1.0).await, 1.0);
    let log = proxy.log();
    let line = "its address has max_handshakes_per_ip TLS handshakes under way";
    assert_eq!(log.matches(line).count(), 1, "{log}");
    // Another address is not held back by the first one's flood.
    let mut other = stalled_handshake("127.0.0.2", proxy.addr()).await;
    let read = tokio::time::timeout(Duration::from_millis(500), other.read(&mut buf)).await;
    assert!(read.is_err(), "still waiting for its ClientHello: {read:?}");
    // The stalled ones gone, their places come back: the address is served.
    drop(three);
    // The proxy sees them gone when it next reads their sockets: on a loaded machine that
    // can take a while, so the limit is time, not a number of tries.
    let mut served = None;
    let give_up = std::time::Instant::now() + Duration::from_secs(10);
    while std::time::Instant::now() < give_up {
        if let Ok(answer) = call_over(&proxy, client_tls(&pki, Some(&pki.client))).await {
            served = Some(answer);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(served.as_deref(), Some("a:sayHello"));
    assert_eq!(proxy.metric(crowded), 1.0);
}

/// The caller's identity reaches the provider as the attachment the listener names, over
/// what the caller sent under that name itself: its SPIFFE ID, its CN, or null (no
/// certificate, where client certificates are optional). A call in a serialization the
/// proxy cannot add it to is answered BAD_REQUEST, never forwarded.
async fn the_identity_is_forwarded_as_the_named_attachment(engine: &str) {
    use dubbo_codec::{BodyFormat, Request, Status};
    use dubbo_rpc::server::{Reply, Server, Service};
    use dubbo_test_support::pki::CN_CLIENT;

    const KEY: &str = "x-caller-identity";
    let who = Service::new(SVC).method("whoAmI", |call| async move {
        Reply::typed(call.attachments.get_str(KEY).unwrap_or("anonymous"))
    });
    let provider = Server::builder()
        .service(who)
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let pki = Pki::new();
    let conf = config(
        1,
        &format!(
            "[listeners.tls]\ncert = {:?}\nkey = {:?}\nclient_ca = {:?}\n\
             require_client_cert = false\nidentity_attachment = \"{KEY}\"\n\
             [[routes]]\ncluster = \"p\"\n[clusters.p]\nendpoints = [{{ address = \"{}\" }}]\n",
            pki.server.cert,
            pki.server.key,
            pki.ca,
            provider.local_addr()
        ),
    );
    let proxy = Proxy::start(engine, &conf);
    let spoofing = |format: BodyFormat| {
        Request::builder(SVC, "whoAmI")
            .attach(KEY, "spiffe://evil/admin")
            .format(format)
            .build()
            .unwrap()
    };
    let hessian2 = BodyFormat::default();
    for (identity, expected) in [
        (Some(&pki.client), CLIENT_SPIFFE_ID),
        (Some(&pki.cn_client), CN_CLIENT),
        (None, "anonymous"),
    ] {
        let client = RpcClient::connect_tls(
            proxy.addr().to_string(),
            ClientConfig::default(),
            client_tls(&pki, identity),
        )
        .await
        .unwrap();
        let seen: String = client.call(&spoofing(hessian2)).await.unwrap();
        assert_eq!(seen, expected);
    }
    let client = RpcClient::connect_tls(
        proxy.addr().to_string(),
        ClientConfig::default(),
        client_tls(&pki, Some(&pki.client)),
    )
    .await
    .unwrap();
    match client
        .call::<String>(&spoofing(BodyFormat::FASTJSON2))
        .await
    {
        Err(CallError::Status { status, .. }) => assert_eq!(status, Status::BadRequest),
        other => panic!("{other:?}"),
    }
}

/// `[clusters.NAME.tls]`: a plain caller's calls reach a provider that requires mutual TLS,
/// the proxy presenting its client certificate (the provider sees its SPIFFE ID); a cluster
/// whose CA did not sign the provider's certificate opens no connection to it, counted.
async fn clusters_speak_mutual_tls_to_their_providers(engine: &str) {
    use dubbo_rpc::server::{Reply, Server, Service};
    use dubbo_rpc::tls::{ClientAuth, ServerTls};

    let pki = Pki::new();
    let who = Service::new(SVC).method("whoAmI", |call| async move {
        Reply::typed(
            call.peer_identity
                .as_ref()
                .map_or("anonymous", |i| i.as_str()),
        )
    });
    let tls = ServerTls::builder(&pki.server.cert, &pki.server.key)
        .client_ca(&pki.ca, ClientAuth::Required)
        .build()
        .unwrap();
    let provider = Server::builder()
        .service(who)
        .tls(tls)
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let proxy_to = |ca: &std::path::Path| {
        config(
            1,
            &format!(
                "[[routes]]\ncluster = \"p\"\n[clusters.p]\nendpoints = [{{ address = \"{}\" }}]\n\
                 [clusters.p.tls]\nca = {:?}\ncert = {:?}\nkey = {:?}\n",
                provider.local_addr(),
                ca,
                pki.client.cert,
                pki.client.key
            ),
        )
    };
    let proxy = Proxy::start(engine, &proxy_to(&pki.ca));
    let mut caller = Client::connect(proxy.addr()).await;
    let (status, who) = caller.call(1, &call_on(SVC, "whoAmI")).await;
    assert_eq!(status, dubbo_codec::Status::Ok, "{who}");
    assert!(who.contains(CLIENT_SPIFFE_ID), "{who}");
    assert!(provider.stats().tls_handshakes >= 1);
    // A Triple caller's calls go over TLS too (ALPN h2, the Triple pipeline's own connection).
    let triple = dubbo_rpc::triple_client::Client::connect(&proxy.addr().to_string())
        .await
        .unwrap();
    let handshakes = provider.stats().tls_handshakes;
    let call = dubbo_rpc::triple_client::TripleCall::new(SVC, "whoAmI");
    let who: String = triple.call(&call).await.unwrap();
    assert_eq!(who, CLIENT_SPIFFE_ID);
    assert_eq!(provider.stats().tls_handshakes, handshakes + 1);

    let untrusting = Proxy::start(engine, &proxy_to(&pki.other_ca));
    let mut caller = Client::connect(untrusting.addr()).await;
    let (status, _) = caller.call(1, &call_on(SVC, "whoAmI")).await;
    assert_ne!(status, dubbo_codec::Status::Ok);
    let failed = "dubbo_proxy_tls_upstream_handshake_failed_total";
    assert!(metric_reaches(&untrusting, failed, 1.0).await >= 1.0);
}

/// A Triple caller over TLS (ALPN `h2`, and curl with HTTP/1.1) reaches the Triple pipeline
/// through the TLS session the engine did the handshake with: calls go to a plain Triple
/// provider and back.
async fn triple_over_mutual_tls_reaches_the_triple_pipeline(engine: &str) {
    use dubbo_rpc::server::{Reply, Server, Service};
    use dubbo_rpc::triple_client::{
        Client as TripleClient, ClientConfig as TripleConfig, TripleCall,
    };

    let greeter = Service::new("test.Greeter")
        .method("hello", |call| async move {
            let (name,): (String,) = call.args()?;
            Reply::typed(&format!("hello {name}"))
        })
        .method("whoAmI", |call| async move {
            Reply::typed(
                call.attachments
                    .get_str("x-caller-identity")
                    .unwrap_or("anonymous"),
            )
        });
    let provider = Server::builder()
        .service(greeter)
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let pki = Pki::new();
    let conf = config(
        1,
        &format!(
            "[listeners.tls]\ncert = {:?}\nkey = {:?}\nclient_ca = {:?}\n\
             identity_attachment = \"x-caller-identity\"\n\
             [log]\naccess_log = true\n\
             [[routes]]\ncluster = \"p\"\n[clusters.p]\nendpoints = [{{ address = \"{}\" }}]\n",
            pki.server.cert,
            pki.server.key,
            pki.ca,
            provider.local_addr()
        ),
    );
    let proxy = Proxy::start_logging(engine, &conf, Some("warn,dubbo_proxy::access=info"));
    let client = TripleClient::connect_tls(
        &proxy.addr().to_string(),
        TripleConfig::default(),
        client_tls(&pki, Some(&pki.client)),
    )
    .await
    .unwrap();
    for i in 0..20 {
        let call = TripleCall::new("test.Greeter", "hello")
            .arg("java.lang.String", &format!("n{i}"))
            .unwrap();
        let answer: String = client.call(&call).await.unwrap();
        assert_eq!(answer, format!("hello n{i}"));
    }
    assert_eq!(proxy.metric("dubbo_proxy_triple_connections_total"), 1.0);
    // The identity reaches the provider as the named attachment, over the caller's own.
    let spoofing =
        TripleCall::new("test.Greeter", "whoAmI").attachment("x-caller-identity", "evil");
    let seen: String = client.call(&spoofing).await.unwrap();
    assert_eq!(seen, CLIENT_SPIFFE_ID);
    // Triple's HTTP/1.1 form over the same TLS listener (the real curl, ALPN http/1.1).
    let url = format!("https://localhost:{}/test.Greeter", proxy.addr().port());
    let curl = |method: &str, body: &str, identity: bool| {
        let mut args = vec![
            "-sS".to_owned(),
            "--http1.1".into(),
            "--max-time".into(),
            "10".into(),
            "--resolve".into(),
            format!("localhost:{}:127.0.0.1", proxy.addr().port()),
            "--cacert".into(),
            pki.ca.display().to_string(),
            "-H".into(),
            "content-type: application/json".into(),
            "-H".into(),
            "x-caller-identity: evil".into(),
            "-d".into(),
            body.into(),
            format!("{url}/{method}"),
        ];
        if identity {
            args.extend(["--cert".into(), pki.client.cert.display().to_string()]);
            args.extend(["--key".into(), pki.client.key.display().to_string()]);
        }
        tokio::task::spawn_blocking(move || {
            let out = std::process::Command::new("curl")
                .args(&args)
                .output()
                .expect("curl runs");
            (
                out.status.success(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
            )
        })
    };
    assert_eq!(
        curl("hello", r#"["curl"]"#, true).await.unwrap(),
        (true, r#""hello curl""#.to_owned())
    );
    // Its access log line names the caller (HTTP/2 calls above: 21, this one: 1).
    let spiffe = format!("\"{CLIENT_SPIFFE_ID}\"");
    eventually(|| proxy.log().matches(&spiffe).count() >= 22).await;
    assert_eq!(proxy.log().matches(&spiffe).count(), 22, "{}", proxy.log());
    // Without a client certificate curl gets no answer.
    assert!(!curl("hello", r#"["x"]"#, false).await.unwrap().0);
    // Without a client certificate: refused at the handshake, counted.
    let anonymous = TripleClient::connect_tls(
        &proxy.addr().to_string(),
        TripleConfig::default(),
        client_tls(&pki, None),
    )
    .await;
    if let Ok(anonymous) = anonymous {
        let call = TripleCall::new("test.Greeter", "hello")
            .arg("java.lang.String", "x")
            .unwrap();
        assert!(anonymous.call::<String>(&call).await.is_err());
    }
    let failed = "dubbo_proxy_tls_handshake_failed_total";
    assert!(metric_reaches(&proxy, failed, 1.0).await >= 1.0);
}

/// SIGHUP reads the listener's certificate, key and client CA again: after they are replaced
/// on disk (a renewal, here to another CA), new callers meet the new ones while a connection
/// opened before goes on with its session.
async fn sighup_reads_renewed_certificates_without_dropping_connections(engine: &str) {
    renewed_certificates_are_read(engine, true).await
}

/// The same without a signal: the proxy sees the files change on disk (as certbot or
/// cert-manager leave them) and reads them again by itself.
async fn renewed_certificates_are_read_without_a_signal(engine: &str) {
    renewed_certificates_are_read(engine, false).await
}

async fn renewed_certificates_are_read(engine: &str, sighup: bool) {
    let (old, new) = (Pki::new(), Pki::new());
    let dir = TempDir::new();
    let (cert, key, ca) = (
        dir.0.join("server.pem"),
        dir.0.join("server.key"),
        dir.0.join("ca.pem"),
    );
    let install = |pki: &Pki| {
        std::fs::copy(&pki.server.cert, &cert).unwrap();
        std::fs::copy(&pki.server.key, &key).unwrap();
        std::fs::copy(&pki.ca, &ca).unwrap();
    };
    install(&old);
    let a = Upstream::start("a").await;
    let conf = config(
        1,
        &format!(
            "[listeners.tls]\ncert = {cert:?}\nkey = {key:?}\nclient_ca = {ca:?}\n\
             [[routes]]\ncluster = \"a\"\n[clusters.a]\nendpoints = [{{ address = \"{}\" }}]\n",
            a.addr
        ),
    );
    let p = Proxy::start_process(engine, &conf);
    let before = RpcClient::connect_tls(
        p.addr().to_string(),
        ClientConfig::default(),
        client_tls(&old, Some(&old.client)),
    )
    .await
    .unwrap();
    assert_eq!(before.call::<String>(&call("x")).await.unwrap(), "a:x");

    install(&new);
    if sighup {
        p.signal(libc::SIGHUP);
    }
    assert!(metric_reaches(&p, "dubbo_proxy_config_reloads_total", 1.0).await >= 1.0);
    let renewed = call_over(&p, client_tls(&new, Some(&new.client))).await;
    assert_eq!(renewed.unwrap(), "a:sayHello");
    // The old CA's callers are refused now (its server certificate is gone)...
    assert!(call_over(&p, client_tls(&old, Some(&old.client)))
        .await
        .is_err());
    // ... but the connection opened before keeps its session.
    assert_eq!(before.call::<String>(&call("y")).await.unwrap(), "a:y");
    assert_eq!(a.calls(), 3);
}
