//! A route's `[routes.access]` rules, compiled: whether a caller (its TLS identity, its
//! address) may make a call (its method) on the route. The rules' semantics are the
//! config's (see [`crate::config::access`]): every set list must pass, deny wins, and what
//! the proxy does not know fails every set list of its kind.

use std::net::IpAddr;

use crate::config::{self, Cidr, Pattern};

/// Who is calling: what the proxy knows of a caller connection.
#[derive(Debug, Clone, Copy, Default)]
pub struct Caller<'a> {
    /// Its verified TLS client certificate's identity.
    pub identity: Option<&'a str>,
    /// Its address.
    pub source: Option<IpAddr>,
}

/// One kind of rule: an allow list (`None`: anything) and a deny list.
struct Rule<T> {
    allow: Option<Vec<T>>,
    deny: Vec<T>,
}

impl<T> Rule<T> {
    fn compile<S>(allow: Option<&[S]>, deny: &[S], parse: impl Fn(&S) -> Option<T>) -> Rule<T> {
        Rule {
            allow: allow.map(|a| a.iter().filter_map(&parse).collect()),
            deny: deny.iter().filter_map(&parse).collect(),
        }
    }

    /// True when `value` passes; `None` (not known) passes only when no list is set.
    fn passes<V: Copy>(&self, value: Option<V>, matches: impl Fn(&T, V) -> bool) -> bool {
        let Some(v) = value else {
            return self.allow.is_none() && self.deny.is_empty();
        };
        !self.deny.iter().any(|t| matches(t, v))
            && self
                .allow
                .as_ref()
                .is_none_or(|a| a.iter().any(|t| matches(t, v)))
    }
}

/// The compiled rules of one route.
pub struct Access {
    identities: Rule<Pattern>,
    sources: Rule<Cidr>,
    methods: Rule<Pattern>,
}

impl Access {
    /// Compiles validated rules.
    pub fn compile(c: &config::Access) -> Access {
        let pattern = |s: &String| Pattern::parse(s).ok();
        Access {
            identities: Rule::compile(c.allow_identities.as_deref(), &c.deny_identities, pattern),
            sources: Rule::compile(c.allow_sources.as_deref(), &c.deny_sources, |s| {
                Cidr::parse(s).ok()
            }),
            methods: Rule::compile(c.allow_methods.as_deref(), &c.deny_methods, pattern),
        }
    }

    /// True when `caller` may call `method` (`None`: its body could not be read).
    pub fn permits(&self, caller: &Caller<'_>, method: Option<&str>) -> bool {
        self.identities
            .passes(caller.identity, |p, id| p.matches(id))
            && self.sources.passes(caller.source, |c, ip| c.contains(ip))
            && self.methods.passes(method, |p, m| p.matches(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(toml: &str) -> Access {
        Access::compile(&toml::from_str(toml).unwrap())
    }

    fn caller<'a>(identity: Option<&'a str>, source: &str) -> Caller<'a> {
        Caller {
            identity,
            source: Some(source.parse().unwrap()),
        }
    }

    #[test]
    fn every_set_list_must_pass_and_deny_wins() {
        let a = access(
            r#"allow_identities = ["spiffe://x/shop/*"]
               deny_identities = ["spiffe://x/shop/intern"]
               allow_sources = ["10.0.0.0/8", "::1/128"]
               deny_methods = ["refund"]"#,
        );
        let shop = Some("spiffe://x/shop/cart");
        assert!(a.permits(&caller(shop, "10.1.2.3"), Some("pay")));
        assert!(a.permits(&caller(shop, "::1"), Some("pay")));
        assert!(
            !a.permits(&caller(shop, "10.1.2.3"), Some("refund")),
            "method"
        );
        assert!(
            !a.permits(&caller(shop, "192.168.0.1"), Some("pay")),
            "source"
        );
        let other = Some("spiffe://x/bank/a");
        assert!(
            !a.permits(&caller(other, "10.1.2.3"), Some("pay")),
            "identity"
        );
        let intern = Some("spiffe://x/shop/intern");
        assert!(
            !a.permits(&caller(intern, "10.1.2.3"), Some("pay")),
            "deny wins"
        );
        // No TLS identity, no readable method: fails the lists that are set.
        assert!(!a.permits(&caller(None, "10.1.2.3"), Some("pay")));
        assert!(!a.permits(&caller(shop, "10.1.2.3"), None));
    }

    #[test]
    fn unset_lists_let_anyone_through() {
        let a = access(r#"deny_sources = ["127.0.0.0/8"]"#);
        assert!(a.permits(&caller(None, "10.0.0.1"), None));
        assert!(!a.permits(&caller(None, "127.0.0.1"), None));
        assert!(!a.permits(&Caller::default(), None), "unknown source");
        let allow_methods = access(r#"allow_methods = ["get*"]"#);
        assert!(allow_methods.permits(&Caller::default(), Some("getUser")));
        assert!(!allow_methods.permits(&Caller::default(), Some("setUser")));
    }
}
