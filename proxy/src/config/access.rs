//! `[routes.access]` and `[routes.rate_limit]`: who may call a route, and how often.
//!
//! A caller must pass every list that is set; a `deny_*` match refuses whatever the `allow_*`
//! lists say. A value the proxy does not know fails every set list of its kind (fail closed):
//! a caller without a verified TLS client certificate has no identity, a body the proxy
//! cannot read has no method.

use std::net::IpAddr;

use serde::{Deserialize, Serialize};

use super::{Pattern, Problems};

/// `[routes.access]`: absent = every caller may call the route.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Access {
    /// `routes[i].access.allow_identities`: caller identities (their TLS client
    /// certificate's URI SAN, else CN), exact, `prefix*` or `*suffix`; absent = any.
    #[serde(default)]
    pub allow_identities: Option<Vec<String>>,
    /// `routes[i].access.deny_identities`: refused identities, in the same forms.
    #[serde(default)]
    pub deny_identities: Vec<String>,
    /// `routes[i].access.allow_sources`: caller address ranges (`10.0.0.0/8`, `::1/128`, or
    /// one address); absent = any.
    #[serde(default)]
    pub allow_sources: Option<Vec<String>>,
    /// `routes[i].access.deny_sources`: refused address ranges.
    #[serde(default)]
    pub deny_sources: Vec<String>,
    /// `routes[i].access.allow_methods`: method names, exact, `prefix*` or `*suffix`;
    /// absent = any.
    #[serde(default)]
    pub allow_methods: Option<Vec<String>>,
    /// `routes[i].access.deny_methods`: refused method names.
    #[serde(default)]
    pub deny_methods: Vec<String>,
}

/// `[routes.rate_limit]`: a token bucket of the proxy's own (shared by its workers).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RateLimit {
    /// `routes[i].rate_limit.calls_per_second`: the refill rate.
    pub calls_per_second: f64,
    /// `routes[i].rate_limit.burst`: the bucket's size, the calls let through at once.
    #[serde(default = "default_burst")]
    pub burst: u32,
    /// `routes[i].rate_limit.per_identity`: one bucket per caller identity (callers without
    /// one share a bucket) instead of one for the route.
    #[serde(default)]
    pub per_identity: bool,
}

fn default_burst() -> u32 {
    1
}

/// The most calls per second a limit may name: one call per nanosecond.
const MAX_RATE: f64 = 1e9;

/// An address range: `addr/prefix`, or one address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    net: IpAddr,
    prefix: u8,
}

impl Cidr {
    /// Parses `10.0.0.0/8`, `::1/128` or a bare address; bits set past the prefix are an
    /// error (`10.0.0.1/8` is more likely a typo than the range meant).
    pub fn parse(s: &str) -> Result<Cidr, String> {
        let (addr, prefix) = s.split_once('/').unwrap_or((s, ""));
        let net: IpAddr = addr
            .parse()
            .map_err(|_| format!("{s:?}: not an IPv4 or IPv6 address range"))?;
        let max = if net.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            "" => max,
            p => p
                .parse::<u8>()
                .ok()
                .filter(|&p| p <= max)
                .ok_or_else(|| format!("{s:?}: the prefix length must be 0..={max}"))?,
        };
        let cidr = Cidr { net, prefix };
        if bits(net) & !cidr.mask() != 0 {
            return Err(format!("{s:?}: address bits set past the /{prefix} prefix"));
        }
        Ok(cidr)
    }

    fn mask(&self) -> u128 {
        let width = if self.net.is_ipv4() { 32 } else { 128 };
        match self.prefix {
            0 => 0,
            p => (u128::MAX << (128 - u32::from(p))) >> (128 - width),
        }
    }

    /// True when `ip` is in the range (an IPv4-mapped IPv6 address as its IPv4 one, as a
    /// dual-stack listener reports IPv4 callers).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        ip.is_ipv4() == self.net.is_ipv4() && bits(ip) & self.mask() == bits(self.net)
    }
}

fn bits(ip: IpAddr) -> u128 {
    match ip {
        IpAddr::V4(v4) => u128::from(u32::from(v4)),
        IpAddr::V6(v6) => u128::from(v6),
    }
}

impl Access {
    /// Checks the patterns and ranges; `key`: `routes[i].access`.
    pub(super) fn validate(&self, key: &str, p: &mut Problems) {
        let patterns = [
            ("allow_identities", self.allow_identities.as_deref()),
            ("deny_identities", Some(&self.deny_identities[..])),
            ("allow_methods", self.allow_methods.as_deref()),
            ("deny_methods", Some(&self.deny_methods[..])),
        ];
        for (name, list) in patterns {
            for (j, s) in list.unwrap_or_default().iter().enumerate() {
                if let Err(e) = Pattern::parse(s) {
                    p.bad(format!("{key}.{name}[{j}]"), e);
                }
            }
        }
        let ranges = [
            ("allow_sources", self.allow_sources.as_deref()),
            ("deny_sources", Some(&self.deny_sources[..])),
        ];
        for (name, list) in ranges {
            for (j, s) in list.unwrap_or_default().iter().enumerate() {
                if let Err(e) = Cidr::parse(s) {
                    p.bad(format!("{key}.{name}[{j}]"), e);
                }
            }
        }
    }
}

