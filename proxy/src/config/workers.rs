//! `workers`: how many workers (threads, each with its own event loop and connections) run.
//!
//! `0`, the default, runs one worker per available core; `"auto"` one per two. A worker's connections
//! never move, and every worker has its own connection to each provider and sleeps and wakes
//! on its own, so fewer workers gather more calls per system call and per wake-up. Where
//! the proxy shares its cores with the provider or the callers (a sidecar, a small host),
//! one worker on 2 cores costs less CPU per call than two (2026-11-26, epoll engine: half
//! the sleeps per call, 0.90-0.99x the CPU per call at 16x1/64, 0.68-0.88x at 64x4/64; see
//! `benches/proxy-compare/README.md`). It is not the default because one worker also caps
//! what the proxy carries: in the quiet run of 2026-11-26 08:21 it made 0.79x direct's calls/s
//! at 64x4/64 against 0.88x with two, and 0.61x at 16x1/64 KiB against 0.84x.

use std::fmt;
use std::num::NonZeroUsize;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The most workers a configuration may ask for.
pub const MAX_WORKERS: usize = 1024;

/// `workers`: `0` (the default: one per available core), `"auto"` (one per two) or a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(try_from = "Repr", into = "Repr")]
pub enum Workers {
    /// One per two available cores, at least one.
    Auto,
    /// One per available core (`0`).
    #[default]
    PerCore,
    /// Exactly this many.
    Fixed(NonZeroUsize),
}

impl Workers {
    /// How many workers to run on a machine with `cores` available cores.
    pub fn count(self, cores: usize) -> usize {
        match self {
            Workers::Auto => (cores / 2).max(1),
            Workers::PerCore => cores.max(1),
            Workers::Fixed(n) => n.get(),
        }
    }

    /// A number of workers as the file writes it: `0` is one per core.
    pub fn from_count(n: usize) -> Workers {
        NonZeroUsize::new(n).map_or(Workers::PerCore, Workers::Fixed)
    }
}

impl FromStr for Workers {
    type Err = String;

    fn from_str(s: &str) -> Result<Workers, String> {
        if s == "auto" {
            return Ok(Workers::Auto);
        }
        s.parse::<usize>()
            .map(Workers::from_count)
            .map_err(|_| format!("expected \"auto\" or a number of workers, found {s:?}"))
    }
}

impl fmt::Display for Workers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Workers::Auto => f.write_str("auto"),
            Workers::PerCore => f.write_str("0"),
            Workers::Fixed(n) => write!(f, "{n}"),
        }
    }
}

/// How the file writes it: a number or a word.
#[derive(Deserialize, Serialize)]
#[serde(untagged)]
enum Repr {
    Count(usize),
    Word(String),
}

impl TryFrom<Repr> for Workers {
    type Error = String;

    fn try_from(r: Repr) -> Result<Workers, String> {
        match r {
            Repr::Count(n) => Ok(Workers::from_count(n)),
            Repr::Word(w) => w.parse(),
        }
    }
}

impl From<Workers> for Repr {
    fn from(w: Workers) -> Repr {
        match w {
            Workers::Auto => Repr::Word("auto".into()),
            Workers::PerCore => Repr::Count(0),
            Workers::Fixed(n) => Repr::Count(n.get()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_is_one_per_two_cores_and_at_least_one() {
        let counts: Vec<usize> = [0, 1, 2, 3, 4, 8, 9]
            .iter()
            .map(|&cores| Workers::Auto.count(cores))
            .collect();
        assert_eq!(counts, [1, 1, 1, 1, 2, 4, 4]);
        assert_eq!(Workers::PerCore.count(8), 8);
        assert_eq!(Workers::PerCore.count(0), 1);
        assert_eq!(Workers::from_count(3).count(64), 3);
    }

    #[test]
    fn the_file_and_the_command_line_say_it_alike() {
        for (text, workers) in [
            ("auto", Workers::Auto),
            ("0", Workers::PerCore),
            ("2", Workers::from_count(2)),
        ] {
            assert_eq!(text.parse::<Workers>(), Ok(workers));
            assert_eq!(workers.to_string(), text);
        }
        let e = "many".parse::<Workers>().unwrap_err();
        assert!(e.contains("\"auto\" or a number"), "{e}");
        assert!("-1".parse::<Workers>().is_err());
    }
}
