//! Stepping over a value without building it: what the proxy uses to pass over a request's
//! arguments on its way to the attachments. It reads every byte (Hessian has no length prefix
//! for containers) but allocates nothing beyond the class and type tables that later values may
//! refer to.

use super::{string, Decoder, Header};
use crate::error::{ErrorKind, Result};
use crate::input::Input;
use crate::marker::{self, binary, date, double, int, long};

impl<'de, I: Input<'de>> Decoder<'de, I> {
    /// Steps over the next value if it is a scalar, an ASCII one-chunk string or a one-chunk
    /// binary lying whole in the current input chunk; otherwise consumes nothing and returns
    /// `false` (the caller falls back to the general path).
    #[inline]
    pub(crate) fn try_skip_scalar(&mut self) -> bool {
        let chunk = self.input.chunk();
        let Some(&code) = chunk.first() else {
            return false;
        };
        let n = match code {
            0x80..=0xbf | 0xd8..=0xef | double::ZERO | double::ONE => 1,
            marker::NULL | marker::TRUE | marker::FALSE => 1,
            0xc0..=0xcf | 0xf0..=0xff | double::BYTE => 2,
            0xd0..=0xd7 | 0x38..=0x3f | double::SHORT => 3,
            int::FULL | long::INT32 | double::MILLS | date::MINUTES => 5,
            long::FULL | double::FULL | date::MILLIS => 9,
            0x00..=0x1f | 0x30..=0x33 | marker::string::FINAL => {
                let (len, header) = match code {
                    0x00..=0x1f => (code as usize, 1),
                    0x30..=0x33 => match chunk.get(1) {
                        Some(&b1) => (
                            ((code - marker::string::SHORT_BASE) as usize) << 8 | b1 as usize,
                            2,
                        ),
                        None => return false,
                    },
                    _ => match chunk.get(1..3) {
                        Some(b) => (u16::from_be_bytes([b[0], b[1]]) as usize, 3),
                        None => return false,
                    },
                };
                // ASCII: one byte per UTF-16 unit.
                match chunk.get(header..header + len) {
                    Some(text) if text.is_ascii() => header + len,
                    _ => return false,
                }
            }
            0x20..=0x2f => 1 + (code - binary::DIRECT_BASE) as usize,
            0x34..=0x37 => match chunk.get(1) {
                Some(&b1) => 2 + (((code - binary::SHORT_BASE) as usize) << 8 | b1 as usize),
                None => return false,
            },
            binary::FINAL => match chunk.get(1..3) {
                Some(b) => 3 + u16::from_be_bytes([b[0], b[1]]) as usize,
                None => return false,
            },
            _ => return false,
        };
        if n > chunk.len() {
            return false;
        }
        self.input.advance(n);
        true
    }

    /// Steps over one whole value without building it: every byte is read (Hessian containers
    /// have no length prefix to jump by) but nothing is allocated beyond the stream tables.
    pub fn skip(&mut self) -> Result<()> {
        if self.try_skip_scalar() {
            return Ok(());
        }
        let header = self.pull()?;
        self.skip_rest(header)
    }

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
            Header::Binary { len, last } => self.binary_chunks(len, last, Self::skip_bytes),
            Header::List { len: Some(n), .. } => self.nested(|d| {
                for _ in 0..n {
                    d.skip()?;
                }
                Ok(())
            }),
            // The `Z` must come where an item or key would begin: `pull` reads class
            // definitions on its way, so a `Z` it returns may follow a definition, which has
            // to introduce a value (fuzz finding `definition_before_end_marker` in
            // tests/fuzz_regressions.rs).
            Header::List { len: None, .. } => self.nested(|d| {
                while !d.at_end() {
                    d.skip()?;
                }
                Ok(())
            }),
            Header::Map { .. } => self.nested(|d| {
                while !d.at_end() {
                    d.skip()?;
                    d.skip()?;
                }
                Ok(())
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

    /// Consumes the `Z` that ends a map or a variable-length list if it is the next byte
    /// (anything else, the end of the input included, is left for `skip` to read or refuse),
    /// as `ValueDecoder` does.
    #[inline]
    fn at_end(&mut self) -> bool {
        let end = self.peek_byte() == Some(marker::list::END);
        if end {
            self.consume_peeked();
        }
        end
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

#[cfg(test)]
mod tests {
    use crate::decode::Decoder;

    #[test]
    fn scalar_skip_agrees_with_the_general_skip() {
        use crate::input::SliceInput;
        let mut enc = crate::encode::Encoder::new(Vec::new());
        for v in [
            0,
            -16,
            47,
            48,
            -2048,
            2047,
            2048,
            -262_144,
            262_143,
            262_144,
            i32::MIN,
        ] {
            enc.write_int(v);
            enc.write_long(v.into());
        }
        for v in [0.0, 1.0, -128.0, 127.0, 300.0, 0.001, 1.5e300] {
            enc.write_double(v);
        }
        for s in [
            "",
            "a",
            "hello",
            &"x".repeat(40),
            &"y".repeat(2000),
            "中文",
            "😀",
        ] {
            enc.write_str(s);
        }
        for n in [0, 15, 16, 1023, 1024, 4093] {
            enc.write_binary(&vec![7u8; n]);
        }
        enc.write_null();
        enc.write_bool(true);
        let wire = enc.into_inner();
        let (mut fast, mut slow) = (
            Decoder::new(SliceInput::new(&wire)),
            Decoder::new(SliceInput::new(&wire)),
        );
        while !slow.is_empty() {
            let header = slow.pull().unwrap();
            slow.skip_rest(header).unwrap();
            if !fast.try_skip_scalar() {
                let header = fast.pull().unwrap();
                fast.skip_rest(header).unwrap();
            }
            assert_eq!(fast.offset(), slow.offset());
        }
        // Cut short: nothing is consumed, and the general path reports the end of input.
        let mut d = Decoder::new(SliceInput::new(b"\x05abc"));
        assert!(!d.try_skip_scalar());
        assert!(d.skip().unwrap_err().is_eof());
    }
}
