//! [`Decoder::pull`]: the next header, with the one-byte forms of the common values inline in
//! the caller and everything else (class definitions included) out of line; and the scalar
//! reads the grammar's lengths, indexes and names are made of.

use super::{Decoder, Header, Mark};
use crate::error::{ErrorKind, Result};
use crate::input::Input;
use crate::marker::{self, binary, date, double, int, list, long, map, object, reference};

impl<'de, I: Input<'de>> Decoder<'de, I> {
    /// Reads the next header. Class definitions (`C`) are consumed and recorded on the way.
    #[inline]
    pub fn pull(&mut self) -> Result<Header> {
        self.pull_inlined()
    }

    /// [`pull`](Self::pull), always inlined: for the callers that match the header at once
    /// (the `Value` decoder: 171 instructions fewer per decode of Java's `Mix`; the serde
    /// layer's struct, map and sequence headers, through [`pull_container`](Self::pull_container):
    /// 130 fewer per typed `Mix`). Inlining `pull` everywhere instead made the typed `User`
    /// decode 14 instructions slower.
    #[inline(always)]
    pub(crate) fn pull_inlined(&mut self) -> Result<Header> {
        self.pull_inlined_with::<true>()
    }

    /// [`pull_inlined`](Self::pull_inlined) for a header that should start a list, map or
    /// object (the serde layer's sequences, maps and structs): a two-byte int is left to
    /// `pull_slow`, which keeps the inlined match smaller where an int is not expected
    /// (borrowed `Mix` 32 instructions fewer per decode).
    #[inline(always)]
    pub(crate) fn pull_container(&mut self) -> Result<Header> {
        self.pull_inlined_with::<false>()
    }

    #[inline(always)]
    fn pull_inlined_with<const TWO_BYTE_INTS: bool>(&mut self) -> Result<Header> {
        // The one-byte forms of the common scalars, two-byte ints and references, inline in
        // the caller (where the match on the header usually folds into this one); everything
        // else out of line.
        if let Some(&code) = self.input.chunk().first() {
            let header = match code {
                0x80..=0xbf => Header::Int(code as i32 - int::DIRECT_ZERO as i32),
                0x00..=0x1f => Header::String {
                    len: code as usize,
                    last: true,
                },
                0xd8..=0xef => Header::Long(code as i64 - long::DIRECT_ZERO as i64),
                // Two-byte ints (-2048..2047): counts, ages, codes.
                0xc0..=0xcf if TWO_BYTE_INTS => match self.input.chunk().get(1) {
                    Some(&b1) => {
                        self.input.advance(2);
                        return Ok(Header::Int(int::two_byte(code, b1)));
                    }
                    None => return self.pull_slow(),
                },
                // A reference to one of the first 48 containers (a back-reference to the
                // object being read, a shared list).
                reference::REF => match self.input.chunk().get(1) {
                    Some(&index @ 0x90..=0xbf) => {
                        self.input.advance(2);
                        return Ok(Header::Ref((index - int::DIRECT_ZERO) as u32));
                    }
                    _ => return self.pull_slow(),
                },
                marker::NULL => Header::Null,
                marker::TRUE => Header::Bool(true),
                marker::FALSE => Header::Bool(false),
                double::ZERO => Header::Double(0.0),
                double::ONE => Header::Double(1.0),
                list::END => Header::End,
                // Containers record where they start (for `Q` references).
                0x60..=0x6f if ((code - object::DIRECT_BASE) as usize) < self.t.classes.len() => {
                    self.mark_here();
                    Header::Object {
                        class: (code - object::DIRECT_BASE) as usize,
                    }
                }
                map::UNTYPED => {
                    self.mark_here();
                    Header::Map { ty: None }
                }
                object::DEFINITION => return self.pull_after_definitions(),
                0x78..=0x7f => {
                    self.mark_here();
                    Header::List {
                        ty: None,
                        len: Some((code - list::DIRECT_UNTYPED) as usize),
                    }
                }
                // A short typed list whose type was named before (`[double`, `[int`, ...
                // after their first use): the type index is a one-byte int.
                0x70..=0x77 => match self.input.chunk().get(1) {
                    Some(&t @ 0x90..=0xbf)
                        if ((t - int::DIRECT_ZERO) as usize) < self.t.types.len() =>
                    {
                        self.mark_here();
                        self.input.advance(1);
                        Header::List {
                            ty: Some((t - int::DIRECT_ZERO) as usize),
                            len: Some((code - list::DIRECT_TYPED) as usize),
                        }
                    }
                    _ => return self.pull_short_typed_list(code),
                },
                _ => return self.pull_slow(),
            };
            self.input.advance(1);
            return Ok(header);
        }
        self.pull_slow()
    }

    /// Records the current position as the start of the header being returned.
    #[inline]
    pub(super) fn mark_here(&mut self) {
        self.last = Mark {
            offset: self.offset(),
            types: self.t.types.len(),
            classes: self.t.classes.len(),
        };
    }

    /// A short typed list whose type is a name (the first list of its type in the stream):
    /// a name an earlier stream had in the same slot is taken after one comparison, instead of
    /// going through `pull_slow` and `read_type`.
    #[inline(never)]
    fn pull_short_typed_list(&mut self, code: u8) -> Result<Header> {
        let mark = Mark {
            offset: self.offset(),
            types: self.t.types.len(),
            classes: self.t.classes.len(),
        };
        match self.take_known_type(1) {
            Some(ty) => {
                self.last = mark;
                Ok(Header::List {
                    ty: Some(ty),
                    len: Some((code - list::DIRECT_TYPED) as usize),
                })
            }
            None => self.pull_slow(),
        }
    }

    /// Class definitions, then (usually) the object that uses them: definitions an earlier
    /// stream had in the same slots are taken after one comparison, and a one-byte object
    /// header after them is read here, instead of going through `pull_slow`'s general match
    /// once for each.
    #[inline(never)]
    fn pull_after_definitions(&mut self) -> Result<Header> {
        self.take_known_definitions();
        match self.input.chunk().first() {
            Some(&code @ 0x60..=0x6f)
                if ((code - object::DIRECT_BASE) as usize) < self.t.classes.len() =>
            {
                self.mark_here();
                self.input.advance(1);
                Ok(Header::Object {
                    class: (code - object::DIRECT_BASE) as usize,
                })
            }
            _ => self.pull_slow(),
        }
    }

    #[inline(never)]
    fn pull_slow(&mut self) -> Result<Header> {
        loop {
            let at = self.offset();
            // Recorded when the header is returned: reading a type name pulls a string.
            let mark = Mark {
                offset: at,
                types: self.t.types.len(),
                classes: self.t.classes.len(),
            };
            let code = self.read_u8()?;
            let header = match code {
                marker::NULL => Header::Null,
                marker::TRUE => Header::Bool(true),
                marker::FALSE => Header::Bool(false),

                0x80..=0xbf => Header::Int(code as i32 - int::DIRECT_ZERO as i32),
                0xc0..=0xcf => {
                    let [b1] = self.read_array()?;
                    Header::Int(int::two_byte(code, b1))
                }
                0xd0..=0xd7 => {
                    let [b1, b2] = self.read_array()?;
                    Header::Int(
                        ((code as i32 - int::SHORT_ZERO as i32) << 16)
                            | (b1 as i32) << 8
                            | b2 as i32,
                    )
                }
                int::FULL => Header::Int(i32::from_be_bytes(self.read_array()?)),

                0xd8..=0xef => Header::Long(code as i64 - long::DIRECT_ZERO as i64),
                0xf0..=0xff => {
                    let [b1] = self.read_array()?;
                    Header::Long(((code as i64 - long::BYTE_ZERO as i64) << 8) | b1 as i64)
                }
                0x38..=0x3f => {
                    let [b1, b2] = self.read_array()?;
                    Header::Long(
                        ((code as i64 - long::SHORT_ZERO as i64) << 16)
                            | (b1 as i64) << 8
                            | b2 as i64,
                    )
                }
                long::INT32 => Header::Long(i32::from_be_bytes(self.read_array()?) as i64),
                long::FULL => Header::Long(i64::from_be_bytes(self.read_array()?)),

                double::ZERO => Header::Double(0.0),
                double::ONE => Header::Double(1.0),
                double::BYTE => Header::Double(i8::from_be_bytes(self.read_array()?) as f64),
                double::SHORT => Header::Double(i16::from_be_bytes(self.read_array()?) as f64),
                // Java: `0.001 * mills`, which is not always `mills / 1000.0`.
                double::MILLS => {
                    Header::Double(0.001 * i32::from_be_bytes(self.read_array()?) as f64)
                }
                double::FULL => Header::Double(f64::from_be_bytes(self.read_array()?)),

                date::MILLIS => Header::Date(i64::from_be_bytes(self.read_array()?)),
                date::MINUTES => {
                    Header::Date(i32::from_be_bytes(self.read_array()?) as i64 * 60_000)
                }

                0x00..=0x1f => Header::String {
                    len: code as usize,
                    last: true,
                },
                0x30..=0x33 => {
                    let [b1] = self.read_array()?;
                    Header::String {
                        len: ((code - marker::string::SHORT_BASE) as usize) << 8 | b1 as usize,
                        last: true,
                    }
                }
                marker::string::CHUNK | marker::string::FINAL => Header::String {
                    len: u16::from_be_bytes(self.read_array()?) as usize,
                    last: code == marker::string::FINAL,
                },

                0x20..=0x2f => Header::Binary {
                    len: (code - binary::DIRECT_BASE) as usize,
                    last: true,
                },
                0x34..=0x37 => {
                    let [b1] = self.read_array()?;
                    Header::Binary {
                        len: ((code - binary::SHORT_BASE) as usize) << 8 | b1 as usize,
                        last: true,
                    }
                }
                binary::CHUNK | binary::FINAL => Header::Binary {
                    len: u16::from_be_bytes(self.read_array()?) as usize,
                    last: code == binary::FINAL,
                },

                list::VARIABLE => Header::List {
                    ty: Some(self.read_type()?),
                    len: None,
                },
                list::FIXED => {
                    let ty = self.read_type()?;
                    Header::List {
                        ty: Some(ty),
                        len: Some(self.read_length("list length")?),
                    }
                }
                list::VARIABLE_UNTYPED => Header::List {
                    ty: None,
                    len: None,
                },
                list::FIXED_UNTYPED => Header::List {
                    ty: None,
                    len: Some(self.read_length("list length")?),
                },
                0x70..=0x77 => Header::List {
                    ty: Some(self.read_type()?),
                    len: Some((code - list::DIRECT_TYPED) as usize),
                },
                0x78..=0x7f => Header::List {
                    ty: None,
                    len: Some((code - list::DIRECT_UNTYPED) as usize),
                },

                map::TYPED => Header::Map {
                    ty: Some(self.read_type()?),
                },
                map::UNTYPED => Header::Map { ty: None },

                object::DEFINITION => {
                    self.read_class_def()?;
                    continue;
                }
                object::INSTANCE => {
                    let index = self.read_length("class index")?;
                    self.check_class(index, at)?
                }
                0x60..=0x6f => self.check_class((code - object::DIRECT_BASE) as usize, at)?,

                reference::REF => {
                    let index = self.read_length("reference")?;
                    Header::Ref(u32::try_from(index).map_err(|_| {
                        self.error_at(
                            at,
                            ErrorKind::InvalidLength {
                                what: "reference",
                                value: index as i64,
                            },
                        )
                    })?)
                }
                list::END => Header::End,

                _ => return Err(self.error_at(at, ErrorKind::Reserved(code))),
            };
            self.last = mark;
            return Ok(header);
        }
    }

    fn check_class(&self, index: usize, at: u64) -> Result<Header> {
        if index < self.t.classes.len() {
            Ok(Header::Object { class: index })
        } else {
            Err(self.error_at(
                at,
                ErrorKind::BadReference {
                    table: "class",
                    index: index as u64,
                    len: self.t.classes.len(),
                },
            ))
        }
    }

    /// Pulls a header and maps it with `accept`; a header it refuses is an
    /// [`ErrorKind::Unexpected`] naming `expected`, at the header's offset.
    pub(crate) fn expect<T>(
        &mut self,
        expected: &'static str,
        accept: impl FnOnce(Header) -> Option<T>,
    ) -> Result<T> {
        let at = self.offset();
        let found = self.peek_u8()?;
        // Every caller wants a scalar (a length, an index, a name, a chunk). A list, map, class
        // definition or object would be pulled by reading *its* type, length or name through
        // here again, so a run of `V`s recursed until the stack overflowed (fuzz finding
        // `nested_headers_in_lengths_and_names_do_not_recurse` in tests/fuzz_regressions.rs).
        if matches!(
            marker::classify(found),
            marker::Family::List
                | marker::Family::Map
                | marker::Family::ClassDef
                | marker::Family::Object
                | marker::Family::Ref
        ) {
            return Err(self.error_at(at, ErrorKind::Unexpected { found, expected }));
        }
        let header = self.pull()?;
        accept(header).ok_or_else(|| self.error_at(at, ErrorKind::Unexpected { found, expected }))
    }

    /// Reads a value that must be an int, as Java writes lengths and indexes.
    pub fn read_int(&mut self) -> Result<i32> {
        // Usually a one-byte int (a short list's length, an early reference's index), read
        // here instead of through `expect` and the whole of `pull` (108 instructions).
        if let Some(&code @ 0x80..=0xbf) = self.input.chunk().first() {
            self.input.advance(1);
            return Ok(code as i32 - int::DIRECT_ZERO as i32);
        }
        self.expect("an int", |h| match h {
            Header::Int(v) => Some(v),
            _ => None,
        })
    }

    /// Reads a non-negative int used as a length, count or index.
    pub(super) fn read_length(&mut self, what: &'static str) -> Result<usize> {
        let at = self.offset();
        let v = self.read_int()?;
        usize::try_from(v).map_err(|_| {
            self.error_at(
                at,
                ErrorKind::InvalidLength {
                    what,
                    value: v as i64,
                },
            )
        })
    }

    /// Pulls a header that must be a string's.
    pub(super) fn expect_string(&mut self) -> Result<(usize, bool)> {
        self.expect("a string", |h| match h {
            Header::String { len, last } => Some((len, last)),
            _ => None,
        })
    }
}
