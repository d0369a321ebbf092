//! A client of every provider a registry lists for one service (feature `registry`): Dubbo's
//! consumer side without Java.
//!
//! A [`ClusterClient`] subscribes to the providers of an interface as a Dubbo 3 consumer does
//! ([`dubbo_registry::Registry::subscribe_with_instances`]: the application instances that serve
//! it, their metadata fetched from their MetadataService by
//! [`MetadataServiceSource`], else the interface-level URLs), keeps those of its version and group
//! ([`dubbo_registry::select::Selector`]: weights with data-centre factors and warm-up), and
//! for each call picks one with a load balancer ([`dubbo_registry::balance`]: random,
//! round-robin, least-active, consistent-hash on the first argument), then applies a cluster
//! mode ([`Mode`]): failover (another provider on a connection failure, a timeout or an error
//! status, `retries` times), failfast, failsafe (a failure answers null) or forking (several
//! providers at once, the first success wins).
//!
//! Providers are followed live: new ones get [`ClientConfig`]-configured connections (opened
//! on their first call), gone ones are dropped once their calls in flight end. A provider that
//! cannot be connected to is taken out of the balance and probed with a heartbeat every
//! [`ClusterConfig::probe_interval`]; it comes back when a probe is answered. A Java
//! exception thrown by the provider is the method's answer and is never retried.
//!
//! ```no_run
//! use std::sync::Arc;
//! use dubbo_rpc::cluster::ClusterClient;
//! use dubbo_codec::Request;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let registry = dubbo_registry::connect("zookeeper://127.0.0.1:2181").await?;
//! let greeter = ClusterClient::builder(registry, "com.example.Greeter")
//!     .version("1.0.0")
//!     .build()
//!     .await?;
//! let req = Request::builder("com.example.Greeter", "sayHello")
//!     .version("1.0.0")
//!     .arg("java.lang.String", "world")
//!     .build()?;
//! let greeting: String = greeter.call(&req).await?;
//! # Ok(()) }
//! ```

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dubbo_registry::balance::{key_hash, Balancer, Policy};
use dubbo_registry::select::Selector;
use dubbo_registry::{Providers, Registry, RegistryError, ServiceUrl};
use hessian2::value::Value;
use serde::de::DeserializeOwned;
use tokio::task::JoinHandle;

use crate::client::{CallError, ClientConfig};
use crate::instance_metadata::MetadataServiceSource;
use conn::{Conn, Failure};
use dubbo_codec::request::Request;
use dubbo_codec::response::{Outcome, Response, RpcResult};

mod conn;
mod protocol;

/// Dubbo's cluster modes: what a call does when its provider fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Try another provider, up to `retries` more times (Dubbo's default, 2 retries).
    #[default]
    Failover,
    /// Fail at once.
    Failfast,
    /// A failure answers null (for calls whose answer does not matter, such as logging).
    Failsafe,
    /// Call `forks` providers at once; the first success wins.
    Forking,
}

impl Mode {
    /// Dubbo's name of a mode (`failover`, `failfast`, `failsafe`, `forking`).
    pub fn from_name(name: &str) -> Option<Mode> {
        Some(match name {
            "failover" => Mode::Failover,
            "failfast" => Mode::Failfast,
            "failsafe" => Mode::Failsafe,
            "forking" => Mode::Forking,
            _ => return None,
        })
    }
}

