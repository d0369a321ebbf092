//! Command-line arguments.

use std::path::PathBuf;

use clap::Parser;

use crate::config::{Config, ConfigError, EngineKind, Workers};

/// A Dubbo proxy that routes calls without decoding their arguments.
///
/// With no arguments it listens on 127.0.0.1:20881, forwards every call to 127.0.0.1:20880
/// and serves its admin endpoint on 127.0.0.1:20882.
#[derive(Debug, Clone, Parser)]
#[command(name = "dubbo-proxy", version)]
pub struct Args {
    /// A configuration file (TOML); without it the embedded default is used.
    #[arg(long, short = 'c', value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Listen on this address instead of the first listener's.
    #[arg(long, value_name = "IP:PORT")]
    pub listen: Option<String>,
    /// Forward to these providers instead of the only cluster's endpoints (repeatable).
    #[arg(long, value_name = "IP:PORT")]
    pub upstream: Vec<String>,
    /// Serve the admin endpoint here ("" to turn it off).
    #[arg(long, value_name = "IP:PORT")]
    pub admin: Option<String>,
    /// The I/O engine.
    #[arg(long, value_enum)]
    pub engine: Option<EngineArg>,
    /// Worker threads: 0 (one per core, the default), "auto" (one per two cores) or a number.
    #[arg(long)]
    pub workers: Option<Workers>,
    /// Check the configuration, print it, and exit.
    #[arg(long)]
    pub check: bool,
}

/// `--engine`
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineArg {
    /// tokio
    Tokio,
    /// mio, edge-triggered epoll
    Epoll,
}

impl Args {
    /// The configuration these arguments describe: the file or the default, with the
    /// overrides applied, validated.
    pub fn load(&self) -> Result<Config, ConfigError> {
        let mut c = match &self.config {
            Some(p) => Config::from_file(p)?,
            None => Config::default_config(),
        };
        if let Some(l) = &self.listen {
            c.override_listen(l);
        }
        if !self.upstream.is_empty() {
            c.override_upstream(&self.upstream)?;
        }
        if let Some(a) = &self.admin {
            c.admin.address = a.clone();
        }
        if let Some(e) = self.engine {
            c.engine = match e {
                EngineArg::Tokio => EngineKind::Tokio,
                EngineArg::Epoll => EngineKind::Epoll,
            };
        }
        if let Some(w) = self.workers {
            c.workers = w;
        }
        c.validate()?;
        Ok(c)
    }
}
