//! Backpressure: outboxes measured against the watermarks after every frame added and every
//! write, caller reads paused and resumed (for their own answers, their calls in flight, or
//! the provider connections their calls go to), callers that do not read closed. See
//! [`flow`](crate::core::flow).

use super::*;

impl Worker {
    /// The engine wrote from a connection's outbox (and advanced it). Releases a connection
    /// that was backed up once its outbox is down to the low watermark: a caller's reads
    /// resume ([`Effect::ResumeRead`]), a provider connection takes calls again. Returns
    /// true when there are effects to apply. Cheap when nothing was backed up: engines call
    /// it after every write.
    #[inline]
    pub fn written(&mut self, conn: Conn) -> bool {
        match conn {
            Conn::Down(k) => {
                self.account(k, None);
                let marks = self.marks;
                let Some(d) = self.live_down(k) else {
                    return false;
                };
                if !d.backed_up {
                    return false;
                }
                if marks.written(&mut d.backed_up, d.out.len()) == Change::Released {
                    self.set_pause(k, Pause::OUTBOX, false);
                }
            }
            Conn::Up(k) => {
                let Some(u) = self.ups.get_mut(k.idx()).filter(|u| u.gen == k.gen()) else {
                    return false;
                };
                if u.backed_up
                    && self.marks.written(&mut u.backed_up, u.out.len()) == Change::Released
                {
                    u.hstats.backed_up.fetch_sub(1, Relaxed);
                    self.shared
                        .metrics
                        .upstream_backed_up_connections
                        .fetch_sub(1, Relaxed);
                    tracing::debug!("provider connection caught up: it takes calls again");
                    let ci = u.cluster;
                    self.unblock(|u| u.cluster == ci);
                }
            }
        }
        !self.effects.is_empty()
    }

    /// True (once) when frames were added to an outbox over the high watermark since the
    /// last call. The engine should write what waits before it reads more: a burst read in
    /// one go must not look like a peer that does not read (a connection is judged by what
    /// it has not taken once the engine tried to write, not by what one turn of reads piled
    /// up). Never true in steady state, where outboxes stay below the watermark.
    #[inline]
    pub fn take_pressure(&mut self) -> bool {
        std::mem::take(&mut self.pressure)
    }

    /// Frames were added to a caller's outbox (`down` is live).
    #[inline]
    pub(super) fn down_pushed(&mut self, down: Key) {
        self.account(down, None);
        if self.check_answers(down) {
            return;
        }
        let len = self.downs[down.idx()].out.len();
        self.note_outbox(len);
        let d = &mut self.downs[down.idx()];
        let change = self.marks.pushed(&mut d.backed_up, len);
        self.pressure |= d.backed_up;
        match change {
            Change::Same | Change::Released => {}
            Change::BackedUp => self.set_pause(down, Pause::OUTBOX, true),
            Change::Overflow => self.overflow(down),
        }
    }

    /// Frames were added to a provider connection's outbox (`up` is live).
    #[inline]
    pub(super) fn up_pushed(&mut self, up: Key) {
        let len = self.ups[up.idx()].out.len();
        self.note_outbox(len);
        let u = &mut self.ups[up.idx()];
        let was = u.backed_up;
        self.marks.pushed(&mut u.backed_up, len);
        // A backed-up outbox that grew: the engine writes before it reads more.
        self.pressure |= u.backed_up;
        if u.backed_up && !was {
            u.hstats.backed_up.fetch_add(1, Relaxed);
            self.shared
                .metrics
                .upstream_backed_up_connections
                .fetch_add(1, Relaxed);
            tracing::debug!(
                bytes = len,
                "provider connection backed up (the provider is not reading): calls go elsewhere"
            );
        }
    }

    #[inline]
    fn live_down(&mut self, k: Key) -> Option<&mut Down> {
        self.downs.get_mut(k.idx()).filter(|d| d.gen == k.gen())
    }

    /// The outbox high-water metric, updated only when this worker sees a new maximum (no
    /// shared write in steady state).
    #[inline]
    fn note_outbox(&mut self, len: usize) {
        if len > self.seen_outbox {
            self.seen_outbox = len;
            self.shared.metrics.outbox_seen(len);
        }
    }

