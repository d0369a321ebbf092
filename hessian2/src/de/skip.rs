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
                    None => self.skip_to_end(false)?,
                }
                self.close(slot);
                Ok(())
            }
            Header::Map { .. } => {
                let slot = self.open()?;
                self.skip_to_end(true)?;
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

    /// Skips up to and including the `Z` of a map or variable-length list. The `Z` must be
    /// where an item or key would begin: one that `pull` returns after a class definition ends
    /// nothing (the definition introduces a value), as in `Decoder::skip_rest`.
    pub(super) fn skip_to_end(&mut self, pairs: bool) -> Result<()> {
        while !self.at_end_marker()? {
            self.skip_value()?;
            if pairs {
                self.skip_value()?;
            }
        }
        Ok(())
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
