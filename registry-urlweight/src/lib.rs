//! Dubbo provider URL parameters read and rewritten without parsing the whole URL.
//!
//! **Status: not implemented yet.** This crate is a placeholder; it exports nothing.
