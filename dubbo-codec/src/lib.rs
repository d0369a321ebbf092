//! The Dubbo 2 TCP protocol.
//!
//! **Status: not implemented yet.** This crate is a placeholder in the workspace; it exports
//! nothing. Track progress in the project's issues.
