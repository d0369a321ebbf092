//! Percent-decoding and -encoding with the rules Dubbo (and Java's `URLDecoder`/`URLEncoder`) use.

use std::borrow::Cow;

/// Decodes one URL component (a key, a value, or a whole URL stored in ZooKeeper).
///
/// `+` becomes a space and `%XX` (two hex digits, either case) becomes the byte `0xXX`; this is
/// the `application/x-www-form-urlencoded` rule that Java's `URLDecoder` and Dubbo's
/// `URL.decode` apply. Nothing is allocated, and `Cow::Borrowed` is returned, unless the input
/// contains a `%` or a `+`.
///
/// Bad input never fails: a `%` that is not followed by two hex digits is kept as it is, and
/// decoded bytes that are not valid UTF-8 become U+FFFD (the same lossy result the `url` crate's
/// `query_pairs` gives).
///
/// ```
/// use registry_urlweight::decode_component;
/// use std::borrow::Cow;
///
/// assert!(matches!(decode_component("sayHello,sayBye"), Cow::Borrowed(_)));
/// assert_eq!(decode_component("a%2Cb+c"), "a,b c");
/// assert_eq!(decode_component("100%"), "100%");
/// ```
pub fn decode_component(input: &str) -> Cow<'_, str> {
    let bytes = input.as_bytes();
    let Some(first) = find_escape(bytes) else {
        return Cow::Borrowed(input);
    };
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(&bytes[..first]);
    let mut i = first;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b'%' => match (
                bytes.get(i + 1).copied().and_then(hex_value),
                bytes.get(i + 2).copied().and_then(hex_value),
            ) {
                (Some(hi), Some(lo)) => {
                    out.push(hi << 4 | lo);
                    i += 3;
                }
                _ => {
                    out.push(b'%');
                    i += 1;
                }
            },
            _ => {
                // Copy the run up to the next escape in one go.
                let next = memchr::memchr2(b'%', b'+', &bytes[i..]).map_or(bytes.len(), |n| i + n);
                out.extend_from_slice(&bytes[i..next]);
                i = next;
            }
        }
    }
    Cow::Owned(match String::from_utf8(out) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// Encodes a string the way Java's `URLEncoder.encode(s, "UTF-8")` (and so Dubbo's
/// `URL.encode`) does: ASCII letters, digits and `.` `-` `*` `_` are kept, a space becomes `+`,
/// and every other byte of the UTF-8 encoding becomes `%XX` with upper-case hex digits.
///
/// Returns `Cow::Borrowed` when nothing needs encoding. This is how Dubbo turns a provider URL
/// into a ZooKeeper node name; [`decode_component`] reverses it.
///
/// ```
/// use registry_urlweight::{decode_component, encode_component};
///
/// let url = "dubbo://10.0.0.1:20880/demo.Greeter?methods=hi,bye&weight=100";
/// let node = encode_component(url);
/// assert_eq!(
///     node,
///     "dubbo%3A%2F%2F10.0.0.1%3A20880%2Fdemo.Greeter%3Fmethods%3Dhi%2Cbye%26weight%3D100"
/// );
/// assert_eq!(decode_component(&node), url);
/// ```
pub fn encode_component(input: &str) -> Cow<'_, str> {
    let bytes = input.as_bytes();
    let Some(first) = bytes.iter().position(|&b| !is_java_unreserved(b)) else {
        return Cow::Borrowed(input);
    };
    let mut out = String::with_capacity(bytes.len() + bytes.len() / 2);
    out.push_str(&input[..first]);
    for &b in &bytes[first..] {
        if is_java_unreserved(b) {
            out.push(char::from(b));
        } else if b == b' ' {
            out.push('+');
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xF)]));
        }
    }
    Cow::Owned(out)
}

/// The first `%` or `+`. Short inputs (keys and values usually are) are checked inline, which
/// costs less than a call into `memchr`.
#[inline]
fn find_escape(bytes: &[u8]) -> Option<usize> {
    if bytes.len() <= 32 {
        bytes.iter().position(|&b| b == b'%' || b == b'+')
    } else {
        memchr::memchr2(b'%', b'+', bytes)
    }
}

fn is_java_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'*' | b'_')
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_borrows_without_escapes() {
        assert!(matches!(decode_component(""), Cow::Borrowed("")));
        assert!(matches!(
            decode_component("org.apache.dubbo.demo.DemoService"),
            Cow::Borrowed("org.apache.dubbo.demo.DemoService")
        ));
    }

    #[test]
    fn decode_escapes_plus_and_bad_sequences() {
        assert_eq!(decode_component("%41%62c"), "Abc");
        assert_eq!(decode_component("%e2%82%AC"), "\u{20ac}");
        assert_eq!(decode_component("a+b"), "a b");
        assert_eq!(decode_component("%2B"), "+");
        assert_eq!(decode_component("%"), "%");
        assert_eq!(decode_component("%4"), "%4");
        assert_eq!(decode_component("%zz"), "%zz");
        assert_eq!(decode_component("%%41"), "%A");
        assert_eq!(decode_component("%2+"), "%2 ");
        // An invalid UTF-8 byte is replaced, not an error.
        assert_eq!(decode_component("a%FFb"), "a\u{fffd}b");
    }

    #[test]
    fn encode_matches_java_url_encoder() {
        assert!(matches!(encode_component("a.b-c*d_E9"), Cow::Borrowed(_)));
        assert_eq!(encode_component("a b+c"), "a+b%2Bc");
        assert_eq!(encode_component("~!'()"), "%7E%21%27%28%29");
        assert_eq!(encode_component("\u{e9}"), "%C3%A9");
        assert_eq!(encode_component("%"), "%25");
    }

    #[test]
    fn encode_then_decode_round_trips() {
        for s in ["", "plain", "a b", "x=1&y=2", "50%", "\u{1f600} ok", "+-*/"] {
            assert_eq!(decode_component(&encode_component(s)), s);
        }
    }
}
