//! The caller side: frames from callers, heartbeats answered locally, routing, forwarding with
//! the request id rewritten, and the answers the proxy makes itself.

use super::*;
use crate::config::ProviderProtocol;
use crate::core::access::Caller;

impl Worker {
    /// Bytes arrived from a caller. Whole frames are taken off the front of `buf`.
    pub fn downstream_data(&mut self, down: Key, buf: &mut BytesMut, now: Instant) {
        self.refresh(now);
        loop {
            let Some(d) = self
                .downs
                .get_mut(down.idx())
                .filter(|d| d.gen == down.gen())
            else {
                buf.clear();
                return;
            };
            if d.closing {
                buf.clear();
                return;
            }
            if d.pause.is_paused() {
                // Reads are paused: the rest waits in the engine's buffer until they resume.
                self.account(down, Some(buf.len()));
                return;
            }
            if !d.sniffed {
                match sniff(buf) {
                    Sniff::Dubbo => d.sniffed = true,
                    Sniff::NeedMore => {
                        // `first_frame_timeout` bounds a caller that stops here.
                        self.account(down, Some(buf.len()));
                        return;
                    }
                    Sniff::Http2 | Sniff::Http1 => {
                        // Triple's (HTTP/2, or its HTTP/1.1 form): the engine takes the socket
                        // and `buf` as they are.
                        d.closing = true;
                        d.handed_off = true;
                        self.effects.push_back(Effect::HandOff {
                            conn: Conn::Down(down),
                            listener: d.listener as usize,
                        });
                        return;
                    }
                    Sniff::Unknown => {
                        self.shared.metrics.protocol_errors.fetch_add(1, Relaxed);
                        buf.clear();
                        self.close_down(down);
                        return;
                    }
                }
                continue;
            }
            match d.codec.decode_frame(buf) {
                Ok(Some(frame)) => {
                    d.last_frame = now;
                    d.partial_since = None;
                    d.awaiting_first_frame = false;
                    self.downstream_frame(down, frame, now);
                }
                Ok(None) => {
                    // Part of a frame (or of an oversize body being skipped) is here: the
                    // clock of `frame_timeout` runs from when it began.
                    let partial = !buf.is_empty() || d.codec.is_discarding();
                    d.partial_since = if partial {
                        d.partial_since.or(Some(now))
                    } else {
                        None
                    };
                    let held = buf.len();
                    self.account(down, Some(held));
                    if held > 0 {
                        self.check_partial(down);
                    }
                    return;
                }
                Err(DecodeError::PayloadTooLarge { header, .. }) => {
                    d.last_frame = now;
                    d.awaiting_first_frame = false;
                    if header.is_request() && header.is_two_way() && !header.is_event() {
                        self.unrouted.request(self.id);
                        let ser = header.serialization_id();
                        self.reply(down, header.request_id(), Reason::Oversize, ser);
                        self.unrouted.response(
                            self.id,
                            Reason::Oversize.status().as_u8(),
                            Duration::ZERO,
                            true,
                        );
                    }
                }
                Err(_) => {
                    // Not a Dubbo stream (or lost its place): nothing can be answered.
                    self.shared.metrics.protocol_errors.fetch_add(1, Relaxed);
                    buf.clear();
                    self.close_down(down);
                    return;
                }
            }
        }
    }

    pub(super) fn close_down(&mut self, down: Key) {
        if let Some(d) = self
            .downs
            .get_mut(down.idx())
            .filter(|d| d.gen == down.gen())
        {
            if !d.closing {
                d.closing = true;
                self.effects.push_back(Effect::Close(Conn::Down(down)));
            }
        }
    }

