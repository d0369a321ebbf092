//! Dubbo provider URL parameters read and rewritten without parsing the whole URL.
//!
//! A Dubbo registry hands out provider URLs such as
//! `dubbo://10.0.0.1:20880/demo.Greeter?application=demo&methods=hi,bye&weight=100`, and often
//! only needs one or two parameters from them — typically to scale the provider's `weight` by the
//! weight of its data centre (IDC) before pushing the URL to consumers. Parsing the whole URL
//! into an object and serializing it back for that is most of the work; this crate finds and
//! rewrites parameters in the text itself:
//!
//! - [`get_param`] finds a parameter by its **whole key** (never `weight` inside `lidc_weight=`,
//!   `xweight=`, a value such as `a=weight=5`, or the path) and borrows its value;
//! - [`set_param`], [`remove_param`] and [`assemble_url_weight`] return [`Cow`]: borrowed, with
//!   no allocation, when nothing changes; otherwise one allocation for the new URL;
//! - [`params`] iterates over all parameters, and [`DubboUrl`] splits protocol, host (IPv6
//!   included), port and path, all borrowed;
//! - percent-decoding ([`decode_component`], [`Param::decoded_value`]) only allocates where a `%`
//!   or `+` is present; [`zk`] turns the encoded ZooKeeper node names Dubbo registers under
//!   back into URLs;
//! - [`url_weight`], [`effective_weight`] and [`warmup_weight`] give weights as numbers, the
//!   last with Dubbo's warm-up rule.
//!
//! ```
//! use registry_urlweight::{assemble_url_weight, get_param, remove_param, set_param};
//! use std::borrow::Cow;
//!
//! let url = "dubbo://10.0.0.1:20880/demo.Greeter?lidc_weight=&xweight=9&weight=50&side=provider";
//! assert_eq!(get_param(url, "weight"), Some("50"));
//! assert_eq!(get_param(url, "lidc_weight"), Some(""));
//! assert_eq!(get_param(url, "eight"), None);
//!
//! // Scale the weight by the data centre's weight (an empty `lidc_weight` does not pin it).
//! let scaled = assemble_url_weight(url, 3);
//! assert_eq!(scaled, url.replace("weight=50", "weight=150"));
//!
//! // Unchanged URLs come back borrowed: no allocation.
//! assert!(matches!(assemble_url_weight(url, 1), Cow::Borrowed(_)));
//! assert!(matches!(set_param(url, "side", "provider")?, Cow::Borrowed(_)));
//! assert!(matches!(remove_param(url, "group"), Cow::Borrowed(_)));
//!
//! assert_eq!(
//!     remove_param(url, "xweight"),
//!     "dubbo://10.0.0.1:20880/demo.Greeter?lidc_weight=&weight=50&side=provider"
//! );
//! # Ok::<(), registry_urlweight::ParamError>(())
//! ```
//!
//! # The rules, made exact
//!
//! - **Query.** The query is everything after the first `?`. As in Dubbo's `URLStrParser`, `#`
//!   is an ordinary character (Dubbo URLs have no fragment). Parameters are separated by `&`
//!   only (Dubbo 2.7+ also splits on `;`; Java Dubbo never writes one); empty pieces
//!   (`a=1&&b=2`) are skipped. A key runs to the first `=`; a parameter without `=` has an empty
//!   value (Dubbo's Java parser would use the key as the value).
//! - **Keys are compared as written**, byte for byte, without percent-decoding: a key that is
//!   needlessly escaped (`we%69ght`) is not `weight`. This is how Dubbo treats the (already
//!   decoded) URL it reads from the registry; its `URL.encode` never escapes letters, digits,
//!   `.`, `-` or `_`, so real keys never need decoding.
//! - **Repeated keys: the last one wins**, as in Dubbo (it stores parameters in a map, so a later
//!   `k=` overwrites an earlier one). [`get_param`] returns the last value; [`set_param`] and
//!   [`assemble_url_weight`] write at the last occurrence and drop the earlier ones, so that a
//!   reader that keeps the first value (Go's `url.Values.Get`, say) agrees.
//! - **Values are returned as written** by [`get_param`]; use [`get_param_decoded`] or
//!   [`decode_component`] for their decoded text. [`set_param`] writes values as given.
//! - **Weights** follow Java: a weight is a Java `int`; negative means 0; absent or unparsable
//!   means [`DEFAULT_WEIGHT`] (100). Products saturate at [`MAX_WEIGHT`] (`i32::MAX`), the
//!   largest weight a Java consumer can read. See [`assemble_url_weight`] and
//!   [`calculate_warmup_weight`] for the rest.
//! - **Bad input never panics.** Any `&str` is accepted; functions that only need the query
//!   work on text that is not a valid URL too (they find the first `?`).
//!
//! # Semver
//!
//! The public API is what these docs show; the error enums are `#[non_exhaustive]` (a `match`
//! on them needs a `_` arm). [`ParseError`] is also part of `dubbo-registry`'s API. Until 1.0 a
//! breaking change bumps the minor version (0.1 to 0.2), anything else the patch version.
//! Changes are listed in `CHANGELOG.md`.
#![forbid(unsafe_code)]

