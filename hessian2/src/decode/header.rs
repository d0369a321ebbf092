//! What [`Decoder::pull`](super::Decoder::pull) returns: the [`Header`] of a value, and the
//! [`Mark`] of where a container began.

#[cfg(doc)]
use super::Decoder;

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

/// A list, map or object of the stream, which a later `Q` may refer to: where it began, and
/// whether it is fully decoded (a reference to it is not a cycle).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Container {
    pub(crate) mark: Mark,
    pub(crate) done: bool,
}
