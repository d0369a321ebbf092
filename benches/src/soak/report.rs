//! One soak run's result: a Markdown table row, a machine-readable `SOAK` line, and the
//! verdict (what makes `dubbo-soak run` exit non-zero).

use std::fmt::Write;

use dubbo_codec::Status;

use super::caller::Tally;
use super::faults::{Fault, FaultCounts};
use super::hostile::Hostile;

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
    pub rss_before_kib: u64,
    pub rss_after_kib: u64,
    pub hwm_kib: u64,
    /// Bad frames the run was to send during the load.
    pub hostile_wanted: u64,
    /// The bad frames sent.
    pub hostile: Hostile,
}

/// The table's header (the columns of [`Report::row`]).
pub const HEADER: &str = "| engine | seed | secs | sent | OK | answered with a status | never answered | misrouted | stray / malformed | abandoned by the caller | proxy RSS before / end / peak | proxy fds before / after | hostile frames (MiB): peak / retained KiB per MiB | faults: kill, stop, reload, disconnect, ZooKeeper restart (cycles) |\n| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- | --- | --- | --- |";

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
        if self.fds_after > self.fds_before + self.fd_slack {
            out.push(format!(
                "proxy fds {} after the load, {} before (slack {})",
                self.fds_after, self.fds_before, self.fd_slack
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
        let over = |kib: u64| kib.saturating_sub(self.rss_before_kib) as f64 / mib;
        format!(
            "{} ({mib:.1}): {:.0} / {:.0}",
            h.frames,
            over(self.hwm_kib),
            over(self.rss_after_kib)
        )
    }

    /// One row of [`HEADER`].
    pub fn row(&self) -> String {
        let t = &self.tally;
        let f = &self.faults;
        let mib = |kib: u64| kib as f64 / 1024.0;
        format!(
            "| {} | {} | {:.0} | {} | {} | {} | {} | {} | {} / {} | {} | {:.1} / {:.1} / {:.1} MiB | {} / {} | {} | {}, {}, {}, {}, {} ({}) |",
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
            mib(self.rss_before_kib),
            mib(self.rss_after_kib),
            mib(self.hwm_kib),
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
            "SOAK engine={} discovery={} seed={} sent={} ok={} never_answered={} misrouted={} stray={} malformed={} abandoned={} connect_errors={} kills={} stops={} reloads={} disconnects={} zookeeper_restarts={} cycles={} fds_before={} fds_after={} fd_slack={} rss_before_kib={} rss_after_kib={} hwm_kib={}",
            self.engine, self.discovery, self.seed, t.sent, t.ok, t.never_answered, t.misrouted, t.stray,
            t.malformed, t.abandoned, t.connect_errors, f.kills, f.stops, f.reloads,
            t.disconnects, f.zookeeper_restarts, f.cycles, self.fds_before, self.fds_after, self.fd_slack,
            self.rss_before_kib, self.rss_after_kib, self.hwm_kib,
        );
        let _ = write!(
            s,
            " hostile_frames={} hostile_bytes={}",
            self.hostile.frames, self.hostile.bytes
        );
        for (code, n) in &t.statuses {
            let _ = write!(s, " status_{code}={n}");
        }
        let by_cycle: Vec<String> = f.rss_kib_by_cycle.iter().map(u64::to_string).collect();
        let _ = write!(s, " rss_kib_by_cycle={}", by_cycle.join(","));
        s
    }
}
