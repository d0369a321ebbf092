//! Stepping over a value without building it. Strings are still checked and symbol definitions
//! still recorded (later values may refer to them), but nothing is kept.

use super::{Decoder, Header};
use crate::error::{ErrorKind, Result};
use crate::marker::{container, string};

impl Decoder<'_> {
    /// Skips one whole value.
    pub fn skip(&mut self) -> Result<()> {
        // Strings, symbols and class names are stepped over as spans: only what a full read
        // would reject (UTF-8, UTF-16 lengths, symbol numbers) is checked, nothing is decoded.
        let c = self.peek()?;
        if string::is_string(c) {
            self.pos += 1;
            return self.skip_string_after(c);
        }
        match c {
            string::SYMBOL => {
                self.pos += 1;
                self.skip_symbol_after()
            }
            crate::marker::TYPED => {
                self.pos += 1;
                self.skip_type_name()?;
                self.enter()?;
                self.skip()?;
                self.leave();
                Ok(())
            }
            _ => {
                let h = self.pull()?;
                self.skip_rest(h)
            }
        }
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
                while self.peek()? != container::OBJECT_END {
                    self.skip()?;
                    self.skip()?;
                }
                self.pos += 1;
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
