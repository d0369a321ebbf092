//! Typed fast paths: an int or long, a double, a date or a one-chunk string header read
//! straight from the current input chunk when it holds them whole, consuming nothing otherwise
//! (the caller then falls back to [`Decoder::pull`](super::Decoder::pull), which handles every
//! case, errors included).

use super::Decoder;
use crate::input::Input;
use crate::marker::{self, date, double, int, long};

impl<'de, I: Input<'de>> Decoder<'de, I> {
    /// The next `1 + N` bytes when the current input chunk holds them: a header byte and its
    /// fixed-size payload, for the typed fast paths below.
    #[inline]
    fn peek_fixed<const N: usize>(&self) -> Option<[u8; N]> {
        let bytes = self.input.chunk().get(1..1 + N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Some(out)
    }

    /// Consumes a value of a fixed size from the head of the current input chunk: `read` gets
    /// the decoder and the first byte, and gives the value and its size in bytes, or `None`
    /// (then nothing is consumed).
    #[inline(always)]
    fn take_fixed<T>(&mut self, read: impl FnOnce(&Self, u8) -> Option<(T, usize)>) -> Option<T> {
        let code = *self.input.chunk().first()?;
        let (v, n) = read(self, code)?;
        self.input.advance(n);
        Some(v)
    }

    /// Reads an int or a long in any of their forms, if that is what comes next in the current
    /// input chunk; otherwise consumes nothing (the caller falls back to [`pull`](Self::pull),
    /// which handles every case, errors included).
    #[inline(always)]
    pub(crate) fn try_integer(&mut self) -> Option<i64> {
        self.take_fixed(|d, code| {
            Some(match code {
                0x80..=0xbf => (code as i64 - int::DIRECT_ZERO as i64, 1),
                0xc0..=0xcf => {
                    let [b1] = d.peek_fixed()?;
                    (i64::from(int::two_byte(code, b1)), 2)
                }
                0xd0..=0xd7 => {
                    let [b1, b2] = d.peek_fixed()?;
                    let v = ((code as i64 - int::SHORT_ZERO as i64) << 16) | (b1 as i64) << 8;
                    (v | b2 as i64, 3)
                }
                0xd8..=0xef => (code as i64 - long::DIRECT_ZERO as i64, 1),
                0xf0..=0xff => {
                    let [b1] = d.peek_fixed()?;
                    (((code as i64 - long::BYTE_ZERO as i64) << 8) | b1 as i64, 2)
                }
                0x38..=0x3f => {
                    let [b1, b2] = d.peek_fixed()?;
                    let v = ((code as i64 - long::SHORT_ZERO as i64) << 16) | (b1 as i64) << 8;
                    (v | b2 as i64, 3)
                }
                int::FULL | long::INT32 => (i32::from_be_bytes(d.peek_fixed()?) as i64, 5),
                long::FULL => (i64::from_be_bytes(d.peek_fixed()?), 9),
                _ => return None,
            })
        })
    }

    /// Reads a double in any of its forms, if that is what comes next in the current input
    /// chunk (see [`try_integer`](Self::try_integer)).
    #[inline]
    pub(crate) fn try_double(&mut self) -> Option<f64> {
        self.take_fixed(|d, code| {
            Some(match code {
                double::ZERO => (0.0, 1),
                double::ONE => (1.0, 1),
                double::BYTE => (i8::from_be_bytes(d.peek_fixed()?) as f64, 2),
                double::SHORT => (i16::from_be_bytes(d.peek_fixed()?) as f64, 3),
                double::MILLS => (0.001 * i32::from_be_bytes(d.peek_fixed()?) as f64, 5),
                double::FULL => (f64::from_be_bytes(d.peek_fixed()?), 9),
                _ => return None,
            })
        })
    }

    /// Reads a date (milliseconds), if that is what comes next in the current input chunk
    /// (see [`try_integer`](Self::try_integer)).
    #[inline]
    pub(crate) fn try_date(&mut self) -> Option<i64> {
        self.take_fixed(|d, code| {
            Some(match code {
                date::MILLIS => (i64::from_be_bytes(d.peek_fixed()?), 9),
                date::MINUTES => (i32::from_be_bytes(d.peek_fixed()?) as i64 * 60_000, 5),
                _ => return None,
            })
        })
    }

    /// Reads the header of a one-chunk string, if that is what comes next in the current
    /// input chunk: its length in UTF-16 units (see [`try_integer`](Self::try_integer)).
    #[inline]
    pub(crate) fn try_string_header(&mut self) -> Option<usize> {
        let code = *self.input.chunk().first()?;
        let (len, n) = match code {
            0x00..=0x1f => (code as usize, 1),
            0x30..=0x33 => {
                let [b1] = self.peek_fixed()?;
                (
                    ((code - marker::string::SHORT_BASE) as usize) << 8 | b1 as usize,
                    2,
                )
            }
            marker::string::FINAL => (u16::from_be_bytes(self.peek_fixed()?) as usize, 3),
            _ => return None,
        };
        self.input.advance(n);
        Some(len)
    }
}
