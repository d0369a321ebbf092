//! Keys of connections in the worker's tables: a slab index plus a generation, so that a key
//! kept by an engine (or an in-flight call) after its connection is gone never reaches the
//! connection that reused the slot.

/// A slab index and a generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    idx: u32,
    gen: u32,
}

impl Key {
    /// A key from its parts.
    pub const fn new(idx: usize, gen: u32) -> Key {
        Key {
            idx: idx as u32,
            gen,
        }
    }

    /// The slab index.
    pub const fn idx(self) -> usize {
        self.idx as usize
    }

    /// The generation.
    pub const fn gen(self) -> u32 {
        self.gen
    }

    /// Both in one integer (for engines' maps).
    pub const fn to_u64(self) -> u64 {
        ((self.gen as u64) << 32) | self.idx as u64
    }
}

/// A connection of either side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Conn {
    /// A caller's connection to a listener.
    Down(Key),
    /// A connection to a provider.
    Up(Key),
}
