//! The proxy configuration the soak runs (and rewrites for its reloads).

use std::fmt::Write;
use std::time::Duration;

use super::provider::{Registered, INTERFACE};

/// Proxy worker threads: callers and provider connections spread over both.
pub const WORKERS: usize = 2;

/// Where the proxy's cluster finds the providers.
#[derive(Debug, Clone, Copy)]
pub struct Backends<'a> {
    /// The providers' ports on 127.0.0.1, provider `i` at `ports[i]`.
    pub ports: &'a [u16],
    /// `Some("127.0.0.1:PORT")`: from ZooKeeper (`[clusters.echo.discovery]`), where provider
    /// `i` registers with `idc=p<i>`; else the static endpoint list.
    pub zookeeper: Option<&'a str>,
    /// This provider is taken out: left off the endpoint list, or its data centre weighted 0.
    pub without: Option<usize>,
}

/// The provider's `idc` URL parameter in discovery mode.
fn idc(provider: usize) -> String {
    format!("p{provider}")
}

/// How provider `i` registers when the cluster comes from ZooKeeper at `zookeeper`: with a
/// 4 s session, so that a killed provider's node goes away within the soak.
pub fn registered(zookeeper: Option<&str>, provider: usize) -> Option<Registered> {
    zookeeper.map(|zk| Registered {
        registry: format!("zookeeper://{zk}?session=4000"),
        idc: idc(provider),
    })
}

/// The `engine`, one listener and one admin endpoint on ports the kernel picks (a reload keeps
/// the bound ones), one route with `route_timeout` to a round-robin cluster of the providers
/// with outlier ejection, heartbeats and probes short enough to act within the soak's faults.
pub fn proxy_config(engine: &str, backends: Backends<'_>, route_timeout: Duration) -> String {
    let taken_out = |i: usize| backends.without == Some(i);
    let source = match backends.zookeeper {
        None => {
            let endpoints: Vec<String> = (0..backends.ports.len())
                .filter(|&i| !taken_out(i))
                .map(|i| format!("{{ address = \"127.0.0.1:{}\" }}", backends.ports[i]))
                .collect();
            format!("endpoints = [{}]\n", endpoints.join(", "))
        }
        Some(zookeeper) => {
            let mut weights = String::new();
            if let Some(i) = backends.without {
                let _ = write!(weights, "{} = 0", idc(i));
            }
            format!(
                "\n[clusters.echo.discovery]\nzookeeper = \"{zookeeper}\"\ninterface = \"{INTERFACE}\"\n\
                 warmup = false\nsession_timeout_ms = 4000\nidc_weights = {{ {weights} }}\n"
            )
        }
    };
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
{source}
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
