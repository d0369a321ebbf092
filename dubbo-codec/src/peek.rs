//! Routing information from a request body, without decoding the call.
//!
//! A proxy or router needs the service, version, group and method of a call, not its
//! arguments. [`peek`] reads the five fixed fields, **steps over** the arguments (in Hessian2
//! every byte is looked at, since its containers have no length, but nothing is built), then
//! reads the attachment map,
//! keeping only the string attachments it reports. Strings are borrowed from the body when
//! they are plain UTF-8 in one chunk (always, for the short ASCII names Dubbo sends), so the
//! common case allocates nothing; an argument that is a POJO costs the decoder one class
//! definition.
//!
//! With a [`MetadataCache`] that knows the service, [`peek_with_cache`] stops right after the
//! method name: the arguments are not even skipped.
//!
//! [`peek`], [`peek_keys`], [`peek_with_cache`] and [`attachments`] read Hessian2 bodies;
//! [`peek_with`] reads a body in any [`BodyFormat`] and says how far to read
//! ([`PeekOptions`]): it is what they, and a proxy, use.
//!
//! # Other attachments, in the same pass
//!
//! [`peek_keys`] is [`peek`] that also hands the values of the attachment keys the caller
//! names to a callback, as [`AttachmentValue`]s borrowed from the body (or, for the rare
//! string the decoder had to assemble, from the decoder), so that nothing is allocated.
//! [`RequestHead::find_attachments`] does the same after a [`RequestHead::decode`], for a
//! caller that decides from the fixed fields whether to read on; [`attachments`] gives every
//! entry.
//!
//! # A key sent twice
//!
//! As in Java (a `HashMap`) and as [`Attachments::get`](crate::Attachments::get), the last
//! entry of a key wins, whatever its type: [`Peek::group`], [`Peek::interface`] and
//! [`Peek::timeout`] are `None` when the last value of their key is not a string, and the
//! callbacks get every entry of a chosen key in wire order (an [`AttachmentValue::NotString`]
//! included), so that a caller keeping the last one agrees.
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

pub use crate::attachments::AttachmentValue;
use crate::attachments::{GROUP_KEY, INTERFACE_KEY, TIMEOUT_KEY};
use crate::error::BodyError;
use crate::format::{skip_args, with_format, BodyFormat, Format, Reader};
use crate::head::{position, report, Fixed, RequestHead};
use crate::metadata::{Lookup, MetadataCache};

/// Where [`Peek::interface`] and [`Peek::group`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The request's attachments.
    Attachments,
    /// The [`MetadataCache`]; the peek stopped after the method name.
    Cache,
    /// Nowhere: the peek read the head only ([`PeekOptions::attachments`] false).
    Head,
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
    /// The `interface` attachment (or the cache's interface); `None` when its last value is
    /// not a string, or the attachments were not read.
    pub interface: Option<Cow<'a, str>>,
    /// The `group` attachment (or the cache's group); `None` for no group, an empty one, or
    /// one whose last value is not a string.
    pub group: Option<Cow<'a, str>>,
    /// The `timeout` attachment (milliseconds, as the string Java sends); `None` when its last
    /// value is not a string.
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

/// How far [`peek_with`] reads a body.
///
/// `#[non_exhaustive]`: start from [`PeekOptions::new`] and change what you need, with the
/// setters or the fields, so that a new option breaks no caller.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct PeekOptions<'c> {
    /// The serialization of the body.
    pub format: BodyFormat,
    /// When set and no attachment keys are asked for, a (path, version) this cache knows
    /// exactly one service for is answered from it, and the peek stops after the method name.
    pub cache: Option<&'c MetadataCache>,
    /// Read the attachments (stepping over the arguments) when the cache did not answer;
    /// false: the head only ([`Source::Head`]).
    pub attachments: bool,
}

impl PeekOptions<'_> {
    /// A whole peek of a body in `format`: head, arguments stepped over, attachments.
    pub const fn new(format: BodyFormat) -> Self {
        PeekOptions {
            format,
            cache: None,
            attachments: true,
        }
    }
}

impl<'c> PeekOptions<'c> {
    /// Answers from `cache` when it can (see [`PeekOptions::cache`](#structfield.cache)).
    pub const fn cache(mut self, cache: Option<&'c MetadataCache>) -> Self {
        self.cache = cache;
        self
    }

