//! Routing information from a request body, without decoding the call.
//!
//! A proxy or router needs the service, version, group and method of a call, not its
//! arguments. [`peek`] reads the five fixed fields, **steps over** the arguments with
//! [`Decoder::skip`](hessian2::decode::Decoder::skip) (every byte is looked at, since
//! Hessian containers have no length, but nothing is built), then reads the attachment map,
//! keeping only the string attachments it reports. Strings are borrowed from the body when
//! they are plain UTF-8 in one chunk (always, for the short ASCII names Dubbo sends), so the
//! common case allocates nothing; an argument that is a POJO costs the decoder one class
//! definition.
//!
//! With a [`MetadataCache`] that knows the service, [`peek_with_cache`] stops right after the
//! method name: the arguments are not even skipped.
//!
//! ```
//! use dubbo_codec::peek::{peek, peek_with_cache, Source};
//! use dubbo_codec::metadata::MetadataCache;
//! use dubbo_codec::request::Request;
//!
//! let body = Request::builder("com.example.Greeter", "sayHello")
//!     .version("1.0.0")
//!     .group("blue")
//!     .arg("java.lang.String", "world")
//!     .build()?
//!     .to_bytes();
//!
//! let p = peek(&body)?;
//! assert_eq!((p.service(), &*p.version, &*p.method), ("com.example.Greeter", "1.0.0", "sayHello"));
//! assert_eq!(p.group.as_deref(), Some("blue"));
//! assert_eq!(p.source, Source::Attachments);
//!
//! let mut cache = MetadataCache::new();
//! cache.register("com.example.Greeter", "1.0.0", "com.example.Greeter", Some("blue"));
//! let p = peek_with_cache(&body, &cache)?;
//! assert_eq!(p.group.as_deref(), Some("blue"));
//! assert_eq!(p.source, Source::Cache);
//! assert_eq!(p.descriptor, None); // stopped after the method name
//! # Ok::<(), dubbo_codec::BodyError>(())
//! ```

use std::borrow::Cow;

use hessian2::decode::{Decoder, Header, Reference};
use hessian2::input::SliceInput;

use crate::attachments::{GROUP_KEY, INTERFACE_KEY, TIMEOUT_KEY};
use crate::body::{header_kind, read_utf_or_empty};
use crate::descriptor::arg_count;
use crate::error::BodyError;
use crate::metadata::{Lookup, MetadataCache};
use crate::request::arg_field;

/// Where [`Peek::interface`] and [`Peek::group`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The request's attachments.
    Attachments,
    /// The [`MetadataCache`]; the peek stopped after the method name.
    Cache,
}

/// What [`peek`] found. Strings borrow from the body (or, with [`Source::Cache`], from the
/// cache) unless they had to be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peek<'a> {
    /// The caller's Dubbo protocol version (field 1).
    pub dubbo_version: Cow<'a, str>,
    /// The service path (field 2).
    pub path: Cow<'a, str>,
    /// The service version (field 3).
    pub version: Cow<'a, str>,
    /// The method name (field 4).
    pub method: Cow<'a, str>,
    /// The parameter descriptor (field 5); `None` when the cache answered.
    pub descriptor: Option<Cow<'a, str>>,
    /// The number of arguments; `None` when the cache answered.
    pub arg_count: Option<usize>,
    /// The `interface` attachment (or the cache's interface).
    pub interface: Option<Cow<'a, str>>,
    /// The `group` attachment (or the cache's group); `None` for no group or an empty one.
    pub group: Option<Cow<'a, str>>,
    /// The `timeout` attachment (milliseconds, as the string Java sends).
    pub timeout: Option<Cow<'a, str>>,
    /// Where `interface` and `group` came from.
    pub source: Source,
}

impl Peek<'_> {
    /// The service called: the interface when known, else the path.
    pub fn service(&self) -> &str {
        self.interface.as_deref().unwrap_or(&self.path)
    }
}

struct Fixed<'a> {
    dubbo_version: Cow<'a, str>,
    path: Cow<'a, str>,
    version: Cow<'a, str>,
    method: Cow<'a, str>,
}

fn read_fixed<'a>(dec: &mut Decoder<'a, SliceInput<'a>>) -> Result<Fixed<'a>, BodyError> {
    Ok(Fixed {
        dubbo_version: read_utf_or_empty(dec, "dubbo version")?,
        path: read_utf_or_empty(dec, "path")?,
        version: read_utf_or_empty(dec, "service version")?,
        method: read_utf_or_empty(dec, "method name")?,
    })
}