    /// One whole frame from a caller (engines that frame themselves call this directly).
    pub fn downstream_frame(&mut self, down: Key, frame: Frame, now: Instant) {
        let h = *frame.header();
        if h.is_event() {
            // A two-way event is a heartbeat (Java sends its other events one-way); in a
            // serialization the proxy cannot read it is taken for one too.
            let heartbeat = frame.is_heartbeat() || BodyFormat::of(h.serialization()).is_none();
            if h.is_request() && h.is_two_way() && heartbeat {
                // Answered here, in the request's serialization, with its body (`null`),
                // as Java's HeartbeatHandler does. Never forwarded.
                let resp = Header::new(
                    h.serialization_id(),
                    Status::Ok.as_u8(),
                    h.request_id(),
                    h.body_len(),
                )
                .with_event(true);
                if let Some(d) = self.downs.get_mut(down.idx()) {
                    push_frame(
                        &mut self.effects,
                        Conn::Down(down),
                        &mut d.out,
                        true,
                        &resp.to_bytes(),
                        frame.body(),
                    );
                    self.down_pushed(down);
                }
                self.shared
                    .metrics
                    .heartbeats_answered
                    .fetch_add(1, Relaxed);
            }
            return;
        }
        if !h.is_request() {
            // A response from a caller would answer a callback: not supported, dropped.
            return;
        }
        let two_way = h.is_two_way();
        let ser = h.serialization_id();

        // Route. Field-level borrows: the snapshot and the scratch, nothing else.
        let d = &mut self.downs[down.idx()];
        d.serialization = ser;
        let listener = d.listener as usize;
        let caller = Caller {
            identity: d.identity.as_deref(),
            source: d.source,
        };
        // Route, then admit on the route (its access rules and rate limit).
        let decision = {
            let snap = &*self.snap;
            let routes = &snap.routes;
            let found = match BodyFormat::of(h.serialization()) {
                Some(format) => match peek(frame.body(), format, routes.needs, &mut self.scratch) {
                    Err(_) => Err(Reason::BadBody),
                    Ok(call) => routes
                        .find(listener, &call, &self.scratch, &snap.cache)
                        .map(|r| (r, routes.admit(r, &caller, Some(&call.method), now))),
                },
                // Unreadable: routed only by a route that needs nothing from the body.
                None => routes
                    .find_blind(listener)
                    .map(|r| (r, routes.admit(r, &caller, None, now))),
            };
            found.map(|(r, admitted)| {
                let route = &routes.routes[r];
                (r, route.cluster, route.timeout, admitted)
            })
        };
        // The caller's identity as the attachment its listener names (`Some(None)`: the
        // body cannot carry it, and is refused rather than forwarded with what the caller
        // put under the name).
        let rewritten = identity_attachment(&self.snap, listener).map(|key| {
            let identity = self.downs[down.idx()].identity.as_deref();
            let hessian2 = ser == dubbo_codec::Serialization::Hessian2.id();
            hessian2
                .then(|| crate::core::identity::with_identity(frame.body(), key, identity))
                .flatten()
        });
        let decision = match rewritten {
            Some(None) => decision.and(Err(Reason::BadBody)),
            _ => decision,
        };
        let body = rewritten.flatten();
        let body = body.as_ref().unwrap_or(frame.body());
        let body_len = u32::try_from(body.len()).unwrap_or(u32::MAX);
        let (route, cluster, timeout, admitted) = match decision {
            Ok(d) => d,
            Err(reason) => {
                self.unrouted.request(self.id);
                if two_way {
                    self.reply(down, h.request_id(), reason, ser);
                    self.unrouted
                        .response(self.id, reason.status().as_u8(), Duration::ZERO, true);
                }
                return;
            }
        };
        let route_stats = self.route_slot[route];
        let stats = &self.route_stats[route_stats as usize].1;
        stats.request(self.id);
        if let Err(reason) = admitted {
            if two_way {
                self.reply(down, h.request_id(), reason, ser);
                self.route_stats[route_stats as usize].1.response(
                    self.id,
                    reason.status().as_u8(),
                    Duration::ZERO,
                    true,
                );
            }
            return;
        }
        self.clusters[cluster].stats.request(self.id);
        if self.clusters[cluster].spec.protocol == ProviderProtocol::Tri {
            return self.bridge(down, frame, route_stats, cluster, timeout, now);
        }

        let Some((ei, up)) = self.pick(cluster, now) else {
            if two_way {
                let reason = self.no_pick_reason(cluster);
                self.reply(down, h.request_id(), reason, ser);
                let st = reason.status().as_u8();
                self.route_stats[route_stats as usize].1.response(
                    self.id,
                    st,
                    Duration::ZERO,
                    true,
                );
                self.clusters[cluster]
                    .stats
                    .response(self.id, st, Duration::ZERO, true);
            }
            return;
        };

        // Forward: the frame as it arrived, with only the request id replaced.
        let id = if two_way {
            let id = self.inflight.insert(
                InFlight {
                    down,
                    down_id: h.request_id(),
                    up,
                    route: route_stats,
                    len: 16 + body_len,
                    at: self.ups[up.idx()].out.end(),
                    start: now,
                    serialization: ser,
                },
                timeout,
            );
            if now + timeout < self.armed {
                self.rearm = true;
            }
            let d = &mut self.downs[down.idx()];
            d.inflight += 1;
            if d.inflight >= d.max_inflight {
                self.set_pause(down, Pause::INFLIGHT, true);
            }
            self.clusters[cluster].endpoints[ei].call_started();
            id
        } else {
            h.request_id()
        };
        let u = &mut self.ups[up.idx()];
        if two_way {
            u.inflight += 1;
        }
        let header = Header::new(h.flag(), h.status_byte(), id, body_len);
        let ready = u.state == UpState::Ready;
        // `pick` takes a backed-up connection only when every one it could take is.
        let no_room = u.backed_up;
        forward_frame(
            &mut self.effects,
            Conn::Up(up),
            &mut u.out,
            ready,
            &header.to_bytes(),
            body,
            self.by_ref,
        );
        self.up_pushed(up);
        if no_room {
            self.block_on(down, up);
        }
    }

