//! A TLS caller's identity forwarded to providers as a request attachment, under the name
//! the operator gives (`listeners.tls.identity_attachment`): in a Dubbo request body
//! ([`with_identity`]) or, for Triple, as the header its attachments travel in
//! ([`set_header`]).
//!
//! The entry is added last in the request's attachments map, where Java's `HashMap` (and
//! dubbo-codec) keep the last entry of a key sent twice: a value the caller put under the
//! same name itself is overridden, and a caller without an identity gets `null` there. Only a
//! Hessian2 request body whose attachments map ends it exactly is rewritten; any other is
//! refused, never forwarded with what the caller put under the name.

use bytes::{BufMut, Bytes, BytesMut};
use dubbo_codec::RequestHead;
use hessian2::decode::Decoder;
use hessian2::encode::Encoder;
use hessian2::input::SliceInput;

/// `body` with `key` → `identity` (`null` for `None`) added as the last attachment; `None`
/// when it is not a Hessian2 request body that its attachments map ends.
pub fn with_identity(body: &[u8], key: &str, identity: Option<&str>) -> Option<Bytes> {
    let head = RequestHead::decode(body).ok()?;
    let args = body.get(head.args_offset..)?;
    let mut dec = Decoder::new(SliceInput::new(args));
    for _ in 0..head.arg_count {
        dec.skip().ok()?;
    }
    let map_at = head.args_offset + usize::try_from(dec.offset()).ok()?;
    // An untyped (`H`) or typed (`M`) map, ended by `Z`, and nothing after it.
    if !matches!(body.get(map_at), Some(b'H' | b'M')) {
        return None;
    }
    dec.skip().ok()?;
    if !dec.is_empty() {
        return None;
    }
    let (&end, entries) = body.split_last()?;
    if end != b'Z' {
        return None;
    }
    let mut e = Encoder::new(BytesMut::with_capacity(body.len() + key.len() + 128));
    e.get_mut().put_slice(entries);
    e.write_str(key);
    match identity {
        Some(v) => e.write_str(v),
        None => e.write_null(),
    }
    e.get_mut().put_u8(b'Z');
    Some(e.into_inner().freeze())
}

/// Triple's form: the caller's headers named `key` (lower-cased, as Triple sends attachment
/// names) removed, and `identity` put in their place when there is one that a header can
/// carry (visible ASCII; a CN in other characters goes as none).
pub fn set_header(headers: &mut http::HeaderMap, key: &str, identity: Option<&str>) {
    let Ok(name) = http::HeaderName::try_from(key.to_ascii_lowercase()) else {
        return;
    };
    headers.remove(&name);
    if let Some(value) = identity.and_then(|v| http::HeaderValue::from_str(v).ok()) {
        headers.insert(name, value);
    }
}

#[cfg(test)]
mod tests {
    use super::with_identity;
    use dubbo_codec::Request;

    fn body(attach: &[(&str, &str)]) -> bytes::Bytes {
        let mut b = Request::builder("com.example.Svc", "echo")
            .version("1.0.0")
            .arg("java.lang.String", "hello");
        for (k, v) in attach {
            b = b.attach(*k, *v);
        }
        b.build().unwrap().to_bytes()
    }

    fn decoded(body: &[u8]) -> Request {
        Request::decode(body).unwrap()
    }

    #[test]
    fn the_identity_is_the_last_entry_and_overrides_a_spoofed_one() {
        let spoofed = body(&[("x-caller", "evil"), ("env", "canary")]);
        let out = with_identity(&spoofed, "x-caller", Some("spiffe://a/b")).unwrap();
        let req = decoded(&out);
        assert_eq!(req.attachments.get_str("x-caller"), Some("spiffe://a/b"));
        assert_eq!(req.attachments.get_str("env"), Some("canary"));
        assert_eq!(req.args.len(), 1);
        // Without an identity: null, whatever the caller sent.
        let out = with_identity(&spoofed, "x-caller", None).unwrap();
        assert_eq!(decoded(&out).attachments.get_str("x-caller"), None);
    }

    #[test]
    fn bodies_not_ended_by_their_attachments_are_refused() {
        let good = body(&[]);
        let mut trailing = good.to_vec();
        trailing.extend_from_slice(&[0x01, b'Z']);
        assert!(with_identity(&trailing, "x-caller", Some("id")).is_none());
        assert!(with_identity(&good[..good.len() - 1], "x-caller", Some("id")).is_none());
        assert!(with_identity(b"garbage", "x-caller", Some("id")).is_none());
        assert!(with_identity(&[], "x-caller", Some("id")).is_none());
    }
}