/// How a [`ClusterClient`] calls.
///
/// `#[non_exhaustive]`: start from [`ClusterConfig::default`] and change what you need, with
/// the setters or the fields, so that a new setting in a later release breaks no caller:
///
/// ```
/// use std::time::Duration;
/// use dubbo_rpc::client::ClientConfig;
/// use dubbo_rpc::cluster::{ClusterConfig, Mode};
///
/// let config = ClusterConfig::default()
///     .mode(Mode::Failfast)
///     .check(false)
///     .client(ClientConfig::default().timeout(Duration::from_secs(1)));
/// assert_eq!(config.client.timeout, Duration::from_secs(1));
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ClusterConfig {
    /// The load balancer (default random, as Dubbo).
    pub policy: Policy,
    /// The cluster mode (default failover).
    pub mode: Mode,
    /// Failover: retries after the first attempt (default 2, as Dubbo).
    pub retries: u32,
    /// Forking: providers called at once (default 2, as Dubbo).
    pub forks: usize,
    /// Connections per provider (default 1), each multiplexed.
    pub connections: usize,
    /// How often a provider taken out after a connect failure is probed (default 1 s).
    pub probe_interval: Duration,
    /// How long [`ClusterClientBuilder::build`] waits for the registry's first list
    /// (default 5 s).
    pub first_list_timeout: Duration,
    /// Fail [`ClusterClientBuilder::build`] when the registry lists no usable provider
    /// (default true, as Dubbo's `check`).
    pub check: bool,
    /// The settings of every provider connection. Its `timeout` is the default call timeout
    /// unless the provider's URL has a `timeout` (a request's `timeout` attachment wins).
    /// Triple connections take its `timeout` and `connect_timeout`.
    pub client: ClientConfig,
    /// The consumer's `protocol` setting (Java's `dubbo.consumer.protocol`: `"tri"`,
    /// `"dubbo"`, or a list, first preferred): only providers registered with one of these
    /// protocols are called, and the first is spoken where the provider serves it. `None`
    /// (the default) takes every protocol this crate speaks (`dubbo`, and `tri` with the
    /// feature `triple`) and speaks what each provider prefers (its `preferred.protocol`),
    /// as a Dubbo 3.3 consumer does.
    pub protocol: Option<String>,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            policy: Policy::Random,
            mode: Mode::Failover,
            retries: 2,
            forks: 2,
            connections: 1,
            probe_interval: Duration::from_secs(1),
            first_list_timeout: Duration::from_secs(5),
            check: true,
            client: ClientConfig::default(),
            protocol: None,
        }
    }
}

impl ClusterConfig {
    setters! {
        /// The load balancer.
        policy: Policy;
        /// The cluster mode.
        mode: Mode;
        /// Failover: retries after the first attempt.
        retries: u32;
        /// Forking: providers called at once.
        forks: usize;
        /// Connections per provider.
        connections: usize;
        /// How often a provider taken out after a connect failure is probed.
        probe_interval: Duration;
        /// How long [`ClusterClientBuilder::build`] waits for the registry's first list.
        first_list_timeout: Duration;
        /// Whether [`ClusterClientBuilder::build`] fails when no usable provider is listed.
        check: bool;
        /// The settings of every provider connection.
        client: ClientConfig;
    }

    /// The consumer's `protocol` setting (`"tri"`, `"dubbo"`, or a list, first preferred).
    pub fn protocol(mut self, protocol: impl Into<String>) -> Self {
        self.protocol = Some(protocol.into());
        self
    }
}

/// Why a cluster call failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClusterError {
    /// The registry lists no usable provider of the service (or all are taken out).
    #[error("no provider of {service} available (of {listed} listed)")]
    NoProvider {
        /// The service key (`group/interface:version`).
        service: String,
        /// How many providers the registry lists.
        listed: usize,
    },
    /// The last attempt's error (after the retries, if any).
    #[error("calling {provider}: {source}")]
    Call {
        /// The provider of the last attempt.
        provider: SocketAddr,
        /// Its error.
        #[source]
        source: CallError,
    },
    /// The last attempt's error, on a provider called over Triple.
    #[cfg(feature = "triple")]
    #[error("calling {provider} over Triple: {source}")]
    Triple {
        /// The provider of the last attempt.
        provider: SocketAddr,
        /// Its error.
        #[source]
        source: crate::triple_client::TripleError,
    },
    /// The registry failed.
    #[error(transparent)]
    Registry(#[from] RegistryError),
}

impl ClusterError {
    /// The Java exception, when the provider threw.
    pub fn java_exception(&self) -> Option<&dubbo_codec::JavaException> {
        match self {
            ClusterError::Call { source, .. } => source.java_exception(),
            #[cfg(feature = "triple")]
            ClusterError::Triple {
                source: crate::triple_client::TripleError::Exception(e),
                ..
            } => Some(e),
            _ => None,
        }
    }
}

/// One provider and its connections.
struct Member {
    addr: SocketAddr,
    url: ServiceUrl,
    weight: u32,
    conns: Vec<Conn>,
    next_conn: usize,
    active: Arc<AtomicU32>,
    /// Taken out after a connect failure; back when a probe is answered.
    down: bool,
}

