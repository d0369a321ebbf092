//! The session behind a ZooKeeper registry: the supervisor that keeps one (and writes the
//! registered URLs into each new one), and the watch of one interface's providers.

use std::sync::Weak;
use std::time::Duration;

use registry_urlweight::zk::decode_node_name;
use tokio::sync::watch;
use zookeeper_client as zk;

use super::{zk_error, Shared};
use crate::error::ZookeeperError;
use crate::registry::Providers;
use crate::url::ServiceUrl;

const BACKOFF_MIN: Duration = Duration::from_millis(200);
const BACKOFF_MAX: Duration = Duration::from_secs(5);

/// The current session, `None` while there is none.
#[derive(Debug, Clone)]
pub(super) struct SessionCell {
    rx: watch::Receiver<Option<zk::Client>>,
}

impl SessionCell {
    pub(super) fn new(rx: watch::Receiver<Option<zk::Client>>) -> Self {
        SessionCell { rx }
    }

    pub(super) fn current(&self) -> Option<zk::Client> {
        self.rx.borrow().clone()
    }

    /// The first session that is not `last` (a session id), `None` once the registry is gone.
    pub(super) async fn next_session(&mut self, last: Option<zk::SessionId>) -> Option<zk::Client> {
        let got = self
            .rx
            .wait_for(|c| c.as_ref().is_some_and(|c| Some(c.session_id()) != last))
            .await
            .ok()?;
        got.clone()
    }

    /// Whether `client`'s session is no longer the current one (or the registry is gone):
    /// waits for that.
    pub(super) async fn replaced(&mut self, client: &zk::Client) {
        let id = client.session_id();
        let _ = self
            .rx
            .wait_for(|c| c.as_ref().map(zk::Client::session_id) != Some(id))
            .await;
    }

    /// The session, waiting up to `limit` for one.
    pub(super) async fn wait(&self, limit: Duration) -> Option<zk::Client> {
        let mut rx = self.rx.clone();
        let got = tokio::time::timeout(limit, rx.wait_for(Option::is_some)).await;
        match got {
            Ok(Ok(c)) => c.clone(),
            _ => None,
        }
    }
}

/// Keeps a session until the registry is gone: connects with backoff, writes every
/// registered URL, publishes the session, and starts over when it expires.
pub(super) async fn supervise(shared: Weak<Shared>, tx: watch::Sender<Option<zk::Client>>) {
    let mut backoff = BACKOFF_MIN;
    let mut failures = 0u32;
    loop {
        let Some(s) = shared.upgrade() else { return };
        let (connect_string, address, timeout) = (
            s.connect_string.clone(),
            s.address.clone(),
            s.options.session_timeout,
        );
        drop(s);
        let connect = zk::Client::connector()
            .with_session_timeout(timeout)
            .with_fail_eagerly()
            .connect(&connect_string);
        let connected = match tokio::time::timeout(timeout, connect).await {
            Ok(Ok(c)) => Ok(c),
            Ok(Err(e)) => Err(zk_error(e)),
            Err(_) => Err(ZookeeperError::Timeout),
        };
        let client = match connected {
            Ok(c) => c,
            Err(why) => {
                if let Some(s) = shared.upgrade() {
                    s.connect_failed(Some(why.clone()));
                }
                failures += 1;
                // Every attempt at debug; the first and then every 10th at warn.
                if failures % 10 == 1 {
                    tracing::warn!(registry = %address, attempts = failures, error = %why, "cannot reach ZooKeeper, retrying");
                } else {
                    tracing::debug!(registry = %address, error = %why, "ZooKeeper connect failed");
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(BACKOFF_MAX);
                continue;
            }
        };
        backoff = BACKOFF_MIN;
        failures = 0;
        if let Some(s) = shared.upgrade() {
            s.connect_failed(None);
        }
        tracing::info!(
            registry = %address,
            session = %client.session_id(),
            session_timeout_ms = client.session_timeout().as_millis() as u64,
            "ZooKeeper session established"
        );
        let mut state = client.state_watcher();
        // Dubbo's recover: whatever is registered goes into the new session.
        recover(&shared, &client, &address).await;
        tx.send_replace(Some(client.clone()));
        let why = loop {
            let s = state.changed().await;
            match s {
                zk::SessionState::Disconnected => {
                    tracing::warn!(registry = %address, "ZooKeeper connection lost: keeping the last known providers")
                }
                zk::SessionState::SyncConnected | zk::SessionState::ConnectedReadOnly => {
                    tracing::info!(registry = %address, "ZooKeeper connection back (same session)");
                    // A registration whose write failed while the connection was down.
                    recover(&shared, &client, &address).await;
                }
                other if other.is_terminated() => break other,
                _ => {}
            }
        };
        tx.send_replace(None);
        tracing::warn!(registry = %address, reason = %why, "ZooKeeper session ended: new session, registering again");
        drop(client);
        tokio::time::sleep(BACKOFF_MIN).await;
    }
}

/// Writes every registered URL in this session (those already there are left as they are).
async fn recover(shared: &Weak<Shared>, client: &zk::Client, address: &str) {
    let registered = shared.upgrade().map(|s| s.registered()).unwrap_or_default();
    for (path, data) in &registered {
        if let Err(e) = write_ephemeral(client, path, data.as_bytes()).await {
            tracing::warn!(registry = %address, path = %path, error = %e, "cannot register");
        }
    }
}

/// Writes the ephemeral node `path` in this session: its parents are created when missing,
/// and a node of the same path left by another (older) session is replaced.
pub(super) async fn write_ephemeral(
    client: &zk::Client,
    path: &str,
    data: &[u8],
) -> Result<(), zk::Error> {
    let ephemeral = zk::CreateMode::Ephemeral.with_acls(zk::Acls::anyone_all());
    let persistent = zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all());
    for _ in 0..3 {
        match client.create(path, data, &ephemeral).await {
            Ok(_) => return Ok(()),
            Err(zk::Error::NoNode) => {
                let parent = &path[..path.rfind('/').unwrap_or(0)];
                client.mkdir(parent, &persistent).await?;
            }
            Err(zk::Error::NodeExists) => match client.check_stat(path).await? {
                Some(stat) if stat.ephemeral_owner == client.session_id().0 => return Ok(()),
                Some(_) => match client.delete(path, None).await {
                    Ok(()) | Err(zk::Error::NoNode) => {}
                    Err(e) => return Err(e),
                },
                None => {}
            },
            Err(e) => return Err(e),
        }
    }
    Err(zk::Error::NodeExists)
}

