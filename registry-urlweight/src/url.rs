//! The parts of a Dubbo URL, borrowed from it.

use crate::error::ParseError;
use crate::query::{query_start, Params};

/// A Dubbo URL split into its parts, all borrowed from the original string.
///
/// The shape is `protocol://[username[:password]@]host[:port][/path][?query]`, as Dubbo's
/// `URLStrParser` reads it:
///
/// - the query is everything after the first `?` (`#` is an ordinary character, as in Dubbo);
/// - the path is everything between the first `/` after the host and the query, *without* its
///   leading `/` (Dubbo's `getPath()`: `org.apache.dubbo.demo.DemoService`);
/// - an IPv6 host may be bracketed, `[::1]:20880`, and [`host`](DubboUrl::host) is then given
///   without the brackets. An unbracketed host is split at its last `:` like Dubbo does, so
///   `fe80::1%eth0:20880` is host `fe80::1%eth0`, port 20880 (a `%` after the last `:` marks a
///   zone id and means "no port"); an unbracketed IPv6 host *without* a port is ambiguous
///   (`::1` reads as host `:`, port 1), so write it bracketed.
///
/// Parsing only looks at the text before the query; the query's parameters are found lazily by
/// [`params`](DubboUrl::params) and [`param`](DubboUrl::param). Nothing is percent-decoded:
/// a URL read from a ZooKeeper node name must first go through
/// [`decode_component`](crate::decode_component) (or [`zk::RegistryNode`](crate::zk::RegistryNode)).
///
/// ```
/// use registry_urlweight::DubboUrl;
///
/// let url = DubboUrl::parse("dubbo://[::1]:20880/demo.Greeter?methods=hi,bye&weight=5")?;
/// assert_eq!(url.protocol(), "dubbo");
/// assert_eq!(url.host(), "::1");
/// assert_eq!(url.port(), Some(20880));
/// assert_eq!(url.path(), "demo.Greeter");
/// assert_eq!(url.param("weight"), Some("5"));
/// assert_eq!(url.params().count(), 2);
/// # Ok::<(), registry_urlweight::ParseError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DubboUrl<'a> {
    url: &'a str,
    protocol: &'a str,
    username: Option<&'a str>,
    password: Option<&'a str>,
    address: &'a str,
    host: &'a str,
    port: Option<u16>,
    path: &'a str,
    query: Option<&'a str>,
}

impl<'a> DubboUrl<'a> {
    /// Splits `url` into its parts.
    ///
    /// # Errors
    ///
    /// [`ParseError`] when there is no `protocol://`, a bracketed IPv6 host is malformed, or the
    /// port is not a number in `0..=65535`.
    pub fn parse(url: &'a str) -> Result<Self, ParseError> {
        let q = query_start(url);
        let body = &url[..q.map_or(url.len(), |q| q - 1)];
        let protocol_end = memchr::memmem::find(body.as_bytes(), b"://")
            .filter(|&i| i > 0)
            .ok_or(ParseError::MissingProtocol)?;
        let rest = &body[protocol_end + 3..];
        let (authority, path) = match memchr::memchr(b'/', rest.as_bytes()) {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        let (username, password, address) = match memchr::memrchr(b'@', authority.as_bytes()) {
            Some(at) => {
                let userinfo = &authority[..at];
                let (user, password) = match userinfo.find(':') {
                    Some(c) => (&userinfo[..c], Some(&userinfo[c + 1..])),
                    None => (userinfo, None),
                };
                (Some(user), password, &authority[at + 1..])
            }
            None => (None, None, authority),
        };
        let (host, port) = split_host_port(address)?;
        Ok(DubboUrl {
            url,
            protocol: &body[..protocol_end],
            username,
            password,
            address,
            host,
            port,
            path,
            query: q.map(|q| &url[q..]),
        })
    }

    /// The whole URL, as given to [`parse`](DubboUrl::parse).
    #[inline]
    pub fn as_str(&self) -> &'a str {
        self.url
    }

    /// The protocol (scheme), such as `dubbo` or `tri`.
    #[inline]
    pub fn protocol(&self) -> &'a str {
        self.protocol
    }

    /// The user name, if the URL has a `user[:password]@` part.
    #[inline]
    pub fn username(&self) -> Option<&'a str> {
        self.username
    }

    /// The password, if the URL has a `user:password@` part.
    #[inline]
    pub fn password(&self) -> Option<&'a str> {
        self.password
    }

    /// `host[:port]` as written (with the brackets of an IPv6 host).
    #[inline]
    pub fn address(&self) -> &'a str {
        self.address
    }

    /// The host, without the brackets of an IPv6 host; may be empty.
    #[inline]
    pub fn host(&self) -> &'a str {
        self.host
    }

    /// The port, if the URL has one.
    #[inline]
    pub fn port(&self) -> Option<u16> {
        self.port
    }

    /// The path without its leading `/` (for a provider, usually the interface name).
    #[inline]
    pub fn path(&self) -> &'a str {
        self.path
    }

    /// The query (after the first `?`), if the URL has a `?`.
    #[inline]
    pub fn query(&self) -> Option<&'a str> {
        self.query
    }

    /// The query's parameters, in order; see [`params`](crate::params).
    #[inline]
    pub fn params(&self) -> Params<'a> {
        Params::new(self.query.unwrap_or(""))
    }

    /// The raw value of the last parameter whose key is `key`; see
    /// [`get_param`](crate::get_param).
    #[inline]
    pub fn param(&self, key: &str) -> Option<&'a str> {
        crate::get_param(self.url, key)
    }

    /// `<method>.<key>` if present and non-empty, else `key`; see
    /// [`method_param`](crate::method_param).
    #[inline]
    pub fn method_param(&self, method: &str, key: &str) -> Option<&'a str> {
        crate::method_param(self.url, method, key)
    }
}

