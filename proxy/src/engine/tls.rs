//! A connection's TLS session on the engine's own socket, the same for both engines:
//! rustls's `Connection` is sans-I/O, so the engine keeps reading and writing the socket
//! itself (its readiness, its edge-triggered wake-ups; any [`Wire`]) and the session turns
//! records into plaintext for the core and the core's answers into records.

use std::cell::{Cell, RefCell};
use std::io::{self, IoSlice, Read, Write};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use rustls::pki_types::ServerName;
use rustls::{ClientConnection, Connection, ServerConnection};

use crate::config::Listener;
use crate::core::handshakes::Permit;
use crate::core::metrics_tls::{TlsMetrics, TlsRefusal};
use crate::core::{Conn, Key, Shared, Worker};
use crate::triple::tls_io::{Socket, Wire};

/// The first byte of a TLS handshake record (a caller's first byte on a TLS listener).
const HANDSHAKE_RECORD: u8 = 0x16;
/// Raw bytes read at a time: one largest TLS record and its header.
const RAW_CHUNK: usize = 16 * 1024 + 512;
/// Plaintext the session holds for the socket at most: past it the core's outbox keeps the
/// rest, and its backpressure applies as without TLS.
const SEND_BUFFER: usize = 64 * 1024;

/// What a listener's callers meet first.
#[derive(Clone)]
pub(super) enum Door {
    /// Plain TCP.
    Plain,
    /// TLS: the configuration, the handshake timeout and `max_handshakes_per_ip`.
    Tls(Arc<rustls::ServerConfig>, Duration, usize),
    /// TLS whose files could not be read when the worker started: every caller is closed
    /// (serving them in plain text would be worse).
    Broken,
}

impl Door {
    /// The door of `listener`, logging why a TLS one could not be built.
    pub(super) fn of(listener: &Listener) -> Door {
        let Some(tls) = &listener.tls else {
            return Door::Plain;
        };
        match tls.build() {
            Ok(config) => Door::Tls(
                config,
                Duration::from_millis(tls.handshake_timeout_ms),
                tls.max_handshakes_per_ip,
            ),
            Err(e) => {
                tracing::error!(listener = %listener.name, "listener TLS: {e}; its callers are closed");
                Door::Broken
            }
        }
    }
}

/// A worker's TLS configurations, its listeners' doors and its TLS clusters', read from the
/// PEM files when it starts and again after each configuration reload (SIGHUP), so that
/// renewed certificates and keys are taken up without a restart: new connections use them,
/// open ones keep their sessions. A reload is refused when its files cannot be read; should
/// one become unreadable between that check and this reading, the listener keeps its door.
pub(super) struct Doors {
    /// The reloads counted (`dubbo_proxy_config_reloads_total`) when these were read.
    reloads: u64,
    /// Each listener's door, by listener index.
    pub(super) listeners: Vec<Door>,
    /// The clusters whose providers are spoken to over TLS, by name.
    pub(super) clusters: std::collections::HashMap<String, Upstream>,
}

impl Doors {
    /// Reads the TLS files of `shared`'s configuration.
    pub(super) fn of(shared: &crate::core::Shared) -> Doors {
        let reloads = shared
            .metrics
            .reloads
            .load(std::sync::atomic::Ordering::Acquire);
        let snap = shared.snapshot();
        Doors {
            reloads,
            listeners: snap.config.listeners.iter().map(Door::of).collect(),
            clusters: Upstream::of_clusters(&snap.config.clusters),
        }
    }

    /// Reads the files again if the configuration was reloaded since they were read.
    pub(super) fn refresh(&mut self, shared: &crate::core::Shared) {
        let reloads = shared
            .metrics
            .reloads
            .load(std::sync::atomic::Ordering::Acquire);
        if reloads == self.reloads {
            return;
        }
        let mut fresh = Doors::of(shared);
        for (new, old) in fresh.listeners.iter_mut().zip(&self.listeners) {
            if matches!(new, Door::Broken) {
                *new = old.clone();
            }
        }
        *self = fresh;
        tracing::info!("TLS certificates and keys read again after the reload");
    }

