//! Dynamic `Value` (in progress).
