//! Dubbo URLs as registries carry them: `protocol://host:port/path?k=v&...`.
//!
//! [`ServiceUrl`] owns one URL's text and reads it through `registry-urlweight` (whole-key
//! parameter lookup, no full parse). [`UrlBuilder`] writes URLs the way Java Dubbo's
//! `URL.toFullString` does: parameters sorted by key (Java keeps them in a `TreeMap` when it
//! writes them), values written as they are. [`ServiceUrl::provider`] and
//! [`ServiceUrl::consumer`] start from the parameters a Java 2.7 / 3.x provider or consumer
//! registers (see the observed URLs in this crate's tests).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::time::{SystemTime, UNIX_EPOCH};

use registry_urlweight::{get_param_decoded, DubboUrl};

use crate::error::RegistryError;

/// The `dubbo` parameter: the Dubbo protocol version this side speaks (what Java 2.7 and 3.x
/// write, and what decides that responses carry attachments).
pub const DUBBO_PROTOCOL_VERSION: &str = "2.0.2";
/// The `release` parameter Rust providers and consumers write: the Java Dubbo release whose
/// dubbo-protocol behaviour they were checked against.
pub const COMPATIBLE_RELEASE: &str = "3.2.19";

/// Which side registered a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// `side=provider`: registered under `providers`.
    Provider,
    /// `side=consumer`: registered under `consumers`.
    Consumer,
}

impl Side {
    /// `provider` / `consumer`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Provider => "provider",
            Side::Consumer => "consumer",
        }
    }

    /// The registry category of this side: `providers` / `consumers`.
    pub fn category(self) -> &'static str {
        match self {
            Side::Provider => "providers",
            Side::Consumer => "consumers",
        }
    }
}

/// One Dubbo URL (decoded text, as `URL.toFullString` writes it), checked to have a protocol.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ServiceUrl {
    text: String,
}

impl fmt::Debug for ServiceUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl fmt::Display for ServiceUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl ServiceUrl {
    /// Checks that `text` is a Dubbo URL.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Url`] when it has no `protocol://` or a bad port.
    pub fn parse(text: impl Into<String>) -> Result<Self, RegistryError> {
        let text = text.into();
        match DubboUrl::parse(&text) {
            Ok(_) => Ok(ServiceUrl { text }),
            Err(source) => Err(RegistryError::Url { url: text, source }),
        }
    }

    /// The parameters a Java provider of `interface` at `addr` registers: `anyhost` (when
    /// `addr` is the unspecified address), `application`, `deprecated`, `dubbo`, `dynamic`,
    /// `generic`, `interface`, `pid`, `prefer.serialization` (`fastjson2,hessian2`, as a stock
    /// Dubbo 3.2+ provider: 3.x consumers then call in fastjson2, 2.7 ones in hessian2),
    /// `release`, `serialization` (hessian2), `side=provider` and `timestamp` (now, from which consumers count the
    /// warm-up). Add `methods`, `version`, `group`, `weight`, `warmup`, `timeout`... with
    /// [`UrlBuilder::param`].
    pub fn provider(
        interface: impl Into<String>,
        addr: SocketAddr,
        application: impl Into<String>,
    ) -> UrlBuilder {
        let (ip, port) = (addr.ip(), addr.port());
        let b = registered(
            Side::Provider,
            ("dubbo", ip, port),
            interface.into(),
            application,
        )
        .param("deprecated", "false")
        .param("dynamic", "true")
        .param("generic", "false")
        .param("prefer.serialization", "fastjson2,hessian2")
        .param("serialization", "hessian2");
        if ip.is_unspecified() {
            b.param("anyhost", "true")
        } else {
            b
        }
    }

    /// The parameters a Java consumer of `interface` on `ip` registers under `consumers`:
    /// `consumer://ip/interface?application=..&category=consumers&check=false&dubbo=..&
    /// interface=..&pid=..&release=..&side=consumer&timestamp=..`.
    pub fn consumer(
        interface: impl Into<String>,
        ip: IpAddr,
        application: impl Into<String>,
    ) -> UrlBuilder {
        registered(
            Side::Consumer,
            ("consumer", ip, 0),
            interface.into(),
            application,
        )
        .param("category", Side::Consumer.category())
        .param("check", "false")
    }

