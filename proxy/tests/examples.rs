//! Every operator example under `examples/` is a valid configuration, and so is the
//! embedded default. Examples with TLS name their PEM files under [`TLS_DIR`]; the tests
//! put the test CA's files there instead.

use dubbo_proxy::config::{Config, DEFAULT_TOML};
use dubbo_test_support::pki::Pki;

/// Where the examples' certificates and keys are (`server.pem`, `server.key`, `ca.pem`).
const TLS_DIR: &str = "/etc/dubbo-proxy/tls";

/// The example's text with its PEM files taken from `pki`.
fn example(path: &std::path::Path, pki: &Pki) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.replace(TLS_DIR, pki.dir().to_str().unwrap())
}

#[test]
fn every_example_validates() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let pki = Pki::new();
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let c = Config::from_toml(&example(&path, &pki))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(!c.routes.is_empty(), "{}", path.display());
            n += 1;
        }
    }
    assert!(n >= 3, "expected the three deployment shapes, found {n}");
    Config::from_toml(DEFAULT_TOML).unwrap();
}

#[test]
fn check_flag_accepts_the_secure_gateway_example() {
    let pki = Pki::new();
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/secure-gateway.toml");
    let file = pki.dir().join("secure-gateway.toml");
    std::fs::write(&file, example(&path, &pki)).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dubbo-proxy"))
        .arg("--check")
        .arg("--config")
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("allow_identities") && text.contains("calls_per_second"),
        "{text}"
    );
}

#[test]
fn check_flag_prints_the_config() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dubbo-proxy"))
        .args([
            "--check",
            "--listen",
            "127.0.0.1:1",
            "--upstream",
            "127.0.0.1:2",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("127.0.0.1:1") && text.contains("127.0.0.1:2"),
        "{text}"
    );
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_dubbo-proxy"))
        .args(["--check", "--upstream", "nope"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8(bad.stderr).unwrap();
    assert!(
        err.contains("clusters.default.endpoints[0].address: must be IP:PORT"),
        "{err}"
    );
}

#[test]
fn grafana_dashboard_names_only_metrics_the_proxy_exports() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/grafana-dashboard.json");
    let text = std::fs::read_to_string(path).unwrap();
    let registry = dubbo_proxy::internals::Registry::new(1);
    registry.route("r");
    registry.cluster("c");
    registry.endpoint("c", "127.0.0.1:1");
    let exported = registry.render();
    let mut n = 0;
    for (i, _) in text.match_indices("dubbo_proxy_") {
        let name: String = text[i..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        assert!(exported.contains(&name), "{name} is not exported");
        n += 1;
    }
    assert!(n >= 6);
}
