//! One cluster's watch of `/<root>/<interface>/providers` in ZooKeeper.
//!
//! ```text
//!  connect (backoff 200 ms .. 5 s) ─▶ list + watch children ─▶ select ─▶ publish if changed
//!        ▲                                  ▲          │
//!        │ session expired / closed         └──────────┤ children changed, node created/deleted
//!        └─────────────────────────────────────────────┘ (and every second while warming up)
//! ```
//!
//! Within a session the client reconnects by itself and re-arms the watch (the server then
//! reports what changed meanwhile), so a short loss of the connection changes nothing. A
//! session that expires (ZooKeeper gone longer than the session timeout) ends the inner loop;
//! a new session lists the providers afresh. Until then the last published endpoints stay.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use registry_urlweight::encode_component;
use registry_urlweight::zk::PROVIDERS;
use zookeeper_client as zk;

use super::providers::Selector;
use crate::config::Endpoint;
use crate::core::Shared;

const BACKOFF_MIN: Duration = Duration::from_millis(200);
const BACKOFF_MAX: Duration = Duration::from_secs(5);
/// While a provider warms up, its weight is recomputed this often.
const WARMUP_TICK: Duration = Duration::from_secs(1);

/// `/<root>/<interface>/providers`, the interface URL-encoded as Dubbo writes it.
pub fn providers_dir(root: &str, interface: &str) -> String {
    let root = root.trim_matches('/');
    let iface = encode_component(interface);
    if root.is_empty() {
        format!("/{iface}/{PROVIDERS}")
    } else {
        format!("/{root}/{iface}/{PROVIDERS}")
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// What one cluster's watch knows.
struct State {
    cluster: String,
    selector: Selector,
    shared: Arc<Shared>,
    /// The provider node names last listed.
    nodes: Vec<String>,
    /// What was handed to [`Shared::set_discovered`] last.
    published: Option<Vec<Endpoint>>,
    /// A provider is warming up.
    warming: bool,
}

impl State {
    /// Selects the endpoints of the nodes listed last and publishes them if they changed.
    fn update(&mut self) {
        let sel = self.selector.select(&self.nodes, now_ms());
        self.warming = sel.warming;
        let endpoints = sel.endpoints;
        if self.published.as_ref() == Some(&endpoints) {
            return;
        }
        for (url, why) in &sel.skipped {
            tracing::debug!(cluster = %self.cluster, url = %url, reason = why.as_str(), "provider left out");
        }
        if endpoints.is_empty() && self.selector.discovery.empty_protection {
            if let Some(last) = self.published.as_ref().filter(|l| !l.is_empty()) {
                tracing::warn!(
                    cluster = %self.cluster,
                    kept = last.len(),
                    skipped = sel.skipped.len(),
                    "ZooKeeper lists no usable provider: keeping the last known ones (empty_protection)"
                );
                return;
            }
        }
        let list: Vec<String> = endpoints
            .iter()
            .map(|e| format!("{} (weight {})", e.address, e.weight))
            .collect();
        tracing::info!(
            cluster = %self.cluster,
            providers = %list.join(", "),
            skipped = sel.skipped.len(),
            "providers from ZooKeeper"
        );
        self.shared
            .set_discovered(&self.cluster, Some(endpoints.clone()));
        self.published = Some(endpoints);
    }
}

/// Follows the providers of one cluster until aborted.
pub async fn watch(cluster: String, selector: Selector, shared: Arc<Shared>) {
    let d = selector.discovery.clone();
    let dir = providers_dir(&d.root, &d.interface);
    let session_timeout = Duration::from_millis(d.session_timeout_ms);
    let mut st = State {
        cluster,
        selector,
        shared,
        nodes: Vec::new(),
        published: None,
        warming: false,
    };
    let mut backoff = BACKOFF_MIN;
    let mut failures = 0u32;
    loop {
        let connect = zk::Client::connector()
            .with_session_timeout(session_timeout)
            .with_fail_eagerly()
            .connect(&d.zookeeper);
        let client = match tokio::time::timeout(session_timeout, connect).await {
            Ok(Ok(c)) => c,
            other => {
                let why = match other {
                    Ok(Err(e)) => e.to_string(),
                    _ => "timed out".to_owned(),
                };
                failures += 1;
                // Every attempt at debug; the first and then every 10th at warn.
                if failures % 10 == 1 {
                    tracing::warn!(
                        cluster = %st.cluster,
                        zookeeper = %d.zookeeper,
                        attempts = failures,
                        error = %why,
                        keeping = st.published.as_ref().map_or(0, Vec::len),
                        "cannot reach ZooKeeper: keeping the last known providers, retrying"
                    );
                } else {
                    tracing::debug!(cluster = %st.cluster, error = %why, "ZooKeeper connect failed");
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(BACKOFF_MAX);
                continue;
            }
        };
        tracing::info!(
            cluster = %st.cluster,
            zookeeper = %d.zookeeper,
            session_timeout_ms = client.session_timeout().as_millis() as u64,
            path = %dir,
            "ZooKeeper session established"
        );
        backoff = BACKOFF_MIN;
        failures = 0;
        let why = follow(&client, &dir, &mut st).await;
        tracing::warn!(
            cluster = %st.cluster,
            reason = %why,
            keeping = st.published.as_ref().map_or(0, Vec::len),
            "ZooKeeper session ended: keeping the last known providers, reconnecting"
        );
        drop(client);
        tokio::time::sleep(BACKOFF_MIN).await;
    }
}

/// Lists and watches until the session ends; why it ended.
async fn follow(client: &zk::Client, dir: &str, st: &mut State) -> String {
    let mut state = client.state_watcher();
    loop {
        let watcher = match client.list_and_watch_children(dir).await {
            Ok((nodes, watcher)) => {
                st.nodes = nodes;
                st.update();
                watcher
            }
            Err(zk::Error::NoNode) => {
                // No provider ever registered (or the directory was removed): none, and wait
                // for it to appear.
                match client.check_and_watch_stat(dir).await {
                    Ok((Some(_), _)) => continue,
                    Ok((None, watcher)) => {
                        st.nodes.clear();
                        st.update();
                        watcher
                    }
                    Err(e) if is_fatal(&e) => return e.to_string(),
                    Err(e) => {
                        tracing::debug!(cluster = %st.cluster, error = %e, "watch failed, retrying");
                        tokio::time::sleep(BACKOFF_MIN).await;
                        continue;
                    }
                }
            }
            Err(e) if is_fatal(&e) => return e.to_string(),
            Err(e) => {
                tracing::debug!(cluster = %st.cluster, error = %e, "list failed, retrying");
                tokio::time::sleep(BACKOFF_MIN).await;
                continue;
            }
        };
        let changed = watcher.changed();
        tokio::pin!(changed);
        loop {
            tokio::select! {
                ev = &mut changed => {
                    if ev.event_type == zk::EventType::Session {
                        return format!("session {}", ev.session_state);
                    }
                    break; // list again (and watch again)
                }
                s = state.changed() => {
                    match s {
                        zk::SessionState::Disconnected => tracing::warn!(
                            cluster = %st.cluster,
                            keeping = st.published.as_ref().map_or(0, Vec::len),
                            "ZooKeeper connection lost: keeping the last known providers"
                        ),
                        zk::SessionState::SyncConnected | zk::SessionState::ConnectedReadOnly => {
                            tracing::info!(cluster = %st.cluster, "ZooKeeper connection back (same session)")
                        }
                        other if other.is_terminated() => return format!("session {other}"),
                        _ => {}
                    }
                }
                _ = tokio::time::sleep(WARMUP_TICK), if st.warming => st.update(),
            }
        }
    }
}

/// Errors after which this session is of no more use.
fn is_fatal(e: &zk::Error) -> bool {
    matches!(
        e,
        zk::Error::SessionExpired
            | zk::Error::ClientClosed
            | zk::Error::AuthFailed
            | zk::Error::SessionMoved
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn providers_dir_like_dubbo() {
        assert_eq!(
            providers_dir("dubbo", "demo.Greeter"),
            "/dubbo/demo.Greeter/providers"
        );
        assert_eq!(providers_dir("/a/b/", "x.Y"), "/a/b/x.Y/providers");
        assert_eq!(providers_dir("", "x.Y"), "/x.Y/providers");
    }
}
