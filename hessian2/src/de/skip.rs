//! Stepping over values the Rust type does not want, recording their containers (a later `Q`
//! may refer to them).

use super::{Deserializer, Source};
use crate::decode::Header;
use crate::error::Result;

impl<'de, S: Source<'de>> Deserializer<'de, S> {
    /// Skips the rest of a value whose header was pulled, recording its containers (a later
    /// `Q` may refer to them).
    pub(super) fn skip_rest(&mut self, header: Header) -> Result<()> {
        match header {
            Header::List { len, .. } => {
                let slot = self.open()?;
                match len {
                    Some(n) => {
                        for _ in 0..n {
                            self.skip_value()?;
                        }
                    }
                    None => loop {
                        match self.dec.pull()? {
                            Header::End => break,
                            item => self.skip_rest(item)?,
                        }
                    },
                }
                self.close(slot);
                Ok(())
            }
            Header::Map { .. } => {
                let slot = self.open()?;
                loop {
                    match self.dec.pull()? {
                        Header::End => break,
                        key => {
                            self.skip_rest(key)?;
                            self.skip_value()?;
                        }
                    }
                }
                self.close(slot);
                Ok(())
            }
            Header::Object { class } => {
                let slot = self.open()?;
                for _ in 0..self.dec.class(class).fields.len() {
                    self.skip_value()?;
                }
                self.close(slot);
                Ok(())
            }
            other => self.dec.skip_rest(other),
        }
    }

    /// Skips up to and including the `Z` of a map or variable-length list.
    pub(super) fn skip_to_end(&mut self, pairs: bool) -> Result<()> {
        loop {
            match self.dec.pull()? {
                Header::End => return Ok(()),
                h => {
                    self.skip_rest(h)?;
                    if pairs {
                        self.skip_value()?;
                    }
                }
            }
        }
    }

    /// Consumes a `Z` if it is next.
    #[inline]
    pub(super) fn at_end_marker(&mut self) -> Result<bool> {
        if self.dec.peek_u8()? == crate::marker::list::END {
            self.dec.consume_peeked();
            Ok(true)
        } else {
            Ok(false)
        }
    }
}
