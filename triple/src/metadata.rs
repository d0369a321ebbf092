//! A call's metadata: the request's path and headers, as Triple and gRPC spell them.
//!
//! A call is one HTTP/2 stream. Its request HEADERS carry:
//!
//! ```text
//! :method POST
//! :scheme http
//! :path /{interface}/{method}          e.g. /io.github.hessianrs.demo.DemoService/sayHello
//! content-type application/grpc+proto  (application/grpc[+codec] for gRPC in general)
//! te trailers
//! grpc-timeout 3000m                   the caller's deadline (see crate::timeout)
//! tri-service-version 1.0.0            Dubbo's service version (absent: none)
//! tri-service-group blue               Dubbo's group (absent: none)
//! tri-consumer-appname shop            the calling application
//! <attachment> <value>                 Dubbo attachments, one header each; lower-cased keys,
//!                                      their original spelling in tri-header-convert; a
//!                                      binary value goes as <key>-bin, base64
//! ```
//!
//! [`RequestHead`] reads and writes this set; the wire crate keeps it free of any runtime.

use std::time::Duration;

use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine as _;
use bytes::Bytes;
use http::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE, TE};

use crate::timeout::{format_timeout, parse_timeout, TimeoutError};

/// The content type of gRPC calls whose messages are protobuf (Triple's wrappers included).
pub const CONTENT_TYPE_PROTO: &str = "application/grpc+proto";
/// The content type of gRPC calls, codec unnamed (protobuf).
pub const CONTENT_TYPE_GRPC: &str = "application/grpc";
pub use crate::status::{GRPC_MESSAGE, GRPC_STATUS};
/// `grpc-status-details-bin`: a `google.rpc.Status`, base64 (Java Dubbo puts the exception's
/// stack there).
pub const GRPC_STATUS_DETAILS: &str = "grpc-status-details-bin";
/// `grpc-timeout`: the caller's deadline.
pub const GRPC_TIMEOUT: &str = "grpc-timeout";
/// `grpc-encoding`: the compression of this side's messages.
pub const GRPC_ENCODING: &str = "grpc-encoding";
/// `grpc-accept-encoding`: the compressions this side reads.
pub const GRPC_ACCEPT_ENCODING: &str = "grpc-accept-encoding";
/// `tri-service-version`: the Dubbo service version.
pub const TRI_SERVICE_VERSION: &str = "tri-service-version";
/// `tri-service-group`: the Dubbo service group.
pub const TRI_SERVICE_GROUP: &str = "tri-service-group";
/// `tri-consumer-appname`: the calling application.
pub const TRI_CONSUMER_APPNAME: &str = "tri-consumer-appname";
/// `tri-service-timeout`: Java Dubbo's own copy of the timeout, in milliseconds.
pub const TRI_SERVICE_TIMEOUT: &str = "tri-service-timeout";
/// `tri-header-convert`: a percent-encoded JSON object from lower-cased attachment keys to
/// their original spelling (HTTP/2 header names are lower case; Dubbo's keys need not be).
pub const TRI_HEADER_CONVERT: &str = "tri-header-convert";
/// `tri-exception-code`: set on a response whose message is a business exception rather
/// than a result.
pub const TRI_EXCEPTION_CODE: &str = "tri-exception-code";

/// Base64 as gRPC's binary headers use it: written padded, read with or without padding.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Headers that are the protocol's, never attachments.
const RESERVED: [&str; 21] = [
    "content-type",
    "te",
    "user-agent",
    "content-length",
    "accept-encoding",
    "host",
    GRPC_STATUS,
    GRPC_MESSAGE,
    GRPC_STATUS_DETAILS,
    GRPC_TIMEOUT,
    GRPC_ENCODING,
    GRPC_ACCEPT_ENCODING,
    TRI_SERVICE_VERSION,
    TRI_SERVICE_GROUP,
    TRI_CONSUMER_APPNAME,
    TRI_SERVICE_TIMEOUT,
    TRI_HEADER_CONVERT,
    TRI_EXCEPTION_CODE,
    // Dubbo's own keys, which Java keeps out of attachments too.
    "interface",
    "path",
    "serialization",
];

/// Why a request's metadata cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MetadataError {
    /// `:path` is not `/{service}/{method}`.
    #[error("path {0:?} is not /{{service}}/{{method}}")]
    BadPath(String),
    /// `content-type` is not gRPC's (answered with HTTP 415).
    #[error("content-type {0:?} is not application/grpc")]
    NotGrpc(String),
    /// `grpc-timeout` cannot be read.
    #[error(transparent)]
    BadTimeout(#[from] TimeoutError),
    /// A header value that must be text is not UTF-8.
    #[error("header {0} is not UTF-8")]
    NotUtf8(String),
    /// A `-bin` header is not base64.
    #[error("header {0} is not base64")]
    BadBinary(String),
    /// `tri-header-convert` is not a percent-encoded JSON object of strings.
    #[error("tri-header-convert is not a JSON object of strings")]
    BadHeaderConvert,
}