/// Writes the persistent node `path` (a metadata report entry, as Java's `createOrUpdate`):
/// created with its parents when missing, its data replaced when present.
pub(super) async fn write_persistent(
    client: &zk::Client,
    path: &str,
    data: &[u8],
) -> Result<(), zk::Error> {
    let persistent = zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all());
    for _ in 0..3 {
        match client.set_data(path, data, None).await {
            Ok(_) => return Ok(()),
            Err(zk::Error::NoNode) => {}
            Err(e) => return Err(e),
        }
        match client.create(path, data, &persistent).await {
            Ok(_) => return Ok(()),
            Err(zk::Error::NoNode) => {
                let parent = &path[..path.rfind('/').unwrap_or(0)];
                client.mkdir(parent, &persistent).await?;
            }
            // Created meanwhile by another writer: set it on the next round.
            Err(zk::Error::NodeExists) => {}
            Err(e) => return Err(e),
        }
    }
    Err(zk::Error::NodeExists)
}

/// The URLs named by provider node names; names that are not Dubbo URLs are left out.
pub(super) fn urls_of(nodes: &[String]) -> Providers {
    nodes
        .iter()
        .filter_map(|n| match ServiceUrl::parse(decode_node_name(n)) {
            Ok(u) => Some(u),
            Err(e) => {
                tracing::debug!(node = %n, error = %e, "registry node is not a URL: left out");
                None
            }
        })
        .collect::<Vec<_>>()
        .into()
}

/// Hands out the children of `dir` as provider lists whenever they change, in every session
/// the registry gets, until the subscription drops (its task is aborted) or the registry
/// closes.
pub(super) async fn follow_children(
    mut session: SessionCell,
    dir: String,
    tx: watch::Sender<Option<Providers>>,
    empty_protection: bool,
) {
    let mut last = None;
    while let Some(client) = session.next_session(last).await {
        last = Some(client.session_id());
        let why = follow_in(&client, &mut session, &dir, &tx, empty_protection).await;
        tracing::debug!(path = %dir, reason = %why, "watch ended: waiting for the next session");
    }
}

/// Publishes `nodes` unless nothing changed, or it is an empty list that empty protection
/// holds back.
fn publish(
    tx: &watch::Sender<Option<Providers>>,
    dir: &str,
    nodes: &[String],
    empty_protection: bool,
) {
    offer(tx, dir, urls_of(nodes), empty_protection);
}