    /// How a caller from `peer` accepted on listener `listener` is met, with the files read
    /// again first if the configuration was reloaded. A TLS caller whose address has
    /// `max_handshakes_per_ip` handshakes under way is closed, counted and logged.
    pub(super) fn welcome(
        &mut self,
        shared: &Shared,
        listener: usize,
        peer: Option<SocketAddr>,
    ) -> Welcome {
        self.refresh(shared);
        match self.listeners.get(listener) {
            None | Some(Door::Plain) => Welcome::Plain,
            Some(Door::Broken) => Welcome::Closed,
            Some(Door::Tls(config, timeout, max)) => {
                let permit = match peer {
                    Some(peer) => match shared.handshakes.begin(peer.ip(), *max) {
                        Some(permit) => Some(permit),
                        None => {
                            shared
                                .metrics
                                .tls
                                .refused(Some(peer), &TlsRefusal::Crowded(*max));
                            return Welcome::Closed;
                        }
                    },
                    None => None,
                };
                match Session::server(config.clone(), permit) {
                    Ok(session) => Welcome::Tls(Box::new(session), *timeout),
                    Err(e) => {
                        tracing::error!("listener TLS: {e}");
                        Welcome::Closed
                    }
                }
            }
        }
    }

    /// How provider connection `up` is made, if its cluster has TLS (the files read again
    /// first if the configuration was reloaded).
    pub(super) fn upstream(&mut self, worker: &Worker, up: Key) -> Option<Upstream> {
        self.refresh(worker.shared());
        worker
            .upstream_cluster(up)
            .and_then(|name| self.clusters.get(name).cloned())
    }
}

/// How a caller is met at its listener's door.
pub(super) enum Welcome {
    /// In plain text.
    Plain,
    /// With a TLS session whose handshake must finish within the duration.
    Tls(Box<Session>, Duration),
    /// Not at all: closed at once.
    Closed,
}

/// What both engines do once a session's handshake finished: count it, and give the core a
/// caller's identity (from its client certificate) for its access rules and access log.
pub(super) fn handshake_done(
    worker: &mut Worker,
    conn: Conn,
    tls: &Session,
    peer: impl FnOnce() -> Option<SocketAddr>,
) {
    let metrics = &worker.shared().metrics.tls;
    metrics
        .handshakes
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if let (Some(identity), Conn::Down(down)) = (tls.peer_identity(), conn) {
        tracing::debug!(peer = ?peer(), %identity, "TLS caller identified");
        worker.set_downstream_identity(down, Arc::from(identity.as_str()));
    }
}

/// Counts and logs a connection closed at the TLS door: a caller's, or a provider's.
pub(super) fn refused(
    metrics: &TlsMetrics,
    conn: Conn,
    peer: Option<SocketAddr>,
    why: &TlsRefusal,
) {
    match conn {
        Conn::Down(_) => metrics.refused(peer, why),
        Conn::Up(_) => metrics.upstream_refused(peer, why),
    }
}

/// How the proxy connects to a cluster's providers: TLS, or TLS whose files could not be read
/// when the worker started (no connection is opened: plain text would be worse).
#[derive(Clone)]
pub(super) enum Upstream {
    Tls(dubbo_rpc::tls::ClientTls),
    Broken,
}

impl Upstream {
    /// The clusters with `[clusters.NAME.tls]`, by name.
    pub(super) fn of_clusters(
        clusters: &std::collections::BTreeMap<String, crate::config::Cluster>,
    ) -> std::collections::HashMap<String, Upstream> {
        let tls = clusters
            .iter()
            .filter_map(|(n, c)| Some((n, c.tls.as_ref()?)));
        tls.map(|(name, tls)| {
            let door = tls.build().map(Upstream::Tls).unwrap_or_else(|e| {
                tracing::error!(cluster = %name, "cluster TLS: {e}; no connection is opened");
                Upstream::Broken
            });
            (name.clone(), door)
        })
        .collect()
    }

    /// A session with the provider at `addr`.
    pub(super) fn session(&self, addr: std::net::SocketAddr) -> Result<Session, String> {
        let Upstream::Tls(tls) = self else {
            return Err("its TLS files could not be read".into());
        };
        let name = tls
            .server_name_for(&addr.to_string())
            .map_err(|e| e.to_string())?;
        Session::client(tls.config().clone(), name).map_err(|e| e.to_string())
    }
}

/// What one read of the socket gave.
pub(super) enum Got {
    /// Plaintext appended to the buffer (maybe none: a handshake message); whether the read
    /// emptied the socket's receive queue.
    Plain { drained: bool },
    /// The caller closed (TCP, or TLS's close_notify).
    Eof,
    /// The caller is refused.
    Refused(TlsRefusal),
}

/// One connection's session: a caller's (server side) or a provider's (client side).
pub(super) struct Session {
    /// `None` once a caller's session went to the Triple pipeline with its socket.
    conn: RefCell<Option<Connection>>,
    /// A caller's, no byte read yet: the first tells a TLS caller from a plain one.
    fresh: Cell<bool>,
    /// The handshake finished (and was counted).
    done: Cell<bool>,
    /// A caller's place among its address's handshakes under way, given back when the
    /// handshake finishes or the session goes.
    permit: Cell<Option<Permit>>,
}

