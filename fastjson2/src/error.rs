//! The one error type of the crate: what went wrong and at which byte offset.

use std::fmt;

/// A JSONB decoding or encoding error.
///
/// Every error carries the byte offset (from the start of the input) where it was found, and an
/// [`ErrorKind`]. [`Error::is_eof`] tells truncated input ("need more bytes", which a streaming
/// caller may cure by reading more) from corrupt input. Boxed so `Result<T>` stays small.
pub struct Error(Box<ErrorImpl>);

struct ErrorImpl {
    kind: ErrorKind,
    offset: u64,
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended inside a value; at least `needed` more bytes would be required.
    #[error("unexpected end of input (need at least {needed} more byte(s))")]
    Eof {
        /// A lower bound of the bytes missing.
        needed: usize,
    },
    /// A code in a place where it cannot stand (e.g. an object end outside an object, a
    /// non-integer where a length must be).
    #[error("unexpected byte code 0x{found:02x}, expected {expected}")]
    Unexpected {
        /// The code found.
        found: u8,
        /// What the grammar allows here.
        expected: &'static str,
    },
    /// A form this implementation does not read: GB18030 strings (`0x7e`, which fastjson2's
    /// writer never produces) and references into a shared `SymbolTable` (negative symbols,
    /// which only a writer given such a table produces; Dubbo gives none).
    #[error("unsupported: {0}")]
    Unsupported(&'static str),
    /// String bytes that are not valid in their encoding (UTF-8, UTF-16).
    #[error("invalid {0} in string")]
    InvalidString(&'static str),
    /// A length, count or field value that is negative or out of range.
    #[error("invalid {what}: {value}")]
    InvalidLength {
        /// Which length.
        what: &'static str,
        /// The value read.
        value: i64,
    },
    /// A symbol (field or type name) index not defined yet, or defined out of order.
    #[error("symbol {index} not defined ({len} defined)")]
    BadSymbol {
        /// The index read.
        index: i64,
        /// How many symbols the stream had defined.
        len: usize,
    },
    /// Arrays and objects nested deeper than the configured limit.
    #[error("nesting deeper than the limit of {0}")]
    DepthLimit(usize),
    /// Bytes after the value where one document must end.
    #[error("trailing bytes after the value")]
    TrailingBytes,
    /// Data that decodes but does not fit the requested Rust type, or a message from serde.
    #[error("{0}")]
    Message(String),
}

impl Error {
    /// An error of `kind` found at byte `offset`.
    #[cold]
    pub fn new(kind: ErrorKind, offset: u64) -> Self {
        Error(Box::new(ErrorImpl { kind, offset }))
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// Byte offset from the start of the input where the error was found.
    pub fn offset(&self) -> u64 {
        self.0.offset
    }

    /// True when the input was cut short: more bytes could make it valid.
    pub fn is_eof(&self) -> bool {
        matches!(self.0.kind, ErrorKind::Eof { .. })
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({:?} at byte {})", self.0.kind, self.0.offset)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte offset {}", self.0.kind, self.0.offset)
    }
}

impl std::error::Error for Error {}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
