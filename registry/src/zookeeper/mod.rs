//! The ZooKeeper registry, laid out as Java Dubbo's `ZookeeperRegistry` lays it out.
//!
//! ```text
//! /<root>                                   root = the registry's group, "dubbo" by default
//!   /<interface>                            persistent
//!     /providers/<URL-encoded URL>          ephemeral, one per provider URL
//!     /consumers/<URL-encoded URL>          ephemeral, one per consumer URL
//! ```
//!
//! One session per [`ZookeeperRegistry`], kept by a supervisor task:
//!
//! ```text
//!  connect (backoff 200 ms .. 5 s) ─▶ write every registered URL ─▶ publish the session
//!        ▲                                                              │
//!        └────────────── session expired / closed ◀─────────────────────┘
//! ```
//!
//! Within a session the client reconnects by itself (a short loss changes nothing: the
//! ephemeral nodes stay, the watches are re-armed). After an expiry the server has deleted the
//! nodes; the next session writes every URL still registered again (Dubbo's `recover`). A node
//! left by an older session of ours (not yet expired on the server) is replaced.
//!
//! Service definitions a Java provider published (the registry used as its metadata report):
//! `/<root>/metadata/<interface>[/<version>][/<group>]/provider/<application>`, see
//! [`crate::definition`].
//!
//! Dubbo 3's application-level registration (`/services/<app>`, `/<root>/mapping`) is followed
//! by [`subscribe_with_instances`](Registry::subscribe_with_instances), see `instances.rs`.
//!
//! Each [`subscribe`](ZookeeperRegistry::subscribe) is a task that lists and watches
//! `/<root>/<interface>/providers` in the current session; until a session is back the last
//! list stays. With `empty_protection` (the default, as Dubbo 3) a list that becomes empty is
//! not handed out: the last non-empty one stays (a registry that lost its data, or a
//! provider restart that unregisters before it registers again, does not stop the callers).

mod instances;
mod session;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use registry_urlweight::zk::node_name;
use registry_urlweight::{decode_component, encode_component, params};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use zookeeper_client as zk;

use crate::definition::{DefinitionKey, ServiceDefinition};
use crate::error::{RegistryError, ZookeeperError};
use crate::future::RegistryFuture;
use crate::instance::{MetadataSource, ServiceInstance};
use crate::registry::{Registry, Subscription};
use crate::url::ServiceUrl;

use instances::InstanceFollower;
pub use instances::SERVICES_ROOT;
use session::{supervise, SessionCell};

/// How a [`ZookeeperRegistry`] works.
///
/// `#[non_exhaustive]`: start from [`ZookeeperOptions::default`] and change what you need,
/// with the setters or the fields, so that a new option breaks no caller.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ZookeeperOptions {
    /// The root node (Dubbo's registry `group`), `dubbo` by default.
    pub root: String,
    /// The session timeout asked for (the server may lower it to its `maxSessionTimeout`);
    /// 60 s by default, as Dubbo's `session` parameter.
    pub session_timeout: Duration,
    /// Keep the last non-empty provider list when one becomes empty (default true).
    pub empty_protection: bool,
}

impl Default for ZookeeperOptions {
    fn default() -> Self {
        ZookeeperOptions {
            root: registry_urlweight::zk::DEFAULT_ROOT.to_owned(),
            session_timeout: Duration::from_secs(60),
            empty_protection: true,
        }
    }
}

impl ZookeeperOptions {
    /// The root node (Dubbo's registry `group`).
    pub fn root(self, root: impl Into<String>) -> Self {
        let root = root.into();
        ZookeeperOptions { root, ..self }
    }

    /// The session timeout asked for.
    pub fn session_timeout(self, session_timeout: Duration) -> Self {
        ZookeeperOptions {
            session_timeout,
            ..self
        }
    }

    /// Whether the last non-empty provider list is kept when one becomes empty.
    pub fn empty_protection(self, empty_protection: bool) -> Self {
        ZookeeperOptions {
            empty_protection,
            ..self
        }
    }
}

/// A Dubbo registry in ZooKeeper. Cheap to clone (clones share the session); the session
/// closes, and the URLs registered through it go, when the last clone drops.
#[derive(Debug, Clone)]
pub struct ZookeeperRegistry {
    shared: Arc<Shared>,
    _supervisor: Arc<Supervisor>,
}

#[derive(Debug)]
struct Shared {
    address: String,
    connect_string: String,
    options: ZookeeperOptions,
    session: SessionCell,
    /// The node paths registered, with the data written in them.
    registered: Mutex<BTreeSet<(String, String)>>,
    /// Why the last attempt to connect failed; `None` once a session is established.
    last_connect_error: Mutex<Option<ZookeeperError>>,
}

