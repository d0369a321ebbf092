//! The Triple pipeline's provider side: which endpoint of a cluster takes a call, and the
//! HTTP/2 connection it goes on.
//!
//! The endpoint is chosen as for Dubbo 2 calls: the cluster's configured balancer over the
//! same endpoints of the same snapshot, skipping the endpoints outlier ejection took out (all
//! of them ejected: as if none were, Envoy's panic mode). HTTP/2 multiplexes, so an endpoint
//! needs one connection: every stream routed to it shares it, each with its own flow control.
//! Calls bridged to a Dubbo-only cluster go on one multiplexed Dubbo connection per endpoint
//! ([`Upstreams::dubbo_client`]), dubbo-rpc's client. A cluster with `[clusters.NAME.tls]` is
//! spoken to over TLS on every one of these connections ([`super::upstream_tls`]); its
//! connections are pooled apart from plain ones to the same address.

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use dubbo_registry::balance::Balancer;
use h2::client::SendRequest;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

use super::upstream_tls::{Alpn, UpstreamTls};

use crate::config::LbPolicy;
use crate::core::shared::SharedEndpoint;
use crate::core::Snapshot;

/// Why no provider connection could be had.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    /// The cluster has no endpoint.
    #[error("cluster {0} has no endpoint")]
    NoEndpoint(String),
    /// The TCP connection failed.
    #[error("connect {0}: {1}")]
    Connect(SocketAddr, io::Error),
    /// The TCP connection took longer than the cluster's `connect_timeout_ms`.
    #[error("connect {0}: timed out")]
    ConnectTimeout(SocketAddr),
    /// The provider did not complete the HTTP/2 handshake.
    #[error("HTTP/2 with {0}: {1}")]
    Handshake(SocketAddr, h2::Error),
    /// The provider did not complete the HTTP/1.1 handshake.
    #[error("HTTP/1.1 with {0}: {1}")]
    Http1(SocketAddr, hyper::Error),
    /// The TLS handshake with the provider failed.
    #[error("TLS with {0}: {1}")]
    Tls(SocketAddr, io::Error),
    /// The cluster's TLS files are unusable: no connection is made.
    #[error("cluster {0}: TLS: {1}")]
    ClusterTls(String, String),
}

/// The pools' key: a provider's address, and whether the connection to it is TLS.
type Key = (SocketAddr, bool);

/// An HTTP/1.1 connection to a provider, for Triple's HTTP/1.1 form.
pub type Http1Sender = hyper::client::conn::http1::SendRequest<hyper::body::Incoming>;

/// Idle HTTP/1.1 connections kept per provider.
const HTTP1_IDLE: usize = 64;

/// One cluster's balancer, for the endpoint list it was made for.
struct ClusterLb {
    addrs: Vec<String>,
    weights: Vec<u32>,
    lb: Balancer,
}

/// See the [module docs](self).
#[derive(Default)]
pub struct Upstreams {
    conns: Mutex<HashMap<Key, SendRequest<Bytes>>>,
    dubbo: Mutex<HashMap<Key, dubbo_rpc::client::Client>>,
    http1: Mutex<HashMap<Key, Vec<Http1Sender>>>,
    /// TLS clusters' settings, read for the snapshot generation last pruned for.
    tls: Mutex<HashMap<String, Result<Arc<UpstreamTls>, String>>>,
    /// The snapshot generation the pools were last pruned for.
    pruned: std::sync::atomic::AtomicU64,
    balancers: Mutex<HashMap<String, ClusterLb>>,
}

/// An endpoint chosen for a call.
pub struct Chosen {
    /// Its address.
    pub addr: SocketAddr,
    /// The cluster's `connect_timeout_ms`.
    pub connect_timeout: Duration,
    /// The cluster's `max_payload`.
    pub max_payload: u32,
    /// Its cluster's TLS, if it has `[clusters.NAME.tls]`.
    tls: Option<Arc<UpstreamTls>>,
    /// Its cluster's index in the snapshot's clusters.
    cluster: usize,
    /// What all workers know of it: its health, its calls in flight.
    shared: Arc<SharedEndpoint>,
    /// Counted in `shared.active` (least-request clusters count their calls in flight).
    counted: bool,
}

impl Chosen {
    /// The call went through: its endpoint's run of failures is over.
    pub fn succeeded(&self) {
        self.shared.health.success();
    }

    /// The endpoint failed the call (no connection, no answer in time): counted towards its
    /// outlier ejection, as Dubbo 2 calls' failures are.
    pub fn failed(&self, snap: &Snapshot, now: Instant) {
        let name = &snap.routes.clusters[self.cluster];
        let (Some(spec), Some(all)) = (snap.config.clusters.get(name), snap.endpoints.get(name))
        else {
            return;
        };
        let ejected = all.iter().filter(|e| e.health.ejected_at(now)).count();
        if self.shared.failed(now, spec, (ejected, all.len())) {
            tracing::warn!(cluster = %name, endpoint = %self.addr, "endpoint ejected after consecutive failures (Triple)");
        }
    }
}