use std::borrow::Cow;

mod bytes;
mod edit;
mod error;
mod percent;
mod query;
mod url;
mod weight;
pub mod zk;

pub use error::{NodePathError, ParamError, ParseError};
pub use percent::{decode_component, encode_component};
pub use query::{Param, Params};
pub use url::DubboUrl;
pub use weight::{
    assemble_url_weight, calculate_warmup_weight, effective_weight, method_weight, url_weight,
    warmup_weight, DEFAULT_WARMUP_MS, DEFAULT_WEIGHT, MAX_WEIGHT,
};

use edit::Found;

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
use query::{find_all, find_last, query_start, KeyPattern};

/// The parameters of `url`'s query (after its first `?`), in order, borrowed from it.
///
/// ```
/// let url = "dubbo://h:20880/S?anyhost=true&methods=a,b&name=x%20y&flag";
/// let pairs: Vec<_> = registry_urlweight::params(url)
///     .map(|p| (p.key(), p.decoded_value()))
///     .collect();
/// assert_eq!(
///     pairs,
///     [("anyhost", "true".into()), ("methods", "a,b".into()), ("name", "x y".into()), ("flag", "".into())]
/// );
/// ```
#[inline]
pub fn params(url: &str) -> Params<'_> {
    Params::new(query_start(url).map_or("", |q| &url[q..]))
}

/// The value, as written, of the last parameter of `url` whose key is exactly `key`.
///
/// Only whole keys match: looking for `weight` never finds `lidc_weight=`, `xweight=`,
/// `weight` inside a value (`?a=weight=5`) or in the path. A key containing `&` or `=` is never
/// found. A parameter without `=` has the value `""`. Does not allocate.
///
/// ```
/// use registry_urlweight::get_param;
///
/// let url = "dubbo://h:1/weight?a=weight=5&lidc_weight=2&weight=1&weight=3&flag";
/// assert_eq!(get_param(url, "weight"), Some("3")); // the last one wins
/// assert_eq!(get_param(url, "a"), Some("weight=5"));
/// assert_eq!(get_param(url, "flag"), Some(""));
/// assert_eq!(get_param(url, "eight"), None);
/// ```
pub fn get_param<'a>(url: &'a str, key: &str) -> Option<&'a str> {
    let q = query_start(url)?;
    let pattern = KeyPattern::new([key, "", ""])?;
    let seg = find_last(url, q, url.len(), &pattern)?;
    let (vs, ve) = seg.value_range();
    Some(&url[vs..ve])
}

/// [`get_param`], percent-decoded (allocating only if the value contains `%` or `+`).
///
/// ```
/// let url = "dubbo://h:1/S?token=a%2Fb+c";
/// assert_eq!(registry_urlweight::get_param_decoded(url, "token").unwrap(), "a/b c");
/// ```
pub fn get_param_decoded<'a>(url: &'a str, key: &str) -> Option<Cow<'a, str>> {
    get_param(url, key).map(decode_component)
}

