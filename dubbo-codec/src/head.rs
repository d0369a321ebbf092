//! The head of a request body: its five strings, read without the arguments, and the
//! attachments after them, read by stepping over the arguments.

use std::borrow::Cow;

use bytes::Bytes;

use crate::attachments::{AttachmentValue, Attachments};
use crate::body::{count_containers, unbase};
use crate::descriptor::arg_count;
use crate::error::BodyError;
use crate::format::{
    arg_field, read_args, read_utf_or_empty, skip_args, with_format, BodyFormat, Format, Reader,
};

/// The fixed fields of a request body and where its arguments start: what a server needs to
/// route a call before it decides how to read the arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestHead<'a> {
    /// Field 1, the caller's Dubbo protocol version.
    pub dubbo_version: Cow<'a, str>,
    /// Field 2, the service path.
    pub path: Cow<'a, str>,
    /// Field 3, the service version.
    pub version: Cow<'a, str>,
    /// Field 4, the method name.
    pub method: Cow<'a, str>,
    /// Field 5, the parameter descriptor.
    pub descriptor: Cow<'a, str>,
    /// The number of arguments (from the descriptor).
    pub arg_count: usize,
    /// Byte offset of the first argument in the body.
    pub args_offset: usize,
    /// The serialization of the body.
    pub format: BodyFormat,
}

/// The four strings every read of a request starts with.
pub(crate) struct Fixed<'a> {
    pub(crate) dubbo_version: Cow<'a, str>,
    pub(crate) path: Cow<'a, str>,
    pub(crate) version: Cow<'a, str>,
    pub(crate) method: Cow<'a, str>,
}

impl<'a> Fixed<'a> {
    pub(crate) fn read<R: Reader<'a>>(r: &mut R) -> Result<Fixed<'a>, BodyError> {
        Ok(Fixed {
            dubbo_version: read_utf_or_empty(r, "dubbo version")?,
            path: read_utf_or_empty(r, "path")?,
            version: read_utf_or_empty(r, "service version")?,
            method: read_utf_or_empty(r, "method name")?,
        })
    }
}

impl<'a> RequestHead<'a> {
    /// Reads the five fixed fields of a Hessian2 body, borrowing them from `body` where
    /// possible.
    pub fn decode(body: &'a [u8]) -> Result<RequestHead<'a>, BodyError> {
        RequestHead::decode_in(BodyFormat::default(), body)
    }

    /// [`RequestHead::decode`] for a body in `format`.
    pub fn decode_in(format: BodyFormat, body: &'a [u8]) -> Result<RequestHead<'a>, BodyError> {
        with_format!(format, f => RequestHead::read(&mut f.reader(body, 0), format))
    }

    /// Reads the head from `r`, at the start of a body in `format`.
    pub(crate) fn read<R: Reader<'a>>(
        r: &mut R,
        format: BodyFormat,
    ) -> Result<RequestHead<'a>, BodyError> {
        let fixed = Fixed::read(r)?;
        RequestHead::after_fixed(r, fixed, format)
    }