    /// Whether the attachments are read (see
    /// [`PeekOptions::attachments`](#structfield.attachments)).
    pub const fn attachments(mut self, attachments: bool) -> Self {
        self.attachments = attachments;
        self
    }
}

/// Reads the fixed fields, skips the arguments and reads the string attachments `group`,
/// `interface` and `timeout` of a Hessian2 body. See the [module documentation](self).
pub fn peek(body: &[u8]) -> Result<Peek<'_>, BodyError> {
    peek_keys(body, NO_KEYS, |_, _| {})
}

const NO_KEYS: &[&str] = &[];

/// [`peek`], and in the same pass the attachments named by `keys`: `found(i, value)` is
/// called for every entry whose key is `keys[i]`, in wire order, with its value borrowed (see
/// [`AttachmentValue`]). A key sent twice is reported twice: keep the last, as Java does. A
/// key listed twice in `keys` is reported under each of its indexes. Nothing is allocated
/// (unless [`peek`] would).
///
/// ```
/// use dubbo_codec::peek::{peek_keys, AttachmentValue};
/// use dubbo_codec::Request;
///
/// let body = Request::builder("com.example.Greeter", "sayHello")
///     .group("blue")
///     .attach("env", "canary")
///     .attach("trace", "t-1")
///     .build()?
///     .to_bytes();
/// let mut env = None;
/// let p = peek_keys(&body, &["env", "zone"], |i, v| {
///     if i == 0 {
///         env = v.as_str().map(str::to_owned); // the last entry wins
///     }
/// })?;
/// assert_eq!(env.as_deref(), Some("canary"));
/// assert_eq!(p.group.as_deref(), Some("blue"));
/// # Ok::<(), dubbo_codec::BodyError>(())
/// ```
pub fn peek_keys<'a, K: AsRef<str>>(
    body: &'a [u8],
    keys: &[K],
    found: impl FnMut(usize, AttachmentValue<'a, '_>),
) -> Result<Peek<'a>, BodyError> {
    peek_with(body, PeekOptions::new(BodyFormat::default()), keys, found)
}

/// Like [`peek`], but when `cache` knows exactly one service for the request's (path,
/// version), takes its interface and group from the cache and stops after the method name.
/// An unknown or ambiguous (path, version) falls back to reading the attachments.
pub fn peek_with_cache<'a>(
    body: &'a [u8],
    cache: &'a MetadataCache,
) -> Result<Peek<'a>, BodyError> {
    let options = PeekOptions::new(BodyFormat::default()).cache(Some(cache));
    peek_with(body, options, NO_KEYS, |_, _| {})
}

/// The one peek: reads a body in `options.format` as far as `options` say, and reports the
/// attachments named by `keys` as [`peek_keys`] does (only when the attachments are read:
/// asking for keys turns the cache off). Nothing is allocated for the strings a body holds
/// plainly (all Java sends).
pub fn peek_with<'a, K: AsRef<str>>(
    body: &'a [u8],
    options: PeekOptions<'a>,
    keys: &[K],
    found: impl FnMut(usize, AttachmentValue<'a, '_>),
) -> Result<Peek<'a>, BodyError> {
    with_format!(options.format, f => peek_in(f, body, options, keys, found))
}

