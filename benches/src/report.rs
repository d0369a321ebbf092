//! Allocation counts (and encoded sizes) per benchmark, written beside criterion's timings so
//! that `benches/run` can put them in `benches/RESULTS.md`.
//!
//! A bench calls [`record`] once per criterion function (after measuring one operation with
//! [`crate::alloc::count`]); the record goes to stderr and, when the environment variable
//! `BENCH_ALLOCS` names a file, is appended there as one tab-separated line:
//!
//! ```text
//! group  function  allocs_per_op  bytes
//! ```
//!
//! `group` and `function` are criterion's group and function ids as given to
//! `benchmark_group` / `bench_function`; `bytes` is the size of the encoded data the operation
//! produces or reads (`-` when not meaningful).

use std::fs::OpenOptions;
use std::io::Write;

/// Environment variable naming the file records are appended to.
pub const ENV: &str = "BENCH_ALLOCS";

/// Records `allocs` allocations per operation (and the encoded size `bytes`, if any) for the
/// criterion function `group`/`function`.
pub fn record(group: &str, function: &str, allocs: u64, bytes: Option<usize>) {
    let bytes = bytes.map_or_else(|| "-".to_string(), |b| b.to_string());
    eprintln!("allocations {group}/{function}: {allocs} per op ({bytes} bytes)");
    if let Some(path) = std::env::var_os(ENV) {
        let line = format!("{group}\t{function}\t{allocs}\t{bytes}\n");
        let written = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = written {
            eprintln!("cannot append to {}: {e}", path.to_string_lossy());
        }
    }
}
