//! `dubbo-call --describe` names a DTO's Java value types as the provider declares them: Java
//! Dubbo 2.7 with `--orders`, its registry a ZooKeeper of its own on 127.0.0.1 that is also its
//! metadata report, describes `OrderService.advance(Order)` and the fields of `Order`
//! (`java.time`, `BigDecimal`, `UUID`, an enum), and not the JDK classes inside them. Skipped with a note when ZooKeeper or the
//! Java interop project is missing.

mod common;

use std::time::Duration;

use common::orders::{ORDER_CLASS, ORDER_SERVICE};
use common::*;
use dubbo_test_support::zookeeper::ZooKeeper;
use dubbo_test_support::LogDir;
use serde_json::{json, Value as Json};

const ZK_LOGS: LogDir = LogDir("dubbo-codec-describe");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn describes_the_java_types_of_a_dto() {
    let Some(zoo) = ZooKeeper::start("describe-dto", Duration::from_secs(4), ZK_LOGS) else {
        return;
    };
    let Some(_provider) = Provider::builder("dubbo27")
        .log(LOGS, "describe-dto-dubbo27")
        .registry(&zoo.address())
        .args(&["--metadata-report", "--orders"])
        .start()
    else {
        return;
    };
    let registry = format!("zookeeper://{}", zoo.address());
    let describe = move |extra: &'static [&'static str]| {
        let registry = registry.clone();
        tokio::task::spawn_blocking(move || {
            let mut args = vec![
                "--registry",
                &registry,
                "--describe",
                ORDER_SERVICE,
                "advance",
            ];
            args.extend(extra);
            dubbo_call(&args)
        })
    };
    let (ok, out, err) = describe(&["--output", "json"]).await.unwrap();
    assert!(ok, "{err}");
    let json: Json = serde_json::from_str(&out).unwrap();
    let d = &json["descriptions"][0];
    assert_eq!(
        d["methods"],
        json!([{"name": "advance", "parameterTypes": [ORDER_CLASS], "returnType": ORDER_CLASS}]),
        "{json}"
    );
    let order = d["types"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["type"] == ORDER_CLASS)
        .unwrap_or_else(|| panic!("no {ORDER_CLASS} in {json}"));
    assert_eq!(
        order["properties"],
        json!({
            "id": "java.util.UUID",
            "placed": "java.time.LocalDateTime",
            "due": "java.time.LocalDate",
            "paid": "java.time.Instant",
            "amount": "java.math.BigDecimal",
            "status": "io.github.hessianrs.demo.OrderStatus",
        }),
        "{json}"
    );
    // The JDK's own classes are named, not taken apart (Dubbo 2.7 publishes their private
    // fields too).
    let types: Vec<&Json> = d["types"].as_array().unwrap().iter().collect();
    assert!(
        types
            .iter()
            .all(|t| !t["type"].as_str().unwrap().starts_with("java.")),
        "{json}"
    );
    let (ok, pretty, err) = describe(&[]).await.unwrap();
    assert!(ok, "{err}");
    for line in [
        format!("  {ORDER_CLASS} advance({ORDER_CLASS})"),
        "    java.time.LocalDateTime placed;".to_owned(),
        "    java.math.BigDecimal amount;".to_owned(),
    ] {
        assert!(pretty.contains(&line), "{line:?} not in:\n{pretty}");
    }
    assert!(!pretty.contains("class java."), "{pretty}");
}
