//! `Q` references: the lists, maps and objects of a stream, recorded where they start, and a
//! referenced one decoded again from there (within a budget of replayed bytes).

use super::{Deserializer, Source};
use crate::decode::Mark;
use crate::error::{Error, ErrorKind, Result};

/// A list, map or object of the stream, which a later `Q` may refer to.
#[derive(Debug, Clone, Copy)]
pub(super) struct Slot {
    mark: Mark,
    /// Fully decoded (a reference to it is not a cycle).
    done: bool,
}

/// The containers of a stream, in a buffer taken from a per-thread pool (and given back on
/// drop), so that a `Deserializer` made per message does not allocate it again.
pub(super) struct Refs(Vec<Slot>);

thread_local! {
    static REFS: std::cell::Cell<Vec<Slot>> = const { std::cell::Cell::new(Vec::new()) };
}

impl Refs {
    pub(super) fn take() -> Self {
        Refs(REFS.try_with(|r| r.take()).unwrap_or_default())
    }
}

impl Drop for Refs {
    fn drop(&mut self) {
        let mut refs = std::mem::take(&mut self.0);
        if refs.capacity() <= 4096 {
            refs.clear();
            let _ = REFS.try_with(|r| {
                let pooled = r.take();
                r.set(if pooled.capacity() > refs.capacity() {
                    pooled
                } else {
                    refs
                });
            });
        }
    }
}

impl std::ops::Deref for Refs {
    type Target = Vec<Slot>;
    #[inline]
    fn deref(&self) -> &Vec<Slot> {
        &self.0
    }
}

impl std::ops::DerefMut for Refs {
    #[inline]
    fn deref_mut(&mut self) -> &mut Vec<Slot> {
        &mut self.0
    }
}

impl<'de, S: Source<'de>> Deserializer<'de, S> {
    /// Records a list, map or object just pulled; `None` while replaying.
    #[inline]
    pub(super) fn open(&mut self) -> Result<Option<usize>> {
        self.dec.enter()?;
        if self.replaying > 0 {
            return Ok(None);
        }
        self.refs.push(Slot {
            mark: self.dec.last_mark(),
            done: false,
        });
        Ok(Some(self.refs.len() - 1))
    }

    #[inline]
    pub(super) fn close(&mut self, slot: Option<usize>) {
        self.dec.leave();
        if let Some(i) = slot {
            self.refs[i].done = true;
        }
    }

    /// Decodes the `n`-th container of the stream again, with `f`.
    pub(super) fn replay<T>(
        &mut self,
        n: u32,
        at: u64,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        let Some(&slot) = self.refs.get(n as usize) else {
            return Err(Error::new(
                ErrorKind::BadReference {
                    table: "value",
                    index: n.into(),
                    len: self.refs.len(),
                },
                at,
            ));
        };
        if !slot.done {
            return Err(Error::new(
                ErrorKind::Message(format!(
                    "reference {n} to a list, map or object that is still being decoded: \
                     circular data cannot be read into Rust types (decode it as a \
                     hessian2::value::Value)"
                )),
                at,
            ));
        }
        if self.replayed > self.replay_budget() {
            return Err(Error::new(
                ErrorKind::Message(format!(
                    "references expand to more than {} bytes of decoding for a {}-byte input \
                     (nested shared data; decode it as a hessian2::value::Value, or raise \
                     Deserializer::with_reference_budget)",
                    self.replay_budget(),
                    self.input_len
                )),
                at,
            ));
        }
        let Ok(offset) = usize::try_from(slot.mark.offset) else {
            unreachable!("offsets come from the input")
        };
        let saved = self.dec.replace_input(self.src.input_at(offset));
        let previous = self.dec.begin_replay(slot.mark);
        self.replaying += 1;
        // While it is decoded again, a reference to it is a cycle.
        self.refs[n as usize].done = false;
        let result = f(self);
        // The referenced container's own bytes (nested replays counted themselves).
        self.replayed = self
            .replayed
            .saturating_add(self.dec.offset().saturating_sub(slot.mark.offset));
        self.refs[n as usize].done = true;
        self.replaying -= 1;
        self.dec.end_replay(previous);
        self.dec.replace_input(saved);
        result
    }
}
