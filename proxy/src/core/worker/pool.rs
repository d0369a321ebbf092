//! The upstream pool: clusters and endpoints built from a configuration snapshot (kept across
//! reloads), connections opened and re-opened, and the choice of an endpoint and connection
//! for a call (balancer, ejection, read-only providers).

use super::*;

impl EndpointState {
    /// A call to it starts on this worker.
    #[inline]
    pub(super) fn call_started(&mut self) {
        self.active += 1;
        if self.least {
            self.shared.active.fetch_add(1, Relaxed);
        }
    }

    /// `n` calls to it on this worker ended (answered, failed, or dropped).
    #[inline]
    pub(super) fn calls_ended(&mut self, n: u32) {
        let n = n.min(self.active);
        self.active -= n;
        if self.least && n > 0 {
            self.shared.active.fetch_sub(n, Relaxed);
        }
    }

    /// Points it at the shared state of a new snapshot (the same one unless the endpoint
    /// left its cluster and came back) and its cluster's policy: this worker's calls in
    /// flight move to the count the policy reads.
    fn attach(&mut self, shared: &Arc<SharedEndpoint>, least: bool) {
        if Arc::ptr_eq(&self.shared, shared) && self.least == least {
            return;
        }
        self.leave();
        if !Arc::ptr_eq(&self.shared, shared) {
            // Fresh health: a probe claimed on the old one is not this one's.
            self.probe = None;
            self.shared = shared.clone();
        }
        self.least = least;
        if least {
            self.shared.active.fetch_add(self.active, Relaxed);
        }
    }

    /// It leaves this worker's view: its calls in flight here no longer count.
    fn leave(&self) {
        if self.least {
            self.shared.active.fetch_sub(self.active, Relaxed);
        }
    }
}

impl Worker {
    /// Picks up a new snapshot if one was published (SIGHUP, `/metadata`, discovery).
    #[inline]
    pub fn refresh(&mut self, now: Instant) {
        let g = self.shared.generation();
        if g != self.seen {
            self.seen = g;
            let snap = self.shared.snapshot();
            self.apply_snapshot(snap, now);
        }
    }

