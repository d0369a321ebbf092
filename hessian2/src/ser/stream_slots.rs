//! Per-stream indexes of things numbered once per process (struct layouts, type names).
//!
//! Hessian numbers class definitions and type names per stream, in order of first use, and a
//! serializer writes many streams. Each index is stored with the number of the stream that gave
//! it and is valid only in that stream: starting a new stream is one increment, however many
//! indexes the last one gave.

/// Indexes by process-wide number, each valid in the stream that set it.
pub(crate) struct StreamSlots {
    /// Per number: the stream that gave it an index, and the index.
    slots: Vec<(u32, u32)>,
    /// The current stream (never 0, the stream of a slot never set).
    stream: u32,
}

impl Default for StreamSlots {
    fn default() -> Self {
        StreamSlots {
            slots: Vec::new(),
            stream: 1,
        }
    }
}

impl StreamSlots {
    /// The index `number` has in this stream, if any.
    #[inline]
    pub fn get(&self, number: usize) -> Option<u32> {
        match self.slots.get(number) {
            Some(&(stream, index)) if stream == self.stream => Some(index),
            _ => None,
        }
    }

    /// Gives `number` its index in this stream.
    #[inline]
    pub fn set(&mut self, number: usize, index: u32) {
        match self.slots.get_mut(number) {
            Some(slot) => *slot = (self.stream, index),
            None => self.grow(number, index),
        }
    }

    #[cold]
    fn grow(&mut self, number: usize, index: u32) {
        self.slots.resize(number, (0, 0));
        self.slots.push((self.stream, index));
    }

    /// Starts a new stream: no number has an index.
    #[inline]
    pub fn reset(&mut self) {
        self.stream = self.stream.wrapping_add(1);
        if self.stream == 0 {
            self.wrap();
        }
    }

    /// After 2^32 streams: forgets every slot, so that none from an earlier stream with the
    /// same number is taken for this one's.
    #[cold]
    fn wrap(&mut self) {
        self.slots.fill((0, 0));
        self.stream = 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_stream_forgets_every_index_even_after_wrapping() {
        let mut slots = StreamSlots::default();
        slots.set(3, 7);
        assert_eq!(
            (slots.get(3), slots.get(0), slots.get(9)),
            (Some(7), None, None)
        );
        slots.reset();
        assert_eq!(slots.get(3), None);
        slots.set(0, 1);
        // The stream number comes round to the one that set slot 0.
        slots.stream = u32::MAX;
        slots.reset();
        slots.reset();
        assert_eq!(slots.get(0), None, "stream 2 again");
    }
}
