//! What the router needs from a request body, read as little as possible and in one pass.
//!
//! The seed article's biggest cost was decoding bodies to route (MOSN's `GetMetas`, 20 s of a
//! 37 s profile), then decoding the service and method **again** for tracing. Here the body is
//! read at most once, and only as far as the routes need, by dubbo-codec's one peek
//! ([`dubbo_codec::peek_with`]), in the serialization the frame header names:
//!
//! 1. Always: the four fixed strings (dubbo version, path, version, method) and the parameter
//!    descriptor, borrowed from the body: no allocation.
//! 2. If a route tells services apart (interface, version, group or attachment values): the
//!    arguments are skipped (never built) and the attachments read once, keeping the group,
//!    the interface and the values of the keys the route table names (among them `path` and
//!    `version`, which the provider dispatches on, see [`route`](super::route)). The
//!    metadata cache's shortcut (stop after the method, take the group from the cache) is not
//!    taken: the provider dispatches on the group the attachments carry, not the cache's.
//!
//! As in Java (and in dubbo-codec's full decode), the last entry of a key sent twice wins,
//! and a value that is not a string is no value (and is flagged, [`Scratch::not_string`]).
//!
//! Values land in [`Scratch`], a set of reusable `String`s owned by the worker, so a request
//! costs copies of a few short names and no allocation once the strings have grown.

use std::borrow::Cow;

use dubbo_codec::peek::{peek_with, PeekOptions};
use dubbo_codec::{BodyError, BodyFormat};

/// How much of the body the routes need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Needs {
    /// Some route matches on the group.
    pub group: bool,
    /// Some route matches on attachment values.
    pub attachments: bool,
}

/// Reusable storage for what a peek found beyond the fixed fields.
#[derive(Debug)]
pub struct Scratch {
    /// The `interface` attachment.
    pub interface: Option<String>,
    /// The `group` attachment; `None` for no group or an empty one.
    pub group: Option<String>,
    /// The value found for each route key ([`Scratch::keys`]), or `None`.
    pub values: Vec<Option<String>>,
    /// For each route key: its last entry was not a string (`values` holds `None` then).
    not_string: Vec<bool>,
    /// The attachment keys the routes match on.
    keys: Vec<String>,
    // Spare buffers, so that clearing an `Option<String>` does not drop its allocation.
    spare_interface: String,
    spare_group: String,
    spare_values: Vec<String>,
}

/// Sets `slot` to `value` (`None`: unsets it), reusing the allocation of the string it held
/// or of `spare`.
fn put(slot: &mut Option<String>, spare: &mut String, value: Option<&str>) {
    match value {
        Some(value) => {
            let mut s = slot.take().unwrap_or_else(|| std::mem::take(spare));
            s.clear();
            s.push_str(value);
            *slot = Some(s);
        }
        None => {
            if let Some(s) = slot.take() {
                *spare = s;
            }
        }
    }
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch::with_keys(Vec::new())
    }
}

impl Scratch {
    /// A scratch for routes matching on these attachment keys.
    pub fn with_keys(keys: Vec<String>) -> Scratch {
        let n = keys.len();
        Scratch {
            interface: None,
            group: None,
            values: vec![None; n],
            not_string: vec![false; n],
            keys,
            spare_interface: String::new(),
            spare_group: String::new(),
            spare_values: vec![String::new(); n],
        }
    }

    /// The attachment keys the routes match on (index = slot).
    #[cfg(test)]
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    fn clear(&mut self) {
        put(&mut self.interface, &mut self.spare_interface, None);
        put(&mut self.group, &mut self.spare_group, None);
        for (v, spare) in self.values.iter_mut().zip(&mut self.spare_values) {
            put(v, spare, None);
        }
        self.not_string.fill(false);
    }

    /// The value of attachment slot `i`.
    pub fn value(&self, i: usize) -> Option<&str> {
        self.values.get(i).and_then(|v| v.as_deref())
    }

    /// True when the last entry of attachment slot `i` was not a string (`null`, a number,
    /// a map...): Java's `(String)` cast of it fails, or it reads as absent.
    pub fn not_string(&self, i: usize) -> bool {
        self.not_string.get(i).copied().unwrap_or(false)
    }
}

/// The fixed fields of a call, borrowed from its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call<'a> {
    /// The service path (the interface name, for Java callers).
    pub path: Cow<'a, str>,
    /// The service version.
    pub version: Cow<'a, str>,
    /// The method.
    pub method: Cow<'a, str>,
}