/// An attachment's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttachmentValue {
    /// Text (Java strings, numbers and booleans travel as text).
    Text(String),
    /// Bytes (a `-bin` header).
    Binary(Bytes),
}

/// What a request's headers say about the call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RequestHead {
    /// The service: a Java interface name, or a protobuf `package.Service`.
    pub service: String,
    /// The method.
    pub method: String,
    /// The Dubbo service version (empty: none).
    pub version: String,
    /// The Dubbo group (empty: none).
    pub group: String,
    /// The caller's deadline.
    pub timeout: Option<Duration>,
    /// The calling application.
    pub application: Option<String>,
    /// Dubbo attachments, with their original keys.
    pub attachments: Vec<(String, AttachmentValue)>,
}

impl RequestHead {
    /// A call of `method` of `service`, with nothing else set.
    pub fn new(service: impl Into<String>, method: impl Into<String>) -> RequestHead {
        RequestHead {
            service: service.into(),
            method: method.into(),
            ..RequestHead::default()
        }
    }

    /// Reads the metadata of a request from its path and headers.
    pub fn from_parts(path: &str, headers: &HeaderMap) -> Result<RequestHead, MetadataError> {
        let (service, method) =
            split_path(path).ok_or_else(|| MetadataError::BadPath(path.to_owned()))?;
        let content_type = headers
            .get(CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .unwrap_or_default();
        if !is_grpc_content_type(&content_type) {
            return Err(MetadataError::NotGrpc(content_type));
        }
        let text = |name: &str| -> Result<Option<String>, MetadataError> {
            headers
                .get(name)
                .map(|v| {
                    std::str::from_utf8(v.as_bytes())
                        .map(str::to_owned)
                        .map_err(|_| MetadataError::NotUtf8(name.to_owned()))
                })
                .transpose()
        };
        let timeout = headers
            .get(GRPC_TIMEOUT)
            .map(|v| parse_timeout(v.as_bytes()))
            .transpose()?;
        let mut head = RequestHead {
            service: service.to_owned(),
            method: method.to_owned(),
            version: text(TRI_SERVICE_VERSION)?.unwrap_or_default(),
            group: text(TRI_SERVICE_GROUP)?.unwrap_or_default(),
            timeout,
            application: text(TRI_CONSUMER_APPNAME)?,
            attachments: Vec::new(),
        };
        head.attachments = read_attachments(headers)?;
        Ok(head)
    }

    /// The request's `:path`.
    pub fn path(&self) -> String {
        format!("/{}/{}", self.service, self.method)
    }

    /// Writes the request's headers (all but the pseudo-headers) into `headers`, with
    /// `content_type`. Attachments whose key or text is not a valid header are left out
    /// (Java Dubbo drops what it cannot write too).
    pub fn write_headers(&self, content_type: &'static str, headers: &mut HeaderMap) {
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
        headers.insert(TE, HeaderValue::from_static("trailers"));
        if let Some(t) = self.timeout {
            if let Ok(v) = HeaderValue::from_str(&format_timeout(t)) {
                headers.insert(GRPC_TIMEOUT, v);
            }
        }
        let mut put = |name: &'static str, value: &str| {
            if let Ok(v) = HeaderValue::from_str(value) {
                headers.insert(name, v);
            }
        };
        if !self.version.is_empty() {
            put(TRI_SERVICE_VERSION, &self.version);
        }
        if !self.group.is_empty() {
            put(TRI_SERVICE_GROUP, &self.group);
        }
        if let Some(app) = &self.application {
            put(TRI_CONSUMER_APPNAME, app);
        }
        write_attachments(&self.attachments, headers);
    }
}

/// Splits `/{service}/{method}`: the method is the last segment, the service everything
/// between the first `/` and the last.
pub fn split_path(path: &str) -> Option<(&str, &str)> {
    let rest = path.strip_prefix('/')?;
    let (service, method) = rest.rsplit_once('/')?;
    (!service.is_empty() && !method.is_empty()).then_some((service, method))
}

/// True for `application/grpc` and its `+codec` / `;params` forms.
pub fn is_grpc_content_type(value: &str) -> bool {
    match value.strip_prefix(CONTENT_TYPE_GRPC) {
        Some(rest) => rest.is_empty() || rest.starts_with('+') || rest.starts_with(';'),
        None => false,
    }
}

