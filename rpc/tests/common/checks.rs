//! Checks and waits several test files share: the typed and dynamic calls every DemoService
//! provider must answer, the `dubbo-call` binary, and a cluster client's provider list.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use dubbo_codec::{BodyFormat, RequestBuilder};
use dubbo_registry::balance::Policy;
use dubbo_rpc::client::Client;
use dubbo_rpc::cluster::{ClusterClient, ClusterClientBuilder, ClusterConfig};
use dubbo_rpc::server::Server;
use hessian2::value::Value;

use super::{user_for, Provider, User, INTERFACE, USER_CLASS, VERSION};

/// The calls any DemoService provider answers alike, through `client`, in `format`:
/// `sayHello`, `add`, `getUser`, `echoUser`, `echoList`, `doNothing`, `echoMap` (the same
/// entries back) and a generic `sayHello`; `label` names the provider in failures.
pub async fn demo_calls(client: &Client, format: BodyFormat, label: &str) {
    let req = |method: &str| super::req(method).format(format);
    let fastjson2 = format == BodyFormat::FASTJSON2;
    // fastjson2 leaves `false` and `0` primitive fields out (Dubbo's NotWriteDefaultValue):
    // a struct reads them back only with `#[serde(default)]`, which `User` has not.
    let user = &User {
        created: None,
        active: fastjson2,
        email: None,
        age: 41,
        name: Some("Zoë".into()),
        id: 1_234_567_890_123,
    };
    let mut entries = vec![
        (Value::from("s"), Value::from("v")),
        (Value::from("n"), Value::Int(7)),
        (Value::from("l"), Value::Long(1 << 40)),
    ];
    if !fastjson2 {
        entries.push((Value::from("d"), Value::Date(super::CREATED_MS)));
        entries.push((Value::from("x"), Value::Null));
    }
    let map = Value::untyped_map(entries);
    let hello: String = client
        .call(
            &req("sayHello")
                .arg("java.lang.String", "world")
                .build()
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(hello, "Hello, world", "{label}");
    let sum: i32 = client
        .call(&req("add").arg("int", &2).arg("int", &40).build().unwrap())
        .await
        .unwrap();
    assert_eq!(sum, 42, "{label}");
    let got: User = client
        .call(&req("getUser").arg("long", &42i64).build().unwrap())
        .await
        .unwrap();
    assert_eq!(got, user_for(42), "{label}");
    let back: User = client
        .call(&req("echoUser").arg(USER_CLASS, user).build().unwrap())
        .await
        .unwrap();
    assert_eq!(&back, user, "{label}");
    let list: Vec<String> = client
        .call(
            &req("echoList")
                .arg("java.util.List", &vec!["alpha", "", "γ"])
                .build()
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(list, ["alpha", "", "γ"], "{label}");
    let nothing: Option<String> = client
        .call(&req("doNothing").build().unwrap())
        .await
        .unwrap();
    assert_eq!(nothing, None, "{label}");

    let echoed = client
        .call_value(
            &req("echoMap")
                .value_arg("java.util.Map", map.clone())
                .build()
                .unwrap(),
        )
        .await
        .unwrap();
    let (Value::Map(got), Value::Map(sent)) = (&echoed, &map) else {
        panic!("{label}: echoMap gave {echoed:?}")
    };
    // The entries, whatever the map's order.
    let got: BTreeSet<String> = got.entries.iter().map(|e| format!("{e:?}")).collect();
    let sent: BTreeSet<String> = sent.entries.iter().map(|e| format!("{e:?}")).collect();
    assert_eq!(got, sent, "{label}");

    let g = client
        .generic_call(
            INTERFACE,
            VERSION,
            None,
            "sayHello",
            &["java.lang.String"],
            vec![Value::from("generic")],
        )
        .await
        .unwrap();
    assert_eq!(g, Value::from("Hello, generic"), "{label}");
}

/// Our DemoService ([`super::demo_service`]) on a free port of 127.0.0.1.
pub async fn demo_server() -> Server {
    Server::builder()
        .service(super::demo_service())
        .bind("127.0.0.1:0")
        .await
        .unwrap()
}

/// Runs the `dubbo-call` binary with `args` to its end: (exit status 0, stdout, stderr).
pub fn dubbo_call(args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(dubbo_test_support::binary::workspace_binary(
        "dubbo-call",
        "dubbo-call",
    ))
    .args(args)
    .output()
    .expect("run dubbo-call");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `dubbo-call <target...> DemoService sayHello` of `name` (`target`: `HOST:PORT` or
/// `--registry URL`, `extra` more options), asserted to print `"Hello, <name>"`.
pub fn dubbo_call_says_hello(target: &[&str], name: &str, extra: &[&str]) {
    let args = format!("[\"{name}\"]");
    let mut argv = target.to_vec();
    argv.extend([
        INTERFACE,
        "sayHello",
        "--version",
        VERSION,
        "--types",
        "java.lang.String",
        "--args",
        &args,
    ]);
    argv.extend(extra);
    let (ok, out, err) = dubbo_call(&argv);
    assert!(ok, "{err}");
    assert_eq!(out.trim(), format!("\"Hello, {name}\""));
}

/// `n` calls `sayHello("<prefix><i>")` through `client`, each answered `"Hello, <prefix><i>"`.
pub async fn say_hello_calls(
    client: &ClusterClient,
    req: fn(&str) -> RequestBuilder,
    prefix: &str,
    n: usize,
) {
    for i in 0..n {
        let name = format!("{prefix}{i}");
        let r: String = client
            .call(
                &req("sayHello")
                    .arg("java.lang.String", &name)
                    .build()
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(r, format!("Hello, {name}"));
    }
}

/// Asserts that every provider has handled at least `at_least` calls (its `count()`, asked
/// directly).
pub async fn assert_each_counted(
    providers: &[Provider],
    req: fn(&str) -> RequestBuilder,
    at_least: i64,
) {
    for p in providers {
        let direct = Client::connect(p.addr()).await.unwrap();
        let count: i64 = direct.call(&req("count").build().unwrap()).await.unwrap();
        assert!(count >= at_least, "{} answered {count}", p.flavour);
    }
}

/// `builder`'s client, round-robin, once it lists the `n` providers (`what` they are, in the
/// log line saying how long that took).
pub async fn round_robin_client(
    builder: ClusterClientBuilder,
    n: usize,
    what: &str,
) -> ClusterClient {
    let t = Instant::now();
    let client = builder
        .config(ClusterConfig::default().policy(Policy::RoundRobin))
        .build()
        .await
        .unwrap();
    wait_providers(&client, n).await;
    eprintln!("{n} {what} found {:?} after subscribing", t.elapsed());
    client
}

/// How long a cluster client may take to follow a registry change.
const FOLLOW_TIMEOUT: Duration = Duration::from_secs(15);

/// Waits until `c` lists `n` providers in service (not taken out); how long it took.
pub async fn wait_providers(c: &ClusterClient, n: usize) -> Duration {
    wait_list(c, |c| c.providers().iter().filter(|p| !p.2).count() == n).await
}

/// Waits until `c` no longer lists the provider at `addr`; how long it took.
pub async fn wait_gone(c: &ClusterClient, addr: &str) -> Duration {
    wait_list(c, |c| c.providers().iter().all(|p| p.0.to_string() != addr)).await
}

async fn wait_list(c: &ClusterClient, done: impl Fn(&ClusterClient) -> bool) -> Duration {
    let t = Instant::now();
    while !done(c) {
        assert!(
            t.elapsed() < FOLLOW_TIMEOUT,
            "providers: {:?}",
            c.providers()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    t.elapsed()
}
