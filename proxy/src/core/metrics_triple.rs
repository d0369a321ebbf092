//! Counters of the Triple (HTTP/2) side: connections, calls, and the calls the proxy
//! answered itself, by `grpc-status` code. Calls also count in their route's
//! `dubbo_proxy_requests_total` (see [`crate::triple`]).

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use dubbo_triple::Code;

/// gRPC's codes run from 0 (OK) to 16 (UNAUTHENTICATED).
const CODES: usize = 17;

/// See the [module docs](self).
#[derive(Debug, Default)]
pub struct TripleMetrics {
    /// Caller connections handed to the Triple pipeline (HTTP/2 and HTTP/1.1).
    pub connections: AtomicU64,
    /// Streams (calls) opened by callers.
    pub calls: AtomicU64,
    /// Calls the proxy answered itself, by code.
    answered: [AtomicU64; CODES],
}

impl TripleMetrics {
    /// The proxy answered a call with `code`.
    pub fn answered(&self, code: Code) {
        let i = (code as usize).min(CODES - 1);
        self.answered[i].fetch_add(1, Relaxed);
    }

    /// Appends the Prometheus text of [`TripleMetrics::answered`] (the counters are in
    /// [`Registry::render`](crate::core::metrics::Registry::render)'s list).
    pub fn render_answered(&self, out: &mut String) {
        let name = "dubbo_proxy_triple_answered_total";
        let _ = writeln!(
            out,
            "# HELP {name} Triple calls the proxy answered itself, by grpc-status.\n# TYPE {name} counter"
        );
        for (i, n) in self.answered.iter().enumerate() {
            let v = n.load(Relaxed);
            if v > 0 {
                let code = Code::from_i32(i as i32).name();
                let _ = writeln!(out, "{name}{{code=\"{code}\"}} {v}");
            }
        }
    }
}
