//! One soak run's result: a Markdown table row, a machine-readable `SOAK` line, and the
//! verdict (what makes `dubbo-soak run` exit non-zero).

use std::fmt::Write;

use dubbo_codec::Status;

use super::caller::Tally;
use super::faults::{Fault, FaultCounts};
use super::heap::Heap;
use super::hostile::Hostile;
use super::procs::{Held, Memory, Trims};
use super::tls::{HostileTls, TlsCounters};

/// What one run measured.
#[derive(Debug, Clone)]
pub struct Report {
    pub engine: String,
    /// Providers from ZooKeeper (restarted by the schedule) instead of a static list.
    pub discovery: bool,
    /// The kinds of fault the schedule was to apply: each must have been.
    pub kinds: Vec<Fault>,
    pub seed: u64,
    pub load_secs: f64,
    pub tally: Tally,
    pub faults: FaultCounts,
    pub fds_before: usize,
    pub fds_after: usize,
    /// Provider connections that may be open after the load and not before (or the reverse):
    /// one per worker and endpoint.
    pub fd_slack: usize,
    /// The proxy's fds and memory after the warm-up's load, before its fault cycle (the
    /// pre-fault baseline; the same moment as the baseline without a warm-up cycle).
    pub fds_prefault: usize,
    pub memory_prefault: Memory,
    /// What the proxy's accounting says callers make it hold, at the baseline and after the
    /// drain (both with no caller connected).
    pub held: [Held; 2],
    /// The faults of the warm-up's cycle (none without one).
    pub warmup_faults: FaultCounts,
    /// The memory goal: RSS after the drain at most this many KiB over the baseline.
    pub rss_tolerance: Option<u64>,
    /// The proxy's memory after the warm-up (the baseline) and after the drain.
    pub memory_before: Memory,
    pub memory_after: Memory,
    /// The proxy's heap as glibc counts it at the same two moments (`--malloc-stats`).
    pub heap_before: Option<Heap>,
    pub heap_after: Option<Heap>,
    /// The proxy's trims at the baseline, at the end of the load and after the drain.
    pub trims: [Trims; 3],
    /// Bad frames the run was to send during the load.
    pub hostile_wanted: u64,
    /// The bad frames sent.
    pub hostile: Hostile,
    /// The hostile handshakes sent and what went wrong with them (none without TLS).
    pub hostile_tls: HostileTls,
    /// The proxy's TLS counters after the load (`None`: no TLS listener).
    pub tls_counters: Option<TlsCounters>,
}

/// The table's header (the columns of [`Report::row`]).
pub const HEADER: &str = "| engine | seed | secs | sent | OK | answered with a status | never answered | misrouted | stray / malformed | abandoned by the caller | proxy RSS pre-fault / baseline / end / peak (KiB) | RSS back to the baseline (end - baseline, tolerance) | proxy heap in use before / end (more held by glibc) | proxy fds before / after | hostile frames (MiB): peak / retained KiB per MiB | faults: kill, stop, reload, disconnect, ZooKeeper restart (cycles) |\n| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- | --- | --- | --- | --- | --- |";

impl Report {
    /// Why the run failed; empty when it passed.
    pub fn failures(&self) -> Vec<String> {
        let t = &self.tally;
        let f = &self.faults;
        let mut out = Vec::new();
        for (n, what) in [
            (t.never_answered, "calls never answered"),
            (t.misrouted, "calls answered with another call's token"),
            (t.stray, "answers to no call in flight"),
            (
                t.malformed,
                "answers that are not the echoed token or a status",
            ),
            (t.connect_errors, "failed connects to the proxy"),
            (
                self.hostile.connect_errors,
                "failed connects of the hostile sender",
            ),
        ] {
            if n > 0 {
                out.push(format!("{n} {what}"));
            }
        }
        let h = &self.hostile_tls;
        for (n, what) in [
            (
                h.not_closed,
                "refused TLS connections the proxy left open (plaintext, stalled handshakes)",
            ),
            (
                h.wrong,
                "wrong TLS outcomes (a handshake served on the plain listener, a burst handshake failed, a connect failed)",
            ),
        ] {
            if n > 0 {
                out.push(format!("{n} {what}"));
            }
        }
        if let Some(c) = &self.tls_counters {
            out.extend(c.failures(h));
            if t.tls == 0 {
                out.push("no call sent over TLS".into());
            }
        }
        if self.fds_after > self.fds_before + self.fd_slack {
            out.push(format!(
                "proxy fds {} after the load, {} before (slack {})",
                self.fds_after, self.fds_before, self.fd_slack
            ));
        }
        if self.rss_back() == Some(false) {
            out.push(format!(
                "proxy RSS {} KiB after the drain, {} KiB over the baseline (tolerance {} KiB)",
                self.memory_after.rss,
                self.rss_over_baseline(),
                self.rss_tolerance.unwrap_or(0)
            ));
        }
        if self.hostile.frames < self.hostile_wanted {
            out.push(format!(
                "{} hostile frames sent of {}",
                self.hostile.frames, self.hostile_wanted
            ));
        }
        for &kind in &self.kinds {
            let applied = match kind {
                Fault::Kill => f.kills,
                Fault::Stop => f.stops,
                Fault::Reload => f.reloads,
                Fault::Disconnect => t.disconnects,
                Fault::ZooKeeperRestart => f.zookeeper_restarts,
            };
            if applied == 0 {
                out.push(format!("no {} fault applied", kind.name()));
            }
        }
        out
    }

