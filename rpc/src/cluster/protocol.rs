//! Which protocol a consumer speaks to a provider URL, as Dubbo 3.3's `RegistryDirectory`
//! decides it.
//!
//! A provider that serves Triple on its Dubbo port (Java's `ext-protocol: tri`) registers
//! one `dubbo://` URL with `ext.protocol=tri`, and with `preferred.protocol=tri` when it
//! wants its callers on Triple (Dubbo 3.2 registers a `tri://` URL beside it instead). A 3.3
//! consumer then:
//!
//! 1. takes only URLs of its own `protocol` setting, when it has one (`checkProtocolValid`);
//! 2. speaks the URL's `preferred.protocol`, else the URL's protocol;
//! 3. with a `protocol` setting whose first entry differs from that: its first entry when it
//!    is the URL's protocol or one of its `ext.protocol`s, else still step 2's choice
//!    (`getEffectiveProtocol`).
//!
//! A 2.7 consumer knows nothing of this and speaks the URL's protocol.

use std::borrow::Cow;

use dubbo_registry::ServiceUrl;

/// The URL parameter of a provider's wanted protocol (with a dot, as Java's
/// `PREFERRED_PROTOCOL`; the provider's setting is `preferred-protocol`).
pub(crate) const PREFERRED_PROTOCOL: &str = "preferred.protocol";
/// The URL parameter listing the protocols served on the same port (`ext-protocol`).
pub(crate) const EXT_PROTOCOL: &str = "ext.protocol";

/// The protocols of a consumer's `protocol` setting (`"tri,dubbo"`), in order.
pub(crate) fn accepted(setting: Option<&str>) -> Vec<&str> {
    setting
        .map(|s| {
            s.split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// The protocol to speak to the provider of `url`, for a consumer whose `protocol` setting
/// is `accepted` (empty: none). See the [module documentation](self).
pub(crate) fn effective<'u>(url: &'u ServiceUrl, accepted: &[&str]) -> Cow<'u, str> {
    let own = url.protocol();
    let preferred = url
        .param(PREFERRED_PROTOCOL)
        .filter(|p| !p.is_empty())
        .unwrap_or(Cow::Borrowed(own));
    let Some(&first) = accepted.first() else {
        return preferred;
    };
    if first == preferred {
        return preferred;
    }
    if first == own {
        return Cow::Borrowed(own);
    }
    let extra = url.param(EXT_PROTOCOL).unwrap_or_default();
    if extra
        .split(',')
        .any(|p| p.trim().eq_ignore_ascii_case(first))
    {
        return Cow::Owned(first.to_owned());
    }
    preferred
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> ServiceUrl {
        ServiceUrl::parse(s).unwrap()
    }

    #[test]
    fn the_providers_preference_wins_without_a_consumer_setting() {
        let shared =
            url("dubbo://127.0.0.1:20880/demo.Greeter?ext.protocol=tri&preferred.protocol=tri");
        assert_eq!(effective(&shared, &[]), "tri");
        let plain = url("dubbo://127.0.0.1:20880/demo.Greeter?ext.protocol=tri");
        assert_eq!(effective(&plain, &[]), "dubbo");
        let tri = url("tri://127.0.0.1:50051/demo.Greeter");
        assert_eq!(effective(&tri, &[]), "tri");
        let empty = url("dubbo://127.0.0.1:20880/demo.Greeter?preferred.protocol=");
        assert_eq!(effective(&empty, &[]), "dubbo");
    }

    #[test]
    fn a_consumer_setting_picks_among_what_the_port_serves() {
        let shared =
            url("dubbo://127.0.0.1:20880/demo.Greeter?ext.protocol=tri&preferred.protocol=tri");
        // The URL's own protocol is always served.
        assert_eq!(effective(&shared, &["dubbo"]), "dubbo");
        let plain = url("dubbo://127.0.0.1:20880/demo.Greeter?ext.protocol=TRI,rest");
        assert_eq!(effective(&plain, &["tri"]), "tri");
        // Not served there: the provider's choice stands (Java then fails the call).
        let old = url("dubbo://127.0.0.1:20880/demo.Greeter");
        assert_eq!(effective(&old, &["tri"]), "dubbo");
        // Only the first entry counts.
        assert_eq!(effective(&plain, &["rest", "tri"]), "rest");
    }

    #[test]
    fn accepted_splits_the_setting() {
        assert_eq!(accepted(Some("tri, dubbo,")), ["tri", "dubbo"]);
        assert!(accepted(None).is_empty());
        assert!(accepted(Some("")).is_empty());
    }
}
