//! Shared fixtures for the workspace benchmarks (filled in as benches are added).

pub mod alloc;
pub mod cli;
pub mod load_stats;
pub mod report;
pub mod soak;
pub mod triple_peer;