fn peek_in<'a, F: Format, K: AsRef<str>>(
    f: F,
    body: &'a [u8],
    options: PeekOptions<'a>,
    keys: &[K],
    mut found: impl FnMut(usize, AttachmentValue<'a, '_>),
) -> Result<Peek<'a>, BodyError> {
    let mut r = f.reader(body, 0);
    let fixed = Fixed::read(&mut r)?;
    let cache = options
        .cache
        .filter(|_| keys.is_empty() && options.attachments);
    if let Some(Lookup::Unique { interface, group }) =
        cache.map(|c| c.lookup(&fixed.path, &fixed.version))
    {
        return Ok(Peek {
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
        });
    }
    let head = RequestHead::after_fixed(&mut r, fixed, options.format)?;
    let mut peek = Peek {
        dubbo_version: head.dubbo_version,
        path: head.path,
        version: head.version,
        method: head.method,
        descriptor: Some(head.descriptor),
        arg_count: Some(head.arg_count),
        interface: None,
        group: None,
        timeout: None,
        source: Source::Head,
    };
    if !options.attachments {
        return Ok(peek);
    }
    peek.source = Source::Attachments;
    skip_args(&mut r, head.arg_count)?;
    r.scan_attachments(
        |key| {
            let key = key.as_str().unwrap_or_default();
            let own = match key {
                GROUP_KEY => Some(Own::Group),
                INTERFACE_KEY => Some(Own::Interface),
                TIMEOUT_KEY => Some(Own::Timeout),
                _ => None,
            };
            let i = position(keys, key);
            (own.is_some() || i.is_some()).then_some((own, i))
        },
        |(own, i), value| {
            match own {
                Some(Own::Group) => peek.group = value.to_cow().filter(|g| !g.is_empty()),
                Some(Own::Interface) => peek.interface = value.to_cow(),
                Some(Own::Timeout) => peek.timeout = value.to_cow(),
                None => {}
            }
            if let Some(i) = i {
                report(keys, i, value, &mut found);
            }
        },
    )?;
    Ok(peek)
}

/// The attachments [`Peek`] reports itself.
#[derive(Clone, Copy)]
enum Own {
    Group,
    Interface,
    Timeout,
}

/// Calls `f` with every attachment of a Hessian2 `body` whose key is a string, in wire order,
/// skipping the arguments; its value is a string or [`AttachmentValue::NotString`]. A key sent
/// twice comes twice: the last one is what Java sees. A key the decoder had to assemble (never
/// the case for what Java sends) is copied.
pub fn attachments<'a>(
    body: &'a [u8],
    f: impl FnMut(&str, AttachmentValue<'a, '_>),
) -> Result<(), BodyError> {
    attachments_in(BodyFormat::default(), body, f)
}

