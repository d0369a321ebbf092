//! Active health checks of ejected endpoints: with `health_check.probe_interval_ms`, an
//! ejected endpoint is held out until probes bring it back (see [`Health`]). A probe is a
//! Dubbo heartbeat on one of the endpoint's open connections, or, when it has none open
//! (the usual case for a provider that went away), on a fresh connection opened for it at
//! once instead of at the slot's reconnect backoff. It succeeds when the heartbeat is
//! answered within `health_check.timeout_ms`; it fails on no answer, a refused or timed-out
//! connect, or a connection lost.

use super::*;

impl EndpointState {
    /// Brings the ejected gauge in line with the health state.
    pub(super) fn regauge(&mut self, now: Instant) {
        let ejected = self.health.ejected_at(now);
        if ejected != self.gauged {
            self.gauged = ejected;
            self.hstats
                .ejected
                .fetch_add(if ejected { 1 } else { -1 }, Relaxed);
        }
    }

    /// The endpoint leaves its cluster: no longer counted as ejected.
    pub(super) fn ungauge(&self) {
        if self.gauged {
            self.hstats.ejected.fetch_sub(1, Relaxed);
        }
    }
}

impl Worker {
    /// Housekeeping: probes due are started, probes late are failed, and the ejected gauges
    /// follow ejections that ended by time.
    pub(super) fn probes(&mut self, now: Instant) {
        for ci in 0..self.clusters.len() {
            let spec = &self.clusters[ci].spec;
            let interval = spec.health_check.probe_interval_ms;
            let answer = Duration::from_millis(spec.health_check.timeout_ms);
            let connect = Duration::from_millis(spec.connect_timeout_ms);
            for ei in 0..self.clusters[ci].endpoints.len() {
                let ep = &mut self.clusters[ci].endpoints[ei];
                ep.regauge(now);
                if interval == 0 || !ep.health.is_held() {
                    ep.probe = None;
                    continue;
                }
                match ep.probe {
                    Some(p) => {
                        // Not sent yet: the connection may take its connect timeout first.
                        let limit = if p.id == 0 { connect + answer } else { answer };
                        if now.saturating_duration_since(p.started) >= limit {
                            self.probe_done(ci, ei, false, now);
                        }
                    }
                    None if now >= ep.next_probe && !self.draining => self.start_probe(ci, ei, now),
                    None => {}
                }
            }
        }
    }

    fn start_probe(&mut self, ci: usize, ei: usize, now: Instant) {
        let ups = &self.ups;
        let ep = &self.clusters[ci].endpoints[ei];
        let in_state = |state: UpState| {
            ep.slots
                .iter()
                .filter_map(|s| s.up)
                .find(|k| ups[k.idx()].state == state)
        };
        let up = if let Some(k) = in_state(UpState::Ready) {
            self.send_probe(k);
            Some(Probe {
                up: k,
                id: self.event_id,
                started: now,
            })
        } else if let Some(k) = in_state(UpState::Connecting) {
            Some(Probe {
                up: k,
                id: 0,
                started: now,
            })
        } else if let Some(si) = ep.slots.iter().position(|s| s.up.is_none()) {
            // A fresh connection, now rather than at the slot's reconnect time.
            self.connect(ci, ei, si, now);
            self.clusters[ci].endpoints[ei].slots[si].up.map(|k| Probe {
                up: k,
                id: 0,
                started: now,
            })
        } else {
            // Every connection is closing: try again at the next interval.
            None
        };
        let ep = &mut self.clusters[ci].endpoints[ei];
        match up {
            Some(p) => ep.probe = Some(p),
            None => {
                let interval = self.clusters[ci].spec.health_check.probe_interval_ms;
                self.clusters[ci].endpoints[ei].next_probe = now + Duration::from_millis(interval);
            }
        }
    }

    /// Sends a heartbeat on `up` (open); its id is `self.event_id`.
    fn send_probe(&mut self, up: Key) {
        self.event_id = self.event_id.wrapping_add(1).max(1);
        let f = Frame::heartbeat_request(self.event_id);
        let u = &mut self.ups[up.idx()];
        push_frame(
            &mut self.effects,
            Conn::Up(up),
            &mut u.out,
            true,
            &f.header().to_bytes(),
            f.body(),
        );
    }

    fn probe_of(&self, ci: usize, ei: usize) -> Option<Probe> {
        self.clusters
            .get(ci)
            .and_then(|c| c.endpoints.get(ei))
            .and_then(|e| e.probe)
    }

    /// A provider connection opened: the probe waiting for it is sent.
    pub(super) fn probe_connected(&mut self, ci: usize, ei: usize, up: Key, now: Instant) {
        let waiting = self
            .probe_of(ci, ei)
            .is_some_and(|p| p.up == up && p.id == 0);
        if waiting {
            self.send_probe(up);
            self.clusters[ci].endpoints[ei].probe = Some(Probe {
                up,
                id: self.event_id,
                started: now,
            });
        }
    }

    /// A provider connection is gone: the probe on it failed.
    pub(super) fn probe_lost(&mut self, ci: usize, ei: usize, up: Key, now: Instant) {
        let on_it = self.probe_of(ci, ei).is_some_and(|p| p.up == up);
        if on_it {
            self.probe_done(ci, ei, false, now);
        }
    }

    /// A heartbeat answer came on `up`: the probe it answers succeeded.
    pub(super) fn probe_answered(&mut self, up: Key, id: u64, now: Instant) {
        let Some(u) = self.ups.get(up.idx()).filter(|u| u.gen == up.gen()) else {
            return;
        };
        let (ci, ei) = (u.cluster as usize, u.endpoint as usize);
        let answers = self
            .probe_of(ci, ei)
            .is_some_and(|p| p.up == up && p.id == id && id != 0);
        if answers {
            self.probe_done(ci, ei, true, now);
        }
    }

    fn probe_done(&mut self, ci: usize, ei: usize, ok: bool, now: Instant) {
        let c = &mut self.clusters[ci];
        let hc = &c.spec.health_check;
        let ep = &mut c.endpoints[ei];
        ep.probe = None;
        ep.next_probe = now + Duration::from_millis(hc.probe_interval_ms);
        if ok {
            ep.hstats.probes_ok.fetch_add(1, Relaxed);
        } else {
            ep.hstats.probes_failed.fetch_add(1, Relaxed);
        }
        if ep.health.probe(ok, hc.healthy_threshold) {
            tracing::info!(cluster = %c.name, endpoint = %ep.addr, "ejected endpoint answered its probes: back in");
            ep.regauge(now);
        }
    }
}
