//! Certificates renewed on disk are taken up without a signal: certbot, cert-manager or a
//! SPIFFE agent rewrite the PEM files in place (or swap a symlink, as Kubernetes does with
//! mounted secrets) and expect the server to notice. Every [`EVERY`] the watch looks at the
//! TLS files of the configuration in force (`stat` only: size, modification time, inode);
//! once a change has stayed the same for one more look (so a certificate is not read while
//! its key is still being written), it puts the same configuration in force again, as
//! SIGHUP would: the workers read the files afresh for new connections, open ones keep their
//! sessions. Files that no longer validate are refused as a SIGHUP reload is, and the watch
//! tries again at their next change.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::config::Config;
use crate::core::Shared;

/// How often the files are looked at.
pub(crate) const EVERY: Duration = Duration::from_secs(1);

/// What a file looked like: `None` when it could not be looked at.
type Look = Option<(u64, SystemTime, u64)>;

/// Watches the TLS files of `shared`'s configuration until the task is aborted.
pub(crate) async fn watch(shared: Arc<Shared>) {
    let mut seen = looks(&shared.snapshot().config);
    // A change seen at the last look, waiting to stay the same for one more.
    let mut pending: Option<Vec<(String, Look)>> = None;
    let mut tick = tokio::time::interval(EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let config = shared.snapshot().config.clone();
        let now = looks(&config);
        if now == seen {
            pending = None;
            continue;
        }
        if pending.as_ref() != Some(&now) {
            pending = Some(now);
            continue;
        }
        let changed: Vec<&str> = now
            .iter()
            .filter(|(path, look)| !seen.iter().any(|(p, l)| p == path && l == look))
            .map(|(path, _)| path.as_str())
            .collect();
        if let Err(e) = config.validate() {
            shared
                .metrics
                .reload_failures
                .fetch_add(1, Ordering::Relaxed);
            tracing::error!(files = ?changed, "TLS files changed but are refused, keeping those in use:\n{e}");
        } else {
            tracing::info!(files = ?changed, "TLS files changed: reading them again");
            let _ = crate::discovery::reload(&shared, config).await;
        }
        seen = now;
        pending = None;
    }
}

/// Every TLS file `config` names (listeners' and clusters'), with what it looks like now.
fn looks(config: &Config) -> Vec<(String, Look)> {
    let listeners = config.listeners.iter().filter_map(|l| l.tls.as_ref());
    let listener_files =
        listeners.flat_map(|t| [Some(&t.cert), Some(&t.key), t.client_ca.as_ref()]);
    let clusters = config.clusters.values().filter_map(|c| c.tls.as_ref());
    let cluster_files = clusters.flat_map(|t| [Some(&t.ca), t.cert.as_ref(), t.key.as_ref()]);
    listener_files
        .chain(cluster_files)
        .flatten()
        .map(|path| (path.clone(), look(Path::new(path))))
        .collect()
}

/// A file's size, modification time and inode (`stat` follows symlinks, so a swapped link
/// shows as a new inode even when size and time match).
fn look(path: &Path) -> Look {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), m.modified().ok()?, m.ino()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewritten_or_swapped_file_looks_different() {
        let dir = std::env::temp_dir().join(format!("tls-watch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("cert.pem");
        std::fs::write(&path, "one").unwrap();
        let first = look(&path);
        assert!(first.is_some());
        assert_eq!(look(&path), first, "nothing changed");
        // Same size, new inode: a file renamed over it (what atomic writers do).
        let next = dir.join("cert.pem.new");
        std::fs::write(&next, "two").unwrap();
        std::fs::rename(&next, &path).unwrap();
        assert_ne!(look(&path), first);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(look(&path), None, "a missing file");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