/// The attachments among `headers`: every header that is not the protocol's, `-bin` ones
/// decoded from base64, keys restored through `tri-header-convert`.
pub fn read_attachments(
    headers: &HeaderMap,
) -> Result<Vec<(String, AttachmentValue)>, MetadataError> {
    let convert: Vec<(String, String)> = match headers.get(TRI_HEADER_CONVERT) {
        Some(v) => {
            let json = crate::status::decode_message(v.as_bytes());
            let map: std::collections::BTreeMap<String, String> =
                serde_json::from_str(&json).map_err(|_| MetadataError::BadHeaderConvert)?;
            map.into_iter().collect()
        }
        None => Vec::new(),
    };
    let mut out = Vec::new();
    for (name, value) in headers {
        let key = name.as_str();
        if RESERVED.contains(&key) {
            continue;
        }
        let (key, value) = match key.strip_suffix("-bin") {
            Some(k) => {
                let bytes = BASE64
                    .decode(value.as_bytes())
                    .map_err(|_| MetadataError::BadBinary(key.to_owned()))?;
                (k, AttachmentValue::Binary(Bytes::from(bytes)))
            }
            None => {
                let text = std::str::from_utf8(value.as_bytes())
                    .map_err(|_| MetadataError::NotUtf8(key.to_owned()))?;
                (key, AttachmentValue::Text(text.to_owned()))
            }
        };
        let original = convert
            .iter()
            .find(|(lower, _)| lower == key)
            .map_or(key, |(_, original)| original.as_str());
        out.push((original.to_owned(), value));
    }
    Ok(out)
}

/// Writes attachments as headers: keys lower-cased (their spelling kept in
/// `tri-header-convert` when that changed them), binary values as `<key>-bin` in base64.
/// Keys that are the protocol's, or not valid header names, are left out.
pub fn write_attachments(attachments: &[(String, AttachmentValue)], headers: &mut HeaderMap) {
    let mut converted = std::collections::BTreeMap::new();
    for (key, value) in attachments {
        let lower = key.to_ascii_lowercase();
        if RESERVED.contains(&lower.as_str()) || lower.starts_with(':') {
            continue;
        }
        let (name, value) = match value {
            AttachmentValue::Text(t) => (HeaderName::try_from(&lower), HeaderValue::from_str(t)),
            AttachmentValue::Binary(b) => {
                let encoded = BASE64.encode(b);
                (
                    HeaderName::try_from(format!("{lower}-bin")),
                    HeaderValue::from_str(&encoded),
                )
            }
        };
        if let (Ok(name), Ok(value)) = (name, value) {
            headers.append(name, value);
            if &lower != key {
                converted.insert(lower, key.clone());
            }
        }
    }
    if !converted.is_empty() {
        let json = serde_json::to_string(&converted).unwrap_or_default();
        if let Ok(v) = HeaderValue::from_str(&crate::status::encode_message(&json)) {
            headers.insert(TRI_HEADER_CONVERT, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_at_the_last_slash() {
        assert_eq!(
            split_path("/io.example.Greeter/sayHello"),
            Some(("io.example.Greeter", "sayHello"))
        );
        assert_eq!(split_path("/a/b/c"), Some(("a/b", "c")));
        for bad in ["", "/", "//m", "/s/", "s/m", "/s"] {
            assert_eq!(split_path(bad), None, "{bad}");
        }
    }

    #[test]
    fn grpc_content_types() {
        for ok in [
            "application/grpc",
            "application/grpc+proto",
            "application/grpc;x=1",
        ] {
            assert!(is_grpc_content_type(ok), "{ok}");
        }
        for bad in ["", "application/json", "application/grpcx", "text/plain"] {
            assert!(!is_grpc_content_type(bad), "{bad}");
        }
    }

    #[test]
    fn a_head_round_trips_through_headers() {
        let head = RequestHead {
            service: "io.example.Greeter".into(),
            method: "sayHello".into(),
            version: "1.0.0".into(),
            group: "blue".into(),
            timeout: Some(Duration::from_millis(1500)),
            application: Some("shop".into()),
            attachments: vec![
                ("traceId".into(), AttachmentValue::Text("abc-1".into())),
                (
                    "blob".into(),
                    AttachmentValue::Binary(Bytes::from_static(b"\0\x01\xff")),
                ),
            ],
        };
        let mut headers = HeaderMap::new();
        head.write_headers(CONTENT_TYPE_PROTO, &mut headers);
        assert_eq!(headers["te"], "trailers");
        assert_eq!(headers["traceid"], "abc-1");
        assert_eq!(headers["blob-bin"], "AAH/");
        let mut back = RequestHead::from_parts(&head.path(), &headers).unwrap();
        back.attachments.sort_by(|a, b| a.0.cmp(&b.0));
        let mut expected = head.clone();
        expected.attachments.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(back, expected);
    }

    #[test]
    fn bad_headers_are_named() {
        let mut h = HeaderMap::new();
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        assert_eq!(
            RequestHead::from_parts("/s/m", &h),
            Err(MetadataError::NotGrpc("application/json".into()))
        );
        h.insert(CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE_GRPC));
        h.insert(GRPC_TIMEOUT, HeaderValue::from_static("soon"));
        assert!(matches!(
            RequestHead::from_parts("/s/m", &h),
            Err(MetadataError::BadTimeout(_))
        ));
        h.remove(GRPC_TIMEOUT);
        h.insert("x-bin", HeaderValue::from_static("!!"));
        assert_eq!(
            RequestHead::from_parts("/s/m", &h),
            Err(MetadataError::BadBinary("x-bin".into()))
        );
        assert_eq!(
            RequestHead::from_parts("nope", &h),
            Err(MetadataError::BadPath("nope".into()))
        );
    }
}
