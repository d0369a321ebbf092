//! The wire-level decoder: a pull parser that turns bytes into [`Header`]s, with no serde and no
//! dynamic values in it. Higher layers ([`crate::value`], the serde `Deserializer`) are built on
//! it and see byte offsets in every error.
//!
//! The decoder owns the two per-stream tables of Hessian: the type names (`[int`,
//! `java.util.ArrayList`, ...) that later typed lists and maps refer to by index, and the class
//! definitions (`C`) that objects refer to. Class definitions are read inside [`Decoder::pull`],
//! so callers only ever see [`Header::Object`]. The third table, value references (`Q`), depends
//! on what the caller builds, so it is the caller's.

mod skip;
mod string;

use std::cell::Cell;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::sync::Arc;

use bytes::Bytes;

pub use string::Reference;

use crate::error::{Error, ErrorKind, Result};
use crate::input::Input;
use crate::marker::{self, binary, date, double, int, list, long, map, object, reference};

/// Default limit of nested lists, maps and objects.
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// What a value starts with: scalars complete, containers and chunks as a head whose contents
/// follow.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Header {
    /// `N`.
    Null,
    /// `T` / `F`.
    Bool(bool),
    /// A 32-bit int.
    Int(i32),
    /// A 64-bit long.
    Long(i64),
    /// A double.
    Double(f64),
    /// A date in milliseconds since the epoch (minute dates are converted).
    Date(i64),
    /// A string chunk of `len` UTF-16 units; more chunks follow unless `last`.
    String {
        /// UTF-16 code units in this chunk.
        len: usize,
        /// No chunk follows.
        last: bool,
    },
    /// A binary chunk of `len` bytes; more chunks follow unless `last`.
    Binary {
        /// Bytes in this chunk.
        len: usize,
        /// No chunk follows.
        last: bool,
    },
    /// A list: `ty` indexes [`Decoder::type_name`]; `len` is `None` for a variable-length list,
    /// whose items end with [`Header::End`].
    List {
        /// Index of the list's type name, if typed.
        ty: Option<usize>,
        /// Number of items, if fixed length.
        len: Option<usize>,
    },
    /// A map: key/value pairs until [`Header::End`]. `ty` indexes [`Decoder::type_name`].
    Map {
        /// Index of the map's type name, if typed.
        ty: Option<usize>,
    },
    /// An object of class definition `class` ([`Decoder::class`]): one value per field follows.
    Object {
        /// Index of the class definition.
        class: usize,
    },
    /// `Q`: a reference to the `n`-th list, map or object of the stream.
    Ref(u32),
    /// `Z`: end of a map or variable-length list.
    End,
}

/// A class definition read from the stream: the Java class name and its fields in wire order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassDef {
    /// Java class name.
    pub name: Arc<str>,
    /// Field names, in the order their values follow in each instance.
    pub fields: Arc<[Arc<str>]>,
}

/// Where a header began: its byte offset and the sizes of the type and class tables just before
/// it (after any class definitions that preceded an object instance).
///
/// A layer that resolves `Q` references by decoding an earlier container again (the serde
/// `Deserializer`) records the mark of each container and replays from it with
/// [`Decoder::replace_input`] and [`Decoder::begin_replay`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Mark {
    /// Byte offset of the header's first byte.
    pub offset: u64,
    /// Type names defined before the header.
    pub types: usize,
    /// Class definitions read before the header.
    pub classes: usize,
}

/// Pull decoder over an [`Input`].
///
/// Creating one is cheap: its tables and buffers come from a per-thread pool (one set per
/// thread) and go back to it when the decoder is dropped, so a decoder made per message
/// (`from_slice`, `value::from_slice`, ...) does not allocate its tables again, and
/// recognises the class definitions and type names that earlier decoders on the thread read
/// (see [`reset`](Self::reset)).
pub struct Decoder<'de, I> {
    input: I,
    /// `remaining()` of the input when decoding began; offsets are measured from there.
    start: usize,
    t: Tables,
    depth: usize,
    max_depth: usize,
    /// Where the header last returned by `pull` began.
    last: Mark,
    /// While replaying: the indexes the next new type name and class definition had the first
    /// time (they are already in the tables and must not be added again).
    replay: Option<(usize, usize)>,
    /// Set by a string read that replaced a lone surrogate: the string's raw bytes are then in
    /// the scratch buffer (see [`read_java_string`](Self::read_java_string)).
    lone_surrogates: bool,
    _de: PhantomData<&'de ()>,
}