/// Reads what [`Needs`] asks for from a request body in `format`; see the [module
/// docs](self).
pub fn peek<'a>(
    body: &'a [u8],
    format: BodyFormat,
    needs: Needs,
    scratch: &mut Scratch,
) -> Result<Call<'a>, BodyError> {
    scratch.clear();
    let options = PeekOptions::new(format).attachments(needs.group || needs.attachments);
    let Scratch {
        values,
        spare_values,
        not_string,
        keys,
        ..
    } = &mut *scratch;
    let keys: &[String] = if needs.attachments { keys } else { &[] };
    // Every entry of a wanted key, in wire order: the last one stays.
    let p = peek_with(body, options, keys, |i, value| {
        if let (Some(v), Some(spare), Some(ns)) = (
            values.get_mut(i),
            spare_values.get_mut(i),
            not_string.get_mut(i),
        ) {
            put(v, spare, value.as_str());
            *ns = !value.is_str();
        }
    })?;
    put(
        &mut scratch.interface,
        &mut scratch.spare_interface,
        p.interface.as_deref(),
    );
    put(
        &mut scratch.group,
        &mut scratch.spare_group,
        p.group.as_deref(),
    );
    Ok(Call {
        path: p.path,
        version: p.version,
        method: p.method,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dubbo_codec::Request;

    const H2: BodyFormat = BodyFormat::Hessian2(hessian2::encode::PeerVersion::V3);

    fn body(group: Option<&str>) -> bytes::Bytes {
        let mut b = Request::builder("com.example.Svc", "echo")
            .version("1.0.0")
            .arg("java.lang.String", "hello")
            .attach("env", "canary");
        if let Some(g) = group {
            b = b.group(g);
        }
        b.build().unwrap().to_bytes()
    }

    #[test]
    fn fixed_fields_only() {
        let b = body(Some("g"));
        let mut s = Scratch::default();
        let c = peek(&b, H2, Needs::default(), &mut s).unwrap();
        assert_eq!(
            (&*c.path, &*c.version, &*c.method),
            ("com.example.Svc", "1.0.0", "echo")
        );
        assert!(matches!(c.path, Cow::Borrowed(_)));
        assert_eq!(s.group, None);
    }

    #[test]
    fn group_from_attachments() {
        let b = body(Some("blue"));
        let needs = Needs {
            group: true,
            attachments: false,
        };
        let mut s = Scratch::default();
        peek(&b, H2, needs, &mut s).unwrap();
        assert_eq!(s.group.as_deref(), Some("blue"));
        assert_eq!(s.interface.as_deref(), Some("com.example.Svc"));

        let b = body(None);
        peek(&b, H2, needs, &mut s).unwrap();
        assert_eq!(s.group, None);
    }

    #[test]
    fn attachments_by_key() {
        let b = body(Some("blue"));
        let mut s = Scratch::with_keys(vec!["env".into(), "zone".into()]);
        let needs = Needs {
            group: true,
            attachments: true,
        };
        peek(&b, H2, needs, &mut s).unwrap();
        assert_eq!(s.value(0), Some("canary"));
        assert_eq!(s.value(1), None);
        assert_eq!(s.group.as_deref(), Some("blue"));
        assert!(peek(b"\x01", H2, needs, &mut s).is_err());
    }

    #[test]
    fn a_key_sent_twice_reads_as_java_does() {
        // group "blue", then "green"; env "canary", then an int; zone an int, then "z";
        // interface "x.Y", then null. The last entry wins, a non-string one is no value.
        let mut b = b"\x052.0.2\x01s\x050.0.0\x01m\x00H".to_vec();
        for (k, v) in [
            (&b"\x05group"[..], &b"\x04blue"[..]),
            (b"\x03env", b"\x06canary"),
            (b"\x04zone", b"\x91"),
            (b"\x09interface", b"\x03x.Y"),
            (b"\x05group", b"\x05green"),
            (b"\x03env", b"\x92"),
            (b"\x04zone", b"\x01z"),
            (b"\x09interface", b"N"),
        ] {
            b.extend_from_slice(k);
            b.extend_from_slice(v);
        }
        b.push(b'Z');
        let full = Request::decode(&b).unwrap();
        let mut s = Scratch::with_keys(vec!["env".into(), "zone".into(), "group".into()]);
        assert_eq!(s.keys(), ["env", "zone", "group"]);
        let needs = Needs {
            group: true,
            attachments: true,
        };
        let call = peek(&b, H2, needs, &mut s).unwrap();
        assert_eq!(s.group.as_deref(), Some("green"));
        assert_eq!(s.group.as_deref(), full.group());
        assert_eq!(s.value(0), None);
        assert_eq!(s.value(0), full.attachments.get_str("env"));
        assert_eq!(s.value(1), Some("z"));
        assert_eq!(s.value(2), Some("green"));
        assert!(s.not_string(0) && !s.not_string(1) && !s.not_string(2));
        assert_eq!(s.interface, None);
        assert_eq!(full.attachments.interface(), None);
        assert_eq!(&*call.path, full.service());
        // The scratch is reused: nothing of this call stays for the next.
        let b = body(None);
        peek(&b, H2, needs, &mut s).unwrap();
        assert_eq!(
            (s.group.as_deref(), s.value(0), s.value(1)),
            (None, Some("canary"), None)
        );
        assert_eq!(s.interface.as_deref(), Some("com.example.Svc"));
    }
}