/// [`attachments`] of a body in `format`.
pub fn attachments_in<'a>(
    format: BodyFormat,
    body: &'a [u8],
    mut f: impl FnMut(&str, AttachmentValue<'a, '_>),
) -> Result<(), BodyError> {
    with_format!(format, fmt => {
        let mut r = fmt.reader(body, 0);
        let head = RequestHead::read(&mut r, format)?;
        skip_args(&mut r, head.arg_count)?;
        r.scan_attachments(|key| key.to_cow(), |key, value| f(&key, value))
    })
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
        attachments(&b, |k, v| {
            seen.push((k.to_owned(), v.as_str().unwrap().to_owned()))
        })
        .unwrap();
        assert!(seen.contains(&("trace".to_owned(), "t-1".to_owned())));
        // Agrees with the full decoder.
        let full = Request::decode(&b).unwrap();
        assert_eq!(full.group(), p.group.as_deref());
        assert_eq!(full.service(), p.service());
    }

    /// A body with no arguments and these attachment entries (Hessian-encoded keys and
    /// values), or, when `pojo`, a POJO argument and the builder's attachments before these.
    fn body_with(entries: &[(&[u8], &[u8])], pojo: bool) -> Vec<u8> {
        let mut b = if pojo {
            let mut b = Request::builder("s", "m")
                .value_arg(
                    "a.U",
                    Value::Object(Object::new("a.U", [("id", Value::Int(1))])),
                )
                .build()
                .unwrap()
                .to_bytes()
                .to_vec();
            // Reopen the attachment map the builder wrote.
            assert_eq!(b.pop(), Some(b'Z'));
            b
        } else {
            b"\x052.0.2\x01s\x050.0.0\x01m\x00H".to_vec()
        };
        for (k, v) in entries {
            b.extend_from_slice(k);
            b.extend_from_slice(v);
        }
        b.push(b'Z');
        b
    }

    #[test]
    fn a_key_sent_twice_reads_as_java_does() {
        // group "a", then "b"; timeout "1", then an int; interface "x", then null; env "e",
        // then a chunked string the decoder has to assemble ("ab", as 'R' chunk "a" + "b").
        let body = body_with(
            &[
                (b"\x05group", b"\x01a"),
                (b"\x07timeout", b"\x011"),
                (b"\x09interface", b"\x01x"),
                (b"\x03env", b"\x01e"),
                (b"\x05group", b"\x01b"),
                (b"\x07timeout", b"\x92"),
                (b"\x09interface", b"N"),
                (b"\x03env", b"R\x00\x01a\x01b"),
                (b"\x91", b"\x01k"), // an int key: stepped over
            ],
            false,
        );
        let full = Request::decode(&body);
        // The full decode refuses the int key; without it, it agrees with the peek.
        assert!(full.is_err());
        let body_ok = {
            let mut b = body.clone();
            let cut = b.len() - 4;
            b.drain(cut..b.len() - 1);
            b
        };
        let full = Request::decode(&body_ok).unwrap();
        for body in [&body, &body_ok] {
            let mut env = Vec::new();
            let p = peek_keys(body, &["env", "group", "nope", "env"], |i, v| {
                env.push((
                    i,
                    v.as_str().map(str::to_owned),
                    matches!(v, AttachmentValue::Copied(_)),
                ))
            })
            .unwrap();
            assert_eq!(p.group.as_deref(), Some("b"));
            assert_eq!(p.group.as_deref(), full.group());
            assert_eq!(p.timeout, None);
            assert_eq!(full.attachments.get_str("timeout"), None);
            assert_eq!(p.interface, None);
            assert_eq!(full.attachments.interface(), None);
            assert_eq!(p.service(), "s");
            assert_eq!(
                env,
                [
                    (1, Some("a".to_owned()), false),
                    (0, Some("e".to_owned()), false),
                    (3, Some("e".to_owned()), false),
                    (1, Some("b".to_owned()), false),
                    (0, Some("ab".to_owned()), true),
                    (3, Some("ab".to_owned()), true),
                ]
            );
            assert_eq!(peek(body).unwrap(), p);

            let head = RequestHead::decode(body).unwrap();
            let mut last: [Option<String>; 3] = Default::default();
            head.find_attachments(body, &["timeout", "interface", "env"], |i, v| {
                last[i] = v.as_str().map(str::to_owned)
            })
            .unwrap();
            assert_eq!(last, [None, None, Some("ab".to_owned())]);

            let mut all = Vec::new();
            attachments(body, |k, v| {
                all.push((k.to_owned(), v.to_cow().map(Cow::into_owned)))
            })
            .unwrap();
            assert_eq!(all.len(), 8);
            assert_eq!(all[5], ("timeout".to_owned(), None));
            assert_eq!(all[7], ("env".to_owned(), Some("ab".to_owned())));
        }
    }

    #[test]
    fn find_attachments_after_a_pojo_and_error_offsets() {
        let body = body_with(&[(b"\x03env", b"\x01e")], true);
        let head = RequestHead::decode(&body).unwrap();
        assert_eq!(head.arg_count, 1);
        let mut env = None;
        head.find_attachments(&body, &[String::from("env")], |_, v| {
            env = v.as_str().map(str::to_owned)
        })
        .unwrap();
        assert_eq!(env.as_deref(), Some("e"));
        let mut env2 = None;
        let p = peek_keys(&body, &["env"], |_, v| env2 = v.as_str().map(str::to_owned)).unwrap();
        assert_eq!((env2, p.arg_count), (env, Some(1)));

        // Errors count from the start of the body, however the body was read.
        let cut = &body[..body.len() - 2]; // inside the value "e"
        let offset = |r: Result<(), BodyError>| r.unwrap_err().hessian().unwrap().offset();
        let at = offset(head.find_attachments(cut, NO_KEYS, |_, _| {}));
        assert_eq!(at, offset(peek_keys(cut, &["env"], |_, _| {}).map(|_| ())),);
        assert_eq!(at, offset(peek(cut).map(|_| ())));
        assert_eq!(
            at,
            offset(RequestHead::decode_with_attachments(cut).map(|_| ()))
        );
        assert!(at as usize >= head.args_offset && at as usize <= cut.len());
        let bad_arg = &body[..head.args_offset + 2];
        assert_eq!(
            offset(head.find_attachments(bad_arg, NO_KEYS, |_, _| {})),
            offset(peek(bad_arg).map(|_| ())),
        );
        assert!(matches!(
            peek(bad_arg).unwrap_err(),
            BodyError::Hessian {
                field: "argument 0",
                ..
            }
        ));
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
