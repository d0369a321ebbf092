//! Connections coming and going: callers accepted, provider connections opened, and any
//! connection gone (a provider's takes only its own calls in flight with it).

use super::*;

impl Worker {
    /// The name of the cluster provider connection `up` belongs to.
    pub fn upstream_cluster(&self, up: Key) -> Option<&str> {
        let u = self.ups.get(up.idx()).filter(|u| u.gen == up.gen())?;
        Some(self.clusters.get(u.cluster as usize)?.name.as_str())
    }

    /// The caller on `down` proved `identity` (its TLS client certificate's URI SAN or CN).
    pub fn set_downstream_identity(&mut self, down: Key, identity: std::sync::Arc<str>) {
        if let Some(d) = self
            .downs
            .get_mut(down.idx())
            .filter(|d| d.gen == down.gen())
        {
            d.identity = Some(identity);
        }
    }

    /// The caller on `down` connects from `source` (routes' `allow_sources` and
    /// `deny_sources` match it; without it, a route with either refuses the caller's calls).
    pub fn set_downstream_source(&mut self, down: Key, source: std::net::IpAddr) {
        if let Some(d) = self
            .downs
            .get_mut(down.idx())
            .filter(|d| d.gen == down.gen())
        {
            d.source = Some(source);
        }
    }

    /// A caller connected to listener `listener` (index in the configuration), if the
    /// listener's `max_connections` allow one more; `None`: close it at once (it is counted as
    /// rejected).
    pub fn try_open_downstream(&mut self, listener: usize, now: Instant) -> Option<Key> {
        let l = listener.min(self.snap.config.listeners.len() - 1);
        let max = self.snap.config.listeners[l].max_connections;
        if let Some(ls) = self.shared.metrics.listeners.get(l) {
            // Counted first, so that workers accepting at once cannot both take the last
            // place.
            if ls.open.fetch_add(1, Relaxed) >= max as i64 {
                ls.open.fetch_sub(1, Relaxed);
                ls.rejected.fetch_add(1, Relaxed);
                tracing::warn!(
                    listener = %ls.name,
                    max_connections = max,
                    "connection refused: the listener has max_connections open"
                );
                return None;
            }
        }
        Some(self.insert_down(listener, now))
    }

    /// A caller connected to listener `listener` (index in the configuration), whatever
    /// its `max_connections` (engines call [`Worker::try_open_downstream`]).
    #[cfg(any(test, feature = "internals"))]
    pub fn open_downstream(&mut self, listener: usize, now: Instant) -> Key {
        let l = listener.min(self.snap.config.listeners.len() - 1);
        if let Some(ls) = self.shared.metrics.listeners.get(l) {
            ls.open.fetch_add(1, Relaxed);
        }
        self.insert_down(listener, now)
    }

    fn insert_down(&mut self, listener: usize, now: Instant) -> Key {
        let l = &self.snap.config.listeners[listener.min(self.snap.config.listeners.len() - 1)];
        let codec = FrameCodec::with_max_payload(l.max_payload);
        let max_inflight = l.max_inflight;
        let millis = |ms: u64| (ms > 0).then(|| Duration::from_millis(ms));
        let idle_timeout = millis(l.idle_timeout_ms);
        let frame_timeout = millis(l.frame_timeout_ms);
        let first_frame_timeout = millis(l.first_frame_timeout_ms);
        let gen = self.next_gen();
        let idx = self.downs.insert(Down {
            gen,
            listener: listener as u32,
            codec,
            out: Outbox::with_capacity(outbox::ROOM),
            inflight: 0,
            last_frame: now,
            idle_timeout,
            partial_since: None,
            frame_timeout,
            awaiting_first_frame: true,
            sniffed: false,
            handed_off: false,
            first_frame_timeout,
            closing: false,
            backed_up: false,
            pause: Pause::default(),
            read_held: 0,
            counted: 0,
            max_inflight,
            serialization: dubbo_codec::Serialization::Hessian2.id(),
            identity: None,
            source: None,
        });
        self.shared
            .metrics
            .downstream_accepted
            .fetch_add(1, Relaxed);
        self.shared
            .metrics
            .downstream_connections
            .fetch_add(1, Relaxed);
        let key = Key::new(idx, gen);
        if self.draining {
            self.send_read_only(key);
        }
        key
    }

