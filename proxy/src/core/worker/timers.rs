//! Time: call timeouts, the proxy's own heartbeats, probes, reconnects, idle callers, and the
//! drain after SIGTERM.

use super::*;

impl Worker {
    /// When [`Worker::tick`] next has something to do. The engine sleeps until then, or
    /// until [`Worker::take_rearm`] says an earlier deadline appeared.
    pub fn next_deadline(&mut self) -> Instant {
        let d = match self.inflight.next_deadline() {
            Some(d) => d.min(self.next_housekeeping),
            None => self.next_housekeeping,
        };
        self.armed = d;
        self.rearm = false;
        d
    }

    /// True (once) when a call with a deadline earlier than the last
    /// [`Worker::next_deadline`] arrived since.
    #[inline]
    pub fn take_rearm(&mut self) -> bool {
        std::mem::take(&mut self.rearm)
    }

    /// Time passed: call timeouts, then (every 100 ms) heartbeats, reconnects, idle
    /// connections and the shutdown drain.
    pub fn tick(&mut self, now: Instant) {
        self.refresh(now);
        while let Some((_, call)) = self.inflight.pop_expired(now) {
            self.finish_local(call, Reason::Timeout, now);
        }
        if now >= self.next_housekeeping {
            self.next_housekeeping = now + HOUSEKEEPING;
            self.housekeeping_round = self.housekeeping_round.wrapping_add(1);
            self.housekeeping(now);
        }
    }

    pub(super) fn housekeeping(&mut self, now: Instant) {
        self.connect_due(now);
        self.resume_memory_paused();
        // Heartbeats: the proxy's own, on provider connections with nothing read for a
        // while; one left unanswered means the connection is dead.
        let mut dead = std::mem::take(&mut self.ids);
        dead.clear();
        for (idx, u) in self.ups.iter_mut() {
            if !matches!(u.state, UpState::Ready | UpState::ReadOnly) {
                continue;
            }
            let Some(c) = self.clusters.get(u.cluster as usize) else {
                continue;
            };
            let hc = &c.spec.health_check;
            if hc.interval_ms == 0 {
                continue;
            }
            match u.heartbeat_sent {
                Some(t)
                    if now.saturating_duration_since(t) >= Duration::from_millis(hc.timeout_ms) =>
                {
                    dead.push(Key::new(idx, u.gen).to_u64());
                }
                None if now.saturating_duration_since(u.last_read)
                    >= Duration::from_millis(hc.interval_ms) =>
                {
                    self.event_id = self.event_id.wrapping_add(1);
                    let f = Frame::heartbeat_request(self.event_id);
                    push_frame(
                        &mut self.effects,
                        Conn::Up(Key::new(idx, u.gen)),
                        &mut u.out,
                        true,
                        &f.header().to_bytes(),
                        f.body(),
                    );
                    u.heartbeat_sent = Some(now);
                }
                _ => {}
            }
        }
        for &raw in &dead {
            let k = Key::new((raw & 0xffff_ffff) as usize, (raw >> 32) as u32);
            let u = &mut self.ups[k.idx()];
            u.state = UpState::Closing;
            u.blamed = true;
            let (ci, ei) = (u.cluster as usize, u.endpoint as usize);
            tracing::warn!("provider connection missed its heartbeat: closing it");
            self.effects.push_back(Effect::Close(Conn::Up(k)));
            self.endpoint_failure(ci, ei, now);
        }
        dead.clear();
        self.ids = dead;
        self.probes(now);

        // Every second: outboxes a burst grew and the last second did not need give their
        // room back (to the system, by `crate::memory`), and so do tables.
        if self.housekeeping_round % 10 == 0 {
            let downs = self.downs.iter_mut().map(|(_, d)| &mut d.out);
            let ups = self.ups.iter_mut().map(|(_, u)| &mut u.out);
            let freed: usize = downs.chain(ups).map(Outbox::release_oversized).sum();
            // Tables a burst or a fault grew give their room back once far less is used.
            let freed = freed
                + self.inflight.shrink()
                + crate::memory::shrink_idle(&mut self.downs, DOWNS_ROOM)
                + crate::memory::shrink_idle(&mut self.ups, UPS_ROOM)
                + crate::memory::shrink_idle(&mut self.effects, EFFECTS_ROOM);
            self.shared.metrics.memory.freed(freed);
        }

        // Idle and slow callers (every second), and the drain after the read-only event.
        if self.draining || self.housekeeping_round % 10 == 0 {
            let draining = self.draining;
            let metrics = &self.shared.metrics;
            for (idx, d) in self.downs.iter_mut() {
                if d.closing {
                    continue;
                }
                let idle = now.saturating_duration_since(d.last_frame);
                let close = if draining {
                    d.inflight == 0 && idle >= DRAIN_QUIET
                } else if let Some(slow) = d.slow(now) {
                    // A paused connection is not read: its frames wait on the proxy, not
                    // on the caller.
                    metrics.slow_closed[slow as usize].fetch_add(1, Relaxed);
                    true
                } else {
                    d.idle_timeout.is_some_and(|t| idle >= t)
                };
                if close {
                    d.closing = true;
                    self.effects
                        .push_back(Effect::Close(Conn::Down(Key::new(idx, d.gen))));
                }
            }
        }
    }

    /// SIGTERM: tell every caller that this server is going away (the read-only event, as a
    /// Java provider does), keep serving what they still send, and close each caller
    /// connection once it is quiet. Stops reconnecting to providers.
    pub fn begin_shutdown(&mut self, now: Instant) {
        if self.draining {
            return;
        }
        self.draining = true;
        self.next_housekeeping = now;
        self.rearm = true;
        let keys: Vec<Key> = self
            .downs
            .iter()
            .map(|(idx, d)| Key::new(idx, d.gen))
            .collect();
        for k in keys {
            self.send_read_only(k);
        }
    }

    pub(super) fn send_read_only(&mut self, down: Key) {
        self.event_id = self.event_id.wrapping_add(1);
        if let Some(d) = self.downs.get_mut(down.idx()) {
            let (serialization, body) = self.replies.read_only(d.serialization);
            let h = Header::request(self.event_id, serialization, false)
                .with_event(true)
                .with_body_len(body.len() as u32);
            push_frame(
                &mut self.effects,
                Conn::Down(down),
                &mut d.out,
                true,
                &h.to_bytes(),
                body,
            );
        }
    }

    /// True once shutting down and every caller connection is closed.
    pub fn is_drained(&self) -> bool {
        self.draining && self.downs.is_empty()
    }
}

impl Down {
    /// Why this caller is too slow to keep, if it is: a frame begun and not finished within
    /// `frame_timeout`, or no frame at all within `first_frame_timeout`. Never while its reads
    /// are paused for its answers, its calls in flight or its providers (then the proxy, not
    /// the caller, holds its frames back).
    fn slow(&self, now: Instant) -> Option<SlowCaller> {
        // Paused for memory, it is closed all the same: a frame that cannot finish while
        // memory is short must not keep the memory short.
        if self.pause.paused_but_for(Pause::MEMORY) {
            return None;
        }
        let over = |since: Instant, limit: Option<Duration>| {
            limit.is_some_and(|t| now.saturating_duration_since(since) >= t)
        };
        if self
            .partial_since
            .is_some_and(|since| over(since, self.frame_timeout))
        {
            Some(SlowCaller::PartialFrame)
        } else if self.awaiting_first_frame && over(self.last_frame, self.first_frame_timeout) {
            Some(SlowCaller::NoFrame)
        } else {
            None
        }
    }
}
