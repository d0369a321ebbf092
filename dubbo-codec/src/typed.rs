//! Typed (serde) values written straight into a body's Hessian stream.
//!
//! A body is one Hessian stream, so the typed values in it go through one
//! [`hessian2::Serializer`], which keeps the stream's class definitions, type names and enum
//! references. A serializer also caches the field layouts of the Rust types it has written and
//! grows tables on first use; to keep a request or a response from paying for that every time,
//! each thread keeps one serializer ([`serializer`] takes it, [`finish`] gives it back with a
//! fresh stream), as `hessian2::to_vec` does for its own.
//!
//! Output buffers start with the length of the last output of the same kind on the thread
//! ([`Hint`]), so that a steady flow of similar messages allocates each buffer once.

use std::cell::Cell;
use std::thread::LocalKey;

use hessian2::Serializer;

thread_local! {
    static POOL: Cell<Option<Serializer<Vec<u8>>>> = const { Cell::new(None) };
    static ARGS_LEN: Cell<usize> = const { Cell::new(0) };
    static RESULT_LEN: Cell<usize> = const { Cell::new(0) };
}

/// Capacity hints are at most this (a single huge message must not make every later buffer
/// huge).
const MAX_HINT: usize = 64 * 1024;

/// A serializer at the start of a new stream, writing to `buf`: this thread's pooled one when
/// it is free.
pub(crate) fn serializer(buf: Vec<u8>) -> Serializer<Vec<u8>> {
    let mut ser = POOL.take().unwrap_or_else(|| Serializer::new(Vec::new()));
    *ser.get_mut() = buf;
    ser
}

/// The output of a serializer from [`serializer`]; the serializer goes back to the pool with
/// its stream reset (its tables' memory and learned layouts kept).
pub(crate) fn finish(mut ser: Serializer<Vec<u8>>) -> Vec<u8> {
    let out = std::mem::take(ser.get_mut());
    ser.reset();
    POOL.set(Some(ser));
    out
}

/// The length of the last output of one kind on this thread, as the capacity of the next.
#[derive(Clone, Copy)]
pub(crate) struct Hint(&'static LocalKey<Cell<usize>>);

/// The argument section of requests with typed arguments.
pub(crate) const ARGS: Hint = Hint(&ARGS_LEN);
/// The bodies of typed results.
pub(crate) const RESULT: Hint = Hint(&RESULT_LEN);

impl Hint {
    /// A buffer with the capacity of the last output of this kind.
    pub(crate) fn buffer(self) -> Vec<u8> {
        Vec::with_capacity(self.0.get())
    }

    /// Records the length of an output.
    pub(crate) fn record(self, len: usize) {
        self.0.set(len.min(MAX_HINT));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pooled_serializer_starts_a_new_stream() {
        #[derive(serde::Serialize)]
        #[serde(rename = "x.P")]
        struct P {
            a: i32,
        }
        let mut ser = serializer(Vec::new());
        ser.serialize(&P { a: 1 }).unwrap();
        let first = finish(ser);
        let mut ser = serializer(Vec::new());
        ser.serialize(&P { a: 1 }).unwrap();
        // The class definition again: a new stream.
        assert_eq!(finish(ser), first);
        assert_eq!(first, hessian2::to_vec(&P { a: 1 }).unwrap());
        ARGS.record(usize::MAX);
        assert_eq!(ARGS.buffer().capacity(), MAX_HINT);
        ARGS.record(0);
    }
}