/// Stops the session when the last registry clone drops.
#[derive(Debug)]
struct Supervisor {
    task: JoinHandle<()>,
    session: watch::Sender<Option<zk::Client>>,
}

impl Drop for Supervisor {
    fn drop(&mut self) {
        self.task.abort();
        // Subscriptions may outlive the registry: make them let go of the session too.
        self.session.send_replace(None);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// `zookeeper://HOST:PORT[,HOST:PORT...][/chroot][?k=v...]` -> (connect string, options).
/// Dubbo's `backup=HOST:PORT,...` adds servers, `group` is the root, `session` the session
/// timeout in ms, `empty-protection` true/false.
fn parse_address(address: &str) -> Result<(String, ZookeeperOptions), RegistryError> {
    let bad = |reason| RegistryError::Address {
        address: address.to_owned(),
        reason,
    };
    let rest = address
        .strip_prefix("zookeeper://")
        .ok_or_else(|| bad("not zookeeper://"))?;
    let (hosts, query) = rest.split_once('?').unwrap_or((rest, ""));
    let hosts = hosts.trim_end_matches('/');
    if hosts.is_empty() {
        return Err(bad("no HOST:PORT"));
    }
    let mut connect = hosts.to_owned();
    let mut options = ZookeeperOptions::default();
    for p in params(&format!("?{query}")) {
        let v = p.decoded_value();
        match p.key() {
            "backup" => {
                for h in v.split(',').filter(|h| !h.is_empty()) {
                    connect.push(',');
                    connect.push_str(h);
                }
            }
            "group" => options.root = v.trim_matches('/').to_owned(),
            "session" => {
                let ms: u64 = v
                    .parse()
                    .map_err(|_| bad("session is not a number of ms"))?;
                options.session_timeout = Duration::from_millis(ms);
            }
            "empty-protection" => options.empty_protection = v != "false",
            _ => {}
        }
    }
    Ok((connect, options))
}

impl ZookeeperRegistry {
    /// Connects to the registry at `address`, `zookeeper://HOST:PORT[,HOST:PORT...][?k=v...]`
    /// with Dubbo's registry parameters `backup` (more servers), `group` (the root),
    /// `session` (the session timeout in ms) and `empty-protection`, and waits (up to the
    /// session timeout) for the first session.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Address`] for an address it cannot read,
    /// [`RegistryError::Unreachable`] when no session came in time (the registry is dropped).
    pub async fn connect(address: &str) -> Result<Self, RegistryError> {
        let (connect, options) = parse_address(address)?;
        let r = Self::start(address, &connect, options);
        r.wait_for_session(r.shared.options.session_timeout).await?;
        Ok(r)
    }

    /// Starts a registry on the ZooKeeper connect string `connect`
    /// (`HOST:PORT[,HOST:PORT...][/chroot]`) without waiting: the supervisor connects (and
    /// reconnects) in the background; `address` names it in logs and errors. Needs a tokio
    /// runtime.
    pub fn start(
        address: impl Into<String>,
        connect: impl Into<String>,
        options: ZookeeperOptions,
    ) -> Self {
        let (tx, rx) = watch::channel(None);
        let shared = Arc::new(Shared {
            address: address.into(),
            connect_string: connect.into(),
            options,
            session: SessionCell::new(rx),
            registered: Mutex::new(BTreeSet::new()),
            last_connect_error: Mutex::new(None),
        });
        let task = tokio::spawn(supervise(Arc::downgrade(&shared), tx.clone()));
        ZookeeperRegistry {
            shared,
            _supervisor: Arc::new(Supervisor { task, session: tx }),
        }
    }

    /// The options in force.
    pub fn options(&self) -> &ZookeeperOptions {
        &self.shared.options
    }

    /// The current session's id and password, `None` while there is none (for diagnostics,
    /// and for tests that expire the session from another client).
    pub fn session(&self) -> Option<zk::SessionInfo> {
        self.shared.session.current().map(|c| c.session().clone())
    }

    /// Waits up to `limit` for a session.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Unreachable`] when none came.
    pub async fn wait_for_session(&self, limit: Duration) -> Result<(), RegistryError> {
        self.shared
            .session
            .wait(limit)
            .await
            .map(drop)
            .ok_or_else(|| self.shared.unreachable(limit))
    }

    /// `/<root>/<encoded interface>/<category>`.
    pub fn category_dir(&self, interface: &str, category: &str) -> String {
        category_dir(&self.shared.options.root, interface, category)
    }

    /// The node path of `url`: its category directory and the URL encoded as Java's
    /// `URLEncoder` does.
    pub fn node_path(&self, url: &ServiceUrl) -> String {
        let dir = self.category_dir(&url.interface(), &url.category());
        format!("{dir}/{}", node_name(url.as_str()))
    }
}

/// The node of a Dubbo 3 application instance: `/services/<app>/<address:port>`.
fn instance_path(instance: &ServiceInstance) -> String {
    format!(
        "{SERVICES_ROOT}/{}/{}:{}",
        instance.app, instance.address, instance.port
    )
}

/// `/<root>/<interface>/<category>`, the interface URL-encoded as Dubbo writes it.
pub fn category_dir(root: &str, interface: &str, category: &str) -> String {
    let root = root.trim_matches('/');
    let iface = encode_component(interface);
    if root.is_empty() {
        format!("/{iface}/{category}")
    } else {
        format!("/{root}/{iface}/{category}")
    }
}

fn op_error(path: &str, e: zk::Error) -> RegistryError {
    RegistryError::Operation {
        path: path.to_owned(),
        source: zk_error(e),
    }
}

/// The client's error as this crate's [`ZookeeperError`] (the client's own type stays out of
/// the public API: it is a dependency that may change).
fn zk_error(e: zk::Error) -> ZookeeperError {
    use ZookeeperError as Z;
    match e {
        zk::Error::NoNode => Z::NoNode,
        zk::Error::NodeExists => Z::NodeExists,
        zk::Error::BadVersion => Z::BadVersion,
        zk::Error::NotEmpty => Z::NotEmpty,
        zk::Error::NoChildrenForEphemerals => Z::NoChildrenForEphemerals,
        zk::Error::NoAuth => Z::NoAuth,
        zk::Error::InvalidAcl => Z::InvalidAcl,
        zk::Error::AuthFailed => Z::AuthFailed,
        zk::Error::SessionExpired => Z::SessionExpired,
        zk::Error::SessionMoved => Z::SessionMoved,
        zk::Error::NotReadOnly => Z::NotReadOnly,
        zk::Error::QuotaExceeded => Z::QuotaExceeded,
        zk::Error::Throttled => Z::Throttled,
        zk::Error::Unimplemented => Z::Unimplemented,
        zk::Error::ConnectionLoss => Z::ConnectionLoss,
        zk::Error::Timeout => Z::Timeout,
        zk::Error::NoHosts => Z::NoHosts,
        zk::Error::ClientClosed => Z::ClientClosed,
        zk::Error::UnexpectedErrorCode(code) => Z::Code(code),
        other => Z::Other(other.to_string()),
    }
}

impl Registry for ZookeeperRegistry {
    fn address(&self) -> &str {
        &self.shared.address
    }

    fn register<'a>(&'a self, url: &'a ServiceUrl) -> RegistryFuture<'a, ()> {
        // Curator writes the local address into every node it creates; so do we (the
        // registering host's).
        Box::pin(self.register_node(self.node_path(url), url.host().to_owned()))
    }

    fn unregister<'a>(&'a self, url: &'a ServiceUrl) -> RegistryFuture<'a, ()> {
        Box::pin(self.unregister_node(self.node_path(url)))
    }

    fn register_instance<'a>(&'a self, instance: &'a ServiceInstance) -> RegistryFuture<'a, ()> {
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        Box::pin(self.register_node(instance_path(instance), instance.to_curator_json(ms)))
    }

    fn unregister_instance<'a>(&'a self, instance: &'a ServiceInstance) -> RegistryFuture<'a, ()> {
        Box::pin(self.unregister_node(instance_path(instance)))
    }

    fn map_service<'a>(&'a self, interface: &'a str, app: &'a str) -> RegistryFuture<'a, ()> {
        Box::pin(async move {
            let path = match self.shared.options.root.trim_matches('/') {
                "" => format!("/mapping/{interface}"),
                root => format!("/{root}/mapping/{interface}"),
            };
            let client = self.client().await?;
            session::add_to_list(&client, &path, app)
                .await
                .map_err(|e| op_error(&path, e))
        })
    }

