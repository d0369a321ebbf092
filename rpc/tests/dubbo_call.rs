//! `dubbo-call` against our own server on 127.0.0.1: arguments inline, from a file and from
//! standard input; the three outputs; exit statuses that tell a Java exception from any other
//! failure; `--help`.

mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::*;
use hessian2::value::{Stream, Value};

fn dubbo_call(addr: &str, method: &str, extra: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(dubbo_test_support::binary::workspace_binary(
        "dubbo-call",
        "dubbo-call",
    ))
    .args([addr, INTERFACE, method, "--version", VERSION])
    .args(extra)
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_outputs_and_exit_statuses() {
    let server = demo_server().await;
    let addr = server.local_addr().to_string();
    let string = ["--types", "java.lang.String"];
    let run = {
        let addr = addr.clone();
        move |method: &'static str, extra: Vec<String>, stdin: &'static [u8]| {
            let addr = addr.clone();
            tokio::task::spawn_blocking(move || {
                let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
                dubbo_call(&addr, method, &extra, stdin)
            })
        }
    };
    let args = |a: &[&str]| string.iter().chain(a).map(|s| s.to_string()).collect();

    // Standard input, pretty (the default).
    let out = run("sayHello", args(&["--args", "-"]), b"[\"stdin\"]")
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "\"Hello, stdin\"\n");

    // A file, one line of JSON.
    let path = std::env::temp_dir().join(format!("dubbo-call-test-{}.json", std::process::id()));
    std::fs::write(&path, "[\"file\"]").unwrap();
    let out = run(
        "getUser",
        vec![
            "--types".into(),
            "long".into(),
            "--args".into(),
            "[7]".into(),
            "--output".into(),
            "json".into(),
        ],
        b"",
    )
    .await
    .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let line = text(&out.stdout);
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(
        line.contains("\"class\":\"io.github.hessianrs.demo.User\""),
        "{line}"
    );
    let out = run(
        "sayHello",
        args(&["--args", &format!("@{}", path.display())]),
        b"",
    )
    .await
    .unwrap();
    let _ = std::fs::remove_file(&path);
    assert_eq!(text(&out.stdout), "\"Hello, file\"\n");

    // Raw: the answer's body as our server wrote it, a Hessian stream of the result flag and
    // the value (and the attachments).
    let out = run(
        "sayHello",
        args(&["--args", "[\"raw\"]", "--output", "raw"]),
        b"",
    )
    .await
    .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stream = Stream::from_slice(&out.stdout).unwrap();
    assert!(
        matches!(stream.values[0], Value::Int(1 | 4)),
        "{:?}",
        stream.values
    );
    assert_eq!(stream.values[1], Value::from("Hello, raw"));

    // A Java exception is status 1 with the exception on stdout; a missing service is 2.
    let out = run("throwError", args(&["--args", "[\"boom\"]"]), b"")
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("\"exception\""),
        "{}",
        text(&out.stdout)
    );
    let missing = Command::new(dubbo_test_support::binary::workspace_binary(
        "dubbo-call",
        "dubbo-call",
    ))
    .args([addr.as_str(), "com.example.Nothing", "m"])
    .output()
    .unwrap();
    assert_eq!(missing.status.code(), Some(2), "{}", text(&missing.stderr));
    assert!(
        text(&missing.stderr).contains("ServiceNotFound"),
        "{}",
        text(&missing.stderr)
    );

    // Bad usage is 64; --help is 0 with examples.
    let out = run("sayHello", args(&["--args", "[1]", "--output", "xml"]), b"")
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(64));
    let help = Command::new(dubbo_test_support::binary::workspace_binary(
        "dubbo-call",
        "dubbo-call",
    ))
    .arg("--help")
    .output()
    .unwrap();
    assert!(help.status.success());
    assert!(text(&help.stdout).contains("examples:"));

    server.shutdown(Duration::from_secs(1)).await;
}
