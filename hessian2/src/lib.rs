//! Hessian 2.0 (work in progress).

pub mod de;
pub mod decode;
pub mod encode;
pub mod error;
pub mod input;
pub mod marker;
pub mod ser;
pub mod types;
pub mod value;

pub use de::{from_buf, from_bytes, from_slice, Deserializer};
pub use error::{Error, ErrorKind, Result};
pub use ser::{to_vec, to_writer, Serializer};
