//! Application-level discovery in ZooKeeper, as a Dubbo 3 consumer with `register-mode=all`
//! finds providers.
//!
//! ```text
//! /<root>/mapping/<interface>              "app1,app2": the applications serving it
//! /services/<app>/<ip:port>                ephemeral, Curator x-discovery JSON of an instance
//! /<root>/metadata/<app>/<revision>        MetadataInfo JSON (metadata-type=remote only)
//! ```
//!
//! One task per subscription, in every session: it watches the mapping, each application's
//! instances and each instance's data, turns every instance into provider URLs with the
//! metadata of its revision (cached by application and revision: fetched once, from the report
//! or through the [`MetadataSource`]), and hands out the merged list: the instances' URLs when
//! there are any, else the interface-level ones (Dubbo's default `APPLICATION_FIRST`
//! migration). A metadata fetch that fails is tried again a second later, then less and less
//! often (up to every 30 s) while it keeps failing.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinSet;
use zookeeper_client as zk;

use super::session::{is_fatal, offer, SessionCell};
use crate::instance::{provider_urls, MetadataInfo, MetadataSource, ServiceInstance};
use crate::registry::{Providers, Subscription};
use crate::url::ServiceUrl;

/// Where Dubbo's `ZookeeperServiceDiscovery` keeps instances (its `rootPath` default).
pub const SERVICES_ROOT: &str = "/services";

/// How long one metadata fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);
/// How soon a failed fetch or read is tried again: after 1 s, then twice as long each time
/// it fails again, up to 30 s.
const RETRY_MIN: Duration = Duration::from_secs(1);
const RETRY_MAX: Duration = Duration::from_secs(30);

/// What one instance-level subscription follows.
pub(super) struct InstanceFollower {
    root: String,
    interface: String,
    source: Arc<dyn MetadataSource>,
    empty_protection: bool,
    /// The interface-level providers, merged in.
    interface_level: Subscription,
    tx: watch::Sender<Option<Providers>>,
    /// Metadata by (application, revision).
    cache: HashMap<(String, String), Arc<MetadataInfo>>,
    /// The instances' URLs of the last read that reached every node.
    instance_urls: Vec<ServiceUrl>,
}

/// What one read of the instances found.
struct Round {
    urls: Vec<ServiceUrl>,
    /// Watches armed by the read: any firing means something changed.
    watches: JoinSet<zk::WatchedEvent>,
    /// Something could not be read or fetched: read again after a delay.
    incomplete: bool,
    /// A node could not be read (a lost connection): what the round found is not the whole
    /// picture, so the last list stays.
    stale: bool,
}

impl InstanceFollower {
    pub(super) fn new(
        root: &str,
        interface: &str,
        source: Arc<dyn MetadataSource>,
        empty_protection: bool,
        interface_level: Subscription,
        tx: watch::Sender<Option<Providers>>,
    ) -> Self {
        InstanceFollower {
            root: format!("/{}", root.trim_matches('/')),
            interface: interface.to_owned(),
            source,
            empty_protection,
            interface_level,
            tx,
            cache: HashMap::new(),
            instance_urls: Vec::new(),
        }
    }

