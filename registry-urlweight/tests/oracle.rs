//! Property tests with the `url` crate as the oracle: on generated provider URLs, full of keys
//! that a naive string search confuses, this crate must find the same parameters as
//! `Url::parse(..).query_pairs()` and its rewrites must read back, through the `url` crate, as
//! the same parameters the `url` crate's own rewrite gives.

use std::borrow::Cow;

use proptest::prelude::*;
use registry_urlweight::{
    assemble_url_weight, effective_weight, get_param, get_param_decoded, method_param, params,
    remove_param, set_param, url_weight, DubboUrl,
};
use url::Url;

/// Keys that a substring search for `weight` or `lidc_weight` would confuse.
const KEYS: &[&str] = &[
    "weight",
    "lidc_weight",
    "xweight",
    "weightx",
    "sayHello.weight",
    "x_lidc_weight",
    "lidc_weightx",
    "eight",
    "anyhost",
    "timestamp",
    "methods",
];

/// One character of generated text, as written in the URL. Letters, digits and `.` `_` `-` are
/// never escaped (as no encoder does), so a key written with escapes never decodes to a key
/// written without them. No raw spaces: they are not valid in a URL, and the `url` crate trims
/// them from the ends.
fn atom() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[a-z0-9._,:/*-]".prop_map(String::from),
        1 => Just("=".to_owned()),
        1 => Just("+".to_owned()),
        1 => Just("?".to_owned()),
        1 => Just("é".to_owned()),
        1 => prop::sample::select(vec!["%26", "%3D", "%25", "%2B", "%20", "%23", "%2c", "%C3%A9"])
            .prop_map(String::from),
        // A lone byte that is not UTF-8, and escapes that are not escapes.
        1 => prop::sample::select(vec!["%FF", "%zz", "%4", "%"]).prop_map(String::from),
    ]
}

fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(atom(), 0..max).prop_map(|v| v.concat())
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(KEYS).prop_map(String::from),
        1 => "[a-z_.]{1,8}",
        1 => text(6).prop_map(|t| t.replace('=', "")),
    ]
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => "[0-9]{1,3}",
        1 => "[0-9]{10,12}",
        1 => "-[0-9]{1,3}",
        1 => "\\+[0-9]{1,3}",
        1 => Just(String::new()),
        1 => prop::sample::select(vec!["weight=5", "weight", "lidc_weight=3", "&weight=9"])
            .prop_map(|v| v.replace('&', "%26")),
        2 => text(10),
    ]
}

/// `key`, `key=` or `key=value`; or an empty piece.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (key(), value()).prop_map(|(k, v)| format!("{k}={v}")),
        1 => key(),
        1 => Just(String::new()),
    ]
}

fn provider_url() -> impl Strategy<Value = String> {
    let host = prop::sample::select(vec![
        "10.0.0.1",
        "[::1]",
        "[2001:db8::7]",
        "provider.example",
        "h",
    ]);
    let port = prop::option::of(1u16..);
    let path = prop::sample::select(vec![
        "",
        "/org.apache.dubbo.demo.DemoService",
        "/weight",
        "/a/weight=1",
    ]);
    let query = prop::option::of(prop::collection::vec(piece(), 0..8));
    (host, port, path, query).prop_map(|(host, port, path, query)| {
        let mut url = format!("dubbo://{host}");
        if let Some(port) = port {
            url.push_str(&format!(":{port}"));
        }
        url.push_str(path);
        if let Some(query) = query {
            url.push('?');
            url.push_str(&query.join("&"));
        }
        url
    })
}

fn oracle_pairs(url: &str) -> Vec<(String, String)> {
    Url::parse(url)
        .unwrap_or_else(|e| panic!("oracle cannot parse {url:?}: {e}"))
        .query_pairs()
        .into_owned()
        .collect()
}

fn last_value<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// The weight rule, written independently: a Java `int` (Rust's `i32` parser accepts the same
/// ASCII forms), negative as 0, otherwise 100.
fn oracle_weight(value: Option<&str>) -> u64 {
    value
        .and_then(|v| v.parse::<i32>().ok())
        .map_or(100, |n| n.max(0) as u64)
}

/// Sets `key` to `value` the `url`-crate way: last occurrence wins and stays, others go, or the
/// pair is appended.
fn oracle_set(pairs: &[(String, String)], key: &str, value: &str) -> Vec<(String, String)> {
    let last = pairs.iter().rposition(|(k, _)| k == key);
    let mut out: Vec<(String, String)> = pairs
        .iter()
        .enumerate()
        .filter(|&(i, (k, _))| k != key || Some(i) == last)
        .map(|(_, p)| p.clone())
        .collect();
    match out.iter_mut().rev().find(|(k, _)| k == key) {
        Some(pair) => pair.1 = value.to_owned(),
        None => out.push((key.to_owned(), value.to_owned())),
    }
    out
}

/// The whole job done with the `url` crate: parse, find, rewrite with `query_pairs_mut`.
fn url_crate_assemble(raw: &str, idc_weight: u32) -> Url {
    let mut url = Url::parse(raw).unwrap();
    let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
    if idc_weight == 1 || last_value(&pairs, "lidc_weight").is_some_and(|v| !v.is_empty()) {
        return url;
    }
    let weight =
        (oracle_weight(last_value(&pairs, "weight")) * u64::from(idc_weight)).min(i32::MAX as u64);
    let pairs = oracle_set(&pairs, "weight", &weight.to_string());
    url.query_pairs_mut().clear().extend_pairs(pairs);
    url
}

/// What is outside the query must not change.
fn same_outside_query(before: &str, after: &str) -> bool {
    let end = before.find('?').unwrap_or(before.len());
    after.len() >= end && before[..end] == after[..end]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn params_are_the_oracles(url in provider_url()) {
        let ours: Vec<(String, String)> = params(&url)
            .map(|p| (p.decoded_key().into_owned(), p.decoded_value().into_owned()))
            .collect();
        prop_assert_eq!(&ours, &oracle_pairs(&url));
        let mut back: Vec<(String, String)> = params(&url)
            .rev()
            .map(|p| (p.decoded_key().into_owned(), p.decoded_value().into_owned()))
            .collect();
        back.reverse();
        prop_assert_eq!(back, ours);
    }

    #[test]
    fn get_finds_what_the_oracle_finds(url in provider_url()) {
        let pairs = oracle_pairs(&url);
        let mut keys: Vec<&str> = KEYS.to_vec();
        // Keys of the URL made only of characters the generator never writes escaped.
        keys.extend(params(&url).map(|p| p.key()).filter(|k| {
            k.bytes().all(|b| b.is_ascii_alphanumeric() || b"._:/*?-".contains(&b))
        }));
        for key in keys {
            let ours = get_param_decoded(&url, key);
            prop_assert_eq!(ours.as_deref(), last_value(&pairs, key), "key {:?}", key);
        }
    }

    #[test]
    fn url_parts_are_the_oracles(url in provider_url()) {
        let ours = DubboUrl::parse(&url).unwrap();
        let oracle = Url::parse(&url).unwrap();
        prop_assert_eq!(ours.port(), oracle.port());
        let host = oracle.host_str().unwrap_or("");
        prop_assert_eq!(ours.host(), host.trim_start_matches('[').trim_end_matches(']'));
        prop_assert_eq!(ours.path(), oracle.path().trim_start_matches('/'));
    }

    #[test]
    fn assemble_agrees_with_the_url_crate(url in provider_url(), idc in prop_oneof![
        Just(0u32), Just(1), Just(2), Just(60), 0u32..1000, Just(u32::MAX)
    ]) {
        let ours = assemble_url_weight(&url, idc);
        let theirs = url_crate_assemble(&url, idc);
        match &ours {
            Cow::Borrowed(s) => prop_assert_eq!(*s, url.as_str()),
            Cow::Owned(s) => prop_assert_ne!(s, &url, "allocated for nothing"),
        }
        prop_assert!(same_outside_query(&url, &ours));
        let reparsed = Url::parse(&ours).unwrap();
        prop_assert_eq!(reparsed.host_str(), theirs.host_str());
        prop_assert_eq!(reparsed.port(), theirs.port());
        prop_assert_eq!(reparsed.path(), theirs.path());
        let ours_pairs: Vec<(String, String)> = reparsed.query_pairs().into_owned().collect();
        let their_pairs: Vec<(String, String)> = theirs.query_pairs().into_owned().collect();
        prop_assert_eq!(ours_pairs, their_pairs);
        // The number agrees with what was written.
        prop_assert_eq!(effective_weight(&url, idc), url_weight(&ours));
        let written = oracle_weight(last_value(&oracle_pairs(&ours), "weight"));
        prop_assert_eq!(u64::from(url_weight(&ours)), written);
    }

    #[test]
    fn set_agrees_with_the_oracle(url in provider_url(), key in prop::sample::select(KEYS), value in "[a-z0-9=,.]{0,6}") {
        let ours = set_param(&url, key, &value).unwrap();
        prop_assert!(same_outside_query(&url, &ours));
        prop_assert_eq!(oracle_pairs(&ours), oracle_set(&oracle_pairs(&url), key, &value));
        prop_assert_eq!(get_param(&ours, key), Some(value.as_str()));
        prop_assert_eq!(params(&ours).filter(|p| p.key() == key).count(), 1);
        if let Cow::Owned(s) = &ours {
            prop_assert_ne!(s, &url);
        }
    }

    #[test]
    fn remove_agrees_with_the_oracle(url in provider_url(), key in prop::sample::select(KEYS)) {
        let ours = remove_param(&url, key);
        prop_assert!(same_outside_query(&url, &ours));
        let mut expected = oracle_pairs(&url);
        expected.retain(|(k, _)| k != key);
        prop_assert_eq!(oracle_pairs(&ours), expected);
        prop_assert_eq!(get_param(&ours, key), None);
        prop_assert_eq!(matches!(ours, Cow::Borrowed(_)), get_param(&url, key).is_none());
    }

    /// Whatever the input, nothing panics and results stay consistent.
    #[test]
    fn arbitrary_input_never_panics(url in any::<String>(), key in any::<String>(), value in any::<String>(), idc in any::<u32>(), now in any::<u64>()) {
        let got = get_param(&url, &key);
        let _ = get_param_decoded(&url, &key);
        let _ = method_param(&url, &key, &value);
        let _ = DubboUrl::parse(&url);
        prop_assert_eq!(params(&url).count(), params(&url).rev().count());
        let assembled = assemble_url_weight(&url, idc);
        prop_assert_eq!(effective_weight(&url, idc), url_weight(&assembled));
        let _ = registry_urlweight::warmup_weight(&url, Some(&key), now);
        let removed = remove_param(&url, &key);
        prop_assert_eq!(get_param(&removed, &key), None);
        match set_param(&url, &key, &value) {
            Ok(set) => prop_assert_eq!(get_param(&set, &key), Some(value.as_str())),
            Err(_) => prop_assert!(key.is_empty() || key.contains(['&', '=']) || value.contains('&')),
        }
        if key.contains(['&', '=']) {
            prop_assert_eq!(got, None);
        }
        let _ = registry_urlweight::zk::RegistryNode::parse(&url).map(|n| n.url());
        let encoded = registry_urlweight::encode_component(&url);
        prop_assert_eq!(registry_urlweight::decode_component(&encoded), url.as_str());
    }
}
