//! Stepping over a value without building it: what the proxy uses to pass over a request's
//! arguments on its way to the attachments. It reads every byte (Hessian has no length prefix
//! for containers) but allocates nothing beyond the class and type tables that later values may
//! refer to.

use super::{string, Decoder, Header};
use crate::error::{ErrorKind, Result};
use crate::input::Input;

impl<'de, I: Input<'de>> Decoder<'de, I> {
    /// Skips the rest of a value whose header was already pulled.
    pub fn skip_rest(&mut self, header: Header) -> Result<()> {
        match header {
            Header::Null
            | Header::Bool(_)
            | Header::Int(_)
            | Header::Long(_)
            | Header::Double(_)
            | Header::Date(_)
            | Header::Ref(_) => Ok(()),
            Header::String { len, last } => string::skip_str(self, len, last),
            Header::Binary { mut len, mut last } => loop {
                self.ensure(len)?;
                self.skip_bytes(len);
                if last {
                    return Ok(());
                }
                (len, last) = self.expect("a binary chunk", |h| match h {
                    Header::Binary { len, last } => Some((len, last)),
                    _ => None,
                })?;
            },
            Header::List { len: Some(n), .. } => self.nested(|d| {
                for _ in 0..n {
                    d.skip()?;
                }
                Ok(())
            }),
            Header::List { len: None, .. } => self.nested(|d| loop {
                match d.pull()? {
                    Header::End => return Ok(()),
                    item => d.skip_rest(item)?,
                }
            }),
            Header::Map { .. } => self.nested(|d| loop {
                match d.pull()? {
                    Header::End => return Ok(()),
                    key => {
                        d.skip_rest(key)?;
                        d.skip()?;
                    }
                }
            }),
            Header::Object { class } => {
                let fields = self.class(class).fields.len();
                self.nested(|d| {
                    for _ in 0..fields {
                        d.skip()?;
                    }
                    Ok(())
                })
            }
            Header::End => Err(self.error(ErrorKind::Unexpected {
                found: crate::marker::list::END,
                expected: "a value",
            })),
        }
    }

    fn nested(&mut self, body: impl FnOnce(&mut Self) -> Result<()>) -> Result<()> {
        self.enter()?;
        let result = body(self);
        self.leave();
        result
    }

    fn skip_bytes(&mut self, mut n: usize) {
        while n > 0 {
            let take = self.input.chunk().len().min(n);
            self.input.advance(take);
            n -= take;
        }
    }
}