/// Reads the fixed fields, skips the arguments and reads the string attachments `group`,
/// `interface` and `timeout`. See the [module documentation](self).
pub fn peek(body: &[u8]) -> Result<Peek<'_>, BodyError> {
    let mut dec = Decoder::new(SliceInput::new(body));
    let fixed = read_fixed(&mut dec)?;
    finish(dec, fixed)
}

/// Like [`peek`], but when `cache` knows exactly one service for the request's (path,
/// version), takes its interface and group from the cache and stops after the method name.
/// An unknown or ambiguous (path, version) falls back to reading the attachments.
pub fn peek_with_cache<'a>(
    body: &'a [u8],
    cache: &'a MetadataCache,
) -> Result<Peek<'a>, BodyError> {
    let mut dec = Decoder::new(SliceInput::new(body));
    let fixed = read_fixed(&mut dec)?;
    match cache.lookup(&fixed.path, &fixed.version) {
        Lookup::Unique { interface, group } => Ok(Peek {
            dubbo_version: fixed.dubbo_version,
            path: fixed.path,
            version: fixed.version,
            method: fixed.method,
            descriptor: None,
            arg_count: None,
            interface: Some(Cow::Borrowed(interface)),
            group: group.map(Cow::Borrowed),
            timeout: None,
            source: Source::Cache,
        }),
        Lookup::Ambiguous | Lookup::Unknown => finish(dec, fixed),
    }
}

fn finish<'a>(
    mut dec: Decoder<'a, SliceInput<'a>>,
    fixed: Fixed<'a>,
) -> Result<Peek<'a>, BodyError> {
    let descriptor = read_utf_or_empty(&mut dec, "parameter descriptor")?;
    let n = arg_count(descriptor.as_ref())?;
    skip_args(&mut dec, n)?;
    let mut peek = Peek {
        dubbo_version: fixed.dubbo_version,
        path: fixed.path,
        version: fixed.version,
        method: fixed.method,
        descriptor: Some(descriptor),
        arg_count: Some(n),
        interface: None,
        group: None,
        timeout: None,
        source: Source::Attachments,
    };
    for_each_attachment(&mut dec, |key, value| match key {
        GROUP_KEY => peek.group = Some(value).filter(|g| !g.is_empty()),
        INTERFACE_KEY => peek.interface = Some(value),
        TIMEOUT_KEY => peek.timeout = Some(value),
        _ => {}
    })?;
    Ok(peek)
}

fn skip_args<'a>(dec: &mut Decoder<'a, SliceInput<'a>>, n: usize) -> Result<(), BodyError> {
    for i in 0..n {
        let field = arg_field(i);
        if dec.is_empty() {
            return Err(BodyError::Missing { field });
        }
        dec.skip().map_err(BodyError::hessian(field))?;
    }
    Ok(())
}

/// Calls `f` with every attachment of `body` whose key and value are strings, in wire order,
/// skipping the arguments. For attachments other than those [`peek`] reports.
pub fn attachments<'a>(
    body: &'a [u8],
    mut f: impl FnMut(&str, Cow<'a, str>),
) -> Result<(), BodyError> {
    let mut dec = Decoder::new(SliceInput::new(body));
    for field in ["dubbo version", "path", "service version", "method name"] {
        read_utf_or_empty(&mut dec, field)?;
    }
    let descriptor = read_utf_or_empty(&mut dec, "parameter descriptor")?;
    skip_args(&mut dec, arg_count(descriptor.as_ref())?)?;
    for_each_attachment(&mut dec, |k, v| f(k, v))
}

fn cow<'a>(r: Reference<'a, '_, str>) -> Cow<'a, str> {
    match r {
        Reference::Borrowed(b) => Cow::Borrowed(b),
        Reference::Copied(c) => Cow::Owned(c.to_owned()),
    }
}

