//! The configuration as a whole: the embedded default, errors naming keys, overrides.

use super::*;

#[test]
fn embedded_default_is_the_documented_shape() {
    let c = Config::default_config();
    assert_eq!(c.listeners[0].address, "127.0.0.1:20881");
    assert_eq!(c.admin.address, "127.0.0.1:20882");
    assert_eq!(
        c.clusters["default"].endpoints[0].address,
        "127.0.0.1:20880"
    );
    assert_eq!(c.clusters["default"].endpoints[0].weight, 100);
    assert_eq!(c.engine, EngineKind::Tokio);
    assert_eq!(c.workers, Workers::PerCore);
    assert_eq!(c.routes[0].timeout_ms, 5_000);
}

#[test]
fn workers_are_auto_zero_or_a_number() {
    let base = "[[listeners]]\naddress = \"127.0.0.1:0\"\n[[routes]]\ncluster = \"d\"\n\
                [clusters.d]\nendpoints = [{ address = \"127.0.0.1:1\" }]\n";
    for (line, workers) in [
        ("", Workers::PerCore),
        ("workers = \"auto\"\n", Workers::Auto),
        ("workers = 0\n", Workers::PerCore),
        ("workers = 3\n", Workers::from_count(3)),
    ] {
        let c = Config::from_toml(&format!("{line}{base}")).unwrap();
        assert_eq!(c.workers, workers, "{line}");
        assert_eq!(Config::from_toml(&c.to_toml()).unwrap(), c);
    }
    let e = Config::from_toml(&format!("workers = 2000\n{base}")).unwrap_err();
    assert_eq!(
        e.problems,
        [("workers".into(), "must be at most 1024".into())]
    );
    let e = Config::from_toml(&format!("workers = \"many\"\n{base}")).unwrap_err();
    assert!(e.to_string().contains("\"auto\" or a number"), "{e}");
}

#[test]
fn errors_name_the_bad_key() {
    let text = r#"
        [[listeners]]
        address = "nope"
        [[routes]]
        interface = "com.*.Foo"
        cluster = "missing"
        [clusters.backend]
        endpoints = [{ address = "127.0.0.1:1" }, { address = "127.0.0.1:2", weight = 0 }]
    "#;
    let e = Config::from_toml(text).unwrap_err();
    let s = e.to_string();
    assert!(
        s.contains("clusters.backend.endpoints[1].weight: must be > 0"),
        "{s}"
    );
    assert!(s.contains("listeners[0].address: must be IP:PORT"), "{s}");
    assert!(s.contains("routes[0].interface:"), "{s}");
    assert!(
        s.contains("routes[0].cluster: no cluster named \"missing\""),
        "{s}"
    );
}

#[test]
fn every_parse_error_says_what_is_wrong() {
    // Found by the config_load fuzz target: toml's message for a control character in a
    // comment is empty.
    for text in ["#\u{0}", "a = \"\u{1}\"", "[x", "a = 1\na = 2"] {
        let e = Config::from_toml(text).unwrap_err();
        for (key, problem) in &e.problems {
            assert!(!key.is_empty() && !problem.is_empty(), "{text:?}: {e}");
        }
    }
}

#[test]
fn a_non_ascii_log_level_is_an_error_not_a_panic() {
    // Found by the config_load fuzz target (30-minute run, 2026-11-26): tracing-subscriber
    // 0.3.23 slices this directive inside the two-byte character and panics.
    let level = "Sie#T&~ ?witj\u{656}sn\u{791}o 20880, admi~ with\u{656}sd[i$ct&yxz{z=mzzz0zzzax_ erloadzzzzzz5zzzz'zzn\u{791}}ze[DS.";
    let text = format!("[log]\nlevel = \"{level}\"\n");
    let e = Config::from_toml(&text).unwrap_err();
    assert!(
        e.problems
            .iter()
            .any(|(key, problem)| key == "log.level" && problem.contains("ASCII")),
        "{e}"
    );
}