/// Hands out `list` (for `what`, in logs) unless nothing changed, or it is an empty list that
/// empty protection holds back.
pub(super) fn offer(
    tx: &watch::Sender<Option<Providers>>,
    what: &str,
    list: Providers,
    empty_protection: bool,
) {
    tx.send_if_modified(|cur| {
        if cur.as_deref() == Some(&*list) {
            return false;
        }
        if list.is_empty() && empty_protection && cur.as_ref().is_some_and(|c| !c.is_empty()) {
            tracing::warn!(%what, kept = cur.as_ref().map_or(0, |c| c.len()), "no provider left: keeping the last known ones (empty protection)");
            return false;
        }
        *cur = Some(list.clone());
        true
    });
}

/// Lists and watches `dir` in one session until it ends; why it ended.
async fn follow_in(
    client: &zk::Client,
    session: &mut SessionCell,
    dir: &str,
    tx: &watch::Sender<Option<Providers>>,
    empty_protection: bool,
) -> String {
    loop {
        let watcher = match client.list_and_watch_children(dir).await {
            Ok((nodes, watcher)) => {
                publish(tx, dir, &nodes, empty_protection);
                watcher
            }
            Err(zk::Error::NoNode) => match client.check_and_watch_stat(dir).await {
                Ok((Some(_), _)) => continue,
                Ok((None, watcher)) => {
                    publish(tx, dir, &[], empty_protection);
                    watcher
                }
                Err(e) if is_fatal(&e) => return e.to_string(),
                Err(e) => {
                    tracing::debug!(path = %dir, error = %e, "watch failed, retrying");
                    tokio::time::sleep(BACKOFF_MIN).await;
                    continue;
                }
            },
            Err(e) if is_fatal(&e) => return e.to_string(),
            Err(e) => {
                tracing::debug!(path = %dir, error = %e, "list failed, retrying");
                tokio::time::sleep(BACKOFF_MIN).await;
                continue;
            }
        };
        tokio::select! {
            ev = watcher.changed() => {
                if ev.event_type == zk::EventType::Session {
                    return format!("session {}", ev.session_state);
                }
            }
            r = session.rx.changed() => {
                if r.is_err() {
                    return "registry closed".into();
                }
                if session.current().map(|c| c.session_id()) != Some(client.session_id()) {
                    return "session replaced".into();
                }
            }
        }
    }
}

/// Errors after which this session is of no more use.
pub(super) fn is_fatal(e: &zk::Error) -> bool {
    matches!(
        e,
        zk::Error::SessionExpired
            | zk::Error::ClientClosed
            | zk::Error::AuthFailed
            | zk::Error::SessionMoved
    )
}

/// Adds `item` to the comma-separated list in the persistent node `path` (created with its
/// parents when missing), unless it is there: Dubbo 3's service-name mapping, written with a
/// compare-and-set on the node's version as Java's `registerServiceAppMapping` does, so that
/// two providers mapping at once both land.
pub(super) async fn add_to_list(
    client: &zk::Client,
    path: &str,
    item: &str,
) -> Result<(), zk::Error> {
    let persistent = zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all());
    for _ in 0..8 {
        match client.get_data(path).await {
            Ok((data, stat)) => {
                let text = String::from_utf8_lossy(&data);
                if text.split(',').any(|a| a.trim() == item) {
                    return Ok(());
                }
                let list = if text.trim().is_empty() {
                    item.to_owned()
                } else {
                    format!("{text},{item}")
                };
                match client
                    .set_data(path, list.as_bytes(), Some(stat.version))
                    .await
                {
                    Ok(_) => return Ok(()),
                    // Another writer came first: read again.
                    Err(zk::Error::BadVersion) | Err(zk::Error::NoNode) => {}
                    Err(e) => return Err(e),
                }
            }
            Err(zk::Error::NoNode) => match client.create(path, item.as_bytes(), &persistent).await
            {
                Ok(_) | Err(zk::Error::NodeExists) => {}
                Err(zk::Error::NoNode) => {
                    let parent = &path[..path.rfind('/').unwrap_or(0)];
                    client.mkdir(parent, &persistent).await?;
                }
                Err(e) => return Err(e),
            },
            Err(e) => return Err(e),
        }
    }
    Err(zk::Error::BadVersion)
}