/// A Java string: Unicode text, or (holding a lone surrogate) its UTF-16 code units.
pub(crate) enum JavaString {
    Text(String),
    Utf16(Vec<u16>),
}

/// The decoder's tables and buffers (none of which borrow the input).
#[derive(Default)]
struct TableData {
    types: Vec<Arc<str>>,
    classes: Vec<ClassDef>,
    /// Raw bytes of strings and binaries that cannot be borrowed.
    scratch: Vec<u8>,
    /// Text of strings that needed CESU-8 decoding.
    text: String,
    /// Type names and class definitions read before, kept across [`Decoder::reset`] (at most
    /// [`INTERN_LIMIT`] of each), with their bytes as Java writes them: when the input holds
    /// those exact bytes again (the usual case for a decoder reused on similar messages), the
    /// definition is taken whole after one comparison, sharing its strings, with no parsing
    /// and no allocation. Only the strings are shared; each stream's tables start empty.
    seen_types: Vec<Seen<Arc<str>>>,
    seen_classes: Vec<Seen<ClassDef>>,
}

/// Scratch buffers larger than this are not kept in the per-thread pool.
const POOLED_SCRATCH: usize = 64 * 1024;

thread_local! {
    /// The tables of the last decoder dropped on this thread, for the next one.
    static POOL: Cell<Option<Box<TableData>>> = const { Cell::new(None) };
}

/// [`TableData`] taken from the per-thread pool (boxed, so that handing it over moves a
/// pointer), returned to it on drop. `ManuallyDrop` rather than an `Option` that drop empties:
/// every table access would check the `Option` (77 instructions per typed `Mix` decode).
struct Tables(ManuallyDrop<Box<TableData>>);

impl Tables {
    #[inline]
    fn take() -> Self {
        Tables(ManuallyDrop::new(
            POOL.try_with(Cell::take).ok().flatten().unwrap_or_default(),
        ))
    }
}

impl Drop for Tables {
    fn drop(&mut self) {
        // SAFETY: `self.0` is taken once, here, and not touched again: `Tables` is being
        // dropped, and `ManuallyDrop` does not drop the box a second time.
        let mut data = unsafe { ManuallyDrop::take(&mut self.0) };
        data.types.clear();
        data.classes.clear();
        if data.scratch.capacity() > POOLED_SCRATCH {
            data.scratch = Vec::new();
        }
        if data.text.capacity() > POOLED_SCRATCH {
            data.text = String::new();
        }
        // Keep the pooled set that knows more definitions (nested decoders on one thread).
        let _ = POOL.try_with(|pool| {
            let keep = match pool.take() {
                Some(other)
                    if other.seen_classes.len() + other.seen_types.len()
                        > data.seen_classes.len() + data.seen_types.len() =>
                {
                    other
                }
                _ => data,
            };
            pool.set(Some(keep));
        });
    }
}

impl std::ops::Deref for Tables {
    type Target = TableData;
    #[inline]
    fn deref(&self) -> &TableData {
        &self.0
    }
}

impl std::ops::DerefMut for Tables {
    #[inline]
    fn deref_mut(&mut self) -> &mut TableData {
        &mut self.0
    }
}

/// A type name or class definition read before, and its canonical encoding (after the `C` of
/// a definition).
#[derive(Debug, Clone)]
struct Seen<T> {
    value: T,
    bytes: Box<[u8]>,
}

/// The canonical encoding of a string (Java's and this crate's).
fn encoded_string(s: &str) -> Box<[u8]> {
    let mut encoder = crate::encode::Encoder::new(Vec::new());
    encoder.write_str(s);
    encoder.into_inner().into_boxed_slice()
}

/// The canonical encoding of a class definition, without its leading `C`.
fn encoded_class(def: &ClassDef) -> Box<[u8]> {
    let fields: Vec<&str> = def.fields.iter().map(|f| &**f).collect();
    let mut encoder = crate::encode::Encoder::new(Vec::new());
    encoder.write_class_definition(&def.name, &fields);
    encoder.into_inner()[1..].into()
}

/// How many type names, and how many class definitions, a decoder keeps for reuse.
pub const INTERN_LIMIT: usize = 512;