/// Reads the attachment map, calling `f` for string → string entries and skipping others.
fn for_each_attachment<'a>(
    dec: &mut Decoder<'a, SliceInput<'a>>,
    mut f: impl FnMut(&str, Cow<'a, str>),
) -> Result<(), BodyError> {
    const FIELD: &str = "attachments";
    if dec.is_empty() {
        return Ok(());
    }
    match dec.pull().map_err(BodyError::hessian(FIELD))? {
        Header::Map { .. } => {}
        Header::Null => return Ok(()),
        other => {
            return Err(BodyError::Unexpected {
                field: FIELD,
                expected: "a map",
                found: header_kind(&other),
            })
        }
    }
    loop {
        let key = match dec.pull().map_err(BodyError::hessian(FIELD))? {
            Header::End => return Ok(()),
            Header::String { len, last } => Some(cow(dec
                .read_str(len, last)
                .map_err(BodyError::hessian(FIELD))?)),
            other => {
                dec.skip_rest(other).map_err(BodyError::hessian(FIELD))?;
                None
            }
        };
        let value = dec.pull().map_err(BodyError::hessian(FIELD))?;
        match (key, value) {
            (Some(key), Header::String { len, last }) => {
                let value = cow(dec.read_str(len, last).map_err(BodyError::hessian(FIELD))?);
                f(&key, value);
            }
            (_, Header::End) => {
                return Err(BodyError::Unexpected {
                    field: FIELD,
                    expected: "a value",
                    found: "the end marker Z",
                })
            }
            (_, other) => dec.skip_rest(other).map_err(BodyError::hessian(FIELD))?,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Request;
    use hessian2::value::{Object, Value};

    fn body(group: Option<&str>) -> bytes::Bytes {
        let user = Value::Object(Object::new(
            "com.example.User",
            [("name", Value::from("a")), ("id", Value::Long(1))],
        ));
        let mut b = Request::builder("com.example.Svc", "echo")
            .version("2.0")
            .value_arg("com.example.User", user.clone())
            .value_arg(
                "java.util.List",
                Value::untyped_list(vec![user, Value::Ref(0)]),
            )
            .attach("trace", "t-1");
        if let Some(g) = group {
            b = b.group(g);
        }
        b.build().unwrap().to_bytes()
    }

    #[test]
    fn peek_reads_attachments_after_skipping_args() {
        let b = body(Some("g1"));
        let p = peek(&b).unwrap();
        assert_eq!(p.path, "com.example.Svc");
        assert_eq!(p.version, "2.0");
        assert_eq!(p.method, "echo");
        assert_eq!(p.arg_count, Some(2));
        assert_eq!(p.group.as_deref(), Some("g1"));
        assert_eq!(p.interface.as_deref(), Some("com.example.Svc"));
        assert!(matches!(p.group, Some(Cow::Borrowed(_))));
        assert!(matches!(p.method, Cow::Borrowed(_)));
        let mut seen = Vec::new();
        attachments(&b, |k, v| seen.push((k.to_owned(), v.into_owned()))).unwrap();
        assert!(seen.contains(&("trace".to_owned(), "t-1".to_owned())));
        // Agrees with the full decoder.
        let full = Request::decode(&b).unwrap();
        assert_eq!(full.group(), p.group.as_deref());
        assert_eq!(full.service(), p.service());
    }

    #[test]
    fn cache_stops_early_and_never_guesses_ambiguous() {
        let b = body(Some("g2"));
        let mut cache = MetadataCache::new();
        cache.register("com.example.Svc", "2.0", "com.example.Svc", Some("g1"));
        let p = peek_with_cache(&b, &cache).unwrap();
        assert_eq!(p.source, Source::Cache);
        // A second group makes the entry ambiguous: the attachments decide.
        cache.register("com.example.Svc", "2.0", "com.example.Svc", Some("g2"));
        let p = peek_with_cache(&b, &cache).unwrap();
        assert_eq!(p.source, Source::Attachments);
        assert_eq!(p.group.as_deref(), Some("g2"));
        let b = body(None);
        let p = peek_with_cache(&b, &cache).unwrap();
        assert_eq!(p.group, None);
    }

    #[test]
    fn truncated_and_bad_bodies_are_errors() {
        let b = body(Some("g1"));
        for n in 0..b.len() {
            // Never a panic; most prefixes are errors (a prefix that ends right after the
            // arguments is a valid body without attachments).
            let _ = peek(&b[..n]);
        }
        assert!(matches!(peek(b""), Err(BodyError::Missing { .. })));
        assert!(matches!(
            peek(b"\x052.0.2\x01p\x01v\x01m\x01I"),
            Err(BodyError::Missing {
                field: "argument 0"
            })
        ));
        assert!(matches!(
            peek(b"\x052.0.2\x01p\x01v\x01m\x01X"),
            Err(BodyError::Descriptor(_))
        ));
        assert!(matches!(
            peek(b"\x052.0.2\x01p\x01v\x01m\x00\x91"),
            Err(BodyError::Unexpected { .. })
        ));
    }
}
