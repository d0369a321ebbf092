//! Active health checks of ejected endpoints: with `health_check.probe_interval_ms`, an
//! ejected endpoint is held out until probes bring it back (see [`Health`](crate::core::health::Health)). A probe is a
//! Dubbo heartbeat on one of the endpoint's open connections, or, when it has none open
//! (the usual case for a provider that went away), on a fresh connection opened for it at
//! once instead of at the slot's reconnect backoff. It succeeds when the heartbeat is
//! answered within `health_check.timeout_ms`; it fails on no answer, a refused or timed-out
//! connect, or a connection lost.
//!
//! The health state is shared by the workers, and so is the probing: each interval, the
//! worker that claims the endpoint's probe sends it (on its own connections); the others
//! only see the endpoint come back. A claim lapses after the probe's own time limit plus an
//! interval, so a worker that stops probing (reload, shutdown) leaves it to another.

use super::*;

impl Worker {
    /// Housekeeping: probes due are started, probes late are failed, and the ejected gauges
    /// follow ejections that ended by time.
    pub(super) fn probes(&mut self, now: Instant) {
        for ci in 0..self.clusters.len() {
            let spec = &self.clusters[ci].spec;
            let interval = spec.probe_interval_ms();
            let answer = Duration::from_millis(spec.health_check.timeout_ms);
            let connect = Duration::from_millis(spec.connect_timeout_ms);
            let lease = connect + answer + Duration::from_millis(interval);
            for ei in 0..self.clusters[ci].endpoints.len() {
                let ep = &mut self.clusters[ci].endpoints[ei];
                ep.shared.regauge(now);
                if interval == 0 || !ep.shared.health.is_held() {
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
                    None if !self.draining => {
                        if let Some(claim) = ep.shared.health.claim_probe(now, lease) {
                            self.start_probe(ci, ei, claim, now);
                        }
                    }
                    None => {}
                }
            }
        }
    }

    fn start_probe(&mut self, ci: usize, ei: usize, claim: u64, now: Instant) {
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
                claim,
            })
        } else if let Some(k) = in_state(UpState::Connecting) {
            Some(Probe {
                up: k,
                id: 0,
                started: now,
                claim,
            })
        } else if let Some(si) = ep.slots.iter().position(|s| s.up.is_none()) {
            // A fresh connection, now rather than at the slot's reconnect time.
            self.connect(ci, ei, si, now);
            self.clusters[ci].endpoints[ei].slots[si].up.map(|k| Probe {
                up: k,
                id: 0,
                started: now,
                claim,
            })
        } else {
            // Every connection is closing: try again at the next interval.
            None
        };
        let c = &mut self.clusters[ci];
        let ep = &mut c.endpoints[ei];
        match up {
            Some(p) => ep.probe = Some(p),
            None => {
                let interval = Duration::from_millis(c.spec.health_check.probe_interval_ms);
                ep.shared.health.probe_later(claim, now + interval);
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
        let Some(claim) = self
            .probe_of(ci, ei)
            .filter(|p| p.up == up && p.id == 0)
            .map(|p| p.claim)
        else {
            return;
        };
        self.send_probe(up);
        self.clusters[ci].endpoints[ei].probe = Some(Probe {
            up,
            id: self.event_id,
            started: now,
            claim,
        });
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
        let Some(p) = ep.probe.take() else {
            return;
        };
        let shared = &ep.shared;
        if ok {
            shared.metrics.probes_ok.fetch_add(1, Relaxed);
        } else {
            shared.metrics.probes_failed.fetch_add(1, Relaxed);
        }
        if shared.health.probe(ok, hc.healthy_threshold) {
            tracing::info!(cluster = %c.name, endpoint = %ep.addr, "ejected endpoint answered its probes: back in");
            shared.regauge(now);
        }
        // After the result: a worker claiming the next probe sees the count it left.
        shared
            .health
            .probe_later(p.claim, now + Duration::from_millis(hc.probe_interval_ms));
    }
}
