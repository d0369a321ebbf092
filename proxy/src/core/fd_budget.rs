//! How many caller connections the process's file descriptors allow, over all listeners.
//!
//! Every caller connection holds a file descriptor, and so does every provider connection,
//! the admin endpoint's connections, the registry's sessions and the log. If callers could
//! take them all, a flood of idle callers would leave none for a provider connection (calls
//! fail) or for the admin endpoint (`/healthz` times out, and monitoring sees a dead proxy
//! instead of an overloaded one). So callers get a budget: `RLIMIT_NOFILE`, less what the
//! process had open at start, less `limits.fd_reserve` (see [`crate::fd_limit`]).
//!
//! The acceptor takes a [`CallerSlot`] for each connection it accepts, before handing it to
//! a worker, so connections on their way to another worker count too. A caller over the
//! budget is closed at once (counted as rejected on its listener) rather than left in the
//! listen backlog. The slot lives as long as the socket: in the engine's connection, then in
//! the Triple pipeline's if the connection is handed there; dropping it gives the place back.

use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

/// The caller connections open now, and how many the file descriptors allow.
#[derive(Debug)]
pub struct FdBudget {
    open: AtomicUsize,
    limit: AtomicUsize,
}

impl Default for FdBudget {
    /// No limit, until [`FdBudget::set_limit`].
    fn default() -> Self {
        FdBudget {
            open: AtomicUsize::new(0),
            limit: AtomicUsize::new(usize::MAX),
        }
    }
}

impl FdBudget {
    /// Allows at most `limit` caller connections open at once.
    pub fn set_limit(&self, limit: usize) {
        self.limit.store(limit, Relaxed);
    }

    /// The most caller connections allowed (`usize::MAX`: no limit).
    pub fn limit(&self) -> usize {
        self.limit.load(Relaxed)
    }

    /// Caller connections open now (sockets accepted and not yet closed).
    pub fn open(&self) -> usize {
        self.open.load(Relaxed)
    }

    /// True while every place is taken: a new caller would be refused.
    pub fn is_full(&self) -> bool {
        self.open() >= self.limit()
    }

    /// A place for one more caller connection, or `None` when the budget is spent.
    pub fn admit(self: &Arc<Self>) -> Option<CallerSlot> {
        // Counted first, so that two acceptors at once cannot both take the last place.
        if self.open.fetch_add(1, Relaxed) >= self.limit() {
            self.open.fetch_sub(1, Relaxed);
            return None;
        }
        Some(CallerSlot(self.clone()))
    }
}

/// One caller connection's place in the [`FdBudget`], given back when dropped.
#[derive(Debug)]
pub struct CallerSlot(Arc<FdBudget>);

impl Drop for CallerSlot {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_counted_until_dropped() {
        let b = Arc::new(FdBudget::default());
        b.set_limit(2);
        let first = b.admit().expect("first place");
        let second = b.admit().expect("second place");
        assert!(b.is_full());
        assert!(b.admit().is_none(), "a third caller is over the budget");
        assert_eq!(b.open(), 2, "a refused caller takes no place");
        drop(first);
        assert!(!b.is_full());
        let third = b.admit().expect("a place given back is taken again");
        drop((second, third));
        assert_eq!(b.open(), 0);
    }

    #[test]
    fn no_limit_until_one_is_set() {
        let b = Arc::new(FdBudget::default());
        let slots: Vec<_> = (0..1000).filter_map(|_| b.admit()).collect();
        assert_eq!(slots.len(), 1000);
        assert!(!b.is_full());
    }

    #[test]
    fn a_lower_limit_refuses_new_callers_and_keeps_open_ones() {
        let b = Arc::new(FdBudget::default());
        let slots: Vec<_> = (0..5).filter_map(|_| b.admit()).collect();
        b.set_limit(3);
        assert!(b.is_full());
        assert!(b.admit().is_none());
        assert_eq!(b.open(), 5);
        drop(slots);
        assert!(b.admit().is_some());
    }
}
