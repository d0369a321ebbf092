//! The configuration file (TOML), its defaults, and its validation.
//!
//! Parsing is two steps: serde reads the TOML into the plain structs below (unknown keys are
//! refused, so a typo is an error and not a silently ignored setting), then
//! [`Config::validate`] checks what types cannot say (addresses parse, weights are positive,
//! routes name existing clusters...) and reports **every** problem with the key it is about,
//! in the form an operator can search the file for: `clusters.backend.endpoints[1].weight:
//! must be > 0`.
//!
//! The embedded default (`default.toml`) is what the binary runs with no arguments.
//!
//! One module per part, each with its types, defaults and checks: [`runtime`] (engine, admin,
//! log, shutdown), [`workers`], [`listeners`], [`routes`] (and the metadata cache entries),
//! [`access`] (a route's access rules and rate limit), [`clusters`] (endpoints, balancing,
//! health), [`tls`] (listeners' and clusters' TLS), [`discovery`], [`membership`] (the
//! `[registry]` table) and [`limits`].

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

pub mod access;
pub mod clusters;
pub mod discovery;
pub mod limits;
pub mod listeners;
pub mod membership;
pub mod routes;
pub mod runtime;
#[cfg(test)]
mod tests;
pub mod tls;
pub mod workers;

pub use access::{Access, Cidr, RateLimit};
pub use clusters::{Cluster, Endpoint, HealthCheck, LbPolicy, Outlier, ProviderProtocol};
pub use discovery::{parse_connect_string, Discovery};
pub use limits::Limits;
pub use listeners::Listener;
pub use membership::Membership;
pub use routes::{Metadata, Pattern, Route};
pub use runtime::{is_plain_log_filter, Admin, EngineKind, EpollOptions, Log, Shutdown};
pub use tls::{ClusterTls, ListenerTls};
pub use workers::Workers;

/// The configuration the binary runs with when given no `--config`.
pub const DEFAULT_TOML: &str = include_str!("../../default.toml");

/// Java's default payload limit (`Constants.DEFAULT_PAYLOAD`, 8 MiB).
pub const DEFAULT_MAX_PAYLOAD: u32 = dubbo_codec::DEFAULT_MAX_PAYLOAD;

/// The default of every `max_payload` (listeners' requests, clusters' responses).
fn default_max_payload() -> u32 {
    DEFAULT_MAX_PAYLOAD
}

/// The whole file.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// `engine`: which I/O engine runs the core.
    #[serde(default)]
    pub engine: EngineKind,
    /// `[epoll]`: the epoll engine's settings.
    #[serde(default)]
    pub epoll: EpollOptions,
    /// `workers`: worker threads; `0` (one per core, the default), `"auto"` (one per two
    /// cores) or a number.
    #[serde(default)]
    pub workers: Workers,
    /// `[admin]`
    #[serde(default)]
    pub admin: Admin,
    /// `[log]`
    #[serde(default)]
    pub log: Log,
    /// `[shutdown]`
    #[serde(default)]
    pub shutdown: Shutdown,
    /// `[limits]`: backpressure on every connection's outbox.
    #[serde(default)]
    pub limits: Limits,
    /// `[[listeners]]`
    #[serde(default)]
    pub listeners: Vec<Listener>,
    /// `[[routes]]`, tried in order; the first match wins.
    #[serde(default)]
    pub routes: Vec<Route>,
    /// `[clusters.NAME]`
    #[serde(default)]
    pub clusters: BTreeMap<String, Cluster>,
    /// `[[metadata]]`: (path, version) -> (interface, group) entries loaded at start.
    #[serde(default)]
    pub metadata: Vec<Metadata>,
    /// `[registry]`: the proxy registers its listeners as providers (none by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registry: Option<Membership>,
}