#[test]
fn a_log_level_with_a_field_filter_is_refused_at_once() {
    // Found by the config_load fuzz target (timeout): a field filter's value is a regex, and
    // tracing-subscriber built the DFA of this one for over 20 s.
    let level = format!(
        "Siedversion[ict&yzz{{z=zz1zzlo{}*.&{}adz{}~{}zzzzz1zzzzz{}z1zzzzz{}z}}ze[DS.",
        ".".repeat(25),
        ".".repeat(14),
        "|".repeat(34),
        "|".repeat(31),
        "u".repeat(17),
        "u".repeat(61)
    );
    let text = format!("[log]\nlevel = \"{level}\"\n");
    let t = std::time::Instant::now();
    let e = Config::from_toml(&text).unwrap_err();
    assert!(
        t.elapsed() < std::time::Duration::from_secs(1),
        "{:?}",
        t.elapsed()
    );
    assert!(
        e.problems
            .iter()
            .any(|(key, problem)| key == "log.level" && problem.contains("span")),
        "{e}"
    );
    // Plain directives are still taken (this text lacks only listeners and routes).
    let e = Config::from_toml("[log]\nlevel = \"warn,dubbo_proxy=debug\"\n").unwrap_err();
    assert!(e.problems.iter().all(|(key, _)| key != "log.level"), "{e}");
}

#[test]
fn unknown_keys_are_refused() {
    let text = format!("{DEFAULT_TOML}\n[clusters.default.outlier]\nconsecutive_fails = 3\n");
    let e = Config::from_toml(&text).unwrap_err().to_string();
    assert!(e.contains("consecutive_fails"), "{e}");
}

#[test]
fn patterns() {
    assert!(Pattern::parse("*").unwrap().matches("x"));
    let p = Pattern::parse("com.example.*").unwrap();
    assert!(p.matches("com.example.Foo") && !p.matches("org.Foo"));
    let s = Pattern::parse("*.DemoService").unwrap();
    assert!(s.matches("a.b.DemoService") && !s.matches("a.b.Demo"));
    assert_eq!(Pattern::parse("a.b").unwrap(), Pattern::Exact("a.b".into()));
    assert!(Pattern::parse("a*b").is_err());
    assert!(Pattern::parse("*a*").is_err());
    assert!(Pattern::parse("").is_err());
}

#[test]
fn overrides() {
    let mut c = Config::default_config();
    c.override_listen("127.0.0.1:1");
    c.override_upstream(&["127.0.0.1:2".into(), "127.0.0.1:3".into()])
        .unwrap();
    assert_eq!(c.listeners[0].address, "127.0.0.1:1");
    assert_eq!(c.clusters["default"].endpoints.len(), 2);
    c.validate().unwrap();
    let round = Config::from_toml(&c.to_toml()).unwrap();
    assert_eq!(round, c);
}

#[test]
fn discovery_replaces_endpoints() {
    let base = "[[listeners]]\naddress = \"127.0.0.1:0\"\n[[routes]]\ncluster = \"d\"\n";
    let ok = format!(
        "{base}[clusters.d.discovery]\nzookeeper = \"127.0.0.1:2181,[::1]:2182/reg\"\ninterface = \"a.B\"\nidc_weights = {{ hz = 3 }}\n"
    );
    let c = Config::from_toml(&ok).unwrap();
    let d = c.clusters["d"].discovery.as_ref().unwrap();
    assert_eq!((d.root.as_str(), d.idc_key.as_str()), ("dubbo", "idc"));
    assert!(d.warmup && d.empty_protection && d.idc_weights["hz"] == 3);
    assert_eq!(Config::from_toml(&c.to_toml()).unwrap(), c);
    assert_eq!(
        parse_connect_string("127.0.0.1:2181,[::1]:2182/reg").unwrap(),
        [("127.0.0.1".to_owned(), 2181), ("::1".to_owned(), 2182)]
    );

    let both = ok.replace(
        "[clusters.d.discovery]",
        "[clusters.d]\nendpoints = [{ address = \"127.0.0.1:1\" }]\n[clusters.d.discovery]",
    );
    let e = Config::from_toml(&both).unwrap_err().to_string();
    assert!(e.contains("clusters.d.endpoints: must be left out"), "{e}");

    let bad = format!(
        "{base}[clusters.d.discovery]\nzookeeper = \"zk\"\ninterface = \"\"\nsession_timeout_ms = 5\n\
         initial_fetch_timeout_ms = 300001\n"
    );
    let e = Config::from_toml(&bad).unwrap_err().to_string();
    for k in [
        "discovery.zookeeper",
        "discovery.interface",
        "discovery.session_timeout_ms",
        "discovery.initial_fetch_timeout_ms",
    ] {
        assert!(e.contains(&format!("clusters.d.{k}:")), "{k}: {e}");
    }
}

