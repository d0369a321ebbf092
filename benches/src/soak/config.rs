//! The proxy configuration the soak runs (and rewrites for its reloads).

use std::fmt::Write;
use std::time::Duration;

use super::caller::BRIDGE_ATTACHMENT;
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
/// the bound ones), and two routes with `route_timeout` to two round-robin clusters of the same
/// providers with outlier ejection, heartbeats and probes short enough to act within the
/// soak's faults: `echo`, whose calls go on in the protocol they came in, and `echo-tri`,
/// Triple-only (`protocol = "tri"`), where the Dubbo calls that carry the bridge attachment go
/// (the proxy makes them Triple calls; the providers serve both protocols on one port).
/// `tls_listener`: a second listener's table (see [`super::tls::Door::listener`]), or empty.
pub fn proxy_config(
    engine: &str,
    backends: Backends<'_>,
    route_timeout: Duration,
    tls_listener: &str,
) -> String {
    let timeout = route_timeout.as_millis();
    let (key, value) = BRIDGE_ATTACHMENT;
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
{tls_listener}
[[routes]]
name = "bridged"
interface = "{INTERFACE}"
attachments = {{ {key} = "{value}" }}
cluster = "echo-tri"
timeout_ms = {timeout}

[[routes]]
name = "echo"
interface = "{INTERFACE}"
cluster = "echo"
timeout_ms = {timeout}
{echo}{echo_tri}"#,
        echo = cluster("echo", "as_called", backends),
        echo_tri = cluster("echo-tri", "tri", backends),
    )
}

/// The `[clusters.NAME]` of the providers, speaking `protocol`.
fn cluster(name: &str, protocol: &str, backends: Backends<'_>) -> String {
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
                "\n[clusters.{name}.discovery]\nzookeeper = \"{zookeeper}\"\ninterface = \"{INTERFACE}\"\n\
                 warmup = false\nsession_timeout_ms = 4000\nidc_weights = {{ {weights} }}\n"
            )
        }
    };
    format!(
        r#"
[clusters.{name}]
protocol = "{protocol}"
lb = "round_robin"
connect_timeout_ms = 500
reconnect_base_ms = 50
reconnect_max_ms = 500
{source}
[clusters.{name}.outlier]
consecutive_failures = 3
base_ejection_ms = 1000

[clusters.{name}.health_check]
interval_ms = 300
timeout_ms = 500
probe_interval_ms = 200
healthy_threshold = 2
"#
    )
}
