//! Hessian 2.0 (work in progress).

pub mod de;
pub mod decode;
pub mod encode;
pub mod error;
pub mod input;
pub mod marker;
pub mod ser;
pub mod value;

pub use error::{Error, ErrorKind, Result};