impl Drop for Chosen {
    fn drop(&mut self) {
        if self.counted {
            self.shared.active.fetch_sub(1, Relaxed);
        }
    }
}

impl Upstreams {
    /// Chooses an endpoint of cluster `ci` of `snap` (`generation`: the snapshot's, from
    /// [`Shared::generation`](crate::core::Shared::generation)).
    pub fn pick(
        &self,
        snap: &Snapshot,
        generation: u64,
        ci: usize,
        now: Instant,
    ) -> Result<Chosen, UpstreamError> {
        self.prune(snap, generation);
        let name = &snap.routes.clusters[ci];
        let spec = &snap.config.clusters[name];
        let shared = &snap.endpoints[name];
        let none = || UpstreamError::NoEndpoint(name.clone());
        let tls = match &spec.tls {
            None => None,
            Some(config) => Some(self.cluster_tls(name, config)?),
        };
        let mut lbs = self.balancers.lock().unwrap_or_else(|p| p.into_inner());
        let fits = |c: &ClusterLb| {
            c.addrs.len() == spec.endpoints.len()
                && c.addrs
                    .iter()
                    .zip(&spec.endpoints)
                    .all(|(a, e)| *a == e.address)
        };
        if !lbs.get(name).is_some_and(fits) {
            let c = ClusterLb {
                addrs: spec.endpoints.iter().map(|e| e.address.clone()).collect(),
                weights: spec.endpoints.iter().map(|e| e.weight).collect(),
                lb: Balancer::new(spec.lb.into(), spec.endpoints.len(), fastrand::u64(..)),
            };
            lbs.insert(name.clone(), c);
        }
        let c = lbs.get_mut(name).ok_or_else(none)?;
        let ejected = |i: usize| shared.get(i).is_some_and(|e| e.health.ejected_at(now));
        let all_ejected = (0..shared.len()).all(ejected);
        let i =
            c.lb.pick(
                &c.weights,
                |i| all_ejected || !ejected(i),
                |i| shared.get(i).map_or(0, |e| e.active.load(Relaxed)),
            )
            .ok_or_else(none)?;
        let addr = spec.endpoints[i].address.parse().map_err(|_| none())?;
        let shared = shared.get(i).ok_or_else(none)?.clone();
        let counted = spec.lb == LbPolicy::LeastRequest;
        if counted {
            shared.active.fetch_add(1, Relaxed);
        }
        Ok(Chosen {
            addr,
            connect_timeout: Duration::from_millis(spec.connect_timeout_ms),
            max_payload: spec.max_payload,
            tls,
            cluster: ci,
            shared,
            counted,
        })
    }

    /// A connection to `chosen`'s endpoint ready for a new stream: the pooled one, or a new
    /// one.
    pub async fn sender(&self, chosen: &Chosen) -> Result<SendRequest<Bytes>, UpstreamError> {
        let key = chosen.key();
        let pooled = self.lock().get(&key).cloned();
        if let Some(send) = pooled {
            match send.ready().await {
                Ok(send) => return Ok(send),
                // Gone (GOAWAY, reset, closed): replaced below.
                Err(_) => {
                    self.lock().remove(&key);
                }
            }
        }
        let tcp = connect(chosen).await?;
        let send = match &chosen.tls {
            None => h2_handshake(chosen.addr, tcp).await?,
            Some(tls) => {
                let tls = tls
                    .handshake(chosen.addr, tcp, Alpn::H2)
                    .await
                    .map_err(|e| UpstreamError::Tls(chosen.addr, e))?;
                h2_handshake(chosen.addr, tls).await?
            }
        };
        self.lock().insert(key, send.clone());
        send.ready()
            .await
            .map_err(|e| UpstreamError::Handshake(chosen.addr, e))
    }

    /// The Dubbo connection to `chosen`'s endpoint (for bridged calls), made on its first call:
    /// dubbo-rpc's client, which reconnects when a call finds it closed and sends Dubbo's
    /// heartbeats.
    pub fn dubbo_client(&self, chosen: &Chosen) -> dubbo_rpc::client::Client {
        let mut clients = self.dubbo.lock().unwrap_or_else(|p| p.into_inner());
        clients
            .entry(chosen.key())
            .or_insert_with(|| {
                let config = dubbo_rpc::client::ClientConfig::default()
                    .connect_timeout(chosen.connect_timeout)
                    .max_payload(chosen.max_payload);
                let addr = chosen.addr.to_string();
                match &chosen.tls {
                    None => dubbo_rpc::client::Client::lazy(addr, config),
                    Some(tls) => {
                        dubbo_rpc::client::Client::lazy_tls(addr, config, tls.dubbo().clone())
                    }
                }
            })
            .clone()
    }