#[test]
fn limits_are_checked() {
    let c = Config::default_config();
    assert_eq!(c.listeners[0].max_connections, 10_000);
    assert_eq!(c.listeners[0].max_inflight, 4_096);
    assert_eq!(c.limits, Limits::default());
    assert_eq!(c.clusters["default"].health_check.probe_interval_ms, 1_000);
    let text = format!(
        "{DEFAULT_TOML}\n[limits]\noutbox_high_watermark = 1000\noutbox_low_watermark = 1000\noutbox_hard_cap = 2000\n"
    )
    .replace("name = \"main\"", "name = \"main\"\nmax_connections = 0\nmax_inflight = 0");
    let e = Config::from_toml(&text).unwrap_err().to_string();
    for k in [
        "limits.outbox_low_watermark: must be below",
        "limits.outbox_hard_cap: must be at least",
        "listeners[0].max_connections: must be > 0",
        "listeners[0].max_inflight: must be > 0",
    ] {
        assert!(e.contains(k), "{k}: {e}");
    }
    let text = format!(
        "{DEFAULT_TOML}\n[clusters.default.health_check]\nprobe_interval_ms = 100\nhealthy_threshold = 0\n"
    );
    let e = Config::from_toml(&text).unwrap_err().to_string();
    assert!(
        e.contains("health_check.healthy_threshold: must be > 0"),
        "{e}"
    );
}

#[test]
fn admin_must_be_loopback() {
    let text = DEFAULT_TOML.replace("127.0.0.1:20882", "0.0.0.0:20882");
    let e = Config::from_toml(&text).unwrap_err().to_string();
    assert!(e.contains("admin.address: must be a loopback"), "{e}");
}

#[test]
fn listener_tls_needs_readable_files_on_either_engine() {
    let base =
        "[[routes]]\ncluster = \"d\"\n[clusters.d]\nendpoints = [{ address = \"127.0.0.1:1\" }]\n";
    let listener = "[[listeners]]\naddress = \"127.0.0.1:0\"\n[listeners.tls]\n\
                    cert = \"/nonexistent/server.pem\"\nkey = \"/nonexistent/server.key\"\n";
    let e = Config::from_toml(&format!("{listener}{base}")).unwrap_err();
    assert_eq!(e.problems.len(), 1, "{e}");
    assert_eq!(e.problems[0].0, "listeners[0].tls");
    assert!(e.problems[0].1.contains("/nonexistent/server.pem"), "{e}");
    // The epoll engine serves TLS too: the same one problem, the files.
    let epoll = Config::from_toml(&format!("engine = \"epoll\"\n{listener}{base}")).unwrap_err();
    assert_eq!(epoll.problems, e.problems, "{epoll}");
    let e = Config::from_toml(&format!("{listener}handshake_timeout_ms = 0\n{base}")).unwrap_err();
    assert!(
        e.problems
            .iter()
            .any(|(k, _)| k == "listeners[0].tls.handshake_timeout_ms"),
        "{e}"
    );
    let e = Config::from_toml(&format!(
        "{listener}identity_attachment = \"not a name\"\n{base}"
    ))
    .unwrap_err();
    assert!(
        e.problems
            .iter()
            .any(|(k, _)| k == "listeners[0].tls.identity_attachment"),
        "{e}"
    );
}

#[test]
fn cluster_tls_needs_readable_files_and_a_key_with_its_cert_on_either_engine() {
    let base = "[[listeners]]\naddress = \"127.0.0.1:0\"\n[[routes]]\ncluster = \"d\"\n\
                [clusters.d]\nendpoints = [{ address = \"127.0.0.1:1\" }]\n[clusters.d.tls]\n\
                ca = \"/nonexistent/ca.pem\"\n";
    let e = Config::from_toml(base).unwrap_err();
    assert_eq!(e.problems.len(), 1, "{e}");
    assert_eq!(e.problems[0].0, "clusters.d.tls");
    assert!(e.problems[0].1.contains("/nonexistent/ca.pem"), "{e}");
    let e = Config::from_toml(&format!("{base}cert = \"/nonexistent/c.pem\"\n")).unwrap_err();
    assert!(
        e.problems
            .iter()
            .any(|(_, p)| p == "cert and key go together"),
        "{e}"
    );
    let e = Config::from_toml(base).unwrap_err();
    let epoll = Config::from_toml(&format!("engine = \"epoll\"\n{base}")).unwrap_err();
    assert_eq!(epoll.problems, e.problems, "{epoll}");
}