impl<'de, I: Input<'de>> Decoder<'de, I> {
    /// A decoder reading `input` from its current position (offset 0).
    pub fn new(input: I) -> Self {
        Decoder {
            start: input.remaining(),
            input,
            t: Tables::take(),
            depth: 0,
            max_depth: DEFAULT_MAX_DEPTH,
            last: Mark::default(),
            replay: None,
            lone_surrogates: false,
            _de: PhantomData,
        }
    }

    /// Sets the nesting limit of lists, maps and objects (default [`DEFAULT_MAX_DEPTH`]).
    pub fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// Starts over on a new input with clean tables, keeping allocated capacity (and the
    /// strings of earlier class definitions and type names, reused only when equal ones are
    /// read again).
    pub fn reset(&mut self, input: I) {
        self.start = input.remaining();
        self.input = input;
        self.t.types.clear();
        self.t.classes.clear();
        self.depth = 0;
        self.last = Mark::default();
        self.replay = None;
    }

    /// Where the last list, map or object header returned by [`pull`](Self::pull) began
    /// (after the class definitions that preceded it, if it is an object), with the table
    /// sizes at that point. (Not updated by every scalar.)
    pub fn last_mark(&self) -> Mark {
        self.last
    }

    /// Number of type names defined so far in the stream.
    pub fn type_count(&self) -> usize {
        self.t.types.len()
    }

    /// Number of class definitions read so far in the stream.
    pub fn class_count(&self) -> usize {
        self.t.classes.len()
    }

    /// Swaps in another input and returns the current one, keeping the tables, the depth and
    /// the offset origin. For moving within one contiguous stream: `input` must be the same
    /// stream positioned elsewhere (its `remaining()` counts to the same end), so offsets stay
    /// those of the whole stream.
    pub fn replace_input(&mut self, input: I) -> I {
        std::mem::replace(&mut self.input, input)
    }

    /// Starts decoding again from an earlier header whose [`Mark`] was recorded (the input
    /// having been moved there with [`replace_input`](Self::replace_input)): class
    /// definitions and new type names met on the way are already in the tables, so they are
    /// read but not added again, and get the indexes they had the first time. Returns the
    /// previous replay state for [`end_replay`](Self::end_replay) (replays nest).
    pub fn begin_replay(&mut self, mark: Mark) -> Option<(usize, usize)> {
        self.replay.replace((mark.types, mark.classes))
    }

    /// Ends a replay begun with [`begin_replay`](Self::begin_replay), restoring `previous`.
    pub fn end_replay(&mut self, previous: Option<(usize, usize)>) {
        self.replay = previous;
    }

    /// Byte offset of the next byte to read.
    #[inline]
    pub fn offset(&self) -> u64 {
        (self.start - self.input.remaining()) as u64
    }

    /// Bytes left in the input.
    pub fn remaining(&self) -> usize {
        self.input.remaining()
    }

    /// True when no bytes are left.
    pub fn is_empty(&self) -> bool {
        self.input.remaining() == 0
    }

    /// The input, positioned after what was decoded.
    pub fn into_input(self) -> I {
        self.input
    }

    /// The `index`-th type name of the stream.
    pub fn type_name(&self, index: usize) -> &Arc<str> {
        &self.t.types[index]
    }

    /// The `index`-th class definition of the stream.
    pub fn class(&self, index: usize) -> &ClassDef {
        &self.t.classes[index]
    }

    #[cold]
    pub(crate) fn error(&self, kind: ErrorKind) -> Error {
        Error::new(kind, self.offset())
    }

    #[cold]
    pub(crate) fn error_at(&self, offset: u64, kind: ErrorKind) -> Error {
        Error::new(kind, offset)
    }

    #[cold]
    pub(crate) fn eof(&self, needed: usize) -> Error {
        self.error(ErrorKind::Eof { needed })
    }

    /// Enters one level of nesting; errors past the depth limit.
    pub fn enter(&mut self) -> Result<()> {
        if self.depth >= self.max_depth {
            return Err(self.error(ErrorKind::DepthLimit(self.max_depth)));
        }
        self.depth += 1;
        Ok(())
    }

    /// Leaves a level entered with [`enter`](Self::enter).
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// The next byte, not consumed.
    #[inline]
    pub fn peek_u8(&self) -> Result<u8> {
        match self.input.chunk().first() {
            Some(&b) => Ok(b),
            None => Err(self.eof(1)),
        }
    }

    /// The next byte, not consumed; `None` at the end of the input (no error built).
    #[inline]
    pub(crate) fn peek_byte(&self) -> Option<u8> {
        self.input.chunk().first().copied()
    }

    #[inline]
    pub(crate) fn read_u8(&mut self) -> Result<u8> {
        let b = self.peek_u8()?;
        self.input.advance(1);
        Ok(b)
    }

    /// Reads `N` bytes, across chunk boundaries if need be.
    #[inline]
    fn read_array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        if let Some(bytes) = self.input.chunk().get(..N) {
            out.copy_from_slice(bytes);
            self.input.advance(N);
            return Ok(out);
        }
        if self.input.remaining() < N {
            return Err(self.eof(N - self.input.remaining()));
        }
        for b in &mut out {
            *b = self.input.chunk()[0];
            self.input.advance(1);
        }
        Ok(out)
    }

    fn ensure(&self, n: usize) -> Result<()> {
        let remaining = self.input.remaining();
        if remaining < n {
            Err(self.eof(n - remaining))
        } else {
            Ok(())
        }
    }

    /// Reads the next header. Class definitions (`C`) are consumed and recorded on the way.
    #[inline]
    pub fn pull(&mut self) -> Result<Header> {
        // The one-byte forms of the common scalars, inline in the caller (where the match on
        // the header usually folds into this one); everything else out of line.
        if let Some(&code) = self.input.chunk().first() {
            let header = match code {
                0x80..=0xbf => Header::Int(code as i32 - int::DIRECT_ZERO as i32),
                0x00..=0x1f => Header::String {
                    len: code as usize,
                    last: true,
                },
                0xd8..=0xef => Header::Long(code as i64 - long::DIRECT_ZERO as i64),
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
                    _ => return self.pull_slow(),
                },
                _ => return self.pull_slow(),
            };
            self.input.advance(1);
            return Ok(header);
        }
        self.pull_slow()
    }

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
    #[inline]
    pub(crate) fn try_integer(&mut self) -> Option<i64> {
        self.take_fixed(|d, code| {
            Some(match code {
                0x80..=0xbf => (code as i64 - int::DIRECT_ZERO as i64, 1),
                0xc0..=0xcf => {
                    let [b1] = d.peek_fixed()?;
                    (((code as i64 - int::BYTE_ZERO as i64) << 8) | b1 as i64, 2)
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

    /// Records the current position as the start of the header being returned.
    #[inline]
    fn mark_here(&mut self) {
        self.last = Mark {
            offset: self.offset(),
            types: self.t.types.len(),
            classes: self.t.classes.len(),
        };
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
                    Header::Int(((code as i32 - int::BYTE_ZERO as i32) << 8) | b1 as i32)
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
        self.expect("an int", |h| match h {
            Header::Int(v) => Some(v),
            _ => None,
        })
    }

    /// Reads a non-negative int used as a length, count or index.
    fn read_length(&mut self, what: &'static str) -> Result<usize> {
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

    /// Reads a type: a new type name (a string, recorded) or an int index of an earlier one.
    fn read_type(&mut self) -> Result<usize> {
        let at = self.offset();
        let code = self.peek_u8()?;
        if marker::classify(code) == marker::Family::String {
            let name = match self.take_seen_type() {
                Some(name) => name,
                None => {
                    let seen = std::mem::take(&mut self.t.seen_types);
                    let mut known = false;
                    let name = self.read_shared_string(|s| {
                        let found = seen.iter().find(|t| &*t.value == s);
                        known = found.is_some();
                        found.map(|t| t.value.clone())
                    });
                    self.t.seen_types = seen;
                    let name = name?;
                    if !known && self.t.seen_types.len() < INTERN_LIMIT {
                        self.t.seen_types.push(Seen {
                            bytes: encoded_string(&name),
                            value: name.clone(),
                        });
                    }
                    name
                }
            };
            if let Some((next_type, _)) = &mut self.replay {
                // Replaying: the name was recorded the first time, at this index.
                let index = *next_type;
                *next_type += 1;
                return if index < self.t.types.len() {
                    Ok(index)
                } else {
                    Err(self.error_at(
                        at,
                        ErrorKind::BadReference {
                            table: "type",
                            index: index as u64,
                            len: self.t.types.len(),
                        },
                    ))
                };
            }
            self.t.types.push(name);
            Ok(self.t.types.len() - 1)
        } else {
            // Usually a one-byte int.
            let index = match code {
                0x90..=0xbf => {
                    self.input.advance(1);
                    (code - int::DIRECT_ZERO) as usize
                }
                _ => self.read_length("type index")?,
            };
            if index < self.t.types.len() {
                Ok(index)
            } else {
                Err(self.error_at(
                    at,
                    ErrorKind::BadReference {
                        table: "type",
                        index: index as u64,
                        len: self.t.types.len(),
                    },
                ))
            }
        }
    }

    /// Reads a value that must be a string, whole, as an `Arc<str>`: the one `lookup` finds
    /// for its text, or a new one.
    fn read_shared_string(
        &mut self,
        lookup: impl FnOnce(&str) -> Option<Arc<str>>,
    ) -> Result<Arc<str>> {
        let (len, last) = self.expect("a string", |h| match h {
            Header::String { len, last } => Some((len, last)),
            _ => None,
        })?;
        let text = self.read_str(len, last)?;
        Ok(lookup(&text).unwrap_or_else(|| Arc::from(&*text)))
    }

    /// A type name whose exact bytes were seen before, if the input holds them next.
    fn take_seen_type(&mut self) -> Option<Arc<str>> {
        let chunk = self.input.chunk();
        let hit = self
            .t
            .seen_types
            .iter()
            .find(|t| chunk.starts_with(&t.bytes))?;
        let (name, n) = (hit.value.clone(), hit.bytes.len());
        self.input.advance(n);
        Some(name)
    }

    /// A class definition whose exact bytes were seen before, if the input holds them next.
    fn take_seen_class(&mut self) -> Option<ClassDef> {
        let chunk = self.input.chunk();
        let hit = self
            .t
            .seen_classes
            .iter()
            .find(|c| chunk.starts_with(&c.bytes))?;
        let (def, n) = (hit.value.clone(), hit.bytes.len());
        self.input.advance(n);
        Some(def)
    }

    fn read_class_def(&mut self) -> Result<()> {
        let (def, new) = match self.take_seen_class() {
            Some(def) => (def, false),
            None => {
                let seen = std::mem::take(&mut self.t.seen_classes);
                let result = self.read_class_def_in(&seen);
                self.t.seen_classes = seen;
                result?
            }
        };
        if let Some((_, next_class)) = &mut self.replay {
            // Replaying: this definition is already in the table.
            *next_class += 1;
            return Ok(());
        }
        if new && self.t.seen_classes.len() < INTERN_LIMIT {
            self.t.seen_classes.push(Seen {
                bytes: encoded_class(&def),
                value: def.clone(),
            });
        }
        self.t.classes.push(def);
        Ok(())
    }

    /// Reads a class definition; shares the strings of an equal one in `seen` (then `false`:
    /// not new). Compares without cloning: a definition met again costs no allocation and
    /// two reference-count increments.
    fn read_class_def_in(&mut self, seen: &[Seen<ClassDef>]) -> Result<(ClassDef, bool)> {
        let (len, last) = self.expect_string()?;
        let text = self.read_str(len, last)?;
        let by_name = seen.iter().position(|c| *c.value.name == *text);
        let new_name: Option<Arc<str>> = match by_name {
            Some(_) => None,
            None => Some(Arc::from(&*text)),
        };
        let count = self.read_length("field count")?;
        // Each field name takes at least one byte: never trust the count beyond the input.
        self.ensure(count)?;
        let candidate = by_name.and_then(|i| {
            let name = &seen[i].value.name;
            seen.iter()
                .map(|c| &c.value)
                .find(|c| c.name == *name && c.fields.len() == count)
        });
        // The fields read, once they differ from the candidate's (or without a candidate).
        let mut own: Option<Vec<Arc<str>>> = match candidate {
            Some(_) => None,
            None => Some(Vec::with_capacity(count)),
        };
        for k in 0..count {
            let (len, last) = self.expect_string()?;
            let text = self.read_str(len, last)?;
            match (&mut own, candidate) {
                (Some(fields), _) => fields.push(Arc::from(&*text)),
                (None, Some(c)) => {
                    if *c.fields[k] != *text {
                        let mut fields = Vec::with_capacity(count);
                        fields.extend(c.fields[..k].iter().cloned());
                        fields.push(Arc::from(&*text));
                        own = Some(fields);
                    }
                }
                (None, None) => unreachable!("fields are owned without a candidate"),
            }
        }
        Ok(match (own, candidate) {
            (None, Some(c)) => (c.clone(), false),
            (own, _) => {
                let name = match (new_name, by_name) {
                    (Some(name), _) => name,
                    (None, Some(i)) => seen[i].value.name.clone(),
                    (None, None) => unreachable!("a name is read or found"),
                };
                let fields = own.unwrap_or_default().into();
                (ClassDef { name, fields }, true)
            }
        })
    }

    /// Pulls a header that must be a string's.
    fn expect_string(&mut self) -> Result<(usize, bool)> {
        self.expect("a string", |h| match h {
            Header::String { len, last } => Some((len, last)),
            _ => None,
        })
    }

    /// Reads the text of a string whose first chunk header was `len`/`last`, through its final
    /// chunk. Borrowed from the input when it is a slice, the string is one chunk, and its bytes
    /// are plain UTF-8; otherwise decoded into the decoder's scratch buffer.
    #[inline]
    pub fn read_str<'s>(&'s mut self, len: usize, last: bool) -> Result<Reference<'de, 's, str>> {
        // The common case inline: one-chunk ASCII text borrowed from a slice.
        if last {
            if let Some(s) = string::borrow_ascii(self, len) {
                return Ok(Reference::Borrowed(s));
            }
        }
        string::read_str(self, len, last)
    }

    /// Reads a string whose first chunk header was `len`/`last` as Java holds it: its text, or
    /// its UTF-16 units when it has a lone surrogate (which [`read_str`](Self::read_str)
    /// replaces by U+FFFD).
    pub(crate) fn read_java_string(&mut self, len: usize, last: bool) -> Result<JavaString> {
        self.lone_surrogates = false;
        let text = self.read_str(len, last)?.to_owned();
        Ok(if self.lone_surrogates {
            JavaString::Utf16(string::java_units(&self.t.scratch))
        } else {
            JavaString::Text(text)
        })
    }

    /// Reads the bytes of a binary whose first chunk header was `len`/`last`. Borrowed when the
    /// input is a slice and the binary is one chunk; else gathered in the scratch buffer.
    pub fn read_binary<'s>(
        &'s mut self,
        len: usize,
        last: bool,
    ) -> Result<Reference<'de, 's, [u8]>> {
        self.ensure(len)?;
        if last {
            if let Some(bytes) = self.input.borrow_bytes(len) {
                return Ok(Reference::Borrowed(bytes));
            }
        }
        self.t.scratch.clear();
        self.gather_binary(len, last)?;
        Ok(Reference::Copied(&self.t.scratch))
    }

    /// Reads a binary as [`Bytes`]: zero-copy when the input is `Bytes` and the binary is one
    /// chunk.
    ///
    /// A chunked binary (Java writes binaries of more than 4093 bytes in chunks) is gathered with
    /// one copy into one new buffer of its exact size, when the input holds all of it in one
    /// contiguous run (slices, `Bytes`).
    pub fn read_binary_bytes(&mut self, len: usize, last: bool) -> Result<Bytes> {
        self.ensure(len)?;
        if last {
            return Ok(self.input.take_bytes(len));
        }
        let mut out = Vec::with_capacity(self.binary_total(len).unwrap_or(len));
        std::mem::swap(&mut out, &mut self.t.scratch);
        let gathered = self.gather_binary(len, last);
        std::mem::swap(&mut out, &mut self.t.scratch);
        gathered?;
        Ok(Bytes::from(out))
    }

    /// The total length of a chunked binary whose first chunk (`first` bytes, not the last)
    /// starts the current input chunk, found by walking the chunk headers ahead without
    /// consuming anything; `None` if it does not all lie in the current input chunk.
    fn binary_total(&self, first: usize) -> Option<usize> {
        let chunk = self.input.chunk();
        let (mut at, mut total) = (first, first);
        loop {
            let code = *chunk.get(at)?;
            let (len, header, last) = match code {
                binary::CHUNK | binary::FINAL => {
                    let len = u16::from_be_bytes(chunk.get(at + 1..at + 3)?.try_into().ok()?);
                    (len as usize, 3, code == binary::FINAL)
                }
                0x20..=0x2f => ((code - binary::DIRECT_BASE) as usize, 1, true),
                0x34..=0x37 => {
                    let b1 = *chunk.get(at + 1)? as usize;
                    (((code - binary::SHORT_BASE) as usize) << 8 | b1, 2, true)
                }
                _ => return None,
            };
            total = total.checked_add(len)?;
            at = at.checked_add(header + len)?;
            if at > chunk.len() {
                return None;
            }
            if last {
                return Some(total);
            }
        }
    }

    /// Appends binary chunks to the scratch buffer through the final chunk.
    fn gather_binary(&mut self, mut len: usize, mut last: bool) -> Result<()> {
        loop {
            self.ensure(len)?;
            self.copy_into_scratch(len);
            if last {
                return Ok(());
            }
            (len, last) = self.expect("a binary chunk", |h| match h {
                Header::Binary { len, last } => Some((len, last)),
                _ => None,
            })?;
        }
    }

    /// Copies `n` bytes (known to be present) to the scratch buffer.
    fn copy_into_scratch(&mut self, mut n: usize) {
        while n > 0 {
            let chunk = self.input.chunk();
            let take = chunk.len().min(n);
            self.t.scratch.extend_from_slice(&chunk[..take]);
            self.input.advance(take);
            n -= take;
        }
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::BufInput;
    use bytes::Buf;

    fn encoded_binary(data: &[u8]) -> Vec<u8> {
        let mut enc = crate::encode::Encoder::new(Vec::new());
        enc.write_binary(data);
        enc.into_inner()
    }

    fn read(input: impl Buf) -> Bytes {
        let mut d = Decoder::new(BufInput::new(input));
        let Header::Binary { len, last } = d.pull().unwrap() else {
            panic!("a binary")
        };
        let out = d.read_binary_bytes(len, last).unwrap();
        assert!(d.is_empty());
        out
    }

    #[test]
    fn chunked_binaries_are_gathered_into_one_buffer_of_their_size() {
        for n in [0, 1, 4093, 4094, 10_000, 70_000] {
            let data: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
            let wire = Bytes::from(encoded_binary(&data));
            let out = read(wire.clone());
            assert_eq!(out, data, "{n} bytes");
            if n <= 4093 {
                // One chunk: a slice of the input.
                assert!(wire.as_ptr_range().contains(&out.as_ptr()) || n == 0);
            }
            // The same from a non-contiguous buffer (no look-ahead possible).
            let (a, b) = wire.split_at(wire.len() / 2);
            assert_eq!(read(a.chain(b)), data, "{n} bytes, chained");
        }
    }

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

    /// The `unsafe` of `Tables::drop`: the tables go back to the per-thread pool exactly once,
    /// whole, also with decoders nested on one thread. Run under Miri:
    /// `cargo +nightly miri test -p hessian2 --lib tables_go_back`.
    #[test]
    fn tables_go_back_to_the_pool_once() {
        use crate::input::SliceInput;
        let mut enc = crate::encode::Encoder::new(Vec::new());
        enc.write_class_definition("a.B", &["x"]);
        let wire = enc.into_inner();
        fn read(wire: &[u8]) -> Decoder<'_, SliceInput<'_>> {
            let mut d = Decoder::new(SliceInput::new(wire));
            assert!(d.pull().is_err(), "a definition (if any), then nothing");
            d
        }
        drop(read(&wire));
        // The next decoder gets the same tables: it knows the definition.
        let outer = Decoder::new(SliceInput::new(&wire));
        assert_eq!(outer.t.seen_classes.len(), 1);
        // Nested: the inner one starts with fresh tables; the pool keeps the richer set.
        let inner = Decoder::new(SliceInput::new(&wire));
        assert!(inner.t.seen_classes.is_empty());
        drop(inner);
        drop(outer);
        assert_eq!(read(&[]).t.seen_classes.len(), 1);
    }

    #[test]
    fn binary_total_refuses_what_is_not_a_chunk_header() {
        // A non-final chunk of 2 bytes followed by garbage.
        let wire = Bytes::from_static(b"A\x00\x02xyQ");
        let mut d = Decoder::new(BufInput::new(wire));
        let Header::Binary { len, last } = d.pull().unwrap() else {
            panic!("a binary")
        };
        assert_eq!(d.binary_total(len), None);
        assert!(d.read_binary_bytes(len, last).is_err());
    }
}
