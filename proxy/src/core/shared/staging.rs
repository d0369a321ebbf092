//! Reloads that add a discovered cluster: held back until it has its first provider list.
//!
//! At start the proxy serves nothing before its discovered clusters have their first lists
//! (see [`crate::discovery`]). A reload (SIGHUP) that adds such a cluster would otherwise
//! route calls to it at once, while it has no endpoints yet, and those calls would get
//! SERVICE_ERROR ("no provider") for as long as ZooKeeper takes to answer. So
//! [`Shared::stage`] keeps that configuration aside (the running one goes on serving every
//! cluster it has), the discovery starts watching the clusters it adds at once
//! ([`Shared::staged_config`]), and [`Shared::apply_staged`] puts it in force once they have
//! their lists or their `initial_fetch_timeout_ms` is over ([`crate::discovery::reload`]
//! waits for that). A later reload replaces one still waiting.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::Shared;
use crate::config::Config;

/// A reloaded configuration waiting for the discovered clusters it adds.
pub(super) struct Staged {
    /// Which reload this is ([`Shared::stage`] hands it out).
    ticket: u64,
    config: Config,
    /// The clusters it adds that have a `discovery`, with their `initial_fetch_timeout_ms`.
    adds: Vec<(String, Duration)>,
}

/// What [`Shared::stage`] did with a reloaded configuration.
#[derive(Debug, PartialEq, Eq)]
pub enum Reload {
    /// In force now; the warnings of [`Shared::reload`].
    Applied(Vec<String>),
    /// Waiting for the first provider lists of the discovered clusters it adds: ask
    /// [`Shared::staged_warming`] with this ticket, then [`Shared::apply_staged`].
    Staged(u64),
}

impl Shared {
    /// Puts a reloaded (validated) configuration in force at once when it adds no cluster
    /// with a `discovery` (nor gives one to a cluster that had none); else keeps it aside
    /// until those clusters have their first provider lists. Replaces a configuration still
    /// waiting.
    pub fn stage(&self, config: Config) -> Reload {
        let adds: Vec<(String, Duration)> = {
            let old = self.snapshot();
            config
                .clusters
                .iter()
                .filter_map(|(name, c)| {
                    let wait = c.discovery.as_ref()?.initial_fetch_timeout_ms;
                    let had = old
                        .config
                        .clusters
                        .get(name)
                        .is_some_and(|o| o.discovery.is_some());
                    (wait > 0 && !had && !self.has_list(name))
                        .then(|| (name.clone(), Duration::from_millis(wait)))
                })
                .collect()
        };
        let mut staged = self.staged.lock().unwrap_or_else(|e| e.into_inner());
        let ticket = self.staging.fetch_add(1, Ordering::AcqRel) + 1;
        if adds.is_empty() {
            *staged = None;
            return Reload::Applied(self.reload(config));
        }
        *staged = Some(Staged {
            ticket,
            config,
            adds,
        });
        Reload::Staged(ticket)
    }

    /// Counts the changes of the staged configuration (the discovery looks again when it
    /// moves).
    pub fn staging(&self) -> u64 {
        self.staging.load(Ordering::Acquire)
    }

    /// The configuration waiting for its discovered clusters, if any.
    pub fn staged_config(&self) -> Option<Config> {
        let staged = self.staged.lock().unwrap_or_else(|e| e.into_inner());
        staged.as_ref().map(|s| s.config.clone())
    }

    /// The clusters the reload `ticket` still waits for, with their
    /// `initial_fetch_timeout_ms`; `None` once it is no longer waiting (applied, or replaced
    /// by a later reload).
    pub fn staged_warming(&self, ticket: u64) -> Option<Vec<(String, Duration)>> {
        let staged = self.staged.lock().unwrap_or_else(|e| e.into_inner());
        let s = staged.as_ref().filter(|s| s.ticket == ticket)?;
        Some(
            s.adds
                .iter()
                .filter(|(name, _)| !self.has_list(name))
                .cloned()
                .collect(),
        )
    }