    fn subscribe(&self, interface: &str) -> Subscription {
        let dir = self.category_dir(interface, "providers");
        let (tx, rx) = watch::channel(None);
        let task = tokio::spawn(session::follow_children(
            self.shared.session.clone(),
            dir,
            tx,
            self.shared.options.empty_protection,
        ));
        Subscription::new(rx, Some(task.abort_handle()))
    }

    fn subscribe_with_instances(
        &self,
        interface: &str,
        metadata: Arc<dyn MetadataSource>,
    ) -> Subscription {
        let (tx, rx) = watch::channel(None);
        let follower = InstanceFollower::new(
            &self.shared.options.root,
            interface,
            metadata,
            self.shared.options.empty_protection,
            self.subscribe(interface),
            tx,
        );
        let task = tokio::spawn(follower.run(self.shared.session.clone()));
        Subscription::new(rx, Some(task.abort_handle()))
    }

    fn providers<'a>(&'a self, interface: &'a str) -> RegistryFuture<'a, Vec<ServiceUrl>> {
        Box::pin(async move {
            let dir = self.category_dir(interface, "providers");
            let client = self.client().await?;
            match client.list_children(&dir).await {
                Ok(nodes) => Ok(session::urls_of(&nodes).to_vec()),
                Err(zk::Error::NoNode) => Ok(Vec::new()),
                Err(e) => Err(op_error(&dir, e)),
            }
        })
    }