    /// Answers a call in serialization `serialization_id` with a status and one of the
    /// pre-encoded messages, in the caller's serialization when the proxy writes it.
    pub(super) fn reply(
        &mut self,
        down: Key,
        request_id: u64,
        reason: Reason,
        serialization_id: u8,
    ) {
        let Some(d) = self
            .downs
            .get_mut(down.idx())
            .filter(|d| d.gen == down.gen() && !d.closing)
        else {
            return;
        };
        let (serialization, body) = self.replies.reason(serialization_id, reason);
        let header = Header::response(request_id, serialization, reason.status())
            .with_body_len(body.len() as u32);
        push_frame(
            &mut self.effects,
            Conn::Down(down),
            &mut d.out,
            true,
            &header.to_bytes(),
            body,
        );
        self.down_pushed(down);
    }

    /// A call ends without a provider's answer (timeout, lost or failed connection).
    pub(super) fn finish_local(&mut self, call: InFlight, reason: Reason, now: Instant) {
        let status = reason.status().as_u8();
        let latency = now.saturating_duration_since(call.start);
        if let Some(u) = self
            .ups
            .get_mut(call.up.idx())
            .filter(|u| u.gen == call.up.gen())
        {
            u.inflight = u.inflight.saturating_sub(1);
            u.stats.response(self.id, status, latency, true);
            let (ci, ei) = (u.cluster as usize, u.endpoint as usize);
            if let Some(ep) = self
                .clusters
                .get_mut(ci)
                .and_then(|c| c.endpoints.get_mut(ei))
            {
                ep.calls_ended(1);
            }
            // Its endpoint left the cluster and its last call is over: close it.
            let orphan_done = u.cluster == ORPHAN && u.inflight == 0;
            if reason == Reason::Timeout && u.cluster != ORPHAN {
                self.endpoint_failure(ci, ei, now);
            }
            if orphan_done {
                self.orphan(call.up);
            }
        }
        if let Some((_, s)) = self.route_stats.get(call.route as usize) {
            s.response(self.id, status, latency, true);
        }
        self.down_call_done(call.down);
        self.reply(call.down, call.down_id, reason, call.serialization);
    }
}

/// The attachment name under which listener `listener` forwards its callers' identities.
fn identity_attachment(snap: &Snapshot, listener: usize) -> Option<&str> {
    let tls = snap.config.listeners.get(listener)?.tls.as_ref()?;
    tls.identity_attachment.as_deref()
}
