//! The proxy configuration the soak runs (and rewrites for its reloads).

use std::fmt::Write;
use std::time::Duration;

use super::provider::INTERFACE;

/// Proxy worker threads: callers and provider connections spread over both.
pub const WORKERS: usize = 2;

/// The `engine`, one listener and one admin endpoint on ports the kernel picks (a reload keeps the bound
/// ones), one route with `route_timeout` to a round-robin cluster of these providers with
/// outlier ejection, heartbeats and probes short enough to act within the soak's faults.
pub fn proxy_config(engine: &str, ports: &[u16], route_timeout: Duration) -> String {
    let mut endpoints = String::new();
    for (i, port) in ports.iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        let _ = write!(endpoints, "{sep}{{ address = \"127.0.0.1:{port}\" }}");
    }
    format!(
        r#"engine = "{engine}"
workers = {WORKERS}

[admin]
address = "127.0.0.1:0"

[log]
level = "warn"

[[listeners]]
name = "main"
address = "127.0.0.1:0"

[[routes]]
name = "echo"
interface = "{INTERFACE}"
cluster = "echo"
timeout_ms = {timeout}

[clusters.echo]
lb = "round_robin"
connect_timeout_ms = 500
reconnect_base_ms = 50
reconnect_max_ms = 500
endpoints = [{endpoints}]

[clusters.echo.outlier]
consecutive_failures = 3
base_ejection_ms = 1000

[clusters.echo.health_check]
interval_ms = 300
timeout_ms = 500
probe_interval_ms = 200
healthy_threshold = 2
"#,
        timeout = route_timeout.as_millis()
    )
}
