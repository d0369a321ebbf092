//! ZooKeeper registry paths, as Java Dubbo's `ZookeeperRegistry` writes them.
//!
//! A provider registers an ephemeral node
//! `/<root>/<service interface>/providers/<URL-encoded provider URL>`, where `<root>` is the
//! registry's group (`dubbo` by default) and the URL is encoded with Java's `URLEncoder`
//! ([`encode_component`]). Consumers register under `consumers`, and
//! `configurators` and `routers` sit next to them.
//!
//! ```
//! use registry_urlweight::zk::{provider_path, RegistryNode};
//!
//! let url = "dubbo://10.0.0.1:20880/demo.Greeter?weight=100";
//! let path = provider_path("dubbo", "demo.Greeter", url);
//! assert_eq!(
//!     path,
//!     "/dubbo/demo.Greeter/providers/dubbo%3A%2F%2F10.0.0.1%3A20880%2Fdemo.Greeter%3Fweight%3D100"
//! );
//!
//! let node = RegistryNode::parse(&path)?;
//! assert!(node.is_provider());
//! assert_eq!(node.service(), "demo.Greeter");
//! assert_eq!(node.url(), url);
//! # Ok::<(), registry_urlweight::NodePathError>(())
//! ```

use std::borrow::Cow;

use crate::error::NodePathError;
use crate::percent::{decode_component, encode_component};

/// The default registry root (Dubbo's default registry group).
pub const DEFAULT_ROOT: &str = "dubbo";

/// The category under which providers register.
pub const PROVIDERS: &str = "providers";

/// A node of a Dubbo registry in ZooKeeper, `/<root>/<service>/<category>/<node>`, borrowed from
/// its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegistryNode<'a> {
    root: &'a str,
    service: &'a str,
    category: &'a str,
    node: &'a str,
}

impl<'a> RegistryNode<'a> {
    /// Splits a node's full path. The root may be empty (registry group `/`) or have several
    /// levels (`/a/b/<service>/...`); the other three parts must be non-empty.
    ///
    /// # Errors
    ///
    /// [`NodePathError::Shape`] when the path is not absolute or has fewer than three non-empty
    /// parts after the root.
    pub fn parse(path: &'a str) -> Result<Self, NodePathError> {
        let shape = || NodePathError::Shape(path.to_owned());
        let rest = path.strip_prefix('/').ok_or_else(shape)?;
        let mut parts = rest.rsplitn(4, '/');
        let node = parts.next().filter(|s| !s.is_empty()).ok_or_else(shape)?;
        let category = parts.next().filter(|s| !s.is_empty()).ok_or_else(shape)?;
        let service = parts.next().filter(|s| !s.is_empty()).ok_or_else(shape)?;
        let root = parts.next().unwrap_or("");
        Ok(RegistryNode {
            root,
            service,
            category,
            node,
        })
    }

    /// The root, without slashes at either end (`dubbo` by default; empty for root `/`).
    #[inline]
    pub fn root(&self) -> &'a str {
        self.root
    }

    /// The service interface, as written in the path (Dubbo URL-encodes it, which leaves usual
    /// Java interface names unchanged).
    #[inline]
    pub fn service(&self) -> &'a str {
        self.service
    }

    /// The category: `providers`, `consumers`, `configurators` or `routers`.
    #[inline]
    pub fn category(&self) -> &'a str {
        self.category
    }

    /// Whether this is a provider node.
    #[inline]
    pub fn is_provider(&self) -> bool {
        self.category == PROVIDERS
    }

    /// The node name: the URL-encoded URL.
    #[inline]
    pub fn encoded_url(&self) -> &'a str {
        self.node
    }

    /// The node's URL, decoded ([`decode_node_name`]).
    #[inline]
    pub fn url(&self) -> Cow<'a, str> {
        decode_node_name(self.node)
    }
}

/// The node name under which Dubbo registers `url`: the URL encoded like Java's `URLEncoder`.
#[inline]
pub fn node_name(url: &str) -> Cow<'_, str> {
    encode_component(url)
}

/// The URL a node name stands for (the name percent-decoded, `+` being a space), as Dubbo's
/// `URL.decode` reads it. Parameters that were percent-encoded inside the URL before it was
/// registered stay encoded once; decode them with [`Param::decoded_value`](crate::Param::decoded_value).
#[inline]
pub fn decode_node_name(name: &str) -> Cow<'_, str> {
    decode_component(name)
}

/// The full path of the provider node for `url` of `service` under `root` (slashes at either end
/// of `root` are ignored; an empty root gives `/<service>/providers/...`).
pub fn provider_path(root: &str, service: &str, url: &str) -> String {
    let root = root.trim_matches('/');
    let service = encode_component(service);
    let node = node_name(url);
    let mut path = String::with_capacity(root.len() + service.len() + node.len() + 13);
    if !root.is_empty() {
        path.push('/');
        path.push_str(root);
    }
    path.push('/');
    path.push_str(&service);
    path.push('/');
    path.push_str(PROVIDERS);
    path.push('/');
    path.push_str(&node);
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_decodes_a_java_provider_node() {
        // As registered by Dubbo 2.7 (URL.encode of toFullString()).
        let path = "/dubbo/org.apache.dubbo.demo.DemoService/providers/dubbo%3A%2F%2F192.168.1.5%3A20880%2Forg.apache.dubbo.demo.DemoService%3Fanyhost%3Dtrue%26application%3Ddemo-provider%26methods%3DsayHello%2CsayHelloAsync%26side%3Dprovider%26timestamp%3D1700000000000";
        let node = RegistryNode::parse(path).unwrap();
        assert_eq!(node.root(), "dubbo");
        assert_eq!(node.service(), "org.apache.dubbo.demo.DemoService");
        assert_eq!(node.category(), "providers");
        assert!(node.is_provider());
        let url = node.url();
        assert_eq!(
            url,
            "dubbo://192.168.1.5:20880/org.apache.dubbo.demo.DemoService?anyhost=true&application=demo-provider&methods=sayHello,sayHelloAsync&side=provider&timestamp=1700000000000"
        );
        assert_eq!(
            crate::get_param(&url, "methods"),
            Some("sayHello,sayHelloAsync")
        );
    }

    #[test]
    fn roots() {
        let n = RegistryNode::parse("/S/consumers/x").unwrap();
        assert_eq!(
            (n.root(), n.service(), n.category(), n.encoded_url()),
            ("", "S", "consumers", "x")
        );
        assert!(!n.is_provider());
        let n = RegistryNode::parse("/a/b/S/providers/x").unwrap();
        assert_eq!(n.root(), "a/b");
        assert_eq!(provider_path("/", "S", "u"), "/S/providers/u");
        assert_eq!(provider_path("/a/b/", "S", "u"), "/a/b/S/providers/u");
    }

    #[test]
    fn bad_paths() {
        for bad in [
            "",
            "/",
            "dubbo/S/providers/x",
            "/dubbo/S/providers/",
            "/S//x",
            "/providers/x",
            "//providers/x",
        ] {
            assert_eq!(
                RegistryNode::parse(bad),
                Err(NodePathError::Shape(bad.into())),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn double_encoded_values_stay_encoded_once() {
        let url = "dubbo://h:1/S?k=a%20b&weight=5";
        let path = provider_path(DEFAULT_ROOT, "S", url);
        let node = RegistryNode::parse(&path).unwrap();
        let back = node.url();
        assert_eq!(back, url);
        let p = crate::params(&back).next().unwrap();
        assert_eq!(p.decoded_value(), "a b");
    }
}