    /// Puts the reload `ticket` in force (whether its clusters have their lists or not);
    /// its warnings, or `None` when a later reload replaced it.
    pub fn apply_staged(&self, ticket: u64) -> Option<Vec<String>> {
        let mut staged = self.staged.lock().unwrap_or_else(|e| e.into_inner());
        if staged.as_ref()?.ticket != ticket {
            return None;
        }
        let config = staged.take()?.config;
        self.staging.fetch_add(1, Ordering::AcqRel);
        Some(self.reload(config))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Endpoint;

    const STATIC: &str = "[[listeners]]\naddress = \"127.0.0.1:0\"\n[[routes]]\ncluster = \"s\"\n\
                          [clusters.s]\nendpoints = [{ address = \"127.0.0.1:1\" }]\n";

    fn with_discovered(wait_ms: u64) -> Config {
        let text = format!(
            "{STATIC}[[routes]]\nmethod = \"m\"\ncluster = \"d\"\n[clusters.d.discovery]\n\
             zookeeper = \"127.0.0.1:2181\"\ninterface = \"a.B\"\ninitial_fetch_timeout_ms = {wait_ms}\n"
        );
        Config::from_toml(&text).unwrap()
    }

    fn list() -> Option<Vec<Endpoint>> {
        Some(vec![Endpoint {
            address: "127.0.0.1:2".into(),
            weight: 1,
        }])
    }

    #[test]
    fn a_reload_adding_a_discovered_cluster_waits_for_its_first_list() {
        let shared = Shared::new(Config::from_toml(STATIC).unwrap(), 1);
        let reloads = || shared.metrics.reloads.load(Ordering::Relaxed);
        let Reload::Staged(ticket) = shared.stage(with_discovered(5_000)) else {
            panic!("staged");
        };
        // The running configuration goes on; the discovery sees what to watch.
        assert!(!shared.snapshot().config.clusters.contains_key("d"));
        assert_eq!(reloads(), 0);
        assert!(shared.staged_config().unwrap().clusters.contains_key("d"));
        assert_eq!(
            shared.staged_warming(ticket).unwrap(),
            [("d".to_owned(), Duration::from_millis(5_000))]
        );
        // Its list comes (while the old configuration is in force): nothing left to wait for.
        shared.set_discovered("d", list());
        assert_eq!(shared.staged_warming(ticket).unwrap(), []);
        assert_eq!(shared.apply_staged(ticket), Some(Vec::new()));
        assert_eq!(reloads(), 1);
        assert_eq!(
            shared.snapshot().config.clusters["d"].endpoints,
            list().unwrap()
        );
        assert!(shared.staged_config().is_none());
        assert_eq!(shared.staged_warming(ticket), None);
        // The same configuration again adds nothing: in force at once.
        assert_eq!(
            shared.stage(with_discovered(5_000)),
            Reload::Applied(Vec::new())
        );
        assert_eq!(reloads(), 2);
    }

    #[test]
    fn a_later_reload_replaces_one_still_waiting() {
        let shared = Shared::new(Config::from_toml(STATIC).unwrap(), 1);
        let Reload::Staged(first) = shared.stage(with_discovered(5_000)) else {
            panic!("staged");
        };
        let staging = shared.staging();
        // A reload that adds nothing is in force at once and drops the waiting one.
        let mut other = Config::from_toml(STATIC).unwrap();
        other.clusters.get_mut("s").unwrap().endpoints[0].weight = 7;
        assert_eq!(shared.stage(other), Reload::Applied(Vec::new()));
        assert!(shared.staging() > staging);
        assert_eq!(shared.staged_warming(first), None);
        assert_eq!(shared.apply_staged(first), None);
        assert!(shared.staged_config().is_none());
        assert_eq!(
            shared.snapshot().config.clusters["s"].endpoints[0].weight,
            7
        );
        // A cluster whose wait is 0 is not waited for.
        assert_eq!(
            shared.stage(with_discovered(0)),
            Reload::Applied(Vec::new())
        );
        assert!(shared.snapshot().config.clusters.contains_key("d"));
    }
}