/// A method-scoped parameter as Dubbo's `getMethodParameter` reads it: the value of
/// `<method>.<key>` if that is present and non-empty, else the value of `key`. Does not allocate.
///
/// ```
/// use registry_urlweight::method_param;
///
/// let url = "dubbo://h:1/S?sayHello.timeout=500&sayBye.timeout=&timeout=3000";
/// assert_eq!(method_param(url, "sayHello", "timeout"), Some("500"));
/// assert_eq!(method_param(url, "sayBye", "timeout"), Some("3000"));
/// assert_eq!(method_param(url, "other", "timeout"), Some("3000"));
/// ```
pub fn method_param<'a>(url: &'a str, method: &str, key: &str) -> Option<&'a str> {
    let q = query_start(url)?;
    let scoped = KeyPattern::new([method, ".", key])
        .and_then(|p| find_last(url, q, url.len(), &p))
        .map(|seg| {
            let (vs, ve) = seg.value_range();
            &url[vs..ve]
        })
        .filter(|v| !v.is_empty());
    scoped.or_else(|| get_param(url, key))
}

/// `url` with its parameter `key` set to `value`, both written as given (percent-encode a value
/// with [`encode_component`] first if it may contain `&`, `%` or `+`).
///
/// The value replaces that of the key's last occurrence, in place, and earlier occurrences are
/// removed, so the key then occurs exactly once. A key that is absent is appended, after `?` if
/// the URL has no query, after `&` unless the query is empty or already ends with `&`. When the
/// key already occurs exactly once with this value, the URL is returned borrowed.
///
/// # Errors
///
/// [`ParamError::InvalidKey`] if `key` is empty or contains `&` or `=`, and
/// [`ParamError::InvalidValue`] if `value` contains `&`: written out, they would not read back as
/// this key and value.
///
/// ```
/// use registry_urlweight::set_param;
///
/// let url = "dubbo://h:1/S?weight=1&side=provider&weight=2";
/// assert_eq!(set_param(url, "weight", "7")?, "dubbo://h:1/S?side=provider&weight=7");
/// assert_eq!(set_param("dubbo://h:1/S", "group", "a")?, "dubbo://h:1/S?group=a");
/// assert!(set_param(url, "a&b", "1").is_err());
/// # Ok::<(), registry_urlweight::ParamError>(())
/// ```
pub fn set_param<'a>(url: &'a str, key: &str, value: &str) -> Result<Cow<'a, str>, ParamError> {
    let Some(pattern) = KeyPattern::new([key, "", ""]).filter(|_| !key.is_empty()) else {
        return Err(ParamError::InvalidKey(key.to_owned()));
    };
    if value.contains('&') {
        return Err(ParamError::InvalidValue(value.to_owned()));
    }
    let found = match query_start(url) {
        None => Found::NoQuery,
        Some(q) => match find_last(url, q, url.len(), &pattern) {
            None => Found::Absent { q },
            Some(last) => Found::Present {
                q,
                last,
                repeated: last.start > q && find_last(url, q, last.start - 1, &pattern).is_some(),
            },
        },
    };
    Ok(edit::write_param(url, found, key, value, || Some(pattern)))
}

