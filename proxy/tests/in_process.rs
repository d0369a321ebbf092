//! The proxy as a library, driven in the test's own process: [`Server::start`], calls through
//! it, a reload that moves a route without touching the caller's connection, the admin
//! endpoint, and a drain. Every test runs against every engine.

mod common;

use common::*;
use dubbo_codec::Status;
use dubbo_proxy::config::Config;
use dubbo_proxy::Server;

for_each_engine!(started_reloaded_and_drained_in_process);

fn to(engine: &str, upstream: &Upstream) -> Config {
    Config::from_toml(&format!(
        "engine = \"{engine}\"\nworkers = 2\n[admin]\naddress = \"127.0.0.1:0\"\n\
         [[listeners]]\naddress = \"127.0.0.1:0\"\n\
         [[routes]]\ncluster = \"c\"\n\
         [clusters.c]\nendpoints = [{{ address = \"{}\" }}]\n",
        upstream.addr
    ))
    .expect("a valid configuration")
}

async fn started_reloaded_and_drained_in_process(engine: &str) {
    let a = Upstream::start("a").await;
    let b = Upstream::start("b").await;
    let server = Server::start(to(engine, &a)).await.expect("started");
    let admin = server.admin_addr().expect("an admin address");
    let mut caller = Client::connect(server.listen_addrs()[0]).await;
    assert_eq!(
        caller.call(1, &call("hello")).await,
        (Status::Ok, "a:hello".to_owned())
    );
    assert_eq!(
        tokio::task::spawn_blocking(move || http(admin, "GET", "/healthz", ""))
            .await
            .unwrap(),
        (200, "ok\n".to_owned())
    );

    // The same connection's next call goes where the new configuration says.
    server.reload(to(engine, &b)).await;
    assert_eq!(server.generation(), 2);
    assert_eq!(
        caller.call(2, &call("hello")).await,
        (Status::Ok, "b:hello".to_owned())
    );
    server.refuse_reload(&"a test's unreadable file");
    assert_eq!(server.generation(), 2);
    let (_, metrics) = tokio::task::spawn_blocking(move || http(admin, "GET", "/metrics", ""))
        .await
        .unwrap();
    assert!(
        metrics.contains("dubbo_proxy_config_reload_failures_total 1\n"),
        "{metrics}"
    );

    // Drained: the caller is told and closed, and nothing listens any more.
    let listen = server.listen_addrs()[0];
    server.shutdown().await;
    assert!(
        eventually(|| *caller.closed.lock().unwrap()).await,
        "the caller's connection was not closed"
    );
    assert!(tokio::net::TcpStream::connect(listen).await.is_err());
    assert_eq!((a.calls(), b.calls()), (1, 1));
}