fn split_host_port(address: &str) -> Result<(&str, Option<u16>), ParseError> {
    if let Some(bracketed) = address.strip_prefix('[') {
        let close = bracketed.find(']').ok_or(ParseError::InvalidIpv6Host)?;
        let after = &bracketed[close + 1..];
        let port = if after.is_empty() {
            None
        } else {
            parse_port(after.strip_prefix(':').ok_or(ParseError::InvalidIpv6Host)?)?
        };
        return Ok((&bracketed[..close], port));
    }
    match address.rfind(':') {
        Some(colon) if !address[colon..].contains('%') => {
            Ok((&address[..colon], parse_port(&address[colon + 1..])?))
        }
        _ => Ok((address, None)),
    }
}

/// An empty port (`host:`) means no port, as in RFC 3986.
fn parse_port(port: &str) -> Result<Option<u16>, ParseError> {
    if port.is_empty() {
        return Ok(None);
    }
    if !port.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ParseError::InvalidPort(port.to_owned()));
    }
    port.parse()
        .map(Some)
        .map_err(|_| ParseError::InvalidPort(port.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_url() {
        let u = DubboUrl::parse("dubbo://admin:secret@10.0.0.1:20880/org.Demo?a=1&b=2").unwrap();
        assert_eq!(u.protocol(), "dubbo");
        assert_eq!(u.username(), Some("admin"));
        assert_eq!(u.password(), Some("secret"));
        assert_eq!(u.address(), "10.0.0.1:20880");
        assert_eq!(u.host(), "10.0.0.1");
        assert_eq!(u.port(), Some(20880));
        assert_eq!(u.path(), "org.Demo");
        assert_eq!(u.query(), Some("a=1&b=2"));
        let keys: Vec<_> = u.params().map(|p| p.key()).collect();
        assert_eq!(keys, ["a", "b"]);
    }

    #[test]
    fn minimal_and_portless() {
        let u = DubboUrl::parse("dubbo://provider.example").unwrap();
        assert_eq!(u.host(), "provider.example");
        assert_eq!(u.port(), None);
        assert_eq!(u.path(), "");
        assert_eq!(u.query(), None);
        assert_eq!(u.params().count(), 0);

        let u = DubboUrl::parse("dubbo://h/p?").unwrap();
        assert_eq!(u.query(), Some(""));
        let u = DubboUrl::parse("dubbo://h:/p").unwrap();
        assert_eq!((u.host(), u.port()), ("h", None));
        let u = DubboUrl::parse("empty:///p?x").unwrap();
        assert_eq!((u.host(), u.path()), ("", "p"));
    }

    #[test]
    fn user_without_password() {
        let u = DubboUrl::parse("zookeeper://me@zk:2181").unwrap();
        assert_eq!(u.username(), Some("me"));
        assert_eq!(u.password(), None);
        assert_eq!(u.host(), "zk");
    }

    #[test]
    fn ipv6_hosts() {
        let u = DubboUrl::parse("dubbo://[2001:db8::1]:20880/S?x=1").unwrap();
        assert_eq!(
            (u.host(), u.port(), u.address()),
            ("2001:db8::1", Some(20880), "[2001:db8::1]:20880")
        );
        let u = DubboUrl::parse("dubbo://[::1]/S").unwrap();
        assert_eq!((u.host(), u.port()), ("::1", None));
        // Dubbo's own unbracketed form, zone id included.
        let u = DubboUrl::parse("dubbo://fe80:0:0:0:894:aeec:f37d:23e1%en0:20880/S").unwrap();
        assert_eq!(
            (u.host(), u.port()),
            ("fe80:0:0:0:894:aeec:f37d:23e1%en0", Some(20880))
        );
        let u = DubboUrl::parse("dubbo://fe80::1%en0/S").unwrap();
        assert_eq!((u.host(), u.port()), ("fe80::1%en0", None));
    }

    #[test]
    fn query_and_path_characters_do_not_confuse_the_authority() {
        let u = DubboUrl::parse("dubbo://h:1/a/b:c@d?x=://&y=[::]:9").unwrap();
        assert_eq!((u.host(), u.port(), u.path()), ("h", Some(1), "a/b:c@d"));
        assert_eq!(u.param("y"), Some("[::]:9"));
    }

    #[test]
    fn errors() {
        assert_eq!(DubboUrl::parse(""), Err(ParseError::MissingProtocol));
        assert_eq!(
            DubboUrl::parse("10.0.0.1:20880/S"),
            Err(ParseError::MissingProtocol)
        );
        assert_eq!(DubboUrl::parse("://h/S"), Err(ParseError::MissingProtocol));
        assert_eq!(
            DubboUrl::parse("h/S?u=a://b"),
            Err(ParseError::MissingProtocol)
        );
        assert_eq!(
            DubboUrl::parse("dubbo://[::1/S"),
            Err(ParseError::InvalidIpv6Host)
        );
        assert_eq!(
            DubboUrl::parse("dubbo://[::1]x/S"),
            Err(ParseError::InvalidIpv6Host)
        );
        assert_eq!(
            DubboUrl::parse("dubbo://h:65536/S"),
            Err(ParseError::InvalidPort("65536".into()))
        );
        assert_eq!(
            DubboUrl::parse("dubbo://h:+1/S"),
            Err(ParseError::InvalidPort("+1".into()))
        );
        assert_eq!(
            DubboUrl::parse("dubbo://[::1]:http/S"),
            Err(ParseError::InvalidPort("http".into()))
        );
    }
}
