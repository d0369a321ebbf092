//! Room reserved for the items that length fields and field counts claim. A claim is not
//! trusted: each item takes at least one input byte, so the room given to all the lists and
//! objects still open together never exceeds the bytes left, however deep the claims nest.

/// The room given to the containers still open.
#[derive(Debug, Default)]
pub(crate) struct Claims {
    open: usize,
}

impl Claims {
    /// Room for `claimed` items: no more than `remaining` input bytes can fill beyond the room
    /// already given. Give it back with [`release`](Self::release) when the container ends.
    #[inline]
    pub(crate) fn reserve(&mut self, claimed: usize, remaining: usize) -> usize {
        let room = claimed.min(remaining.saturating_sub(self.open));
        self.open += room;
        room
    }

    /// Gives back room that [`reserve`](Self::reserve) gave.
    #[inline]
    pub(crate) fn release(&mut self, room: usize) {
        self.open = self.open.saturating_sub(room);
    }

    /// Forgets all room given (no container is open).
    pub(crate) fn clear(&mut self) {
        self.open = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_claims_share_the_bytes_left() {
        let mut claims = Claims::default();
        assert_eq!(claims.reserve(usize::MAX, 100), 100);
        assert_eq!(claims.reserve(usize::MAX, 94), 0);
        claims.release(100);
        assert_eq!(claims.reserve(10, 94), 10);
        assert_eq!(claims.reserve(usize::MAX, 94), 84);
    }
}