    pub(super) fn apply_snapshot(&mut self, snap: Arc<Snapshot>, now: Instant) {
        // Route stats: worker-stable indexes, so calls in flight across a reload still count.
        self.route_slot.clear();
        for r in &snap.routes.routes {
            let pos = match self.route_stats.iter().position(|(n, _)| *n == r.name) {
                Some(p) => p,
                None => {
                    self.route_stats.push((r.name.clone(), r.stats.clone()));
                    self.route_stats.len() - 1
                }
            };
            self.route_slot.push(pos as u32);
        }
        self.scratch = snap.routes.scratch();
        self.unrouted = snap.routes.unrouted.clone();

        // Clusters: keep the state (connections, health, balancer position) of every
        // endpoint that is still there; orphan the connections of those that are not.
        let mut old = std::mem::take(&mut self.clusters);
        let mut new = Vec::with_capacity(snap.routes.clusters.len());
        for (ci, name) in snap.routes.clusters.iter().enumerate() {
            let spec = snap.config.clusters[name].clone();
            let prev = old.iter_mut().find(|c| c.name == *name);
            // Same endpoints in the same order (weights may differ: discovery, warm-up): the
            // balancer's state still fits.
            let same_endpoints = |p: &ClusterState| {
                p.spec.endpoints.len() == spec.endpoints.len()
                    && p.spec
                        .endpoints
                        .iter()
                        .zip(&spec.endpoints)
                        .all(|(a, b)| a.address == b.address)
            };
            let lb = match &prev {
                Some(p) if p.spec.lb == spec.lb && same_endpoints(p) => p.lb.clone(),
                _ => Balancer::new(
                    spec.lb.into(),
                    spec.endpoints.len(),
                    (self.id as u64) << 32 | ci as u64,
                ),
            };
            let mut prev_eps = prev.map(|p| std::mem::take(&mut p.endpoints));
            let mut endpoints = Vec::with_capacity(spec.endpoints.len());
            let least = spec.lb == config::LbPolicy::LeastRequest;
            for (e, shared) in spec.endpoints.iter().zip(&snap.endpoints[name]) {
                let addr: SocketAddr = e.address.parse().expect("validated address");
                let kept = prev_eps
                    .as_mut()
                    .and_then(|v| v.iter().position(|x| x.addr == addr).map(|i| v.remove(i)));
                let mut ep = kept.unwrap_or_else(|| EndpointState {
                    addr,
                    slots: Vec::new(),
                    rr: 0,
                    shared: shared.clone(),
                    active: 0,
                    least,
                    gauge: self.shared.metrics.endpoint(name, &e.address),
                    probe: None,
                });
                ep.attach(shared, least);
                // A Triple-only cluster's calls go through the Triple pipeline: no Dubbo
                // connections to its providers.
                let connections = match spec.protocol {
                    config::ProviderProtocol::Tri => 0,
                    _ => spec.connections,
                };
                while ep.slots.len() > connections {
                    if let Some(k) = ep.slots.pop().and_then(|s| s.up) {
                        self.orphan(k);
                    }
                }
                ep.slots.resize(
                    connections,
                    Slot {
                        up: None,
                        retry_at: Some(now),
                        backoff: Duration::from_millis(spec.reconnect_base_ms),
                    },
                );
                endpoints.push(ep);
            }
            for ep in prev_eps.into_iter().flatten() {
                ep.leave();
                for s in ep.slots {
                    if let Some(k) = s.up {
                        self.orphan(k);
                    }
                }
            }
            new.push(ClusterState {
                name: name.clone(),
                stats: self.shared.metrics.cluster(name),
                weights: spec.endpoints.iter().map(|e| e.weight).collect(),
                lb,
                spec,
                endpoints,
            });
        }
        for c in old {
            for ep in c.endpoints {
                ep.leave();
                for s in ep.slots {
                    if let Some(k) = s.up {
                        self.orphan(k);
                    }
                }
            }
        }
        self.clusters = new;
        // Re-point the connections that were kept.
        for (ci, c) in self.clusters.iter_mut().enumerate() {
            for (ei, ep) in c.endpoints.iter().enumerate() {
                for (si, s) in ep.slots.iter().enumerate() {
                    if let Some(k) = s.up {
                        if let Some(u) = self.ups.get_mut(k.idx()) {
                            u.cluster = ci as u32;
                            u.endpoint = ei as u32;
                            u.slot = si as u32;
                            u.codec.set_max_payload(c.spec.max_payload);
                        }
                    }
                }
            }
        }
        self.marks = Watermarks::from_limits(&snap.config.limits);
        self.snap = snap;
        // Clusters and endpoints may have changed under the callers paused for them.
        self.unblock(|_| true);
        self.connect_due(now);
    }

    /// A provider connection that no longer belongs to a cluster: no new calls; closed once
    /// its calls in flight are done.
    pub(super) fn orphan(&mut self, k: Key) {
        if let Some(u) = self.ups.get_mut(k.idx()) {
            u.cluster = ORPHAN;
            if u.inflight == 0 && u.state != UpState::Closing {
                u.state = UpState::Closing;
                self.effects.push_back(Effect::Close(Conn::Up(k)));
            }
        }
    }

    /// Opens the connections whose retry time has come.
    pub(super) fn connect_due(&mut self, now: Instant) {
        if self.draining {
            return;
        }
        for ci in 0..self.clusters.len() {
            for ei in 0..self.clusters[ci].endpoints.len() {
                for si in 0..self.clusters[ci].endpoints[ei].slots.len() {
                    let s = &self.clusters[ci].endpoints[ei].slots[si];
                    if s.up.is_none() && s.retry_at.is_some_and(|t| t <= now) {
                        self.connect(ci, ei, si, now);
                    }
                }
            }
        }
    }

