//! Stepping over a value without building it. Strings are still checked and symbol definitions
//! still recorded (later values may refer to them), but nothing is kept.

use super::{Decoder, Header};
use crate::error::{ErrorKind, Result};
use crate::marker::container;

impl Decoder<'_> {
    /// Skips one whole value.
    pub fn skip(&mut self) -> Result<()> {
        let h = self.pull()?;
        self.skip_rest(h)
    }

    /// Skips the rest of a value whose header was already pulled.
    pub fn skip_rest(&mut self, header: Header<'_>) -> Result<()> {
        match header {
            Header::Array(n) => {
                self.enter()?;
                for _ in 0..n {
                    self.skip()?;
                }
                self.leave();
                Ok(())
            }
            Header::Object => {
                self.enter()?;
                loop {
                    match self.pull()? {
                        Header::End => break,
                        key => {
                            self.skip_rest(key)?;
                            self.skip()?;
                        }
                    }
                }
                self.leave();
                Ok(())
            }
            Header::Typed(_) => {
                self.enter()?;
                self.skip()?;
                self.leave();
                Ok(())
            }
            Header::End => {
                self.pos -= 1;
                Err(self.error(ErrorKind::Unexpected {
                    found: container::OBJECT_END,
                    expected: "a value",
                }))
            }
            _ => Ok(()),
        }
    }
}
