//! Dubbo calls routed to a cluster whose providers speak only Triple
//! (`clusters.NAME.protocol = "tri"`): the core does not forward them on a Dubbo connection;
//! it hands each to the engine ([`Effect::Bridge`], [`Worker::take_bridge`]), which has the
//! Triple pipeline make the call, and takes the answer back ([`Worker::bridged`]) as the
//! caller's response.
//!
//! The call stays the caller's while it is away: it counts against the caller's
//! `max_inflight` and keeps a draining caller open, its route's metrics see it start and end,
//! and an answer for a caller that has gone since is dropped.

use std::time::{Duration, Instant};

use dubbo_codec::header::Header;
use dubbo_codec::Frame;

use super::{push_frame, Effect, Worker};
use crate::core::flow::Pause;
use crate::core::key::{Conn, Key};
use crate::core::reason::Reason;

/// A call for the Triple pipeline, announced by [`Effect::Bridge`].
#[derive(Debug)]
pub struct BridgeCall {
    /// Who gets the answer: give it back with [`Worker::bridged`].
    pub ticket: BridgeTicket,
    /// The caller's request, as it arrived.
    pub frame: Frame,
    /// The cluster of its route.
    pub cluster: String,
    /// Its route's timeout.
    pub timeout: Duration,
}

/// The caller and call an answer belongs to.
#[derive(Debug, Clone, Copy)]
pub struct BridgeTicket {
    down: Key,
    request_id: u64,
    serialization: u8,
    two_way: bool,
    route_stats: u32,
    cluster: u32,
    start: Instant,
}

/// How a bridged call ended.
#[derive(Debug, Clone, PartialEq)]
pub enum BridgeAnswer {
    /// The provider's answer as a Dubbo response: its status and body, in the request's
    /// serialization.
    Response {
        /// The response status.
        status: dubbo_codec::Status,
        /// The response body.
        body: bytes::Bytes,
    },
    /// No provider's answer: the proxy answers, as it does for a Dubbo provider.
    Local(Reason),
}

impl Worker {
    /// Hands a routed call to the engine for the Triple pipeline.
    #[allow(clippy::too_many_arguments)] // The parts of one routed call.
    pub(super) fn bridge(
        &mut self,
        down: Key,
        frame: Frame,
        route_stats: u32,
        cluster: usize,
        timeout: Duration,
        now: Instant,
    ) {
        let h = *frame.header();
        let two_way = h.is_two_way();
        if two_way {
            let d = &mut self.downs[down.idx()];
            d.inflight += 1;
            if d.inflight >= d.max_inflight {
                self.set_pause(down, Pause::INFLIGHT, true);
            }
        }
        let ticket = BridgeTicket {
            down,
            request_id: h.request_id(),
            serialization: h.serialization_id(),
            two_way,
            route_stats,
            cluster: cluster as u32,
            start: now,
        };
        self.bridges.push_back(BridgeCall {
            ticket,
            frame,
            cluster: self.clusters[cluster].name.clone(),
            timeout,
        });
        self.effects.push_back(Effect::Bridge);
    }

    /// The call an [`Effect::Bridge`] announced.
    pub fn take_bridge(&mut self) -> Option<BridgeCall> {
        self.bridges.pop_front()
    }

    /// The answer of a bridged call: written to its caller (if it is still there and the
    /// call was two-way), counted in its route's and cluster's metrics.
    pub fn bridged(&mut self, ticket: BridgeTicket, answer: BridgeAnswer, now: Instant) {
        if !ticket.two_way {
            return;
        }
        let latency = now.saturating_duration_since(ticket.start);
        let (status, local) = match &answer {
            BridgeAnswer::Response { status, .. } => (status.as_u8(), false),
            BridgeAnswer::Local(reason) => (reason.status().as_u8(), true),
        };
        if let Some((_, s)) = self.route_stats.get(ticket.route_stats as usize) {
            s.response(self.id, status, latency, local);
        }
        if let Some(c) = self.clusters.get(ticket.cluster as usize) {
            c.stats.response(self.id, status, latency, local);
        }
        self.down_call_done(ticket.down);
        match answer {
            BridgeAnswer::Local(reason) => {
                self.reply(ticket.down, ticket.request_id, reason, ticket.serialization)
            }
            BridgeAnswer::Response { status, body } => {
                let Some(d) = self
                    .downs
                    .get_mut(ticket.down.idx())
                    .filter(|d| d.gen == ticket.down.gen() && !d.closing)
                else {
                    return;
                };
                let header = Header::new(
                    ticket.serialization,
                    status.as_u8(),
                    ticket.request_id,
                    body.len() as u32,
                );
                push_frame(
                    &mut self.effects,
                    Conn::Down(ticket.down),
                    &mut d.out,
                    true,
                    &header.to_bytes(),
                    &body,
                );
                self.down_pushed(ticket.down);
            }
        }
    }
}