    pub(super) fn connect(&mut self, ci: usize, ei: usize, si: usize, now: Instant) {
        let gen = self.next_gen();
        let c = &self.clusters[ci];
        let ep = &c.endpoints[ei];
        let idx = self.ups.insert(Up {
            gen,
            cluster: ci as u32,
            endpoint: ei as u32,
            slot: si as u32,
            state: UpState::Connecting,
            codec: FrameCodec::with_max_payload(c.spec.max_payload),
            out: Outbox::with_capacity(outbox::ROOM),
            inflight: 0,
            last_read: now,
            heartbeat_sent: None,
            stats: c.stats.clone(),
            gauge: ep.gauge.clone(),
            hstats: ep.shared.metrics.clone(),
            connected: false,
            blamed: false,
            backed_up: false,
        });
        let key = Key::new(idx, gen);
        let addr = ep.addr;
        let timeout = Duration::from_millis(c.spec.connect_timeout_ms);
        let slot = &mut self.clusters[ci].endpoints[ei].slots[si];
        slot.up = Some(key);
        slot.retry_at = None;
        self.effects.push_back(Effect::Connect {
            up: key,
            addr,
            timeout,
        });
        // Room in the cluster: calls queue on a connection being opened.
        self.unblock(|u| u.cluster == ci as u32);
    }

    /// Chooses an endpoint of cluster `ci` and one of its connections.
    ///
    /// Ejected endpoints are skipped unless every endpoint is ejected (then ejection would
    /// only turn calls into errors: route as if none were, like Envoy's panic mode). Prefer
    /// endpoints with an open connection; at start (or after every connection dropped) queue
    /// on one that is connecting rather than fail the call. A backed-up connection (its
    /// provider is not reading as fast as calls come) is taken only when no other can take
    /// the call (then the one with the least waiting, whatever the balancer says), and
    /// never once past the hard cap: then there is no connection, and the caller is told
    /// the provider cannot take it now.
    pub(super) fn pick(&mut self, ci: usize, now: Instant) -> Option<(usize, Key)> {
        const PASSES: [UpState; 2] = [UpState::Ready, UpState::Connecting];
        let ups = &self.ups;
        let cap = self.marks.cap;
        let c = &mut self.clusters[ci];
        let n = c.endpoints.len();
        let ejected = c
            .endpoints
            .iter()
            .filter(|e| e.shared.health.ejected_at(now))
            .count();
        let ClusterState {
            lb,
            weights,
            endpoints,
            ..
        } = c;
        for state in PASSES {
            let takes = |k: Key| {
                let u = &ups[k.idx()];
                u.state == state && !u.backed_up
            };
            let chosen = lb.pick(
                weights,
                |i| {
                    let e = &endpoints[i];
                    let allowed = match state {
                        UpState::Ready => ejected == n || !e.shared.health.ejected_at(now),
                        _ => !e.shared.health.ejected_at(now),
                    };
                    allowed && e.slots.iter().any(|s| s.up.is_some_and(takes))
                },
                // Only least-request asks: all workers' calls in flight.
                |i| endpoints[i].shared.active.load(Relaxed),
            );
            let Some(ei) = chosen else { continue };
            let ep = &mut endpoints[ei];
            let m = ep.slots.len();
            for k in 0..m {
                let si = (ep.rr + k) % m;
                if let Some(key) = ep.slots[si].up {
                    if takes(key) {
                        ep.rr = (si + 1) % m;
                        return Some((ei, key));
                    }
                }
            }
        }
        // Every connection is backed up: the one with the least waiting, under the cap.
        let mut best: Option<(usize, usize, Key)> = None;
        for (ei, e) in endpoints.iter().enumerate() {
            if ejected < n && e.shared.health.ejected_at(now) {
                continue;
            }
            for k in e.slots.iter().filter_map(|s| s.up) {
                let u = &ups[k.idx()];
                let len = u.out.len();
                if matches!(u.state, UpState::Ready | UpState::Connecting)
                    && len <= cap
                    && best.is_none_or(|(l, _, _)| len < l)
                {
                    best = Some((len, ei, k));
                }
            }
        }
        best.map(|(_, ei, k)| (ei, k))
    }

    pub(super) fn endpoint_failure(&mut self, ci: usize, ei: usize, now: Instant) {
        let Some(c) = self.clusters.get_mut(ci) else {
            return;
        };
        let ejected = c
            .endpoints
            .iter()
            .filter(|e| e.shared.health.ejected_at(now))
            .count();
        let n = c.endpoints.len();
        if let Some(ep) = c.endpoints.get_mut(ei) {
            if ep.shared.failed(now, &c.spec, (ejected, n)) {
                tracing::warn!(cluster = %c.name, endpoint = %ep.addr, "endpoint ejected after consecutive failures");
                ep.probe = None;
            }
        }
    }
}