/// The providers in use and the balancer over them.
struct Members {
    listed: usize,
    members: Vec<Member>,
    balancer: Balancer,
    warming: bool,
}

struct Inner {
    service: String,
    registry: Arc<dyn Registry>,
    selector: Selector,
    config: ClusterConfig,
    members: Mutex<Members>,
    consumer_url: Option<ServiceUrl>,
    watch: Mutex<Option<JoinHandle<()>>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(t) = lock(&self.watch).take() {
            t.abort();
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Builds a [`ClusterClient`].
#[derive(Debug)]
pub struct ClusterClientBuilder {
    registry: Arc<dyn Registry>,
    interface: String,
    selector: Selector,
    config: ClusterConfig,
    application: Option<(String, IpAddr)>,
}

impl ClusterClientBuilder {
    /// Only providers of this version (`""`: none; default: any).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.selector.version = Some(version.into());
        self
    }

    /// Only providers of this group (`""`: none; `"a,b"`: either; default: any).
    pub fn group(mut self, group: impl Into<String>) -> Self {
        self.selector.group = Some(group.into());
        self
    }

    /// The provider selection as a whole (methods required, data-centre weights, warm-up).
    pub fn selector(mut self, selector: Selector) -> Self {
        self.selector = selector;
        self
    }

    /// How calls are balanced and retried.
    pub fn config(mut self, config: ClusterConfig) -> Self {
        self.config = config;
        self
    }

    /// Registers this consumer under the interface's `consumers` as application
    /// `application` on `host` (as Java consumers do; default: not registered).
    pub fn register_as(mut self, application: impl Into<String>, host: IpAddr) -> Self {
        self.application = Some((application.into(), host));
        self
    }

    /// Subscribes and waits for the registry's first provider list.
    ///
    /// # Errors
    ///
    /// [`ClusterError::Registry`] when the registry does not answer in time or cannot register
    /// the consumer; [`ClusterError::NoProvider`] when `check` is on and no provider is usable.
    pub async fn build(mut self) -> Result<ClusterClient, ClusterError> {
        self.selector.protocols = spoken(self.config.protocol.as_deref());
        let mut sub = self
            .registry
            .subscribe_with_instances(&self.interface, Arc::new(MetadataServiceSource));
        let first = tokio::time::timeout(self.config.first_list_timeout, sub.next())
            .await
            .map_err(|_| RegistryError::Unreachable {
                address: self.registry.address().to_owned(),
                waited: self.config.first_list_timeout,
                source: None,
            })??;
        let consumer_url = match &self.application {
            Some((app, host)) => {
                let url = ServiceUrl::consumer(&self.interface, *host, app)
                    .version(self.selector.version.as_deref().unwrap_or(""))
                    .group(self.selector.group.as_deref().unwrap_or(""))
                    .build();
                self.registry.register(&url).await?;
                Some(url)
            }
            None => None,
        };
        let service = {
            let mut k = String::new();
            if let Some(g) = self.selector.group.as_deref().filter(|g| !g.is_empty()) {
                k.push_str(g);
                k.push('/');
            }
            k.push_str(&self.interface);
            if let Some(v) = self.selector.version.as_deref().filter(|v| !v.is_empty()) {
                k.push(':');
                k.push_str(v);
            }
            k
        };
        let inner = Arc::new(Inner {
            service,
            registry: self.registry,
            members: Mutex::new(Members {
                listed: 0,
                members: Vec::new(),
                balancer: Balancer::new(self.config.policy, 0, fastrand::u64(..)),
                warming: false,
            }),
            selector: self.selector,
            config: self.config,
            consumer_url,
            watch: Mutex::new(None),
        });
        inner.update(&first);
        let check = inner.config.check;
        let usable = lock(&inner.members).members.len();
        let task = tokio::spawn(follow(Arc::downgrade(&inner), sub, first));
        *lock(&inner.watch) = Some(task);
        let client = ClusterClient { inner };
        if check && usable == 0 {
            return Err(client.no_provider());
        }
        Ok(client)
    }
}

/// Follows the registry and probes the providers taken out, until the client is dropped.
async fn follow(inner: Weak<Inner>, mut sub: dubbo_registry::Subscription, mut urls: Providers) {
    let probe_interval = match inner.upgrade() {
        Some(i) => i.config.probe_interval,
        None => return,
    };
    let mut probe = tokio::time::interval(probe_interval);
    probe.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let warming = inner.upgrade().is_some_and(|i| lock(&i.members).warming);
        tokio::select! {
            list = sub.next() => match list {
                Ok(l) => urls = l,
                Err(_) => return,
            },
            _ = probe.tick() => {
                let Some(i) = inner.upgrade() else { return };
                i.probe().await;
                continue;
            }
            _ = tokio::time::sleep(Duration::from_secs(1)), if warming => {}
        }
        let Some(i) = inner.upgrade() else { return };
        i.update(&urls);
    }
}

