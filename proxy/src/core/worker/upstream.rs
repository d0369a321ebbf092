//! The provider side: responses matched to their callers by the rewritten id and sent back
//! with the caller's id restored; heartbeats and read-only events from providers.

use super::*;

impl Worker {
    /// Bytes arrived from a provider.
    pub fn upstream_data(&mut self, up: Key, buf: &mut BytesMut, now: Instant) {
        loop {
            let Some(u) = self.ups.get_mut(up.idx()).filter(|u| u.gen == up.gen()) else {
                buf.clear();
                return;
            };
            u.last_read = now;
            u.heartbeat_sent = None;
            match u.codec.decode_frame(buf) {
                Ok(Some(frame)) => self.upstream_frame(up, frame, now),
                Ok(None) => return,
                Err(DecodeError::PayloadTooLarge { header, .. }) => {
                    if header.is_response() && !header.is_event() {
                        if let Some(call) = self
                            .inflight
                            .get(header.request_id())
                            .copied()
                            .filter(|c| c.up == up)
                        {
                            self.inflight.remove(header.request_id());
                            self.finish_local(call, Reason::OversizeResponse, now);
                        }
                    }
                }
                Err(_) => {
                    buf.clear();
                    if u.state != UpState::Closing {
                        u.state = UpState::Closing;
                        self.effects.push_back(Effect::Close(Conn::Up(up)));
                    }
                    return;
                }
            }
        }
    }

    /// One whole frame from a provider.
    pub fn upstream_frame(&mut self, up: Key, frame: Frame, now: Instant) {
        let h = *frame.header();
        if h.is_event() {
            if h.is_request() {
                let Some(u) = self.ups.get_mut(up.idx()) else {
                    return;
                };
                match frame.event() {
                    Some(Event::Heartbeat) if h.is_two_way() => {
                        let resp = Header::new(
                            h.serialization_id(),
                            Status::Ok.as_u8(),
                            h.request_id(),
                            h.body_len(),
                        )
                        .with_event(true);
                        let ready = matches!(u.state, UpState::Ready | UpState::ReadOnly);
                        push_frame(
                            &mut self.effects,
                            Conn::Up(up),
                            &mut u.out,
                            ready,
                            &resp.to_bytes(),
                            frame.body(),
                        );
                    }
                    Some(Event::ReadOnly) if u.state == UpState::Ready => {
                        u.state = UpState::ReadOnly;
                        let ep = self
                            .clusters
                            .get(u.cluster as usize)
                            .and_then(|c| c.endpoints.get(u.endpoint as usize))
                            .map(|e| e.addr);
                        tracing::info!(endpoint = ?ep, "provider is shutting down (read-only event): no new calls to it");
                    }
                    Some(Event::Writeable) if u.state == UpState::ReadOnly => {
                        u.state = UpState::Ready;
                    }
                    _ => {}
                }
            }
            // An event response answers our heartbeat (`last_read` was updated already), or
            // a probe.
            if h.is_response() {
                self.probe_answered(up, h.request_id(), now);
            }
            return;
        }
        if h.is_request() {
            // A provider calling back into a consumer: not supported, dropped.
            return;
        }
        let id = h.request_id();
        let Some(call) = self.inflight.get(id).copied().filter(|c| c.up == up) else {
            // Timed out already, or not ours.
            return;
        };
        self.inflight.remove(id);
        let status = h.status_byte();
        let latency = now.saturating_duration_since(call.start);
        let u = &mut self.ups[up.idx()];
        u.inflight = u.inflight.saturating_sub(1);
        u.stats.response(self.id, status, latency, false);
        let (ci, ei) = (u.cluster as usize, u.endpoint as usize);
        if u.cluster != ORPHAN {
            if is_failure_status(status) {
                self.endpoint_failure(ci, ei, now);
            }
            if let Some(ep) = self
                .clusters
                .get_mut(ci)
                .and_then(|c| c.endpoints.get_mut(ei))
            {
                ep.calls_ended(1);
                if !is_failure_status(status) {
                    ep.shared.health.success();
                }
            }
        } else if self.ups[up.idx()].inflight == 0 {
            self.orphan(up);
        }
        let (route_name, route_stats) = &self.route_stats[call.route as usize];
        route_stats.response(self.id, status, latency, false);
        if !self.shared.downgraded() && self.snap.config.log.access_log {
            let identity = self
                .downs
                .get(call.down.idx())
                .filter(|d| d.gen == call.down.gen())
                .and_then(|d| d.identity.as_deref())
                .unwrap_or("-");
            tracing::info!(target: "dubbo_proxy::access", route = %route_name, status, latency_us = latency.as_micros() as u64, caller_id = call.down_id, identity);
        }
        self.down_call_done(call.down);
        if let Some(d) = self
            .downs
            .get_mut(call.down.idx())
            .filter(|d| d.gen == call.down.gen() && !d.closing)
        {
            let header = Header::new(h.flag(), status, call.down_id, h.body_len());
            forward_frame(
                &mut self.effects,
                Conn::Down(call.down),
                &mut d.out,
                true,
                &header.to_bytes(),
                frame.body(),
                self.by_ref,
            );
            self.down_pushed(call.down);
        }
    }
}
