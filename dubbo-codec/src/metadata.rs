//! A cache of what each exported service is, so that a [`peek`](mod@crate::peek) can stop
//! after the method name.
//!
//! The group of a call is only in the attachments, which come after all the arguments: to
//! learn it, a router must step over every argument. MOSN's Dubbo router avoids that with a
//! cache keyed by (path, version) and filled when services are registered: when the
//! request's path and version name exactly one registered service, its interface and group
//! are known without reading further.
//!
//! The cache must never give a wrong answer. A (path, version) registered with two
//! different groups (or interfaces) is **ambiguous**: [`MetadataCache::lookup`] says so, and
//! the peek falls back to reading the attachments. Versions `""` and `"0.0.0"` are the same
//! (Java sends `"0.0.0"` for "no version").
//!
//! What the cache cannot know is a call for a group that was never registered: with one
//! registered group for a (path, version), the cache answers that group, as MOSN's does.
//! Fill it with every service that may be called (a server does: it knows what it exports),
//! or use the plain [`peek`](crate::peek::peek) when callers may name unknown groups.
//!
//! ```
//! use dubbo_codec::metadata::{Lookup, MetadataCache};
//!
//! let mut cache = MetadataCache::new();
//! cache.register("com.example.Greeter", "1.0.0", "com.example.Greeter", Some("blue"));
//! cache.register("com.example.Store", "", "com.example.Store", Some("a"));
//! cache.register("com.example.Store", "0.0.0", "com.example.Store", Some("b"));
//!
//! assert_eq!(
//!     cache.lookup("com.example.Greeter", "1.0.0"),
//!     Lookup::Unique { interface: "com.example.Greeter", group: Some("blue") }
//! );
//! assert_eq!(cache.lookup("com.example.Store", "0.0.0"), Lookup::Ambiguous);
//! assert_eq!(cache.lookup("com.example.Other", "1.0.0"), Lookup::Unknown);
//! ```

use std::collections::HashMap;

/// What the cache knows about a (path, version).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup<'a> {
    /// Exactly one service: its interface and group.
    Unique {
        /// The interface name.
        interface: &'a str,
        /// The group (`None`: no group).
        group: Option<&'a str>,
    },
    /// Several services share the (path, version): read the attachments.
    Ambiguous,
    /// Nothing registered: read the attachments.
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    Unique {
        interface: String,
        group: Option<String>,
    },
    Ambiguous,
}

#[derive(Debug, Clone)]
struct Entry {
    version: String,
    state: State,
}

/// (path, version) → (interface, group). See the [module documentation](self).
///
/// Looking up allocates nothing: entries are found by borrowed path, then version.
#[derive(Debug, Clone, Default)]
pub struct MetadataCache {
    /// The Fx hash (rustc's, from `rustc-hash`): the keys are the service paths a server
    /// registered, not chosen by callers, so a keyed hash buys nothing, and a lookup hashes a
    /// 30-60 byte path on every call.
    by_path: HashMap<String, Vec<Entry>, rustc_hash::FxBuildHasher>,
}

fn normalize_version(v: &str) -> &str {
    if v == "0.0.0" {
        ""
    } else {
        v
    }
}

impl MetadataCache {
    /// An empty cache.
    pub fn new() -> Self {
        MetadataCache::default()
    }

    /// Records a service. Registering the same service again changes nothing; registering
    /// another interface or group under the same (path, version) makes it ambiguous.
    pub fn register(&mut self, path: &str, version: &str, interface: &str, group: Option<&str>) {
        let version = normalize_version(version);
        let group = group.filter(|g| !g.is_empty());
        let state = State::Unique {
            interface: interface.to_owned(),
            group: group.map(str::to_owned),
        };
        let entries = self.by_path.entry(path.to_owned()).or_default();
        match entries.iter_mut().find(|e| e.version == version) {
            Some(e) if e.state != state => e.state = State::Ambiguous,
            Some(_) => {}
            None => entries.push(Entry {
                version: version.to_owned(),
                state,
            }),
        }
    }

    /// What is known about `(path, version)`.
    pub fn lookup(&self, path: &str, version: &str) -> Lookup<'_> {
        let version = normalize_version(version);
        let Some(entries) = self.by_path.get(path) else {
            return Lookup::Unknown;
        };
        match entries.iter().find(|e| e.version == version) {
            Some(Entry {
                state: State::Unique { interface, group },
                ..
            }) => Lookup::Unique {
                interface,
                group: group.as_deref(),
            },
            Some(_) => Lookup::Ambiguous,
            None => Lookup::Unknown,
        }
    }

    /// Number of (path, version) pairs recorded.
    pub fn len(&self) -> usize {
        self.by_path.values().map(Vec::len).sum()
    }

    /// True when nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.by_path.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ambiguity_is_sticky_and_idempotent_registration_is_not_ambiguous() {
        let mut c = MetadataCache::new();
        c.register("p", "1", "I", None);
        c.register("p", "1", "I", Some(""));
        assert_eq!(
            c.lookup("p", "1"),
            Lookup::Unique {
                interface: "I",
                group: None
            }
        );
        c.register("p", "1", "I", Some("g"));
        assert_eq!(c.lookup("p", "1"), Lookup::Ambiguous);
        c.register("p", "1", "I", None);
        assert_eq!(c.lookup("p", "1"), Lookup::Ambiguous);
        c.register("p", "2", "J", None);
        assert_eq!(
            c.lookup("p", "2"),
            Lookup::Unique {
                interface: "J",
                group: None
            }
        );
        assert_eq!(c.lookup("p", "3"), Lookup::Unknown);
        assert_eq!(c.len(), 2);
        c.register("q", "", "Q", None);
        c.register("q", "0.0.0", "Q2", None);
        assert_eq!(c.lookup("q", ""), Lookup::Ambiguous);
    }
}