/// `url` without any parameter whose key is exactly `key`; borrowed when there is none.
///
/// Other parameters keep their order and text. If the query is left empty, its `?` goes too.
///
/// ```
/// use registry_urlweight::remove_param;
///
/// assert_eq!(remove_param("dubbo://h:1/S?a=1&weight=2&b=3&weight=4", "weight"), "dubbo://h:1/S?a=1&b=3");
/// assert_eq!(remove_param("dubbo://h:1/S?weight=2", "weight"), "dubbo://h:1/S");
/// ```
pub fn remove_param<'a>(url: &'a str, key: &str) -> Cow<'a, str> {
    let (Some(q), Some(pattern)) = (query_start(url), KeyPattern::new([key, "", ""])) else {
        return Cow::Borrowed(url);
    };
    let all = find_all(url, q, &pattern);
    if all.is_empty() {
        return Cow::Borrowed(url);
    }
    Cow::Owned(edit::rebuild::<str>(url, q, &all, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assemble_returns_borrowed_when_unchanged() {
        let url = "dubbo://10.0.0.1:20880/demo.Greeter?application=demo&weight=50";
        assert!(matches!(assemble_url_weight(url, 1), Cow::Borrowed(u) if u == url));
        let pinned = "dubbo://10.0.0.1:20880/demo.Greeter?application=demo&lidc_weight=3&weight=50";
        assert!(matches!(assemble_url_weight(pinned, 60), Cow::Borrowed(u) if u == pinned));
        // lidc_weight anywhere, weight absent.
        let pinned = "dubbo://h/S?lidc_weight=1";
        assert!(matches!(assemble_url_weight(pinned, 60), Cow::Borrowed(_)));
        // The result already there: weight 0 stays 0.
        let zero = "dubbo://h/S?weight=0";
        assert!(matches!(assemble_url_weight(zero, 60), Cow::Borrowed(_)));
        // Saturated at MAX_WEIGHT already.
        let max = "dubbo://h/S?weight=2147483647";
        assert!(matches!(assemble_url_weight(max, 2), Cow::Borrowed(_)));
        // idc weight 1 with an absent weight: still unchanged.
        assert!(matches!(
            assemble_url_weight("dubbo://h/S", 1),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn assemble_rewrites_in_place_or_appends() {
        let cases = [
            ("dubbo://h/S?weight=100", 60, "dubbo://h/S?weight=6000"),
            ("dubbo://h/S?a=1&weight=100&b=2", 60, "dubbo://h/S?a=1&weight=6000&b=2"),
            ("dubbo://h/S?a=1", 60, "dubbo://h/S?a=1&weight=6000"),
            ("dubbo://h/S", 60, "dubbo://h/S?weight=6000"),
            ("dubbo://h/S?", 60, "dubbo://h/S?weight=6000"),
            ("dubbo://h/S?a=1&", 60, "dubbo://h/S?a=1&weight=6000"),
            ("dubbo://h/S?weight=abc", 2, "dubbo://h/S?weight=200"),
            ("dubbo://h/S?weight=", 2, "dubbo://h/S?weight=200"),
            ("dubbo://h/S?weight", 2, "dubbo://h/S?weight=200"),
            ("dubbo://h/S?weight=-4", 2, "dubbo://h/S?weight=0"),
            ("dubbo://h/S?weight=7", 0, "dubbo://h/S?weight=0"),
            ("dubbo://h/S?weight=2000000000&a", 2, "dubbo://h/S?weight=2147483647&a"),
            ("dubbo://h/S?weight=5&a=1&weight=7", 2, "dubbo://h/S?a=1&weight=14"),
            ("dubbo://h/S?lidc_weight=&weight=5", 2, "dubbo://h/S?lidc_weight=&weight=10"),
            ("dubbo://h/S?lidc_weight=4&lidc_weight=&weight=5", 2, "dubbo://h/S?lidc_weight=4&lidc_weight=&weight=10"),
            // None of these is the `weight` key.
            (
                "dubbo://h/weight=5?xweight=5&weightx=6&a=weight=7&sayHello.weight=8&x_lidc_weight=9",
                2,
                "dubbo://h/weight=5?xweight=5&weightx=6&a=weight=7&sayHello.weight=8&x_lidc_weight=9&weight=200",
            ),
            // Percent-encoded digits are read decoded; the new value is written plainly.
            ("dubbo://h/S?weight=%35", 3, "dubbo://h/S?weight=15"),
        ];
        for (url, idc, want) in cases {
            let got = assemble_url_weight(url, idc);
            assert!(matches!(got, Cow::Owned(_)), "{url}");
            assert_eq!(got, want, "{url} x {idc}");
            assert_eq!(
                effective_weight(url, idc),
                url_weight(&got),
                "{url} x {idc}"
            );
        }
        // lidc_weight pinned by its last value.
        let url = "dubbo://h/S?lidc_weight=&lidc_weight=4&weight=5";
        assert!(matches!(assemble_url_weight(url, 2), Cow::Borrowed(_)));
        assert_eq!(effective_weight(url, 2), 5);
        // Found by the property tests: the weight comes before a `lidc_weight` whose value
        // contains "weight".
        let url = "dubbo://h?weight=0&lidc_weight=weight=5";
        assert!(matches!(assemble_url_weight(url, 0), Cow::Borrowed(_)));
        assert_eq!(effective_weight(url, 0), 0);
    }

    #[test]
    fn get_param_whole_keys_only() {
        let url = "dubbo://h:1/weight?lidc_weight=2&xweight=3&weightx=4&a=weight=5&b=c&weight=6=7";
        assert_eq!(get_param(url, "weight"), Some("6=7"));
        assert_eq!(get_param(url, "lidc_weight"), Some("2"));
        assert_eq!(get_param(url, "a"), Some("weight=5"));
        assert_eq!(get_param(url, "c"), None);
        assert_eq!(get_param(url, "weight=6"), None);
        assert_eq!(get_param(url, "b&c"), None);
        assert_eq!(get_param(url, ""), None);
        assert_eq!(get_param("dubbo://h:1/S?=x&=y", ""), Some("y"));
        assert_eq!(get_param("dubbo://h:1/weight=3", "weight"), None);
        assert_eq!(get_param("", "weight"), None);
        assert_eq!(get_param("?", ""), None);
        assert_eq!(get_param("?weight", "weight"), Some(""));
        // Keys are compared as written.
        assert_eq!(get_param("dubbo://h/S?we%69ght=1", "weight"), None);
        assert_eq!(get_param("dubbo://h/S?we%69ght=1", "we%69ght"), Some("1"));
        // Non-ASCII keys and values are fine.
        assert_eq!(
            get_param("dubbo://h/S?ключ=значение&k=v", "ключ"),
            Some("значение")
        );
    }

    #[test]
    fn method_scoped_keys() {
        let url = "dubbo://h/S?sayHello.weight=20&weight=10&sayHello.retries=&retries=2";
        assert_eq!(get_param(url, "sayHello.weight"), Some("20"));
        assert_eq!(method_param(url, "sayHello", "weight"), Some("20"));
        assert_eq!(method_param(url, "sayHello", "retries"), Some("2"));
        assert_eq!(method_param(url, "x", "weight"), Some("10"));
        assert_eq!(method_param(url, "Hello", "weight"), Some("10"));
        assert_eq!(method_param(url, "x", "y"), None);
        assert_eq!(method_weight(url, "sayHello"), 20);
        assert_eq!(method_weight(url, "sayBye"), 10);
    }

    #[test]
    fn set_param_cases() {
        let url = "dubbo://h/S?a=1&b=2";
        assert_eq!(set_param(url, "a", "9").unwrap(), "dubbo://h/S?a=9&b=2");
        assert_eq!(set_param(url, "b", "").unwrap(), "dubbo://h/S?a=1&b=");
        assert_eq!(set_param(url, "c", "3").unwrap(), "dubbo://h/S?a=1&b=2&c=3");
        assert!(matches!(
            set_param(url, "a", "1").unwrap(),
            Cow::Borrowed(_)
        ));
        assert_eq!(
            set_param("dubbo://h/S?a", "a", "1").unwrap(),
            "dubbo://h/S?a=1"
        );
        assert!(matches!(
            set_param("dubbo://h/S?a", "a", "").unwrap(),
            Cow::Borrowed(_)
        ));
        assert_eq!(
            set_param("dubbo://h/S?a=1&a=1", "a", "1").unwrap(),
            "dubbo://h/S?a=1"
        );
        assert_eq!(
            set_param("dubbo://h/S?a=1&&b=2&a=3&", "a", "4").unwrap(),
            "dubbo://h/S?&b=2&a=4&"
        );
        assert_eq!(
            set_param(url, "", "1"),
            Err(ParamError::InvalidKey(String::new()))
        );
        assert_eq!(
            set_param(url, "k=v", "1"),
            Err(ParamError::InvalidKey("k=v".into()))
        );
        assert_eq!(
            set_param(url, "a", "1&b=3"),
            Err(ParamError::InvalidValue("1&b=3".into()))
        );
        // '=' is allowed in a value and reads back.
        let set = set_param(url, "a", "x=y").unwrap();
        assert_eq!(get_param(&set, "a"), Some("x=y"));
    }

    #[test]
    fn remove_param_cases() {
        assert!(matches!(
            remove_param("dubbo://h/S?a=1", "b"),
            Cow::Borrowed(_)
        ));
        assert!(matches!(remove_param("dubbo://h/S", "a"), Cow::Borrowed(_)));
        assert!(matches!(
            remove_param("dubbo://h/S?a=1", "a=1"),
            Cow::Borrowed(_)
        ));
        assert_eq!(remove_param("dubbo://h/S?a=1", "a"), "dubbo://h/S");
        assert_eq!(remove_param("dubbo://h/S?a=1&a=2", "a"), "dubbo://h/S");
        assert_eq!(remove_param("dubbo://h/S?a=1&b=2", "a"), "dubbo://h/S?b=2");
        assert_eq!(remove_param("dubbo://h/S?b=2&a=1", "a"), "dubbo://h/S?b=2");
        assert_eq!(
            remove_param("dubbo://h/S?a&b=2&a=1&c", "a"),
            "dubbo://h/S?b=2&c"
        );
        assert_eq!(
            remove_param("dubbo://h/S?xa=1&a=2&ax=3", "a"),
            "dubbo://h/S?xa=1&ax=3"
        );
        assert_eq!(remove_param("dubbo://h/S?=1&b=2", ""), "dubbo://h/S?b=2");
    }

    #[test]
    fn params_iterates_both_ways() {
        let url = "dubbo://h/S?a=1&&b&c=x=y&";
        let fwd: Vec<_> = params(url).map(|p| (p.key(), p.value())).collect();
        assert_eq!(fwd, [("a", "1"), ("b", ""), ("c", "x=y")]);
        let mut back: Vec<_> = params(url).rev().map(|p| (p.key(), p.value())).collect();
        back.reverse();
        assert_eq!(back, fwd);
        assert_eq!(params("dubbo://h/S").count(), 0);
        assert_eq!(params("no query at all").count(), 0);
    }

    #[test]
    fn warmup_from_url() {
        let url = "dubbo://h/S?timestamp=1000&warmup=1000&weight=100&sayHello.weight=10";
        assert_eq!(warmup_weight(url, None, 1000), 100); // uptime 0: not warming up
        assert_eq!(warmup_weight(url, None, 1001), 1); // never below 1
        assert_eq!(warmup_weight(url, None, 1100), 10);
        assert_eq!(warmup_weight(url, None, 1500), 50);
        assert_eq!(warmup_weight(url, Some("sayHello"), 1500), 5);
        assert_eq!(warmup_weight(url, None, 2000), 100);
        assert_eq!(warmup_weight(url, None, u64::MAX), 100);
        assert_eq!(warmup_weight(url, None, 0), 100);
        // Default warm-up of 10 minutes.
        let url = "dubbo://h/S?timestamp=1000";
        assert_eq!(warmup_weight(url, None, 1000 + 60_000), 10);
        // No or unusable timestamp, or warm-up switched off: full weight.
        for url in [
            "dubbo://h/S?weight=40",
            "dubbo://h/S?timestamp=0&weight=40",
            "dubbo://h/S?timestamp=-5&weight=40",
            "dubbo://h/S?timestamp=soon&weight=40",
            "dubbo://h/S?timestamp=1000&warmup=0&weight=40",
            "dubbo://h/S?timestamp=1000&warmup=-1&weight=40",
        ] {
            assert_eq!(warmup_weight(url, None, 1100), 40, "{url}");
        }
        // Unparsable warmup falls back to the default.
        assert_eq!(
            warmup_weight("dubbo://h/S?timestamp=1000&warmup=x", None, 61_000),
            10
        );
        // Weight 0 stays 0.
        assert_eq!(
            warmup_weight("dubbo://h/S?timestamp=1000&weight=0", None, 1100),
            0
        );
    }
}
