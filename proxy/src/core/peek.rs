//! What the router needs from a request body, read as little as possible and in one pass.
//!
//! The seed article's biggest cost was decoding bodies to route (MOSN's `GetMetas`, 20 s of a
//! 37 s profile), then decoding the service and method **again** for tracing. Here the body is
//! read at most once, and only as far as the routes need:
//!
//! 1. Always: the four fixed strings (dubbo version, path, version, method) and the parameter
//!    descriptor, borrowed from the body ([`RequestHead::decode`]): no allocation.
//! 2. If a route matches on the group but none on attachments: the metadata cache (path,
//!    version) -> (interface, group) answers without reading further (MOSN's fix #1); only
//!    on a miss are the arguments skipped (never built) to reach the attachments.
//! 3. If a route matches on attachment values: the arguments are skipped and the attachments
//!    read once, keeping the group, the interface and the values of the keys routes name.
//!
//! Values land in [`Scratch`], a set of reusable `String`s owned by the worker, so a request
//! costs copies of a few short names and no allocation once the strings have grown.

use std::borrow::Cow;

use dubbo_codec::metadata::{Lookup, MetadataCache};
use dubbo_codec::request::RequestHead;
use dubbo_codec::BodyError;
use hessian2::decode::{Decoder, Header, Reference};
use hessian2::input::SliceInput;

/// How much of the body the routes need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Needs {
    /// Some route matches on the group.
    pub group: bool,
    /// Some route matches on attachment values.
    pub attachments: bool,
}

/// Reusable storage for what a peek found beyond the fixed fields.
#[derive(Debug, Default)]
pub struct Scratch {
    /// The `interface` attachment, or the cache's interface.
    pub interface: Option<String>,
    /// The group (attachment or cache); `None` for no group or an empty one.
    pub group: Option<String>,
    /// Attachment keys the routes match on (index = slot).
    pub keys: Vec<String>,
    /// The value found for each key, or `None`.
    pub values: Vec<Option<String>>,
    /// Where interface and group came from.
    pub from_cache: bool,
    // Spare buffers, so that clearing an `Option<String>` does not drop its allocation.
    spare_interface: String,
    spare_group: String,
    spare_values: Vec<String>,
}

fn set(slot: &mut Option<String>, spare: &mut String, value: &str) {
    let mut s = slot.take().unwrap_or_else(|| std::mem::take(spare));
    s.clear();
    s.push_str(value);
    *slot = Some(s);
}

fn unset(slot: &mut Option<String>, spare: &mut String) {
    if let Some(s) = slot.take() {
        *spare = s;
    }
}

impl Scratch {
    /// A scratch for routes matching on these attachment keys.
    pub fn with_keys(keys: Vec<String>) -> Scratch {
        let n = keys.len();
        Scratch {
            keys,
            values: vec![None; n],
            spare_values: vec![String::new(); n],
            ..Scratch::default()
        }
    }

    fn clear(&mut self) {
        unset(&mut self.interface, &mut self.spare_interface);
        unset(&mut self.group, &mut self.spare_group);
        for (v, spare) in self.values.iter_mut().zip(&mut self.spare_values) {
            unset(v, spare);
        }
        self.from_cache = false;
    }

    fn set_interface(&mut self, v: &str) {
        set(&mut self.interface, &mut self.spare_interface, v);
    }

    fn set_group(&mut self, v: &str) {
        if v.is_empty() {
            unset(&mut self.group, &mut self.spare_group);
        } else {
            set(&mut self.group, &mut self.spare_group, v);
        }
    }

    /// The value of attachment slot `i`.
    pub fn value(&self, i: usize) -> Option<&str> {
        self.values.get(i).and_then(|v| v.as_deref())
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

fn herr(field: &'static str) -> impl FnOnce(hessian2::Error) -> BodyError {
    move |source| BodyError::Hessian { field, source }
}

/// Reads what [`Needs`] asks for from a request body; see the [module docs](self).
pub fn peek<'a>(
    body: &'a [u8],
    needs: Needs,
    cache: &MetadataCache,
    scratch: &mut Scratch,
) -> Result<Call<'a>, BodyError> {
    scratch.clear();
    let head = RequestHead::decode(body)?;
    let call = Call {
        path: head.path,
        version: head.version,
        method: head.method,
    };
    if !needs.group && !needs.attachments {
        return Ok(call);
    }
    if !needs.attachments {
        if let Lookup::Unique { interface, group } = cache.lookup(&call.path, &call.version) {
            scratch.set_interface(interface);
            scratch.set_group(group.unwrap_or(""));
            scratch.from_cache = true;
            return Ok(call);
        }
    }
    let rest = body.get(head.args_offset..).unwrap_or_default();
    let mut dec = Decoder::new(SliceInput::new(rest));
    for _ in 0..head.arg_count {
        if dec.is_empty() {
            return Err(BodyError::Missing { field: "argument" });
        }
        dec.skip().map_err(herr("argument"))?;
    }
    read_attachments(&mut dec, scratch)?;
    Ok(call)
}

