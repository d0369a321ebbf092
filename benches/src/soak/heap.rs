//! The proxy's live heap as glibc itself counts it: `malloc_stats(3)` called inside the
//! proxy through gdb, at the two quiet moments of a run (the baseline, after the drain).
//!
//! RSS cannot tell memory the proxy still uses from memory glibc keeps after it was freed
//! (per-thread arenas, the free chunks below the top of a heap, which `free` does not give
//! back). `malloc_stats` prints, per arena, the bytes it has from the system and the bytes in
//! use (allocated, not freed); the difference is what the allocator keeps. Calling it from
//! outside costs the proxy nothing on its hot path: gdb stops it for about a second, when no
//! call is in flight. The proxy's stderr is pointed at a file for the call and put back.

use std::path::Path;
use std::process::{Command, Stdio};

/// What `malloc_stats` reported, in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Heap {
    /// Arenas (the main one and one per thread that allocated).
    pub arenas: u32,
    /// Bytes glibc has from the system, in all arenas and mmapped chunks.
    pub system: u64,
    /// Bytes allocated and not freed: the live heap.
    pub in_use: u64,
}

impl Heap {
    /// Bytes glibc holds that nothing uses.
    pub fn kept(&self) -> u64 {
        self.system.saturating_sub(self.in_use)
    }
}

/// Runs `malloc_stats()` in process `pid` (gdb attaches, calls it with the process's stderr
/// pointed at a file in `scratch`, and detaches); `None` when gdb is missing or failed (the
/// soak then reports no heap).
/// Returns what it printed (per arena, then the totals; [`parse`] reads them).
pub fn malloc_stats_text(pid: u32, scratch: &Path) -> Option<String> {
    let out = scratch.join(format!("malloc-stats-{pid}.txt"));
    let _ = std::fs::remove_file(&out);
    // 65 = O_WRONLY | O_CREAT, 420 = 0644.
    let open = format!("set $fd = (int) open(\"{}\", 65, 420)", out.display());
    let commands = [
        "set $saved = (int) dup(2)",
        open.as_str(),
        "call (int) dup2($fd, 2)",
        "call (void) malloc_stats()",
        "call (int) dup2($saved, 2)",
        "call (int) close($fd)",
        "call (int) close($saved)",
    ];
    let mut gdb = Command::new("timeout");
    gdb.args(["60", "gdb", "-nx", "-q", "-batch", "-p", &pid.to_string()]);
    for c in commands {
        gdb.args(["-ex", c]);
    }
    let status = gdb
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?;
    let text = std::fs::read_to_string(&out).ok()?;
    let _ = std::fs::remove_file(&out);
    status.success().then_some(text)
}

/// Reads `malloc_stats` output: `Arena N:` blocks, then `Total (incl. mmap):` with its
/// `system bytes` and `in use bytes`.
pub fn parse(text: &str) -> Option<Heap> {
    let arenas = text.lines().filter(|l| l.starts_with("Arena ")).count();
    let total = &text[text.find("Total (incl. mmap):")?..];
    let field = |name: &str| {
        total
            .lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .and_then(|v| v.trim().strip_prefix('=')?.trim().parse().ok())
    };
    Some(Heap {
        arenas: u32::try_from(arenas).ok()?,
        system: field("system bytes")?,
        in_use: field("in use bytes")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_totals_of_malloc_stats() {
        let text = "Arena 0:\nsystem bytes     =     135168\nin use bytes     =      73264\n\
                    Arena 1:\nsystem bytes     =    1175552\nin use bytes     =     600000\n\
                    Total (incl. mmap):\nsystem bytes     =    1310720\nin use bytes     =     673264\n\
                    max mmap regions =          0\nmax mmap bytes   =          0\n";
        let heap = parse(text).unwrap();
        assert_eq!(
            heap,
            Heap {
                arenas: 2,
                system: 1_310_720,
                in_use: 673_264
            }
        );
        assert_eq!(heap.kept(), 637_456);
        assert_eq!(parse("Arena 0:\nsystem bytes = 1\n"), None);
    }

    #[test]
    fn reads_this_process_own_heap() {
        if Command::new("gdb").arg("--version").output().is_err() {
            eprintln!("gdb is not installed: skipped");
            return;
        }
        // gdb attaches to a child of this process (itself a `sleep`, which allocates little).
        let mut child = Command::new("sleep").arg("30").spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(100));
        let dir = std::env::temp_dir();
        let heap = malloc_stats_text(child.id(), &dir).and_then(|text| parse(&text));
        let _ = child.kill();
        let _ = child.wait();
        let heap = heap.expect("malloc_stats through gdb");
        assert!(heap.arenas >= 1 && heap.system >= heap.in_use, "{heap:?}");
    }
}