impl Inner {
    /// Takes a new provider list (or the same one again, for the warm-up).
    fn update(&self, urls: &Providers) {
        let sel = self.selector.select(urls, now_ms());
        let mut m = lock(&self.members);
        let before: Vec<SocketAddr> = m.members.iter().map(|x| x.addr).collect();
        let mut old = std::mem::take(&mut m.members);
        let mut members = Vec::with_capacity(sel.endpoints.len());
        for e in sel.endpoints {
            let kept = old
                .iter()
                .position(|o| o.addr == e.addr)
                .map(|i| old.remove(i));
            let member = match kept {
                Some(mut k) if k.url == e.url => {
                    k.weight = e.weight;
                    k
                }
                _ => self.member(e.addr, e.url, e.weight),
            };
            members.push(member);
        }
        let changed = members.iter().map(|x| x.addr).ne(before);
        m.listed = urls.len();
        m.warming = sel.warming;
        m.members = members;
        if changed {
            let ids: Vec<u64> = m
                .members
                .iter()
                .map(|x| key_hash(x.addr.to_string().as_bytes()))
                .collect();
            m.balancer = Balancer::new(self.config.policy, ids.len(), fastrand::u64(..));
            m.balancer.set_identities(&ids);
        }
        tracing::debug!(service = %self.service, providers = m.members.len(), listed = m.listed, "providers updated");
    }

    fn member(&self, addr: SocketAddr, url: ServiceUrl, weight: u32) -> Member {
        let mut config = self.config.client.clone();
        if let Some(ms) = url.param("timeout").and_then(|t| t.parse::<u64>().ok()) {
            config.timeout = Duration::from_millis(ms);
        }
        let accepted = protocol::accepted(self.config.protocol.as_deref());
        let speak = protocol::effective(&url, &accepted).into_owned();
        let conns = (0..self.config.connections.max(1))
            .map(|_| Conn::new(&speak, addr.to_string(), &config))
            .collect();
        Member {
            addr,
            url,
            weight,
            conns,
            next_conn: 0,
            active: Arc::default(),
            down: false,
        }
    }

    /// A heartbeat to every provider taken out; those that answer come back.
    async fn probe(&self) {
        let down: Vec<(SocketAddr, Conn)> = lock(&self.members)
            .members
            .iter()
            .filter(|m| m.down)
            .map(|m| (m.addr, m.conns[0].clone()))
            .collect();
        for (addr, conn) in down {
            if conn.probe(self.config.client.connect_timeout).await {
                tracing::info!(service = %self.service, provider = %addr, "provider answers again: back in the balance");
                if let Some(m) = lock(&self.members)
                    .members
                    .iter_mut()
                    .find(|m| m.addr == addr)
                {
                    m.down = false;
                }
            }
        }
    }

    /// Picks a provider not in `tried` (unless all usable ones were tried), with its client
    /// and in-flight counter.
    fn pick(
        &self,
        key: Option<u64>,
        tried: &[SocketAddr],
    ) -> Option<(SocketAddr, Conn, Arc<AtomicU32>)> {
        let mut m = lock(&self.members);
        let Members {
            members, balancer, ..
        } = &mut *m;
        let weights: Vec<u32> = members.iter().map(|x| x.weight).collect();
        let up = |i: usize| !members[i].down;
        let fresh = |i: usize| up(i) && !tried.contains(&members[i].addr);
        let active = |i: usize| members[i].active.load(Ordering::Relaxed);
        let i = balancer
            .pick_keyed(&weights, fresh, active, key)
            .or_else(|| balancer.pick_keyed(&weights, up, active, key))?;
        let x = &mut members[i];
        let c = x.conns[x.next_conn % x.conns.len()].clone();
        x.next_conn = x.next_conn.wrapping_add(1);
        Some((x.addr, c, x.active.clone()))
    }