    /// A caller is gone: its calls in flight leave the id map now (their answers, if any
    /// come, are dropped as unknown) instead of waiting for their timeouts, and those not
    /// written to their provider yet (waiting in a backed-up or still connecting
    /// connection's outbox) are taken out: the provider never gets them. A frame partly
    /// written stays whole.
    fn drop_calls_of(&mut self, down: Key) {
        let mut ids = std::mem::take(&mut self.ids);
        let mut holes = std::mem::take(&mut self.holes);
        holes.clear();
        self.inflight.ids_where(&mut ids, |c| c.down == down);
        for &id in &ids {
            let Some(call) = self.inflight.remove(id) else {
                continue;
            };
            let Some(u) = self
                .ups
                .get_mut(call.up.idx())
                .filter(|u| u.gen == call.up.gen())
            else {
                continue;
            };
            if call.at >= u.out.start() {
                holes.push((call.up, call.at, call.len));
            }
            u.inflight = u.inflight.saturating_sub(1);
            let (ci, ei) = (u.cluster as usize, u.endpoint as usize);
            if u.cluster == ORPHAN {
                if u.inflight == 0 {
                    self.orphan(call.up);
                }
            } else if let Some(ep) = self
                .clusters
                .get_mut(ci)
                .and_then(|c| c.endpoints.get_mut(ei))
            {
                ep.calls_ended(1);
            }
        }
        ids.clear();
        self.ids = ids;
        if !holes.is_empty() {
            self.drop_frames(&mut holes);
        }
        self.holes = holes;
    }

    /// Takes the frames `(connection, offset, length)` out of their provider connections'
    /// outboxes, and moves the offsets of the calls behind them up.
    #[cold]
    fn drop_frames(&mut self, holes: &mut [(Key, u64, u32)]) {
        holes.sort_unstable_by_key(|&(up, at, _)| (up.to_u64(), at));
        let dropped = holes.len() as u64;
        for group in holes.chunk_by(|a, b| a.0 == b.0) {
            let up = group[0].0;
            let frames: Vec<(u64, u32)> = group.iter().map(|&(_, at, len)| (at, len)).collect();
            self.ups[up.idx()].out.remove(&frames);
            // Bytes removed before each offset, to move the calls behind them up.
            let mut before = Vec::with_capacity(frames.len() + 1);
            before.push(0u64);
            for &(_, len) in &frames {
                before.push(before[before.len() - 1] + u64::from(len));
            }
            self.inflight.for_each_mut(|c| {
                if c.up == up {
                    c.at -= before[frames.partition_point(|&(at, _)| at < c.at)];
                }
            });
            // Written or removed, the bytes left the outbox: it may be released.
            self.written(Conn::Up(up));
        }
        self.shared
            .metrics
            .calls_dropped
            .fetch_add(dropped, Relaxed);
        tracing::debug!(
            calls = dropped,
            "caller closed: its calls not yet written to a provider were dropped"
        );
    }

    /// A provider connection opened.
    pub fn upstream_connected(&mut self, up: Key, now: Instant) {
        let Some(u) = self.ups.get_mut(up.idx()).filter(|u| u.gen == up.gen()) else {
            return;
        };
        if u.state != UpState::Connecting {
            return;
        }
        u.state = UpState::Ready;
        u.connected = true;
        u.last_read = now;
        u.gauge.fetch_add(1, Relaxed);
        if !u.out.is_empty() {
            self.effects.push_back(Effect::Flush(Conn::Up(up)));
        }
        let (ci, ei, si) = (u.cluster as usize, u.endpoint as usize, u.slot as usize);
        self.probe_connected(ci, ei, up, now);
        if let Some(c) = self.clusters.get_mut(ci) {
            let base = Duration::from_millis(c.spec.reconnect_base_ms);
            if let Some(s) = c.endpoints.get_mut(ei).and_then(|e| e.slots.get_mut(si)) {
                s.backoff = base;
            }
        }
    }

