//! The short, seeded chaos soak (issue 17) on both proxy engines: every fault kind applied
//! while 64 callers send 3,000-4,500 calls (one caller in 8 in Triple, 2 in 8 in Dubbo to a
//! Triple-only cluster, bridged by the proxy); no call may go unanswered or be answered with
//! another call's token, and the proxy's fds come back; once more with the providers found in
//! a real ZooKeeper that the schedule restarts; and once with providers that mix answers up,
//! which must fail. Every run also sends 1,000 bad frames (bad magic, 2 GiB length claims,
//! garbage bodies, truncated frames) while the callers are served, and 2 callers in 8 call over
//! mutual TLS while hostile handshakes (plaintext on the TLS listener, TLS to the plain one,
//! stalled handshakes, bursts) come in, on both engines. The long run is `benches/soak/run`
//! (see `benches/soak/README.md`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use dubbo_test_support::missing;
use dubbo_test_support::zookeeper::ZooKeeper;

/// The fixed seed of the test runs (`SOAK_SEED` overrides it to replay another schedule).
fn seed() -> String {
    std::env::var("SOAK_SEED").unwrap_or_else(|_| "17".into())
}

/// The `dubbo-proxy` binary of this build profile, built once (a test cannot depend on
/// another package's binary, so it asks cargo for it, into this test's own target dir).
fn proxy_bin() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        // target/<profile>/deps/soak-<hash>
        let exe = std::env::current_exe().expect("test executable");
        let profile_dir = exe
            .parent()
            .and_then(|d| d.parent())
            .expect("target/<profile>");
        let target_dir = profile_dir.parent().expect("target dir");
        let mut build = Command::new(env!("CARGO"));
        build
            .args([
                "build",
                "-p",
                "dubbo-proxy",
                "--bin",
                "dubbo-proxy",
                "--target-dir",
            ])
            .arg(target_dir);
        if profile_dir.file_name().is_some_and(|n| n == "release") {
            build.arg("--release");
        }
        let status = build.status().expect("run cargo build");
        assert!(status.success(), "building dubbo-proxy: {status}");
        profile_dir.join("dubbo-proxy")
    })
}

/// Runs `dubbo-soak run --short` with `extra` arguments; whether it passed, and its `SOAK`
/// line's fields.
fn short_soak(engine: &str, extra: &[&str]) -> (bool, HashMap<String, u64>) {
    let out = Command::new(env!("CARGO_BIN_EXE_dubbo-soak"))
        .args([
            "run",
            "--short",
            "--engine",
            engine,
            "--seed",
            &seed(),
            "--proxy-bin",
        ])
        .arg(proxy_bin())
        .args(extra)
        .output()
        .expect("run dubbo-soak");
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        eprintln!(
            "dubbo-soak failed ({}):\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("SOAK "))
        .unwrap_or_else(|| panic!("no SOAK line in\n{stdout}"));
    let fields = line
        .split_whitespace()
        .filter_map(|kv| kv.split_once('='))
        .filter_map(|(k, v)| Some((k.to_owned(), v.parse().ok()?)))
        .collect();
    (out.status.success(), fields)
}

fn check(engine: &str, extra: &[&str]) -> HashMap<String, u64> {
    let (passed, r) = short_soak(engine, extra);
    assert!(passed, "{r:?}");
    let get = |k: &str| r.get(k).copied().unwrap_or(0);
    println!("{r:?}");
    for zero in [
        "never_answered",
        "misrouted",
        "stray",
        "malformed",
        "connect_errors",
    ] {
        assert_eq!(get(zero), 0, "{zero}: {r:?}");
    }
    assert!(get("sent") >= 2000, "{r:?}");
    // A share of the calls in Triple (one caller in 8) and of Dubbo calls bridged to the
    // Triple-only cluster (2 in 8), under the same checks.
    assert!(get("triple_sent") >= get("sent") / 16, "{r:?}");
    assert!(get("bridged_sent") >= get("sent") / 8, "{r:?}");
    // The bystanders above were served while 1,000 bad frames came in.
    assert!(get("hostile_frames") >= 1000, "{r:?}");
    assert!(get("kills") >= 1 && get("stops") >= 1, "{r:?}");
    assert!(get("reloads") >= 2 && get("disconnects") >= 1, "{r:?}");
    assert!(
        get("abandoned") >= get("disconnects"),
        "each disconnect left a call: {r:?}"
    );
    // The faults reached calls: some were answered with a Dubbo error status.
    let statuses: u64 = r
        .iter()
        .filter(|(k, _)| k.starts_with("status_"))
        .map(|(_, v)| v)
        .sum();
    assert!(statuses > 0, "no call was hit by a fault: {r:?}");
    assert_eq!(
        get("sent"),
        get("ok") + statuses + get("abandoned"),
        "{r:?}"
    );
    assert!(
        get("fds_after") <= get("fds_before") + get("fd_slack"),
        "{r:?}"
    );
    // Memory, without RSS (a short run leaves the allocator no time to give back, and a
    // page more or less is noise): with every caller gone, the proxy's own accounting holds
    // no caller connection and no buffered byte. A connection's state or bytes left behind
    // would show here exactly.
    for key in ["downstream_connections_after", "buffered_bytes_after"] {
        assert_eq!(r.get(key), Some(&0), "{key}: {r:?}");
    }
    r
}

/// TLS at the door: a share of the callers over mutual TLS, under the same checks, and 10
/// rounds of hostile handshakes, each refused (or, the bursts, completed) as it must be.
fn check_tls(r: &HashMap<String, u64>) {
    let get = |k: &str| r.get(k).copied().unwrap_or(0);
    assert!(get("tls_sent") >= get("sent") / 8, "{r:?}");
    for kind in ["tls_plaintext", "tls_to_plain", "tls_stalled"] {
        assert_eq!(get(kind), 10, "{kind}: {r:?}");
    }
    assert_eq!(get("tls_burst"), 160, "{r:?}");
    assert_eq!((get("tls_not_closed"), get("tls_wrong")), (0, 0), "{r:?}");
    assert!(get("proxy_tls_timeouts") >= 10, "{r:?}");
    assert!(get("proxy_tls_plaintext_refused") >= 10, "{r:?}");
}

#[test]
fn short_soak_tokio_engine() {
    check_tls(&check("tokio", &[]));
}

#[test]
fn short_soak_epoll_engine() {
    check_tls(&check("epoll", &[]));
}

/// The checker itself: providers that answer every 300th echo with the previous call's token
/// (what a proxy that mixed answers up would deliver) make the run fail, counted as misrouted.
#[test]
fn short_soak_catches_misrouted_answers() {
    let (passed, r) = short_soak("tokio", &["--misanswer-every", "300"]);
    assert!(!passed, "{r:?}");
    let misrouted = r.get("misrouted").copied().unwrap_or(0);
    assert!(misrouted > 0, "{r:?}");
    assert_eq!(r.get("never_answered"), Some(&0), "{r:?}");
}

/// Providers registered in a real ZooKeeper, discovered by the proxy; the schedule also
/// SIGKILLs and restarts ZooKeeper.
#[test]
fn short_soak_zookeeper_discovery() {
    if ZooKeeper::classpath().is_none() {
        let _: Option<()> = missing("ZooKeeper (Debian package `zookeeper`)");
        return;
    }
    let r = check("epoll", &["--zookeeper"]);
    assert!(
        r.get("zookeeper_restarts").copied().unwrap_or(0) >= 1,
        "{r:?}"
    );
}