    fn mark_down(&self, addr: SocketAddr, why: &Failure) {
        if let Some(m) = lock(&self.members)
            .members
            .iter_mut()
            .find(|m| m.addr == addr)
        {
            if !m.down {
                tracing::warn!(service = %self.service, provider = %addr, error = ?why, "cannot connect: provider taken out until a probe answers");
                m.down = true;
            }
        }
    }
}

/// The URL protocols a cluster takes: its `protocol` setting's, else every one it speaks.
fn spoken(setting: Option<&str>) -> Vec<String> {
    let accepted = protocol::accepted(setting);
    if !accepted.is_empty() {
        return accepted.into_iter().map(str::to_owned).collect();
    }
    let mut all = vec!["dubbo".to_owned()];
    if cfg!(feature = "triple") {
        all.push("tri".to_owned());
    }
    all
}

/// The load-balanced client of one service. Cheap to clone. See the [module docs](self).
#[derive(Clone)]
pub struct ClusterClient {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for ClusterClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterClient")
            .field("service", &self.inner.service)
            .field("providers", &self.providers())
            .finish_non_exhaustive()
    }
}

impl ClusterClient {
    /// A client of `interface`'s providers in `registry`.
    pub fn builder(
        registry: Arc<dyn Registry>,
        interface: impl Into<String>,
    ) -> ClusterClientBuilder {
        ClusterClientBuilder {
            registry,
            interface: interface.into(),
            selector: Selector::default(),
            config: ClusterConfig::default(),
            application: None,
        }
    }

    /// The protocol each provider in use is spoken to (`dubbo` or `tri`), by address.
    pub fn protocols(&self) -> Vec<(SocketAddr, &'static str)> {
        lock(&self.inner.members)
            .members
            .iter()
            .map(|m| (m.addr, m.conns[0].protocol()))
            .collect()
    }

    /// The providers in use: address, weight now, and whether it is taken out.
    pub fn providers(&self) -> Vec<(SocketAddr, u32, bool)> {
        lock(&self.inner.members)
            .members
            .iter()
            .map(|m| (m.addr, m.weight, m.down))
            .collect()
    }