    /// Follows in every session until the registry is gone (or the task is aborted).
    pub(super) async fn run(mut self, mut session: SessionCell) {
        // The interface-level list first, so that the first list handed out has both.
        let Ok(mut interface_urls) = self.interface_level.next().await else {
            return;
        };
        let mut last = None;
        while let Some(client) = session.next_session(last).await {
            last = Some(client.session_id());
            let mut retry = RETRY_MIN;
            'session: loop {
                let mut round = self.read(&client).await;
                // Something unreadable: read again after a delay that doubles while it stays so.
                let again = round.incomplete.then(|| {
                    let at = tokio::time::Instant::now() + retry;
                    retry = (retry * 2).min(RETRY_MAX);
                    at
                });
                if !round.incomplete {
                    retry = RETRY_MIN;
                }
                if !round.stale {
                    self.instance_urls = std::mem::take(&mut round.urls);
                }
                loop {
                    self.publish(&interface_urls);
                    let retry_due = async {
                        match again {
                            Some(at) => tokio::time::sleep_until(at).await,
                            None => std::future::pending().await,
                        }
                    };
                    tokio::select! {
                        Some(Ok(ev)) = round.watches.join_next() => {
                            if ev.event_type == zk::EventType::Session && is_over(&client) {
                                break 'session;
                            }
                            break;
                        }
                        list = self.interface_level.next() => match list {
                            // Only the merge changes: no need to read the instances again.
                            Ok(l) => interface_urls = l,
                            Err(_) => return,
                        },
                        () = retry_due => break,
                        () = session.replaced(&client) => break 'session,
                    }
                }
            }
            tracing::debug!(interface = %self.interface, "instance watch ended: waiting for the next session");
        }
    }

    fn publish(&self, interface_urls: &Providers) {
        let list: Providers = if self.instance_urls.is_empty() {
            interface_urls.clone()
        } else {
            self.instance_urls.as_slice().into()
        };
        offer(&self.tx, &self.interface, list, self.empty_protection);
    }

    /// Reads the mapping, the instances and their metadata, arming a watch on each node read.
    async fn read(&mut self, client: &zk::Client) -> Round {
        let mut round = Round {
            urls: Vec::new(),
            watches: JoinSet::new(),
            incomplete: false,
            stale: false,
        };
        let mapping = format!("{}/mapping/{}", self.root, self.interface);
        let apps = match watch_data(client, &mapping, &mut round).await {
            Some(data) => String::from_utf8_lossy(&data).into_owned(),
            None => String::new(),
        };
        let mut seen = HashSet::new();
        for app in apps.split(',').map(str::trim).filter(|a| !a.is_empty()) {
            let dir = format!("{SERVICES_ROOT}/{app}");
            for node in watch_children(client, &dir, &mut round).await {
                let path = format!("{dir}/{node}");
                let Some(data) = watch_data(client, &path, &mut round).await else {
                    continue;
                };
                let instance = match ServiceInstance::from_curator_json(&data) {
                    Ok(i) => i,
                    Err(e) => {
                        tracing::warn!(%path, error = %e, "instance node unreadable: left out");
                        continue;
                    }
                };
                let Some(revision) = instance.revision().map(str::to_owned) else {
                    tracing::warn!(%path, "instance without a metadata revision: left out");
                    continue;
                };
                let key = (instance.app.clone(), revision);
                let metadata = match self.cache.get(&key) {
                    Some(m) => m.clone(),
                    None => match self.fetch(client, &instance, &key.1).await {
                        Some(m) => {
                            let m = Arc::new(m);
                            self.cache.insert(key.clone(), m.clone());
                            m
                        }
                        None => {
                            round.incomplete = true;
                            continue;
                        }
                    },
                };
                seen.insert(key);
                round
                    .urls
                    .extend(provider_urls(&instance, &metadata, &self.interface));
            }
        }
        if !round.stale {
            self.cache.retain(|k, _| seen.contains(k));
        }
        round
    }

    /// The metadata of `instance` at `revision`: from the report when the instance keeps it
    /// there, else through the [`MetadataSource`].
    async fn fetch(
        &self,
        client: &zk::Client,
        instance: &ServiceInstance,
        revision: &str,
    ) -> Option<MetadataInfo> {
        let got = if instance.metadata_is_remote() {
            let path = format!("{}/metadata/{}/{revision}", self.root, instance.app);
            match client.get_data(&path).await {
                Ok((data, _)) => MetadataInfo::from_json(&data),
                Err(e) => {
                    tracing::warn!(%path, error = %e, "metadata report unreadable");
                    return None;
                }
            }
        } else {
            match tokio::time::timeout(FETCH_TIMEOUT, self.source.metadata(instance, revision))
                .await
            {
                Ok(r) => r,
                Err(_) => {
                    tracing::warn!(%instance, "metadata fetch timed out");
                    return None;
                }
            }
        };
        got.map_err(|e| tracing::warn!(%instance, %revision, error = %e, "no metadata"))
            .ok()
    }
}

/// Whether the session of `client` is over (expired or closed), not merely disconnected.
fn is_over(client: &zk::Client) -> bool {
    matches!(
        client.state(),
        zk::SessionState::Expired | zk::SessionState::Closed | zk::SessionState::AuthFailed
    )
}

/// The data of `path`, watched (its creation too when it is absent). `None` when absent or
/// unreadable (then the round is incomplete).
async fn watch_data(client: &zk::Client, path: &str, round: &mut Round) -> Option<Vec<u8>> {
    match client.get_and_watch_data(path).await {
        Ok((data, _, w)) => {
            round.watches.spawn(w.changed());
            Some(data)
        }
        Err(zk::Error::NoNode) => {
            match client.check_and_watch_stat(path).await {
                Ok((stat, w)) => {
                    round.watches.spawn(w.changed());
                    // Created in between: read again soon.
                    round.incomplete |= stat.is_some();
                    round.stale |= stat.is_some();
                }
                Err(e) => failed(path, &e, round),
            }
            None
        }
        Err(e) => {
            failed(path, &e, round);
            None
        }
    }
}

/// The children of `dir`, watched (its creation too when it is absent).
async fn watch_children(client: &zk::Client, dir: &str, round: &mut Round) -> Vec<String> {
    match client.list_and_watch_children(dir).await {
        Ok((nodes, w)) => {
            round.watches.spawn(w.changed());
            nodes
        }
        Err(zk::Error::NoNode) => {
            match client.check_and_watch_stat(dir).await {
                Ok((stat, w)) => {
                    round.watches.spawn(w.changed());
                    round.incomplete |= stat.is_some();
                    round.stale |= stat.is_some();
                }
                Err(e) => failed(dir, &e, round),
            }
            Vec::new()
        }
        Err(e) => {
            failed(dir, &e, round);
            Vec::new()
        }
    }
}

fn failed(path: &str, e: &zk::Error, round: &mut Round) {
    if !is_fatal(e) {
        tracing::debug!(%path, error = %e, "read failed, trying again");
    }
    round.incomplete = true;
    round.stale = true;
}
