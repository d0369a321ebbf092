//! `dubbo-call --describe` with real parts: Java Dubbo 2.7 (interface level, with the registry
//! as its metadata report), 3.2 and 3.3 (stock Dubbo 3 applications, `--bootstrap`), each in a
//! ZooKeeper of its own on 127.0.0.1, and Rust providers (`Server::register`: one without
//! declared signatures, described by method names, one with `Service::signature`s, published
//! as its definition). Skipped with a note when ZooKeeper or the Java interop project is missing
//! (a failure under CI).

mod common;

use std::process::Output;
use std::time::Duration;

use common::*;
use dubbo_registry::instance::ServiceInstance;
use dubbo_registry::zookeeper::{ZookeeperRegistry, SERVICES_ROOT};
use dubbo_registry::Registry;
use dubbo_rpc::registration::Registration;
use dubbo_rpc::server::Server;
use dubbo_test_support::net::assert_loopback_only;
use dubbo_test_support::zookeeper::ZooKeeper;
use dubbo_test_support::LogDir;
use serde_json::{json, Value as Json};
use zookeeper_client as zk;

const SESSION_MS: u64 = 4_000;
const ZK_LOGS: LogDir = LogDir("dubbo-codec-describe");
const APP: &str = "hessianrs-interop-provider";
const RUST_APP: &str = "rust-describe";
/// A Rust provider that declares two signatures (`Service::signature`).
const RUST_DECLARED_APP: &str = "rust-declared";

async fn dubbo_call(args: Vec<String>) -> Output {
    tokio::task::spawn_blocking(move || {
        std::process::Command::new(dubbo_test_support::binary::workspace_binary(
            "dubbo-call",
            "dubbo-call",
        ))
        .args(&args)
        .output()
        .expect("run dubbo-call")
    })
    .await
    .unwrap()
}