/// Everything wrong with a configuration, one `key: problem` per entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// `(key, problem)` pairs, in file order.
    pub problems: Vec<(String, String)>,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (key, problem)) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{key}: {problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

impl ConfigError {
    fn one(key: impl Into<String>, problem: impl Into<String>) -> Self {
        ConfigError {
            problems: vec![(key.into(), problem.into())],
        }
    }
}

/// What validation found: `(key, problem)` pairs, in file order.
#[derive(Debug, Default)]
struct Problems(Vec<(String, String)>);

impl Problems {
    fn bad(&mut self, key: impl Into<String>, problem: impl Into<String>) {
        self.0.push((key.into(), problem.into()));
    }
}

impl Config {
    /// The embedded default.
    pub fn default_config() -> Config {
        // The embedded file is tested; failing here is a build defect.
        Config::from_toml(DEFAULT_TOML).expect("embedded default.toml is valid")
    }

    /// Parses and validates TOML text.
    pub fn from_toml(text: &str) -> Result<Config, ConfigError> {
        let config: Config = toml::from_str(text).map_err(|e| {
            let key = e
                .span()
                .map(|s| format!("at byte {}", s.start))
                .unwrap_or_else(|| "file".into());
            // Some parse errors (a control character in a comment) have an empty message:
            // their `Display` still says what is wrong.
            let problem = match e.message().trim() {
                "" => e.to_string().trim().to_owned(),
                message => message.to_owned(),
            };
            ConfigError::one(key, problem)
        })?;
        config.validate()?;
        Ok(config)
    }

    /// Reads, parses and validates a file.
    pub fn from_file(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError::one(path.display().to_string(), e.to_string()))?;
        Config::from_toml(&text).map_err(|mut e| {
            for (key, _) in &mut e.problems {
                *key = format!("{}: {key}", path.display());
            }
            e
        })
    }

    /// The file as TOML (for `/config`).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_else(|e| format!("# cannot render: {e}\n"))
    }

    /// `--listen`: replaces the first listener's address (adding a listener if none).
    pub fn override_listen(&mut self, address: &str) {
        match self.listeners.first_mut() {
            Some(l) => l.address = address.to_owned(),
            None => self.listeners.push(Listener::new(address)),
        }
    }

    /// `--upstream`: replaces the endpoints of the only cluster.
    pub fn override_upstream(&mut self, addresses: &[String]) -> Result<(), ConfigError> {
        if self.clusters.len() != 1 {
            return Err(ConfigError::one(
                "--upstream",
                format!(
                    "needs a configuration with exactly one cluster, this one has {}",
                    self.clusters.len()
                ),
            ));
        }
        let cluster = self.clusters.values_mut().next().expect("one cluster");
        cluster.endpoints = addresses.iter().map(|a| Endpoint::new(a.clone())).collect();
        Ok(())
    }

    /// The number of worker threads to run.
    pub fn worker_count(&self) -> usize {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.workers.count(cores)
    }

    /// The route's name: its `name`, else `routes[i]`.
    pub fn route_name(&self, i: usize) -> String {
        self.routes[i]
            .name
            .clone()
            .unwrap_or_else(|| format!("routes[{i}]"))
    }

    /// Checks everything types cannot; see the module documentation. Each part checks itself
    /// (in its own module); the problems come in file order.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let mut p = Problems::default();
        if let Workers::Fixed(n) = self.workers {
            if n.get() > workers::MAX_WORKERS {
                p.bad(
                    "workers",
                    format!("must be at most {}", workers::MAX_WORKERS),
                );
            }
        }
        self.epoll.validate(&mut p);
        self.admin.validate(&mut p);
        self.log.validate(&mut p);
        self.shutdown.validate(&mut p);
        let listener_names = listeners::validate(&self.listeners, &mut p);
        routes::validate(&self.routes, &self.clusters, &listener_names, &mut p);
        for (name, cluster) in &self.clusters {
            cluster.validate(name, &mut p);
        }
        let largest_payload = self
            .clusters
            .values()
            .map(|c| c.max_payload as usize)
            .max()
            .unwrap_or(0);
        self.limits.validate(largest_payload, &mut p);
        routes::validate_metadata(&self.metadata, &mut p);
        if let Some(m) = &self.registry {
            m.validate(&self.listeners, &mut p);
        }
        if p.0.is_empty() {
            Ok(())
        } else {
            Err(ConfigError { problems: p.0 })
        }
    }
}