    /// Sets or clears a reason for pausing a caller's reads; tells the engine when reads stop
    /// or resume.
    pub(super) fn set_pause(&mut self, down: Key, reason: u8, on: bool) {
        let change = match self.live_down(down) {
            Some(d) => d.pause.set(reason, on),
            None => return,
        };
        let m = &self.shared.metrics;
        match change {
            Some(true) => {
                m.paused_connections.fetch_add(1, Relaxed);
                m.read_pauses.fetch_add(1, Relaxed);
                self.effects.push_back(Effect::PauseRead(Conn::Down(down)));
            }
            Some(false) => {
                m.paused_connections.fetch_sub(1, Relaxed);
                self.effects.push_back(Effect::ResumeRead(Conn::Down(down)));
            }
            None => {}
        }
    }

    /// One call of a caller ended (answered, timed out, failed): a caller paused for
    /// `max_inflight` resumes once a quarter of its calls are answered.
    #[inline]
    pub(super) fn down_call_done(&mut self, down: Key) {
        let Some(d) = self.live_down(down) else {
            return;
        };
        d.inflight = d.inflight.saturating_sub(1);
        if d.pause.has(Pause::INFLIGHT) && d.inflight <= inflight_resume_at(d.max_inflight) {
            self.set_pause(down, Pause::INFLIGHT, false);
        }
    }

    /// The call just sent by `down` had to go on `up`, backed up like every connection it
    /// could go on: the caller is not read until its cluster has room ([`Worker::unblock`]).
    #[cold]
    pub(super) fn block_on(&mut self, down: Key, up: Key) {
        match self.live_down(down) {
            Some(d) if !d.closing && !d.pause.has(Pause::UPSTREAM) => {}
            _ => return,
        }
        self.shared
            .metrics
            .upstream_read_pauses
            .fetch_add(1, Relaxed);
        self.blocked.push((down, up));
        self.set_pause(down, Pause::UPSTREAM, true);
    }

    /// Resumes the callers paused for a provider connection that is gone, no longer backed
    /// up, or for which `room` holds (a connection of its cluster caught up or was opened):
    /// their next call finds a connection with room, or pauses them again. Nothing to do in
    /// steady state (no caller is paused for a provider).
    pub(super) fn unblock(&mut self, room: impl Fn(&Up) -> bool) {
        if self.blocked.is_empty() {
            return;
        }
        let mut blocked = std::mem::take(&mut self.blocked);
        blocked.retain(|&(down, up)| {
            let waits = self
                .ups
                .get(up.idx())
                .filter(|u| u.gen == up.gen())
                .is_some_and(|u| u.backed_up && !room(u));
            if !waits {
                self.set_pause(down, Pause::UPSTREAM, false);
            }
            waits && self.live_down(down).is_some()
        });
        // `set_pause` does not add to the list: nothing was lost by taking it.
        self.blocked = blocked;
    }

    /// A caller's answers piled up past the hard cap: it is closed, what waits for it
    /// dropped (its calls leave the id map when the engine reports it closed).
    #[cold]
    pub(super) fn overflow(&mut self, down: Key) {
        let d = &mut self.downs[down.idx()];
        if d.closing {
            return;
        }
        tracing::warn!(
            bytes = d.out.len(),
            inflight = d.inflight,
            "caller does not read its answers: past limits.outbox_hard_cap, closing it"
        );
        d.out.clear();
        self.shared.metrics.overflow_closed.fetch_add(1, Relaxed);
        self.close_down(down);
    }

    /// Why no connection of cluster `ci` could take a call: BackedUp when some connection
    /// that could have taken it is past the hard cap, else NoUpstream.
    #[cold]
    pub(super) fn no_pick_reason(&self, ci: usize) -> Reason {
        let c = &self.clusters[ci];
        let backed_up = c.endpoints.iter().any(|e| {
            e.slots.iter().any(|s| {
                s.up.is_some_and(|k| {
                    let u = &self.ups[k.idx()];
                    u.out.len() > self.marks.cap
                        && matches!(u.state, UpState::Ready | UpState::Connecting)
                })
            })
        });
        if backed_up {
            self.shared.metrics.upstream_backed_up.fetch_add(1, Relaxed);
            Reason::BackedUp
        } else {
            Reason::NoUpstream
        }
    }
}