impl RateLimit {
    /// Checks the rate and burst; `key`: `routes[i].rate_limit`.
    pub(super) fn validate(&self, key: &str, p: &mut Problems) {
        let rate = self.calls_per_second;
        if !(rate.is_finite() && rate > 0.0 && rate <= MAX_RATE) {
            p.bad(
                format!("{key}.calls_per_second"),
                format!("must be > 0 and at most {MAX_RATE:e}"),
            );
        }
        if self.burst == 0 {
            p.bad(format!("{key}.burst"), "must be at least 1");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn route_with(extra: &str) -> String {
        format!(
            "[[listeners]]\naddress = \"127.0.0.1:0\"\n[[routes]]\ncluster = \"d\"\n{extra}\n\
             [clusters.d]\nendpoints = [{{ address = \"127.0.0.1:1\" }}]\n"
        )
    }

    #[test]
    fn rules_parse_and_round_trip() {
        let c = Config::from_toml(&route_with(
            "[routes.access]\nallow_identities = [\"spiffe://x/*\"]\n\
             allow_sources = [\"10.0.0.0/8\", \"::1\"]\ndeny_methods = [\"refund\"]\n\
             [routes.rate_limit]\ncalls_per_second = 2.5\nburst = 3\nper_identity = true\n",
        ))
        .unwrap();
        let r = &c.routes[0];
        let access = r.access.as_ref().unwrap();
        assert_eq!(access.deny_methods, ["refund"]);
        assert_eq!(access.allow_methods, None);
        let limit = r.rate_limit.as_ref().unwrap();
        assert_eq!((limit.calls_per_second, limit.burst), (2.5, 3));
        assert!(limit.per_identity);
        assert_eq!(Config::from_toml(&c.to_toml()).unwrap(), c);
    }

    #[test]
    fn bad_rules_name_their_key() {
        let cases = [
            (
                "[routes.access]\nallow_sources = [\"10.0.0.0/33\"]",
                "routes[0].access.allow_sources[0]",
                "prefix length",
            ),
            (
                "[routes.access]\ndeny_sources = [\"127.0.0.1/32\", \"10.0.0.1/8\"]",
                "routes[0].access.deny_sources[1]",
                "bits set",
            ),
            (
                "[routes.access]\nallow_sources = [\"example.org\"]",
                "routes[0].access.allow_sources[0]",
                "not an IPv4 or IPv6",
            ),
            (
                "[routes.access]\nallow_identities = [\"a*b*\"]",
                "routes[0].access.allow_identities[0]",
                "`*`",
            ),
            (
                "[routes.rate_limit]\ncalls_per_second = 0.0",
                "routes[0].rate_limit.calls_per_second",
                "must be > 0",
            ),
            (
                "[routes.rate_limit]\ncalls_per_second = -1.0",
                "routes[0].rate_limit.calls_per_second",
                "must be > 0",
            ),
            (
                "[routes.rate_limit]\ncalls_per_second = 1.0\nburst = 0",
                "routes[0].rate_limit.burst",
                "at least 1",
            ),
        ];
        for (extra, key, says) in cases {
            let e = Config::from_toml(&route_with(extra)).unwrap_err();
            assert!(
                e.problems.iter().any(|(k, m)| k == key && m.contains(says)),
                "{extra}: {e}"
            );
        }
        let e = Config::from_toml(&route_with("[routes.rate_limit]\nburst = 2")).unwrap_err();
        assert!(e.to_string().contains("calls_per_second"), "{e}");
    }

    #[test]
    fn ranges_contain_their_addresses() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let eight = Cidr::parse("10.0.0.0/8").unwrap();
        assert!(eight.contains(ip("10.200.3.4")));
        assert!(!eight.contains(ip("11.0.0.1")));
        assert!(eight.contains(ip("::ffff:10.1.2.3")), "IPv4-mapped");
        assert!(!eight.contains(ip("::1")));
        let one = Cidr::parse("127.0.0.1").unwrap();
        assert!(one.contains(ip("127.0.0.1")) && !one.contains(ip("127.0.0.2")));
        let v6 = Cidr::parse("fd00::/8").unwrap();
        assert!(v6.contains(ip("fd12::1")) && !v6.contains(ip("fe80::1")));
        assert!(!v6.contains(ip("10.0.0.1")));
        let all = Cidr::parse("0.0.0.0/0").unwrap();
        assert!(all.contains(ip("1.2.3.4")) && !all.contains(ip("::2")));
        assert!(Cidr::parse("::/0").unwrap().contains(ip("::2")));
    }
}