/// `dubbo-call --registry zookeeper://<zoo> --describe INTERFACE [extra]`.
async fn describe(zoo: &ZooKeeper, extra: &[&str]) -> Output {
    let mut args = vec![
        "--registry".to_owned(),
        format!("zookeeper://{}", zoo.address()),
        "--describe".to_owned(),
        INTERFACE.to_owned(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    dubbo_call(args).await
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The JSON `--output json` printed, after asserting success.
fn json_of(out: &Output) -> Json {
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    serde_json::from_str(&stdout).unwrap()
}

/// The description of application `app` in `json`.
fn of_app<'a>(json: &'a Json, app: &str) -> &'a Json {
    json["descriptions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["application"] == app)
        .unwrap_or_else(|| panic!("no description of {app}: {json}"))
}

/// The port of the MetadataService of the one instance of `APP` in `zoo`.
async fn metadata_service_port(zoo: &ZooKeeper) -> String {
    let raw = zk::Client::connector()
        .connect(&zoo.address())
        .await
        .unwrap();
    let dir = format!("{SERVICES_ROOT}/{APP}");
    let nodes = raw.list_children(&dir).await.unwrap();
    assert_eq!(nodes.len(), 1, "{nodes:?}");
    let (data, _) = raw.get_data(&format!("{dir}/{}", nodes[0])).await.unwrap();
    let instance = ServiceInstance::from_curator_json(&data).unwrap();
    instance.metadata_service_params()["port"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn describes_java_providers_from_their_metadata_and_rust_ones_by_name() {
    let zoos: Vec<ZooKeeper> = ["describe-27", "describe-32", "describe-33"]
        .iter()
        .filter_map(|n| ZooKeeper::start(n, Duration::from_millis(SESSION_MS), ZK_LOGS))
        .collect();
    if zoos.len() < 3 {
        return;
    }
    let builders = [
        ("dubbo27", "--metadata-report", ""),
        ("dubbo3", "--bootstrap", "instance"),
        ("dubbo33", "--bootstrap", "all"),
    ]
    .iter()
    .zip(&zoos)
    .map(|((flavour, option, value), zoo)| {
        let args: Vec<&str> = [*option, *value]
            .into_iter()
            .filter(|a| !a.is_empty())
            .collect();
        Provider::builder(flavour)
            .log(LOGS, &format!("describe-{flavour}"))
            .jvm_arg("-XX:TieredStopAtLevel=1")
            .registry(&zoo.address())
            .args(&args)
    })
    .collect();
    let Some(providers) = Provider::start_all(builders) else {
        return;
    };

    // A Rust provider of the same interface beside the 2.7 one, under another application.
    let server = demo_server().await;
    let address = format!("zookeeper://{}?session={SESSION_MS}", zoos[0].address());
    let reg: std::sync::Arc<dyn Registry> =
        std::sync::Arc::new(ZookeeperRegistry::connect(&address).await.unwrap());
    server
        .register(reg.clone(), &Registration::new(RUST_APP))
        .await
        .unwrap();
    let declared = Server::builder()
        .service(
            demo_service()
                .signature("sayHello", &["java.lang.String"], "java.lang.String")
                .signature("getUser", &["long"], USER_CLASS),
        )
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    declared
        .register(reg.clone(), &Registration::new(RUST_DECLARED_APP))
        .await
        .unwrap();

    // Every generation's definition says what Java declares: sayHello(java.lang.String).
    for ((zoo, provider), release) in zoos
        .iter()
        .zip(&providers)
        .zip(["2.7.23", "3.2.19", "3.3.6"])
    {
        let json = json_of(&describe(zoo, &["sayHello", "--output", "json"]).await);
        let d = of_app(&json, APP);
        assert_eq!(
            d["methods"],
            json!([{"name": "sayHello", "parameterTypes": ["java.lang.String"],
                    "returnType": "java.lang.String"}]),
            "{release}: {json}"
        );
        assert_eq!(d["release"], release, "{json}");
        assert_eq!(d["definition"], "the registry's metadata report");
        assert_eq!(d["providers"], json!([provider.addr()]), "{json}");
        assert_eq!(d["version"], VERSION);
        // A method with a class: the class's fields with their types.
        let json = json_of(&describe(zoo, &["getUser", "--output", "json"]).await);
        let d = of_app(&json, APP);
        assert_eq!(d["methods"][0]["parameterTypes"], json!(["long"]));
        assert_eq!(d["types"][0]["type"], USER_CLASS, "{json}");
        assert_eq!(d["types"][0]["properties"]["created"], "java.util.Date");
        assert_eq!(d["types"][0]["properties"]["id"], "long");
    }

    // The whole service, pretty: Java signatures for the 2.7 provider, names only for ours.
    let out = describe(&zoos[0], &[]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let pretty = text(&out.stdout);
    for line in [
        format!("{INTERFACE}\tversion={VERSION}\tgroup=\tapplication={APP}\trelease=2.7.23"),
        "  java.lang.String sayHello(java.lang.String)".into(),
        "  int add(int, int)".into(),
        format!("  {USER_CLASS} echoUser({USER_CLASS})"),
        "  java.util.Map<java.lang.String,java.lang.Object> echoMap(java.util.Map<java.lang.String,java.lang.Object>)".into(),
        format!("  class {USER_CLASS} {{"),
        "    java.util.Date created;".into(),
        format!("{INTERFACE}\tversion={VERSION}\tgroup=\tapplication={RUST_APP}\t"),
        "  definition: none published (method names only; parameter types unknown)".into(),
        "  ? sayHello(?)".into(),
    ] {
        assert!(pretty.contains(&line), "{line:?} not in:\n{pretty}");
    }
    let json = json_of(&describe(&zoos[0], &["sayHello", "--output", "json"]).await);
    let ours = of_app(&json, RUST_APP);
    assert_eq!(
        ours["methods"],
        json!([{"name": "sayHello", "parameterTypes": null, "returnType": null}])
    );
    assert_eq!(ours["definition"], Json::Null);
    assert_eq!(ours["providers"], json!([server.local_addr().to_string()]));
    // What a Rust provider declared is published and described; its other methods by name.
    let json = json_of(&describe(&zoos[0], &["--output", "json"]).await);
    let d = of_app(&json, RUST_DECLARED_APP);
    assert_eq!(d["definition"], "the registry's metadata report");
    let methods = d["methods"].as_array().unwrap();
    assert_eq!(
        methods[..2],
        [
            json!({"name": "sayHello", "parameterTypes": ["java.lang.String"],
                   "returnType": "java.lang.String"}),
            json!({"name": "getUser", "parameterTypes": ["long"], "returnType": USER_CLASS}),
        ],
        "{json}"
    );
    assert!(
        methods.contains(&json!({"name": "add", "parameterTypes": null, "returnType": null})),
        "{json}"
    );
    assert_eq!(d["providers"], json!([declared.local_addr().to_string()]));

    // No such method, no such version: exit status 2 and a reason; bad usage 64.
    let out = describe(&zoos[0], &["sayGoodbye"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("has a method sayGoodbye"));
    let out = describe(&zoos[0], &["--version", "9.9.9"]).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    let out = dubbo_call(vec![
        "127.0.0.1:1".into(),
        "--describe".into(),
        INTERFACE.into(),
    ])
    .await;
    assert_eq!(out.status.code(), Some(64));

    // A Dubbo 3 provider's own MetadataService: the method names of its metadata (3.x answers
    // no definitions); another application's name is SERVICE_NOT_FOUND.
    for (zoo, release) in zoos[1..].iter().zip(["3.2.19", "3.3.6"]) {
        let port = metadata_service_port(zoo).await;
        let direct = |app: &str, method: &str| {
            dubbo_call(vec![
                format!("127.0.0.1:{port}"),
                "--describe".into(),
                INTERFACE.into(),
                method.into(),
                "--app".into(),
                app.into(),
                "--output".into(),
                "json".into(),
            ])
        };
        let json = json_of(&direct(APP, "add").await);
        let d = of_app(&json, APP);
        assert_eq!(
            d["methods"],
            json!([{"name": "add", "parameterTypes": null, "returnType": null}]),
            "{json}"
        );
        assert_eq!(d["release"], release, "{json}");
        let out = direct("someone-else", "add").await;
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
        assert!(text(&out.stderr).contains("someone-else"));
    }

    let mut pids = vec![std::process::id()];
    pids.extend(zoos.iter().filter_map(ZooKeeper::pid));
    pids.extend(providers.iter().map(Provider::pid));
    assert_loopback_only(&pids);
}
