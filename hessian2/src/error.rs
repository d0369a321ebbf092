//! The one error type of the crate: what went wrong and at which byte offset.

use std::fmt;

/// A Hessian decoding or encoding error.
///
/// Every error carries the byte offset (from the start of the input) where it was found, and an
/// [`ErrorKind`]. [`Error::is_eof`] tells truncated input ("need more bytes", which a streaming
/// caller may cure by reading more) from corrupt input (which no amount of reading fixes).
///
/// The error is boxed so that `Result<T, Error>` stays one pointer wide on hot paths.
pub struct Error(Box<ErrorImpl>);

struct ErrorImpl {
    kind: ErrorKind,
    offset: u64,
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended inside a value; `needed` more bytes at least would be required.
    #[error("unexpected end of input (need at least {needed} more byte(s))")]
    Eof {
        /// A lower bound of the bytes missing.
        needed: usize,
    },
    /// A code the Hessian 2.0 grammar reserves (`0x40`, `0x45`, `0x47`, `0x50`).
    #[error("reserved byte code 0x{0:02x}")]
    Reserved(u8),
    /// A valid code in a place where it cannot stand.
    #[error("unexpected byte code 0x{found:02x}, expected {expected}")]
    Unexpected {
        /// The code found.
        found: u8,
        /// What the grammar allows here.
        expected: &'static str,
    },
    /// String bytes that are neither UTF-8 nor CESU-8.
    #[error("invalid UTF-8 in string")]
    InvalidUtf8,
    /// A length, count or index that is negative or out of range.
    #[error("invalid {what}: {value}")]
    InvalidLength {
        /// Which length.
        what: &'static str,
        /// The value read.
        value: i64,
    },
    /// A `Q` reference, class index or type index to an entry not (yet) defined.
    #[error("{table} reference {index} out of range ({len} defined)")]
    BadReference {
        /// `"value"`, `"class"` or `"type"`.
        table: &'static str,
        /// The index read.
        index: u64,
        /// How many entries the table had.
        len: usize,
    },
    /// Lists, maps and objects nested deeper than the configured limit.
    #[error("nesting deeper than the limit of {0}")]
    DepthLimit(usize),
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