impl Session {
    /// A caller's session, holding `permit` until its handshake finishes.
    pub(super) fn server(
        config: Arc<rustls::ServerConfig>,
        permit: Option<Permit>,
    ) -> Result<Session, rustls::Error> {
        let session = Session::of(ServerConnection::new(config)?.into(), true);
        session.permit.set(permit);
        Ok(session)
    }

    /// A session with a provider verified for `name`; its ClientHello waits to be written.
    pub(super) fn client(
        config: Arc<rustls::ClientConfig>,
        name: ServerName<'static>,
    ) -> Result<Session, rustls::Error> {
        Ok(Session::of(
            ClientConnection::new(config, name)?.into(),
            false,
        ))
    }

    fn of(mut conn: Connection, fresh: bool) -> Session {
        conn.set_buffer_limit(Some(SEND_BUFFER));
        Session {
            conn: RefCell::new(Some(conn)),
            fresh: Cell::new(fresh),
            done: Cell::new(false),
            permit: Cell::new(None),
        }
    }

    /// Whether the handshake finished.
    pub(super) fn handshaken(&self) -> bool {
        self.done.get()
    }

    /// Reads what the socket has (`WouldBlock` when nothing), decrypts it and appends the
    /// plaintext to `buf`. Returns true in `handshake_done` the once the handshake finishes.
    pub(super) fn read(
        &self,
        stream: &impl Wire,
        buf: &mut BytesMut,
        handshake_done: &mut bool,
    ) -> io::Result<Got> {
        let mut raw = [0u8; RAW_CHUNK];
        let n = stream.recv(&mut raw)?;
        if n == 0 {
            return Ok(Got::Eof);
        }
        if self.fresh.replace(false) && raw[0] != HANDSHAKE_RECORD {
            return Ok(Got::Refused(TlsRefusal::Plaintext));
        }
        let mut conn = self.conn.borrow_mut();
        let conn = conn.as_mut().ok_or(io::ErrorKind::NotConnected)?;
        let mut records = &raw[..n];
        while !records.is_empty() {
            conn.read_tls(&mut records)?;
            if let Err(e) = conn.process_new_packets() {
                // The alert that says why, if the socket takes it.
                let _ = conn.write_tls(&mut Socket(stream));
                return Ok(Got::Refused(TlsRefusal::Handshake(e.to_string())));
            }
            if !conn.is_handshaking() && !self.done.replace(true) {
                *handshake_done = true;
                self.permit.take();
            }
            let mut chunk = [0u8; 4096];
            loop {
                match conn.reader().read(&mut chunk) {
                    Ok(0) => return Ok(Got::Eof),
                    Ok(k) => buf.extend_from_slice(&chunk[..k]),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(Got::Plain {
            drained: n < RAW_CHUNK,
        })
    }

    /// Writes the records the session holds; false when the socket would block first.
    pub(super) fn flush(&self, stream: &impl Wire) -> io::Result<bool> {
        let mut conn = self.conn.borrow_mut();
        let Some(conn) = conn.as_mut() else {
            return Ok(true);
        };
        while conn.wants_write() {
            match conn.write_tls(&mut Socket(stream)) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }

    /// Takes plaintext from `out` (how much: at most what the send buffer has room for) and
    /// writes its records. `WouldBlock` while records wait for the socket; `Ok(0)` for an
    /// empty `out` with nothing waiting, and while a handshake not finished yet holds as much
    /// plaintext as the send buffer takes (reading its next message makes room).
    pub(super) fn write(&self, stream: &impl Wire, out: &[IoSlice<'_>]) -> io::Result<usize> {
        if !self.flush(stream)? {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        if out.iter().all(|s| s.is_empty()) {
            return Ok(0);
        }
        let n = {
            let mut conn = self.conn.borrow_mut();
            let conn = conn.as_mut().ok_or(io::ErrorKind::NotConnected)?;
            conn.writer().write_vectored(out)?
        };
        self.flush(stream)?;
        Ok(n)
    }

    /// The identity in the caller's verified client certificate.
    pub(super) fn peer_identity(&self) -> Option<dubbo_rpc::identity::PeerIdentity> {
        let conn = self.conn.borrow();
        dubbo_rpc::tls::peer_identity(conn.as_ref()?.peer_certificates())
    }

    /// A caller's session, taken out for the Triple pipeline (which goes on with it).
    pub(super) fn take_server(&self) -> Option<rustls::ServerConnection> {
        match self.conn.borrow_mut().take()? {
            Connection::Server(server) => Some(server),
            Connection::Client(_) => None,
        }
    }
}