    /// RSS after the drain minus the baseline, in KiB (negative: below it).
    pub fn rss_over_baseline(&self) -> i64 {
        self.memory_after.rss as i64 - self.memory_before.rss as i64
    }

    /// Whether the RSS came back to the baseline within the tolerance (`None`: not checked).
    pub fn rss_back(&self) -> Option<bool> {
        self.rss_tolerance
            .map(|kib| self.rss_over_baseline() <= kib as i64)
    }

    /// `PASS (+12 KiB, <= 64)`, or `not checked (+12 KiB)`.
    fn rss_verdict(&self) -> String {
        let over = self.rss_over_baseline();
        match (self.rss_back(), self.rss_tolerance) {
            (Some(back), Some(kib)) => {
                let verdict = if back { "PASS" } else { "FAIL" };
                format!("{verdict} ({over:+} KiB, <= {kib})")
            }
            _ => format!("not checked ({over:+} KiB)"),
        }
    }

    /// The statuses answered, as `31 SERVER_TIMEOUT: n, ...`.
    fn statuses(&self) -> String {
        let parts: Vec<String> = self
            .tally
            .statuses
            .iter()
            .map(|(code, n)| format!("{code} {:?}: {n}", Status::from_u8(*code)))
            .collect();
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join(", ")
        }
    }

    /// The engine, and where the providers come from when not from the static list.
    fn label(&self) -> String {
        if self.discovery {
            format!("{}, ZooKeeper discovery", self.engine)
        } else {
            self.engine.clone()
        }
    }

    /// The hostile frames sent (MiB), and the proxy's RSS per MiB of them: the peak over
    /// the baseline (the callers' load included, so an upper bound) and what stayed after the
    /// load, in KiB.
    fn hostile_cost(&self) -> String {
        let h = &self.hostile;
        if h.bytes == 0 {
            return "none".into();
        }
        let mib = h.bytes as f64 / (1024.0 * 1024.0);
        let over = |kib: u64| kib.saturating_sub(self.memory_before.rss) as f64 / mib;
        format!(
            "{} ({mib:.1}): {:.0} / {:.0}",
            h.frames,
            over(self.memory_after.hwm),
            over(self.memory_after.rss)
        )
    }

    /// The live heap at the baseline and after the drain, and what glibc held beyond it
    /// (MiB); "not read" without `--malloc-stats`.
    fn heap(&self) -> String {
        let (Some(b), Some(a)) = (self.heap_before, self.heap_after) else {
            return "not read".into();
        };
        let mib = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
        format!(
            "{:.2} / {:.2} MiB (+{:.2} / +{:.2})",
            mib(b.in_use),
            mib(a.in_use),
            mib(b.kept()),
            mib(a.kept())
        )
    }

    /// One row of [`HEADER`].
    pub fn row(&self) -> String {
        let t = &self.tally;
        let f = &self.faults;
        format!(
            "| {} | {} | {:.0} | {} | {} | {} | {} | {} | {} / {} | {} | {} / {} / {} / {} | {} | {} | {} / {} | {} | {}, {}, {}, {}, {} ({}) |",
            self.label(),
            self.seed,
            self.load_secs,
            t.sent,
            t.ok,
            self.statuses(),
            t.never_answered,
            t.misrouted,
            t.stray,
            t.malformed,
            t.abandoned,
            self.memory_prefault.rss,
            self.memory_before.rss,
            self.memory_after.rss,
            self.memory_after.hwm,
            self.rss_verdict(),
            self.heap(),
            self.fds_before,
            self.fds_after,
            self.hostile_cost(),
            f.kills,
            f.stops,
            f.reloads,
            t.disconnects,
            f.zookeeper_restarts,
            f.cycles,
        )
    }

    /// `SOAK key=value ...`, for scripts and the test.
    pub fn line(&self) -> String {
        let t = &self.tally;
        let f = &self.faults;
        let mut s = format!(
            "SOAK engine={} discovery={} seed={} sent={} triple_sent={} bridged_sent={} ok={} never_answered={} misrouted={} stray={} malformed={} abandoned={} connect_errors={} kills={} stops={} reloads={} disconnects={} zookeeper_restarts={} cycles={} fds_before={} fds_after={} fd_slack={}",
            self.engine, self.discovery, self.seed, t.sent, t.triple, t.bridged, t.ok, t.never_answered, t.misrouted, t.stray,
            t.malformed, t.abandoned, t.connect_errors, f.kills, f.stops, f.reloads,
            t.disconnects, f.zookeeper_restarts, f.cycles, self.fds_before, self.fds_after, self.fd_slack,
        );
        let (p, b, a) = (
            &self.memory_prefault,
            &self.memory_before,
            &self.memory_after,
        );
        let _ = write!(
            s,
            " rss_prefault_kib={} anon_prefault_kib={} file_prefault_kib={} fds_prefault={}",
            p.rss, p.anon, p.file, self.fds_prefault
        );
        for (when, h) in ["before", "after"].iter().zip(&self.held) {
            let _ = write!(
                s,
                " downstream_connections_{when}={} buffered_bytes_{when}={}",
                h.connections, h.buffered_bytes
            );
        }
        let w = &self.warmup_faults;
        let _ = write!(
            s,
            " warmup_kills={} warmup_stops={} warmup_reloads={} warmup_zookeeper_restarts={} warmup_cycles={}",
            w.kills, w.stops, w.reloads, w.zookeeper_restarts, w.cycles
        );
        let _ = write!(
            s,
            " rss_before_kib={} rss_after_kib={} hwm_kib={} anon_before_kib={} anon_after_kib={} file_before_kib={} file_after_kib={}",
            b.rss, a.rss, a.hwm, b.anon, a.anon, b.file, a.file
        );
        let _ = write!(
            s,
            " rss_over_baseline_kib={} rss_over_prefault_kib={}",
            self.rss_over_baseline(),
            a.rss as i64 - p.rss as i64
        );
        if let (Some(tolerance), Some(back)) = (self.rss_tolerance, self.rss_back()) {
            let verdict = if back { "PASS" } else { "FAIL" };
            let _ = write!(s, " rss_tolerance_kib={tolerance} rss_back={verdict}");
        }
        let _ = write!(
            s,
            " hostile_frames={} hostile_bytes={}",
            self.hostile.frames, self.hostile.bytes
        );
        if let Some(c) = &self.tls_counters {
            let h = &self.hostile_tls;
            let _ = write!(
                s,
                " tls_sent={} tls_plaintext={} tls_to_plain={} tls_stalled={} tls_burst={} tls_not_closed={} tls_wrong={} proxy_tls_handshakes={} proxy_tls_failed={} proxy_tls_timeouts={} proxy_tls_plaintext_refused={}",
                t.tls, h.plaintext, h.to_plain, h.stalled, h.burst, h.not_closed, h.wrong,
                c.handshakes, c.failed, c.timeouts, c.plaintext_refused
            );
        }
        for (when, heap) in [("before", self.heap_before), ("after", self.heap_after)] {
            if let Some(h) = heap {
                let _ = write!(
                    s,
                    " heap_in_use_{when}={} heap_system_{when}={} heap_arenas_{when}={}",
                    h.in_use, h.system, h.arenas
                );
            }
        }
        let [b, l, a] = self.trims;
        let _ = write!(
            s,
            " trims_load={} trims_per_s_load={:.2} trim_ms_load={:.1} trims_drain={}",
            l.count - b.count,
            (l.count - b.count) / self.load_secs.max(1e-9),
            (l.seconds - b.seconds) * 1e3,
            a.count - l.count,
        );
        for (code, n) in &t.statuses {
            let _ = write!(s, " status_{code}={n}");
        }
        let by_cycle = |kib: fn(&Memory) -> u64| {
            let v: Vec<String> = f
                .memory_by_cycle
                .iter()
                .map(|m| kib(m).to_string())
                .collect();
            v.join(",")
        };
        let _ = write!(
            s,
            " rss_kib_by_cycle={} anon_kib_by_cycle={} file_kib_by_cycle={}",
            by_cycle(|m| m.rss),
            by_cycle(|m| m.anon),
            by_cycle(|m| m.file)
        );
        s
    }
}