    /// Reads the descriptor after the fixed strings.
    pub(crate) fn after_fixed<R: Reader<'a>>(
        r: &mut R,
        fixed: Fixed<'a>,
        format: BodyFormat,
    ) -> Result<RequestHead<'a>, BodyError> {
        let descriptor = read_utf_or_empty(r, "parameter descriptor")?;
        let arg_count = arg_count(descriptor.as_ref())?;
        Ok(RequestHead {
            dubbo_version: fixed.dubbo_version,
            path: fixed.path,
            version: fixed.version,
            method: fixed.method,
            descriptor,
            arg_count,
            args_offset: r.offset(),
            format,
        })
    }

    /// Reads the five fixed fields, steps over the arguments without building them, and
    /// decodes the attachments: what a server needs to route a call and build its context,
    /// leaving the arguments to be read later, typed or dynamic.
    pub fn decode_with_attachments(
        body: &'a [u8],
    ) -> Result<(RequestHead<'a>, Attachments), BodyError> {
        RequestHead::decode_with_attachments_in(BodyFormat::default(), body)
    }

    /// [`RequestHead::decode_with_attachments`] for a body in `format`.
    pub fn decode_with_attachments_in(
        format: BodyFormat,
        body: &'a [u8],
    ) -> Result<(RequestHead<'a>, Attachments), BodyError> {
        let head = RequestHead::decode_in(format, body)?;
        let attachments = with_format!(format, f => {
            let mut r = head.args_reader(f, body);
            skip_args(&mut r, head.arg_count)?;
            match r.read_attachments() {
                Ok(a) => a.unwrap_or_default(),
                // A reference from the attachments back into the arguments (which Java never
                // writes for string attachments) needs the whole body decoded.
                Err(e) if e.hessian().is_some_and(|h| {
                    matches!(h.kind(), hessian2::ErrorKind::BadReference { table: "value", .. })
                }) =>
                {
                    attachments_after_values(f, body, head.arg_count)?
                }
                Err(e) => return Err(e),
            }
        });
        Ok((head, attachments))
    }

    /// A reader of `body` (the body this head was read from) at its first argument. The fixed
    /// fields are strings: they define nothing the rest of the body could use, so a reader
    /// can start there.
    fn args_reader<F: Format>(&self, f: F, body: &'a [u8]) -> F::Reader<'a> {
        let base = self.args_offset.min(body.len());
        f.reader(body.get(base..).unwrap_or_default(), base)
    }

    /// Steps over the arguments of `body` (the body this head was read from) and reads its
    /// attachments, calling `found(i, value)` for every entry whose key is `keys[i]`, in wire
    /// order: [`peek_keys`](crate::peek::peek_keys) for a caller that looks at the fixed
    /// fields first and then decides to read on. The body is read once in all; nothing is
    /// built or allocated, values are borrowed ([`AttachmentValue`]). A key sent twice is
    /// reported twice (keep the last, as Java does); a key listed twice in `keys` is reported
    /// under each of its indexes.
    ///
    /// ```
    /// use dubbo_codec::{Request, RequestHead};
    ///
    /// let body = Request::builder("com.example.Greeter", "sayHello")
    ///     .group("blue")
    ///     .attach("env", "canary")
    ///     .build()?
    ///     .to_bytes();
    /// let head = RequestHead::decode(&body)?;
    /// if head.method == "sayHello" {
    ///     let mut found = [None; 2];
    ///     head.find_attachments(&body, &["group", "env"], |i, v| found[i] = v.as_str().map(str::len))?;
    ///     assert_eq!(found, [Some(4), Some(6)]);
    /// }
    /// # Ok::<(), dubbo_codec::BodyError>(())
    /// ```
    pub fn find_attachments<K: AsRef<str>>(
        &self,
        body: &'a [u8],
        keys: &[K],
        mut found: impl FnMut(usize, AttachmentValue<'a, '_>),
    ) -> Result<(), BodyError> {
        with_format!(self.format, f => {
            let mut r = self.args_reader(f, body);
            skip_args(&mut r, self.arg_count)?;
            r.scan_attachments(
                |key| position(keys, key.as_str().unwrap_or_default()),
                |i, value| report(keys, i, value, &mut found),
            )
        })
    }

    /// The arguments of `body` (the body this head was read from), each serialized alone, as
    /// Triple's request wrapper carries them. An argument is copied as it is where its bytes
    /// stand alone (the first one, which starts where the stream's tables are still empty; a
    /// later one that uses none of them: see [`BodyFormat::joins_as_is`]); otherwise the
    /// arguments are read as values and written each on its own, with their references
    /// moved to their own stream. An argument that refers to an earlier one cannot stand
    /// alone: an error.
    pub fn args_alone(&self, body: &'a [u8]) -> Result<Vec<Bytes>, BodyError> {
        let spans = with_format!(self.format, f => {
            let mut r = self.args_reader(f, body);
            let mut spans = Vec::with_capacity(self.arg_count.min(64));
            for i in 0..self.arg_count {
                let field = arg_field(i);
                if r.is_empty() {
                    return Err(BodyError::Missing { field });
                }
                let start = r.offset();
                r.skip(field)?;
                spans.push(start..r.offset());
            }
            spans
        });
        let copied = spans
            .iter()
            .enumerate()
            .all(|(i, at)| i == 0 || self.format.joins_as_is(&body[at.clone()]));
        if copied {
            return Ok(spans
                .into_iter()
                .map(|at| Bytes::copy_from_slice(&body[at]))
                .collect());
        }
        let values = self
            .format
            .read_args_at(body, self.args_offset, self.arg_count)?;
        let mut base = 0u32;
        let mut out = Vec::with_capacity(values.len());
        for (i, mut v) in values.into_iter().enumerate() {
            let containers = count_containers(&v);
            if !unbase(&mut v, base) {
                return Err(BodyError::Unexpected {
                    field: arg_field(i),
                    expected: "a value that stands alone",
                    found: "a reference to an earlier argument",
                });
            }
            base = base.saturating_add(containers);
            out.push(self.format.value_alone(&v));
        }
        Ok(out)
    }

    /// Reads the arguments of `body` (the body this head was read from) into a Rust tuple
    /// through serde; see [`Request::decode_args`](crate::Request::decode_args).
    pub fn decode_args<T: serde::de::DeserializeOwned>(
        &self,
        body: &Bytes,
    ) -> Result<T, BodyError> {
        with_format!(self.format, f => f.decode_args(body, self.args_offset, self.arg_count))
    }
}

/// The index of `key` in `keys`.
#[inline]
pub(crate) fn position<K: AsRef<str>>(keys: &[K], key: &str) -> Option<usize> {
    keys.iter().position(|k| k.as_ref() == key)
}

/// Calls `found` for `keys[i]` and for every later index of the same key.
#[inline]
pub(crate) fn report<'a, K: AsRef<str>>(
    keys: &[K],
    i: usize,
    value: AttachmentValue<'a, '_>,
    found: &mut impl FnMut(usize, AttachmentValue<'a, '_>),
) {
    found(i, value);
    let Some(key) = keys.get(i).map(AsRef::as_ref) else {
        return;
    };
    for (j, k) in keys.iter().enumerate().skip(i + 1) {
        if k.as_ref() == key {
            found(j, value);
        }
    }
}

/// The attachments of `body`, read after its head and its arguments read as values, so that
/// every value they may refer back to is in the reader's tables.
fn attachments_after_values<F: Format>(
    f: F,
    body: &[u8],
    arg_count: usize,
) -> Result<Attachments, BodyError> {
    let mut r = f.reader(body, 0);
    Fixed::read(&mut r)?;
    read_utf_or_empty(&mut r, "parameter descriptor")?;
    read_args(&mut r, arg_count)?;
    Ok(r.read_attachments()?.unwrap_or_default())
}