    /// Calls and reads the result into `T` through serde.
    ///
    /// # Errors
    ///
    /// As [`Client::call`](crate::client::Client::call), after the cluster mode's retries; [`ClusterError::NoProvider`].
    pub async fn call<T: DeserializeOwned + Send + 'static>(
        &self,
        req: &Request,
    ) -> Result<T, ClusterError> {
        self.run(req, |c, r| async move { c.call::<T>(&r).await }, None)
            .await
    }

    /// Calls and returns the result as a [`Value`].
    ///
    /// # Errors
    ///
    /// As [`Client::call_value`](crate::client::Client::call_value), after the cluster mode's retries.
    pub async fn call_value(&self, req: &Request) -> Result<Value, ClusterError> {
        self.run(
            req,
            |c, r| async move { c.call_value(&r).await },
            Some(Value::Null),
        )
        .await
    }

    /// Calls and returns the provider's response; an error status counts as a failure (and
    /// is retried under failover).
    ///
    /// # Errors
    ///
    /// As [`Client::invoke`](crate::client::Client::invoke), after the cluster mode's retries.
    pub async fn invoke(&self, req: &Request) -> Result<Response, ClusterError> {
        let op = |c: Conn, r: Request| async move { c.invoke(&r).await };
        let null = Response::Result(RpcResult::new(Outcome::Null));
        self.run(req, op, Some(null)).await
    }

    /// Unregisters this consumer (when registered) and stops following the registry.
    pub async fn close(self) {
        if let Some(url) = &self.inner.consumer_url {
            let _ = self.inner.registry.unregister(url).await;
        }
        if let Some(t) = lock(&self.inner.watch).take() {
            t.abort();
        }
    }

    fn no_provider(&self) -> ClusterError {
        ClusterError::NoProvider {
            service: self.inner.service.clone(),
            listed: lock(&self.inner.members).listed,
        }
    }

    /// The consistent-hash key of a call: its first argument's text.
    fn key_of(&self, req: &Request) -> Option<u64> {
        if self.inner.config.policy != Policy::ConsistentHash {
            return None;
        }
        let args = req.arg_values().ok()?;
        let first = args.first()?;
        Some(match first.as_str() {
            Some(s) => key_hash(s.as_bytes()),
            None => key_hash(format!("{first:?}").as_bytes()),
        })
    }

    /// One call under the cluster mode: `op` is one attempt on one provider; `failsafe` the
    /// answer of a failsafe call that failed.
    async fn run<T, F, Fut>(
        &self,
        req: &Request,
        op: F,
        failsafe: Option<T>,
    ) -> Result<T, ClusterError>
    where
        T: Send + 'static,
        F: Fn(Conn, Request) -> Fut,
        Fut: Future<Output = Result<T, Failure>> + Send + 'static,
    {
        let key = self.key_of(req);
        let cfg = &self.inner.config;
        match cfg.mode {
            Mode::Forking => return self.fork(req, &op, key).await,
            Mode::Failsafe => {
                return match self.attempts(req, &op, key, 1).await {
                    Ok(v) => Ok(v),
                    Err(e) => match failsafe {
                        Some(v) => {
                            tracing::warn!(service = %self.inner.service, error = %e, "failsafe: ignoring a failed call");
                            Ok(v)
                        }
                        None => Err(e),
                    },
                };
            }
            Mode::Failfast => self.attempts(req, &op, key, 1).await,
            Mode::Failover => self.attempts(req, &op, key, 1 + cfg.retries as usize).await,
        }
    }

    /// Up to `max` attempts, each on a provider not tried yet while there is one.
    async fn attempts<T, F, Fut>(
        &self,
        req: &Request,
        op: &F,
        key: Option<u64>,
        max: usize,
    ) -> Result<T, ClusterError>
    where
        F: Fn(Conn, Request) -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let mut tried = Vec::new();
        let mut last = None;
        for _ in 0..max.max(1) {
            let Some((addr, client, active)) = self.inner.pick(key, &tried) else {
                break;
            };
            tried.push(addr);
            active.fetch_add(1, Ordering::Relaxed);
            let r = op(client, req.clone()).await;
            active.fetch_sub(1, Ordering::Relaxed);
            match r {
                Ok(v) => return Ok(v),
                Err(e) => {
                    if e.unreachable() {
                        self.inner.mark_down(addr, &e);
                    }
                    let again = e.retryable();
                    last = Some(e.at(addr));
                    if !again {
                        break;
                    }
                }
            }
        }
        Err(last.unwrap_or_else(|| self.no_provider()))
    }

    /// Forking: `forks` providers at once, the first success (or the last failure).
    async fn fork<T, F, Fut>(
        &self,
        req: &Request,
        op: &F,
        key: Option<u64>,
    ) -> Result<T, ClusterError>
    where
        T: Send + 'static,
        F: Fn(Conn, Request) -> Fut,
        Fut: Future<Output = Result<T, Failure>> + Send + 'static,
    {
        let mut tried = Vec::new();
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..self.inner.config.forks.max(1) {
            let Some((addr, client, active)) = self.inner.pick(key, &tried) else {
                break;
            };
            if tried.contains(&addr) {
                break; // fewer providers than forks
            }
            tried.push(addr);
            active.fetch_add(1, Ordering::Relaxed);
            let attempt = op(client, req.clone());
            set.spawn(async move {
                let r = attempt.await;
                active.fetch_sub(1, Ordering::Relaxed);
                (addr, r)
            });
        }
        let mut last = None;
        while let Some(joined) = set.join_next().await {
            let Ok((addr, r)) = joined else { continue };
            match r {
                Ok(v) => return Ok(v),
                Err(e) => {
                    if e.unreachable() {
                        self.inner.mark_down(addr, &e);
                    }
                    last = Some(e.at(addr));
                }
            }
        }
        Err(last.unwrap_or_else(|| self.no_provider()))
    }
}