    /// A connection is gone: the peer closed it, an I/O error, a failed connect, or after
    /// an [`Effect::Close`]. Calls in flight on a provider connection are answered with
    /// CHANNEL_INACTIVE (SERVICE_ERROR if it never opened); other connections are untouched.
    pub fn closed(&mut self, conn: Conn, now: Instant) {
        match conn {
            Conn::Down(k) => {
                if self.downs.get(k.idx()).is_none_or(|d| d.gen != k.gen()) {
                    return;
                }
                let d = self.downs.remove(k.idx());
                self.budget.release(d.counted, &self.shared.metrics);
                let m = &self.shared.metrics;
                m.memory.freed(d.out.capacity());
                if !d.handed_off {
                    m.downstream_connections.fetch_sub(1, Relaxed);
                    if let Some(ls) = m.listeners.get(d.listener as usize) {
                        ls.open.fetch_sub(1, Relaxed);
                    }
                }
                if d.pause.is_paused() {
                    m.paused_connections.fetch_sub(1, Relaxed);
                }
                if d.pause.has(Pause::UPSTREAM) {
                    self.blocked.retain(|&(down, _)| down != k);
                }
                if d.inflight > 0 {
                    self.drop_calls_of(k);
                }
            }
            Conn::Up(k) => {
                if self.ups.get(k.idx()).is_none_or(|u| u.gen != k.gen()) {
                    return;
                }
                let u = self.ups.remove(k.idx());
                self.shared.metrics.memory.freed(u.out.capacity());
                // Callers paused for it resume (a call they send now finds another
                // connection, or none: then an answer at once).
                self.unblock(|_| false);
                if u.backed_up {
                    u.hstats.backed_up.fetch_sub(1, Relaxed);
                    self.shared
                        .metrics
                        .upstream_backed_up_connections
                        .fetch_sub(1, Relaxed);
                }
                if u.cluster != ORPHAN {
                    self.probe_lost(u.cluster as usize, u.endpoint as usize, k, now);
                }
                if u.connected {
                    u.gauge.fetch_sub(1, Relaxed);
                }
                let reason = if u.connected {
                    Reason::UpstreamLost
                } else {
                    Reason::ConnectFailed
                };
                let mut ids = std::mem::take(&mut self.ids);
                self.inflight.ids_where(&mut ids, |c| c.up == k);
                for &id in &ids {
                    if let Some(call) = self.inflight.remove(id) {
                        self.finish_local(call, reason, now);
                    }
                }
                self.ids = ids;
                if u.cluster == ORPHAN {
                    return;
                }
                let (ci, ei, si) = (u.cluster as usize, u.endpoint as usize, u.slot as usize);
                // One failure for losing a connection that carried calls (a heartbeat
                // timeout was counted when it happened).
                if u.connected && u.inflight > 0 && !u.blamed {
                    self.endpoint_failure(ci, ei, now);
                }
                if let Some(c) = self.clusters.get_mut(ci) {
                    let max = Duration::from_millis(c.spec.reconnect_max_ms);
                    let base = Duration::from_millis(c.spec.reconnect_base_ms);
                    if let Some(ep) = c.endpoints.get_mut(ei) {
                        ep.calls_ended(u.inflight);
                        if let Some(s) = ep.slots.get_mut(si).filter(|s| s.up == Some(k)) {
                            s.up = None;
                            // A connection that worked is retried soon; one that never
                            // opened backs off, doubling.
                            if u.connected {
                                s.backoff = base;
                            } else {
                                s.backoff = (s.backoff * 2).clamp(base, max);
                            }
                            s.retry_at = Some(now + s.backoff);
                        }
                    }
                }
            }
        }
    }
}
