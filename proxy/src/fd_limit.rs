//! The process's file descriptor limit (`RLIMIT_NOFILE`) and what it leaves for callers.
//!
//! At start the proxy raises its soft limit to the hard one (as Go's runtime and most
//! servers do: the soft limit is often 1024 where the hard one is far higher), then gives
//! callers what is left after the descriptors already open and `limits.fd_reserve` kept for
//! provider connections, admin requests and the registry (see
//! [`FdBudget`](crate::core::fd_budget::FdBudget)).

use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};

/// What [`callers_budget`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FdLimit {
    /// The soft limit in force (after raising it).
    pub soft: u64,
    /// The soft limit before, if it was raised.
    pub raised_from: Option<u64>,
    /// Descriptors open when the budget was worked out.
    pub in_use: u64,
    /// Caller connections allowed: `soft - in_use - reserve`.
    pub callers: usize,
}

/// Why the limit leaves callers nothing.
#[derive(Debug, thiserror::Error)]
#[error(
    "RLIMIT_NOFILE {soft} leaves no file descriptor for callers ({in_use} open, \
     limits.fd_reserve = {reserve}): raise the limit (ulimit -n, systemd's LimitNOFILE) \
     or lower limits.fd_reserve"
)]
pub struct NoRoomForCallers {
    /// The soft limit in force.
    pub soft: u64,
    /// Descriptors open.
    pub in_use: u64,
    /// `limits.fd_reserve`.
    pub reserve: u64,
}

/// Raises the soft `RLIMIT_NOFILE` to the hard limit, and works out how many caller
/// connections fit beside the descriptors open now and `reserve` more.
pub fn callers_budget(reserve: u64) -> Result<FdLimit, NoRoomForCallers> {
    let (soft, raised_from) = raise_soft_limit();
    let in_use = open_descriptors();
    let callers = soft
        .saturating_sub(in_use)
        .checked_sub(reserve)
        .filter(|&n| n > 0)
        .ok_or(NoRoomForCallers {
            soft,
            in_use,
            reserve,
        })?;
    Ok(FdLimit {
        soft,
        raised_from,
        in_use,
        callers: usize::try_from(callers).unwrap_or(usize::MAX),
    })
}

/// The soft limit after raising it to the hard one where allowed, and what it was before
/// if it changed. No limit at all counts as `u64::MAX`.
fn raise_soft_limit() -> (u64, Option<u64>) {
    let Rlimit { current, maximum } = getrlimit(Resource::Nofile);
    let soft = current.unwrap_or(u64::MAX);
    // An unlimited hard limit is not a value the kernel takes for the soft one (it is
    // capped by fs.nr_open): leave the soft limit as it is then.
    let Some(hard) = maximum else {
        return (soft, None);
    };
    if hard <= soft {
        return (soft, None);
    }
    match setrlimit(
        Resource::Nofile,
        Rlimit {
            current: Some(hard),
            maximum: Some(hard),
        },
    ) {
        Ok(()) => (hard, Some(soft)),
        Err(e) => {
            tracing::warn!("RLIMIT_NOFILE: could not raise the soft limit {soft} to {hard}: {e}");
            (soft, None)
        }
    }
}

/// File descriptors open in this process now (0 where `/proc` cannot tell).
fn open_descriptors() -> u64 {
    match std::fs::read_dir("/proc/self/fd") {
        // The directory's own descriptor is among them.
        Ok(dir) => (dir.count() as u64).saturating_sub(1),
        Err(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_the_soft_limit_less_what_is_open_and_the_reserve() {
        let first = callers_budget(10).expect("a test process has room");
        assert!(first.in_use > 0, "stdin, stdout, stderr at least");
        let again = callers_budget(10).unwrap();
        assert_eq!(
            again.raised_from, None,
            "raised once, already at the hard limit"
        );
        assert_eq!(again.soft, first.soft);
        assert_eq!(again.in_use + 10 + again.callers as u64, again.soft);
    }

    #[test]
    fn a_reserve_past_the_limit_is_an_error_that_says_what_to_change() {
        let e = callers_budget(u64::MAX).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("limits.fd_reserve"), "{text}");
        assert!(text.contains("RLIMIT_NOFILE"), "{text}");
    }
}
