//! Typed (serde) values written straight into a body.
//!
//! A Hessian2 body is one Hessian stream, so the typed values in it go through one
//! [`hessian2::Serializer`], which keeps the stream's class definitions, type names and enum
//! references; a fastjson2 body's values are documents of their own, each through a
//! [`fastjson2::Serializer`] and its symbol table. A serializer grows its tables on first use
//! (and hessian2's caches the field layouts of the Rust types it has written); to keep a
//! request or a response from paying for that every time, each thread keeps one serializer of
//! each kind ([`serializer`] takes it, [`finish`] gives it back with a fresh stream), as
//! `hessian2::to_vec` does for its own.
//!
//! Output buffers start with the length of the last output of the same kind on the thread
//! ([`Hint`]), so that a steady flow of similar messages allocates each buffer once.

use std::cell::Cell;
use std::thread::LocalKey;

thread_local! {
    static HESSIAN2: Cell<Option<hessian2::Serializer<Vec<u8>>>> = const { Cell::new(None) };
    static FASTJSON2: Cell<Option<fastjson2::Serializer<Vec<u8>>>> = const { Cell::new(None) };
    static ARGS_LEN: Cell<usize> = const { Cell::new(0) };
    static RESULT_LEN: Cell<usize> = const { Cell::new(0) };
}

/// Capacity hints are at most this (a single huge message must not make every later buffer
/// huge).
const MAX_HINT: usize = 64 * 1024;

/// A serializer writing to a `Vec<u8>` that a thread keeps between messages.
pub(crate) trait Pooled: Sized + 'static {
    /// This thread's free one.
    fn pool() -> &'static LocalKey<Cell<Option<Self>>>;
    /// A new one, when the thread's is taken or not made yet.
    fn fresh() -> Self;
    /// Its output.
    fn output(&mut self) -> &mut Vec<u8>;
    /// Starts a new stream, keeping its tables' memory.
    fn reset(&mut self);
}

impl Pooled for hessian2::Serializer<Vec<u8>> {
    fn pool() -> &'static LocalKey<Cell<Option<Self>>> {
        &HESSIAN2
    }
    fn fresh() -> Self {
        hessian2::Serializer::new(Vec::new())
    }
    fn output(&mut self) -> &mut Vec<u8> {
        self.get_mut()
    }
    fn reset(&mut self) {
        hessian2::Serializer::reset(self)
    }
}

/// As fastjson2 2.0.52 writes (the default version; another version's serializer is made
/// for each value).
impl Pooled for fastjson2::Serializer<Vec<u8>> {
    fn pool() -> &'static LocalKey<Cell<Option<Self>>> {
        &FASTJSON2
    }
    fn fresh() -> Self {
        fastjson2::Serializer::new(Vec::new())
    }
    fn output(&mut self) -> &mut Vec<u8> {
        self.get_mut()
    }
    fn reset(&mut self) {
        fastjson2::Serializer::reset(self)
    }
}

/// A serializer at the start of a new stream, writing to `buf`: this thread's pooled one when
/// it is free.
pub(crate) fn serializer<S: Pooled>(buf: Vec<u8>) -> S {
    let mut ser = S::pool().take().unwrap_or_else(S::fresh);
    *ser.output() = buf;
    ser
}

/// The output of a serializer from [`serializer`]; the serializer goes back to the pool with
/// its stream reset (its tables' memory, and hessian2's learned layouts, kept).
pub(crate) fn finish<S: Pooled>(mut ser: S) -> Vec<u8> {
    let out = std::mem::take(ser.output());
    ser.reset();
    S::pool().set(Some(ser));
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
        let mut ser: hessian2::Serializer<_> = serializer(Vec::new());
        ser.serialize(&P { a: 1 }).unwrap();
        let first = finish(ser);
        let mut ser: hessian2::Serializer<_> = serializer(Vec::new());
        ser.serialize(&P { a: 1 }).unwrap();
        // The class definition again: a new stream.
        assert_eq!(finish(ser), first);
        assert_eq!(first, hessian2::to_vec(&P { a: 1 }).unwrap());
        // fastjson2's: the field name defined again as a symbol, in a new document.
        for _ in 0..2 {
            let mut ser: fastjson2::Serializer<_> = serializer(Vec::new());
            serde::Serialize::serialize(&P { a: 1 }, &mut ser).unwrap();
            assert_eq!(finish(ser), fastjson2::to_vec(&P { a: 1 }).unwrap());
        }
        ARGS.record(usize::MAX);
        assert_eq!(ARGS.buffer().capacity(), MAX_HINT);
        ARGS.record(0);
    }
}