/// Reads the attachment map, keeping string values of the keys we want.
fn read_attachments<'a>(
    dec: &mut Decoder<'a, SliceInput<'a>>,
    scratch: &mut Scratch,
) -> Result<(), BodyError> {
    const FIELD: &str = "attachments";
    let err = herr(FIELD);
    if dec.is_empty() {
        return Ok(());
    }
    match dec.pull().map_err(err)? {
        Header::Map { .. } => {}
        Header::Null => return Ok(()),
        _ => {
            return Err(BodyError::Unexpected {
                field: FIELD,
                expected: "a map",
                found: "another value",
            })
        }
    }
    // Which slot the current key fills: interface, group, or a route key.
    #[derive(Clone, Copy)]
    enum Slot {
        Interface,
        Group,
        Key(usize),
        None,
    }
    loop {
        let slot = match dec.pull().map_err(herr(FIELD))? {
            Header::End => return Ok(()),
            Header::String { len, last } => {
                let key = dec.read_str(len, last).map_err(herr(FIELD))?;
                let key: &str = &key;
                match key {
                    "interface" => Slot::Interface,
                    "group" => Slot::Group,
                    k => scratch
                        .keys
                        .iter()
                        .position(|w| w == k)
                        .map_or(Slot::None, Slot::Key),
                }
            }
            other => {
                dec.skip_rest(other).map_err(herr(FIELD))?;
                Slot::None
            }
        };
        match dec.pull().map_err(herr(FIELD))? {
            Header::String { len, last } => {
                let value = dec.read_str(len, last).map_err(herr(FIELD))?;
                let value: &str = match &value {
                    Reference::Borrowed(b) => b,
                    Reference::Copied(c) => c,
                };
                match slot {
                    Slot::Interface => {
                        set(&mut scratch.interface, &mut scratch.spare_interface, value)
                    }
                    Slot::Group => {
                        if value.is_empty() {
                            unset(&mut scratch.group, &mut scratch.spare_group);
                        } else {
                            set(&mut scratch.group, &mut scratch.spare_group, value)
                        }
                    }
                    Slot::Key(i) => {
                        set(&mut scratch.values[i], &mut scratch.spare_values[i], value)
                    }
                    Slot::None => {}
                }
            }
            Header::End => {
                return Err(BodyError::Unexpected {
                    field: FIELD,
                    expected: "a value",
                    found: "the end marker Z",
                })
            }
            other => dec.skip_rest(other).map_err(herr(FIELD))?,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dubbo_codec::Request;

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
        let c = peek(&b, Needs::default(), &MetadataCache::new(), &mut s).unwrap();
        assert_eq!(
            (&*c.path, &*c.version, &*c.method),
            ("com.example.Svc", "1.0.0", "echo")
        );
        assert!(matches!(c.path, Cow::Borrowed(_)));
        assert_eq!(s.group, None);
    }

    #[test]
    fn group_from_cache_or_attachments() {
        let b = body(Some("blue"));
        let needs = Needs {
            group: true,
            attachments: false,
        };
        let mut s = Scratch::default();
        peek(&b, needs, &MetadataCache::new(), &mut s).unwrap();
        assert_eq!(s.group.as_deref(), Some("blue"));
        assert_eq!(s.interface.as_deref(), Some("com.example.Svc"));
        assert!(!s.from_cache);

        let mut cache = MetadataCache::new();
        cache.register("com.example.Svc", "1.0.0", "com.example.Svc", Some("green"));
        peek(&b, needs, &cache, &mut s).unwrap();
        assert!(s.from_cache);
        assert_eq!(s.group.as_deref(), Some("green"));

        let b = body(None);
        peek(&b, needs, &MetadataCache::new(), &mut s).unwrap();
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
        peek(&b, needs, &MetadataCache::new(), &mut s).unwrap();
        assert_eq!(s.value(0), Some("canary"));
        assert_eq!(s.value(1), None);
        assert_eq!(s.group.as_deref(), Some("blue"));
        assert!(peek(b"\x01", needs, &MetadataCache::new(), &mut s).is_err());
    }
}
