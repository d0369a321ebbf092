//! `Q` references: the lists, maps and objects of a stream, recorded where they start, and a
//! referenced one decoded again from there (within a budget of replayed bytes).

use super::{Deserializer, Source};
use crate::decode::Container;
use crate::error::{Error, ErrorKind, Result};

impl<'de, S: Source<'de>> Deserializer<'de, S> {
    /// Records a list, map or object just pulled; `None` while replaying.
    #[inline]
    pub(super) fn open(&mut self) -> Result<Option<usize>> {
        self.dec.enter()?;
        if self.replaying > 0 {
            return Ok(None);
        }
        let mark = self.dec.last_mark();
        let refs = self.dec.containers();
        refs.push(Container { mark, done: false });
        Ok(Some(refs.len() - 1))
    }

    #[inline]
    pub(super) fn close(&mut self, slot: Option<usize>) {
        self.dec.leave();
        if let Some(i) = slot {
            self.dec.containers()[i].done = true;
        }
    }

    /// Decodes the `n`-th container of the stream again: pulls its header and hands it to `f`.
    pub(super) fn replay_pulled<T>(
        &mut self,
        n: u32,
        at: u64,
        f: impl FnOnce(&mut Self, crate::decode::Header) -> Result<T>,
    ) -> Result<T> {
        self.replay(n, at, |de| {
            let header = de.dec.pull()?;
            f(de, header)
        })
    }

    /// Decodes the `n`-th container of the stream again, with `f`.
    pub(super) fn replay<T>(
        &mut self,
        n: u32,
        at: u64,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        let Some(&slot) = self.dec.containers().get(n as usize) else {
            return Err(Error::new(
                ErrorKind::BadReference {
                    table: "value",
                    index: n.into(),
                    len: self.dec.containers().len(),
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
        self.dec.containers()[n as usize].done = false;
        let result = f(self);
        // The referenced container's own bytes (nested replays counted themselves).
        self.replayed = self
            .replayed
            .saturating_add(self.dec.offset().saturating_sub(slot.mark.offset));
        self.dec.containers()[n as usize].done = true;
        self.replaying -= 1;
        self.dec.end_replay(previous);
        self.dec.replace_input(saved);
        result
    }
}
