//! The URL parameter functions of `registry-urlweight` (which find and rewrite parameters in
//! the text, without parsing the URL) against the `url` crate's parser, and against each other.
//!
//! For a URL the `url` crate parses (without a fragment: Dubbo treats `#` as an ordinary
//! character), run on its serialization: `get_param_decoded` gives the last value the `url`
//! crate's `query_pairs` gives for the key. On any string: `get_param` agrees with `params`;
//! `set_param`, `remove_param` and `assemble_url_weight` change only their key (seen through
//! `params` and, where it parses, through the `url` crate), and the result reads back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use registry_urlweight::{
    assemble_url_weight, decode_component, effective_weight, get_param, get_param_decoded, params,
    remove_param, set_param, url_weight,
};

/// The input: a key choice, an IDC weight, a value, a free key, then the URL (the rest).
///
/// ```text
/// key: u8 (0 weight, 1 lidc_weight, 2 side, 3 flag, else the free key)
/// idc_weight: u32 (little-endian)
/// value_len: u8, value: value_len bytes
/// free_key_len: u8, free_key: free_key_len bytes
/// url: the rest
/// ```
/// Byte strings are read as UTF-8, invalid sequences replaced.
fn parse(data: &[u8]) -> Option<(String, u32, String, String)> {
    let (&choice, rest) = data.split_first()?;
    let (idc, rest) = rest.split_first_chunk::<4>()?;
    let (&value_len, rest) = rest.split_first()?;
    let (value, rest) = rest.split_at_checked(value_len as usize)?;
    let (&key_len, rest) = rest.split_first()?;
    let (free_key, url) = rest.split_at_checked(key_len as usize)?;
    let key = match choice {
        0 => "weight".to_owned(),
        1 => "lidc_weight".to_owned(),
        2 => "side".to_owned(),
        3 => "flag".to_owned(),
        _ => String::from_utf8_lossy(free_key).into_owned(),
    };
    Some((
        key,
        u32::from_le_bytes(*idc),
        String::from_utf8_lossy(value).into_owned(),
        String::from_utf8_lossy(url).into_owned(),
    ))
}

/// (key, value) of every parameter, as written.
fn raw_params(url: &str) -> Vec<(String, String)> {
    params(url)
        .map(|p| (p.key().to_owned(), p.value().to_owned()))
        .collect()
}

fn without(pairs: &[(String, String)], key: &str) -> Vec<(String, String)> {
    pairs.iter().filter(|(k, _)| k != key).cloned().collect()
}

/// The `url` crate's decoded pairs, when it parses `text` to exactly `text` without a fragment.
fn url_crate_pairs(text: &str) -> Option<Vec<(String, String)>> {
    let u = url::Url::parse(text).ok()?;
    if u.fragment().is_some() || u.as_str() != text {
        return None;
    }
    Some(
        u.query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect(),
    )
}

fuzz_target!(|data: &[u8]| {
    let Some((key, idc_weight, value, url)) = parse(data) else {
        return;
    };
    check(&url, &key, &value, idc_weight);
    // The `url` crate's normalization of the input, for the comparisons that need a URL it
    // reads back unchanged.
    if let Ok(u) = url::Url::parse(&url) {
        if u.fragment().is_none() && u.as_str() != url {
            check(u.as_str(), &key, &value, idc_weight);
        }
    }
});

fn check(url: &str, key: &str, value: &str, idc_weight: u32) {
    let before = raw_params(url);

    // get_param is the last parameter with exactly this key.
    let last = before
        .iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str());
    assert_eq!(get_param(url, key), last, "get_param vs params on {url:?}");

    // Against the url crate, for keys that read the same decoded (no `%` or `+`).
    if let Some(pairs) = url_crate_pairs(url) {
        let ours: Vec<(String, String)> = before
            .iter()
            .map(|(k, v)| {
                (
                    decode_component(k).into_owned(),
                    decode_component(v).into_owned(),
                )
            })
            .collect();
        assert_eq!(
            ours, pairs,
            "params (decoded) vs url::Url::query_pairs on {url:?}"
        );
        for (k, _) in before.iter().filter(|(k, _)| !k.contains(['%', '+'])) {
            let expected = pairs
                .iter()
                .rev()
                .find(|(pk, _)| pk == k)
                .map(|(_, v)| v.as_str());
            assert_eq!(
                get_param_decoded(url, k).as_deref(),
                expected,
                "get_param_decoded({k:?}) vs the url crate on {url:?}"
            );
        }
    }

    // set_param: the key once, with this value; the other parameters as they were.
    match set_param(url, key, value) {
        Ok(new) => {
            assert_eq!(
                get_param(&new, key),
                Some(value),
                "set_param({key:?}, {value:?}) on {url:?}"
            );
            let after = raw_params(&new);
            assert_eq!(after.iter().filter(|(k, _)| k == key).count(), 1, "{new:?}");
            assert_eq!(
                without(&after, key),
                without(&before, key),
                "set_param changed other parameters: {new:?}"
            );
            if let (Some(_), Some(pairs)) = (url_crate_pairs(url), url_crate_pairs(&new)) {
                let decoded_key = decode_component(key);
                let found: Vec<_> = pairs.iter().filter(|(k, _)| *k == decoded_key).collect();
                if !before
                    .iter()
                    .any(|(k, _)| k != key && decode_component(k) == decoded_key)
                {
                    assert_eq!(found.len(), 1, "url crate sees {found:?} in {new:?}");
                    assert_eq!(found[0].1, decode_component(value));
                }
            }
        }
        Err(_) => assert!(key.is_empty() || key.contains(['&', '=']) || value.contains('&')),
    }

    // remove_param: the key gone, the rest as it was.
    let removed = remove_param(url, key);
    assert_eq!(
        get_param(&removed, key),
        None,
        "remove_param({key:?}) on {url:?}"
    );
    assert_eq!(
        raw_params(&removed),
        without(&before, key),
        "remove_param on {url:?}"
    );

    // assemble_url_weight: the weight effective_weight predicts; nothing else touched.
    let assembled = assemble_url_weight(url, idc_weight);
    assert_eq!(
        url_weight(&assembled),
        effective_weight(url, idc_weight),
        "assemble_url_weight({idc_weight}) on {url:?} gave {assembled:?}"
    );
    assert_eq!(
        without(&raw_params(&assembled), "weight"),
        without(&before, "weight"),
        "assemble_url_weight changed other parameters: {assembled:?}"
    );
}