    /// An HTTP/1.1 connection to `chosen`'s endpoint that can take a request now: a pooled
    /// idle one, or a new one. HTTP/1.1 carries one exchange at a time, so a call takes a
    /// connection for itself and gives it back ([`Upstreams::give_back_http1`]) once its
    /// answer is under way.
    pub async fn http1(&self, chosen: &Chosen) -> Result<Http1Sender, UpstreamError> {
        {
            let mut pools = self.http1.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(pool) = pools.get_mut(&chosen.key()) {
                pool.retain(|s| !s.is_closed());
                if let Some(i) = pool.iter().position(|s| s.is_ready()) {
                    return Ok(pool.swap_remove(i));
                }
            }
        }
        let tcp = connect(chosen).await?;
        match &chosen.tls {
            None => http1_handshake(chosen.addr, tcp).await,
            Some(tls) => {
                let tls = tls
                    .handshake(chosen.addr, tcp, Alpn::Http1)
                    .await
                    .map_err(|e| UpstreamError::Tls(chosen.addr, e))?;
                http1_handshake(chosen.addr, tls).await
            }
        }
    }

    /// Puts an HTTP/1.1 connection to `chosen`'s endpoint back in the pool (a call takes it
    /// once it is idle again).
    pub fn give_back_http1(&self, chosen: &Chosen, sender: Http1Sender) {
        let mut pools = self.http1.lock().unwrap_or_else(|p| p.into_inner());
        let pool = pools.entry(chosen.key()).or_default();
        if pool.len() < HTTP1_IDLE {
            pool.push(sender);
        }
    }

    /// After a reload (a new `generation`), drops the pooled connections to addresses no
    /// cluster has any more: a provider taken out is not kept connected. A dropped handle
    /// lets the calls on its connection finish; the connection closes after them.
    fn prune(&self, snap: &Snapshot, generation: u64) {
        if self.pruned.swap(generation, Relaxed) == generation {
            return;
        }
        let known: std::collections::HashSet<SocketAddr> = snap
            .config
            .clusters
            .values()
            .flat_map(|c| &c.endpoints)
            .filter_map(|e| e.address.parse().ok())
            .collect();
        self.lock().retain(|(a, _), _| known.contains(a));
        self.dubbo
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|(a, _), _| known.contains(a));
        self.http1
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|(a, _), _| known.contains(a));
        // Read again from the files on the next call (a reload may have changed them);
        // connections already made keep their sessions.
        self.tls.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }

    /// The TLS of cluster `name`, read from `config`'s files on its first call after a
    /// (re)load.
    fn cluster_tls(
        &self,
        name: &str,
        config: &crate::config::ClusterTls,
    ) -> Result<Arc<UpstreamTls>, UpstreamError> {
        let mut all = self.tls.lock().unwrap_or_else(|p| p.into_inner());
        // Looked up by `&str` first: a call to a TLS cluster allocates nothing once read.
        let read = match all.get(name) {
            Some(read) => read,
            None => all.entry(name.to_owned()).or_insert_with(|| {
                UpstreamTls::read(config).map(Arc::new).inspect_err(|e| {
                    tracing::error!(cluster = %name, "cluster TLS: {e}; no Triple connection is opened");
                })
            }),
        };
        read.clone()
            .map_err(|e| UpstreamError::ClusterTls(name.to_owned(), e))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, SendRequest<Bytes>>> {
        self.conns.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Chosen {
    fn key(&self) -> Key {
        (self.addr, self.tls.is_some())
    }
}

/// A TCP connection to `chosen`'s endpoint within its cluster's `connect_timeout_ms`.
async fn connect(chosen: &Chosen) -> Result<TcpStream, UpstreamError> {
    let addr = chosen.addr;
    let tcp = match tokio::time::timeout(chosen.connect_timeout, TcpStream::connect(addr)).await {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => return Err(UpstreamError::Connect(addr, e)),
        Err(_) => return Err(UpstreamError::ConnectTimeout(addr)),
    };
    let _ = tcp.set_nodelay(true);
    Ok(tcp)
}

/// HTTP/2's handshake over `io`; its connection task runs on its own.
async fn h2_handshake<T>(addr: SocketAddr, io: T) -> Result<SendRequest<Bytes>, UpstreamError>
where
    T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    // A provider's response headers are bounded as dubbo-rpc's client bounds them.
    let (send, conn) = h2::client::Builder::new()
        .max_header_list_size(64 * 1024)
        .initial_window_size(super::relay::STREAM_WINDOW)
        .initial_connection_window_size(super::relay::CONNECTION_WINDOW)
        .handshake(io)
        .await
        .map_err(|e| UpstreamError::Handshake(addr, e))?;
    tokio::spawn(async move {
        if let Err(e) = conn.await {
            tracing::debug!("triple upstream {addr}: {e}");
        }
    });
    Ok(send)
}

/// HTTP/1.1's handshake over `io`; its connection task runs on its own.
async fn http1_handshake<T>(addr: SocketAddr, io: T) -> Result<Http1Sender, UpstreamError>
where
    T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (send, conn) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(io))
        .await
        .map_err(|e| UpstreamError::Http1(addr, e))?;
    tokio::spawn(async move {
        if let Err(e) = conn.await {
            tracing::debug!("triple http/1.1 upstream {addr}: {e}");
        }
    });
    Ok(send)
}
