//! The one-worker set-up the socket-free tests share: one listener, one route to a cluster
//! whose endpoint is never dialled for real, and time that the test makes up.

use std::sync::Arc;
use std::time::Instant;

use super::{Shared, Worker};
use crate::config::Config;

/// A worker over a configuration with `listener` lines added to its listener and `extra`
/// sections after it; the effects of its start are drained.
pub(super) fn one_worker(listener: &str, extra: &str) -> (Worker, Arc<Shared>, Instant) {
    let toml = format!(
        r#"
workers = 1
[[listeners]]
address = "127.0.0.1:0"
{listener}
[[routes]]
cluster = "c"
[clusters.c]
endpoints = [{{ address = "127.0.0.1:1" }}]
{extra}
"#
    );
    let shared = Shared::new(Config::from_toml(&toml).unwrap(), 1);
    let now = Instant::now();
    let mut w = Worker::new(0, shared.clone(), now);
    while w.poll_effect().is_some() {}
    (w, shared, now)
}