    fn services(&self) -> RegistryFuture<'_, Vec<String>> {
        Box::pin(async move {
            let root = format!("/{}", self.shared.options.root.trim_matches('/'));
            let client = self.client().await?;
            let children = match client.list_children(&root).await {
                Ok(c) => c,
                Err(zk::Error::NoNode) => return Ok(Vec::new()),
                Err(e) => return Err(op_error(&root, e)),
            };
            let mut out = Vec::new();
            for c in children {
                let iface = decode_component(&c).into_owned();
                // Dubbo 3 keeps `mapping`, `metadata`, `config` here too: services are the
                // children with a providers category.
                let dir = self.category_dir(&iface, "providers");
                match client.check_stat(&dir).await {
                    Ok(Some(_)) => out.push(iface),
                    Ok(None) => {}
                    Err(e) => return Err(op_error(&dir, e)),
                }
            }
            // Dubbo 3 providers registered as application instances only are named by their
            // interface's mapping.
            let mapping = format!("{root}/mapping");
            match client.list_children(&mapping).await {
                Ok(mapped) => out.extend(mapped),
                Err(zk::Error::NoNode) => {}
                Err(e) => return Err(op_error(&mapping, e)),
            }
            out.sort();
            out.dedup();
            Ok(out)
        })
    }

    fn service_definition<'a>(
        &'a self,
        key: &'a DefinitionKey,
    ) -> RegistryFuture<'a, Option<ServiceDefinition>> {
        Box::pin(async move {
            // The registry is the metadata report too, as Dubbo's `use-as-metadata-center`.
            let path = key.report_path(&self.shared.options.root);
            let client = self.client().await?;
            match client.get_data(&path).await {
                Ok((data, _)) => ServiceDefinition::from_json(&data).map(Some),
                Err(zk::Error::NoNode) => Ok(None),
                Err(e) => Err(op_error(&path, e)),
            }
        })
    }

    fn publish_definition<'a>(
        &'a self,
        key: &'a DefinitionKey,
        definition: &'a ServiceDefinition,
    ) -> RegistryFuture<'a, ()> {
        Box::pin(async move {
            let path = key.report_path(&self.shared.options.root);
            let client = self.client().await?;
            session::write_persistent(&client, &path, &definition.to_json())
                .await
                .map_err(|e| op_error(&path, e))
        })
    }
}

impl ZookeeperRegistry {
    /// Writes the ephemeral node `path` with `data`, and again in every new session until
    /// [`unregister_node`](Self::unregister_node).
    async fn register_node(&self, path: String, data: String) -> Result<(), RegistryError> {
        lock(&self.shared.registered).insert((path.clone(), data.clone()));
        let limit = self.shared.options.session_timeout;
        let Some(client) = self.shared.session.wait(limit).await else {
            // Still registered: written when a session is back.
            return Err(self.shared.unreachable(limit));
        };
        session::write_ephemeral(&client, &path, data.as_bytes())
            .await
            .map_err(|e| op_error(&path, e))
    }

    /// Deletes a node [`register_node`](Self::register_node) wrote.
    async fn unregister_node(&self, path: String) -> Result<(), RegistryError> {
        lock(&self.shared.registered).retain(|(p, _)| *p != path);
        // A node of a session that is only disconnected would outlive the registration:
        // retry while that session lives (its expiry deletes the node anyway).
        let give_up = tokio::time::Instant::now() + self.shared.options.session_timeout;
        loop {
            let Some(client) = self.shared.session.current() else {
                // Not written in any live session: nothing to delete.
                return Ok(());
            };
            match client.delete(&path, None).await {
                Ok(()) | Err(zk::Error::NoNode) => return Ok(()),
                Err(zk::Error::ConnectionLoss) if tokio::time::Instant::now() < give_up => {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Err(e) => return Err(op_error(&path, e)),
            }
        }
    }

    async fn client(&self) -> Result<zk::Client, RegistryError> {
        let limit = self.shared.options.session_timeout;
        self.shared
            .session
            .wait(limit)
            .await
            .ok_or_else(|| self.shared.unreachable(limit))
    }
}

/// What the supervisor needs from the registry.
impl Shared {
    fn registered(&self) -> Vec<(String, String)> {
        lock(&self.registered).iter().cloned().collect()
    }

