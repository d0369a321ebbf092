//! The wire-level decoder: a pull parser that turns bytes into [`Header`]s, with no serde and no
//! dynamic values in it. Higher layers ([`crate::value`], the serde `Deserializer`) are built on
//! it and see byte offsets in every error.
//!
//! The decoder owns the two per-stream tables of Hessian: the type names (`[int`,
//! `java.util.ArrayList`, ...) that later typed lists and maps refer to by index, and the class
//! definitions (`C`) that objects refer to. Class definitions are read inside [`Decoder::pull`],
//! so callers only ever see [`Header::Object`]. The third table, value references (`Q`), depends
//! on what the caller builds, so it is the caller's.

mod binary;
mod definitions;
mod header;
mod intern;
mod pull;
mod scalar;
mod skip;
mod slots;
mod string;
mod tables;

use std::marker::PhantomData;
use std::sync::Arc;

pub use definitions::ClassDef;
pub(crate) use header::Container;
pub use header::{Header, Mark};
pub use intern::{INTERN_BYTES, INTERN_LIMIT};
pub use string::Reference;

use crate::error::{Error, ErrorKind, Result};
use crate::input::Input;
use tables::Tables;

/// Default limit of nested lists, maps and objects.
pub const DEFAULT_MAX_DEPTH: usize = 128;

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
        self.t.types.end_stream();
        self.t.classes.end_stream();
        self.t.containers.clear();
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

    /// The containers recorded so far in the stream, for a layer that resolves `Q` references
    /// (kept with the tables, so that a decoder made per message does not allocate them again).
    #[inline]
    pub(crate) fn containers(&mut self) -> &mut Vec<Container> {
        &mut self.t.containers
    }

    /// The `index`-th type name of the stream.
    pub fn type_name(&self, index: usize) -> &Arc<str> {
        self.t.types.get(index)
    }

    /// The `index`-th class definition of the stream.
    pub fn class(&self, index: usize) -> &ClassDef {
        self.t.classes.get(index)
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

    /// How many of `claimed` items (a length field, a field count) to reserve room for in a
    /// list or object just entered: each item takes at least one input byte, and a container
    /// `d` levels deep gets at most 1/2^d of the bytes left, so the room of all the containers
    /// open at once never exceeds the input, however deep the claims nest. (Lists longer than
    /// their room grow as they are read.)
    #[inline]
    pub fn room_for(&self, claimed: usize) -> usize {
        let share = self
            .input
            .remaining()
            .checked_shr(self.depth as u32)
            .unwrap_or(0);
        claimed.min(share)
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

    /// Consumes the one-byte value just seen with [`peek_u8`](Self::peek_u8) (a `N` or a `Z`),
    /// instead of pulling it.
    #[inline]
    pub(crate) fn consume_peeked(&mut self) {
        self.input.advance(1);
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
        // The common case inline: one-chunk ASCII text, copied straight from a slice.
        if last {
            if let Some(s) = string::borrow_ascii(self, len) {
                return Ok(JavaString::Text(s.to_owned()));
            }
        }
        self.read_java_string_slow(len, last)
    }

    #[inline(never)]
    fn read_java_string_slow(&mut self, len: usize, last: bool) -> Result<JavaString> {
        self.lone_surrogates = false;
        let text = self.read_str(len, last)?.to_owned();
        Ok(if self.lone_surrogates {
            JavaString::Utf16(string::java_units(&self.t.scratch))
        } else {
            JavaString::Text(text)
        })
    }
}