    /// The URL's text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    fn parts(&self) -> DubboUrl<'_> {
        // Checked in `parse` / built valid by `UrlBuilder`.
        DubboUrl::parse(&self.text).unwrap_or_else(|_| unreachable!("a checked URL"))
    }

    /// The protocol (`dubbo`, `tri`, `consumer`...).
    pub fn protocol(&self) -> &str {
        self.parts().protocol()
    }

    /// The host (an IPv6 address without brackets).
    pub fn host(&self) -> &str {
        self.parts().host()
    }

    /// The port, when there is one.
    pub fn port(&self) -> Option<u16> {
        self.parts().port()
    }

    /// `IP:port`, when the host is an IP address and the port is not 0 (Dubbo URLs from a
    /// registry always are; no name is ever resolved here).
    pub fn socket_addr(&self) -> Option<SocketAddr> {
        let ip: IpAddr = self.host().parse().ok()?;
        let port = self.port().filter(|p| *p > 0)?;
        Some(SocketAddr::new(ip, port))
    }

    /// The path (the service name the URL was registered for).
    pub fn path(&self) -> &str {
        self.parts().path()
    }

    /// A parameter, percent-decoded; the last one when repeated (as Java reads it).
    pub fn param(&self, key: &str) -> Option<Cow<'_, str>> {
        get_param_decoded(&self.text, key)
    }

    /// Every parameter, percent-decoded; the last one of a key sent twice (as Java reads it).
    pub fn params(&self) -> std::collections::BTreeMap<String, String> {
        registry_urlweight::params(&self.text)
            .map(|p| (p.decoded_key().into_owned(), p.decoded_value().into_owned()))
            .collect()
    }

    /// The `interface` parameter, else the path.
    pub fn interface(&self) -> Cow<'_, str> {
        self.param("interface")
            .filter(|i| !i.is_empty())
            .unwrap_or(Cow::Borrowed(self.path()))
    }

    /// The `version` parameter, `""` for none (`0.0.0` is none too).
    pub fn version(&self) -> Cow<'_, str> {
        match self.param("version") {
            Some(v) if v != "0.0.0" => v,
            _ => Cow::Borrowed(""),
        }
    }

    /// The `group` parameter, `""` for none.
    pub fn group(&self) -> Cow<'_, str> {
        self.param("group").unwrap_or(Cow::Borrowed(""))
    }

    /// The `methods` parameter, split at commas.
    pub fn methods(&self) -> Vec<String> {
        self.param("methods")
            .map(|m| {
                m.split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The side: `side=consumer` or the `consumer` protocol is a consumer, anything else a
    /// provider.
    pub fn side(&self) -> Side {
        if self.param("side").as_deref() == Some("consumer") || self.protocol() == "consumer" {
            Side::Consumer
        } else {
            Side::Provider
        }
    }

    /// The registry category the URL belongs in: its `category` parameter, else its side's.
    pub fn category(&self) -> Cow<'_, str> {
        self.param("category")
            .filter(|c| !c.is_empty())
            .unwrap_or(Cow::Borrowed(self.side().category()))
    }

    /// Java's service key `group/interface:version` (parts left out when empty).
    pub fn service_key(&self) -> String {
        let mut k = String::new();
        let g = self.group();
        if !g.is_empty() {
            k.push_str(&g);
            k.push('/');
        }
        k.push_str(&self.interface());
        let v = self.version();
        if !v.is_empty() {
            k.push(':');
            k.push_str(&v);
        }
        k
    }
}

/// Builds a [`ServiceUrl`] with its parameters sorted by key, as Java writes them.
#[derive(Debug, Clone)]
pub struct UrlBuilder {
    protocol: String,
    host: IpAddr,
    port: u16,
    path: String,
    params: BTreeMap<String, String>,
}

/// What Java writes in every URL it registers, provider or consumer:
/// `protocol://ip:port/interface?application=..&dubbo=..&interface=..&pid=..&release=..&
/// side=..&timestamp=..`.
fn registered(
    side: Side,
    (protocol, ip, port): (&str, IpAddr, u16),
    interface: String,
    application: impl Into<String>,
) -> UrlBuilder {
    UrlBuilder::new(protocol, ip, port, interface.clone())
        .param("application", application)
        .param("dubbo", DUBBO_PROTOCOL_VERSION)
        .param("interface", interface)
        .param("pid", std::process::id().to_string())
        .param("release", COMPATIBLE_RELEASE)
        .param("side", side.as_str())
        .param("timestamp", now_ms().to_string())
}

impl UrlBuilder {
    /// `protocol://host:port/path`, no parameters.
    pub fn new(
        protocol: impl Into<String>,
        host: IpAddr,
        port: u16,
        path: impl Into<String>,
    ) -> Self {
        UrlBuilder {
            protocol: protocol.into(),
            host,
            port,
            path: path.into(),
            params: BTreeMap::new(),
        }
    }

    /// Sets a parameter (replacing one of the same key). An empty value removes it, as Java
    /// drops empty parameters when it builds a URL.
    pub fn param(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        let (key, value) = (key.into(), value.into());
        if value.is_empty() {
            self.params.remove(&key);
        } else {
            self.params.insert(key, value);
        }
        self
    }

    /// `version` (`""` and `0.0.0` leave it out).
    pub fn version(self, version: impl Into<String>) -> Self {
        let mut v = version.into();
        if v == "0.0.0" {
            v.clear();
        }
        self.param("version", v)
    }

    /// `group` (`""` leaves it out).
    pub fn group(self, group: impl Into<String>) -> Self {
        self.param("group", group)
    }

    /// `methods`: sorted and joined with commas (as Dubbo 3 writes them).
    pub fn methods<S: AsRef<str>>(self, methods: &[S]) -> Self {
        let mut m: Vec<&str> = methods.iter().map(AsRef::as_ref).collect();
        m.sort_unstable();
        m.dedup();
        self.param("methods", m.join(","))
    }

    /// The URL.
    pub fn build(self) -> ServiceUrl {
        use std::fmt::Write;
        let mut s = format!("{}://", self.protocol);
        let _ = match self.host {
            IpAddr::V6(ip) => write!(s, "[{ip}]"),
            IpAddr::V4(ip) => write!(s, "{ip}"),
        };
        if self.port != 0 {
            let _ = write!(s, ":{}", self.port);
        }
        s.push('/');
        s.push_str(&self.path);
        for (i, (k, v)) in self.params.iter().enumerate() {
            s.push(if i == 0 { '?' } else { '&' });
            s.push_str(k);
            s.push('=');
            s.push_str(v);
        }
        ServiceUrl { text: s }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_url_has_java_parameters_in_java_order() {
        let u = ServiceUrl::provider("demo.Greeter", "127.0.0.1:20880".parse().unwrap(), "app")
            .version("1.0.0")
            .group("g")
            .methods(&["sayHello", "add", "add"])
            .param("weight", "50")
            .build();
        let keys: Vec<&str> = registry_urlweight::params(u.as_str())
            .map(|p| p.key())
            .collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(keys, sorted);
        assert!(u
            .as_str()
            .starts_with("dubbo://127.0.0.1:20880/demo.Greeter?application=app&"));
        assert_eq!(u.methods(), ["add", "sayHello"]);
        assert_eq!(u.service_key(), "g/demo.Greeter:1.0.0");
        assert_eq!(u.socket_addr(), Some("127.0.0.1:20880".parse().unwrap()));
        assert_eq!(u.side(), Side::Provider);
        assert_eq!(u.category(), "providers");
        assert_eq!(u.param("anyhost"), None);
        assert_eq!(u.param("dubbo").as_deref(), Some("2.0.2"));
        assert_eq!(ServiceUrl::parse(u.as_str()).unwrap(), u);
    }

    #[test]
    fn consumer_url_and_v6() {
        let u = ServiceUrl::consumer("x.Y", "::1".parse().unwrap(), "app")
            .version("0.0.0")
            .build();
        assert!(
            u.as_str().starts_with(
                "consumer://[::1]/x.Y?application=app&category=consumers&check=false&"
            ),
            "{u}"
        );
        assert_eq!(u.side(), Side::Consumer);
        assert_eq!(u.category(), "consumers");
        assert_eq!(u.version(), "");
        assert_eq!(u.socket_addr(), None);
        let any = ServiceUrl::provider("x.Y", "0.0.0.0:1".parse().unwrap(), "a").build();
        assert_eq!(any.param("anyhost").as_deref(), Some("true"));
    }

    #[test]
    fn reads_a_java_27_provider_url() {
        // What a Java 2.7.23 provider registered (observed through ZooKeeper).
        let u = ServiceUrl::parse("dubbo://127.0.0.1:43655/io.github.hessianrs.demo.DemoService?anyhost=true&application=hessianrs-interop-provider&deprecated=false&dubbo=2.0.2&dynamic=true&generic=false&interface=io.github.hessianrs.demo.DemoService&methods=add,throwError,sayHello&pid=30214&release=2.7.23&serialization=hessian2&service.name=ServiceBean:/io.github.hessianrs.demo.DemoService:1.0.0&side=provider&timestamp=1795645225010&version=1.0.0").unwrap();
        assert_eq!(
            u.service_key(),
            "io.github.hessianrs.demo.DemoService:1.0.0"
        );
        assert_eq!(u.methods(), ["add", "throwError", "sayHello"]);
        assert_eq!(u.group(), "");
        assert!(ServiceUrl::parse("not a url").is_err());
    }

    /// Not a URL: the source is the URL parser's error.
    #[test]
    fn bad_url_has_the_parse_error_as_its_source() {
        use std::error::Error as _;

        let err = ServiceUrl::parse("no-protocol").unwrap_err();
        let parse = err
            .source()
            .and_then(|s| s.downcast_ref::<registry_urlweight::ParseError>())
            .expect("the parse error as the source");
        assert_eq!(parse, &registry_urlweight::ParseError::MissingProtocol);
    }
}
