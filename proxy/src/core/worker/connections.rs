//! Connections coming and going: callers accepted, provider connections opened, and any
//! connection gone (a provider's takes only its own calls in flight with it).

use super::*;

impl Worker {
    /// A caller connected to listener `listener` (index in the configuration).
    pub fn open_downstream(&mut self, listener: usize, now: Instant) -> Key {
        let l = &self.snap.config.listeners[listener.min(self.snap.config.listeners.len() - 1)];
        let codec = FrameCodec::with_max_payload(l.max_payload);
        let idle = (l.idle_timeout_ms > 0).then(|| Duration::from_millis(l.idle_timeout_ms));
        let gen = self.next_gen();
        let idx = self.downs.insert(Down {
            gen,
            listener: listener as u32,
            codec,
            out: Outbox::with_capacity(16 * 1024),
            inflight: 0,
            last_frame: now,
            idle_timeout: idle,
            closing: false,
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
                if self.downs.get(k.idx()).is_some_and(|d| d.gen == k.gen()) {
                    self.downs.remove(k.idx());
                    self.shared
                        .metrics
                        .downstream_connections
                        .fetch_sub(1, Relaxed);
                }
            }
            Conn::Up(k) => {
                if self.ups.get(k.idx()).is_none_or(|u| u.gen != k.gen()) {
                    return;
                }
                let u = self.ups.remove(k.idx());
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
                        ep.active = ep.active.saturating_sub(u.inflight);
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
