//! The process's file descriptor limit (`RLIMIT_NOFILE`) and what it leaves for callers.
//!
//! The binary raises its soft limit to the hard one before it starts a server (as Go's
//! runtime and most servers do: the soft limit is often 1024 where the hard one is far
//! higher; a program that embeds the proxy decides for its own process, with
//! [`raise_soft_limit`]). A server gives callers what is left after the descriptors already
//! open and `limits.fd_reserve` kept for provider connections, admin requests and the
//! registry (see [`FdBudget`](crate::core::fd_budget::FdBudget)).

use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};

/// What [`callers_budget`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FdLimit {
    /// The soft limit in force.
    pub soft: u64,
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

/// How many caller connections fit in the soft `RLIMIT_NOFILE` beside the descriptors open
/// now and `reserve` more.
pub fn callers_budget(reserve: u64) -> Result<FdLimit, NoRoomForCallers> {
    let soft = getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX);
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
        in_use,
        callers: usize::try_from(callers).unwrap_or(usize::MAX),
    })
}

/// Raises this process's soft `RLIMIT_NOFILE` to its hard limit, as the `dubbo-proxy` binary
/// does before it starts a [`Server`](crate::Server): the callers a server takes are bounded
/// by the soft limit in force when it starts. Returns the soft limit after, and what it was
/// before if it changed (no limit at all counts as `u64::MAX`). A limit that cannot be
/// raised is logged (a warning) and left as it is.
pub fn raise_soft_limit() -> (u64, Option<u64>) {
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
        let (soft, _) = raise_soft_limit();
        assert_eq!(
            raise_soft_limit(),
            (soft, None),
            "raised once, already at the hard limit"
        );
        let first = callers_budget(10).expect("a test process has room");
        assert!(first.in_use > 0, "stdin, stdout, stderr at least");
        assert_eq!(first.soft, soft);
        let again = callers_budget(10).unwrap();
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