    /// Records why connecting failed (`None`: a session came).
    fn connect_failed(&self, error: Option<ZookeeperError>) {
        *lock(&self.last_connect_error) = error;
    }

    /// No session within `waited`, with the last connect error as the source.
    fn unreachable(&self, waited: Duration) -> RegistryError {
        RegistryError::Unreachable {
            address: self.address.clone(),
            waited,
            source: lock(&self.last_connect_error).clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_like_dubbo() {
        assert_eq!(
            category_dir("dubbo", "demo.Greeter", "providers"),
            "/dubbo/demo.Greeter/providers"
        );
        assert_eq!(
            category_dir("/a/b/", "x.Y", "consumers"),
            "/a/b/x.Y/consumers"
        );
        assert_eq!(category_dir("", "x.Y", "providers"), "/x.Y/providers");
    }

    #[test]
    fn addresses() {
        let (c, o) = parse_address("zookeeper://127.0.0.1:2181").unwrap();
        assert_eq!(c, "127.0.0.1:2181");
        assert_eq!(o, ZookeeperOptions::default());
        let (c, o) = parse_address(
            "zookeeper://127.0.0.1:1?backup=127.0.0.1:2,127.0.0.1:3&group=/svc&session=4000&empty-protection=false",
        )
        .unwrap();
        assert_eq!(c, "127.0.0.1:1,127.0.0.1:2,127.0.0.1:3");
        assert_eq!(o.root, "svc");
        assert_eq!(o.session_timeout, Duration::from_secs(4));
        assert!(!o.empty_protection);
        assert!(parse_address("nacos://127.0.0.1:8848").is_err());
        assert!(parse_address("zookeeper://").is_err());
        assert!(parse_address("zookeeper://h:1?session=x").is_err());
    }

    /// Each client error becomes its typed code, the operation error's source.
    #[test]
    fn operation_errors_name_the_zookeeper_code() {
        use std::error::Error as _;

        let err = op_error("/dubbo/x.Y/providers", zk::Error::NoNode);
        assert!(matches!(
            &err,
            RegistryError::Operation { path, source: ZookeeperError::NoNode } if path == "/dubbo/x.Y/providers"
        ));
        let source = err.source().unwrap();
        assert_eq!(
            source.downcast_ref::<ZookeeperError>(),
            Some(&ZookeeperError::NoNode)
        );
        assert!(source.source().is_none());
        assert_eq!(
            err.to_string(),
            "registry operation on /dubbo/x.Y/providers failed: no node"
        );
        assert_eq!(zk_error(zk::Error::NodeExists), ZookeeperError::NodeExists);
        assert_eq!(
            zk_error(zk::Error::UnexpectedErrorCode(-999)),
            ZookeeperError::Code(-999)
        );
        assert!(matches!(
            zk_error(zk::Error::UnexpectedError("odd".into())),
            ZookeeperError::Other(m) if m.contains("odd")
        ));
    }

    /// No server at the address: `Unreachable`, whose source is why the last connect failed.
    #[tokio::test]
    async fn unreachable_has_the_last_connect_error_as_its_source() {
        use std::error::Error as _;

        // A port nothing listens on.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let address = format!("zookeeper://127.0.0.1:{port}");
        let connect = format!("127.0.0.1:{port}");
        let options = ZookeeperOptions::default().session_timeout(Duration::from_secs(1));
        let registry = ZookeeperRegistry::start(address.as_str(), connect, options);
        let err = registry
            .wait_for_session(Duration::from_millis(1500))
            .await
            .unwrap_err();
        let RegistryError::Unreachable {
            address: a,
            waited,
            source,
        } = &err
        else {
            panic!("not unreachable: {err:?}");
        };
        assert_eq!(a, &address);
        assert_eq!(*waited, Duration::from_millis(1500));
        let last = source.clone().expect("a connect was tried and failed");
        let walked = err.source().expect("the last connect error as the source");
        assert_eq!(walked.downcast_ref::<ZookeeperError>(), Some(&last));
        assert!(
            err.to_string().ends_with(&format!("; last error: {last}")),
            "{err}"
        );
    }
}
