//! Test support for the hessian-dubbo-rs workspace (`publish = false`): the harnesses that the
//! integration tests of `dubbo-rpc` and `dubbo-proxy`, the `hessian2` tests and the benches
//! share, so that each lives in one place.
//!
//! - [`java`]: the Java interop tools of `interop/` (built with Maven on first use), real Java
//!   Dubbo providers and consumers on 127.0.0.1, killed when their guard drops.
//! - [`go`]: the stock gRPC tools of `interop/grpc-go` (grpc-go's peer, grpcurl), built with
//!   Go on first use.
//! - [`zookeeper`]: a real ZooKeeper server on 127.0.0.1 with a temporary data directory.
//! - [`net`]: free loopback ports, waiting for a port, and the audit that every socket of a set
//!   of processes stays on loopback.
//! - [`binary`]: a binary of another workspace crate (`dubbo-call` for `dubbo-rpc`'s tests),
//!   built on first use.
//! - [`pki`]: a test CA and the certificates the TLS tests present (good, from another CA,
//!   self-signed, expired), made at run time into a temporary directory.
//! - [`alloc`]: a global allocator counting each thread's allocations, with [`alloc::count`].
//!
//! This crate depends on no crate of the workspace (they dev-depend on it): what a harness
//! needs from them is passed in as plain data.
//!
//! A peer that is not installed (Java's interop project, Go, ZooKeeper) skips the test with a note,
//! except under CI (`CI` set in the environment), where it is a failure: see [`missing`].

use std::path::{Path, PathBuf};
use std::process::Stdio;

pub mod alloc;
pub mod binary;
pub mod go;
pub mod java;
pub mod net;
pub mod pki;
pub mod zookeeper;

/// The workspace's root directory (where `interop/` is).
pub fn workspace_root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Reports that `what`, which a test needs, is not installed: under CI (`CI` set) that panics
/// (the CI script installs everything); elsewhere it prints a note and returns `None`, and the
/// caller skips its test.
pub fn missing<T>(what: &str) -> Option<T> {
    if std::env::var_os("CI").is_some() {
        panic!("{what} is missing (the CI script installs it)");
    }
    eprintln!("note: {what} is missing; test skipped");
    None
}

/// A directory under the system's temporary directory for the logs of the processes a test
/// starts (`LogDir("dubbo-proxy-java")` is `$TMPDIR/dubbo-proxy-java/`). Their output goes
/// there, not into the test's output; each log's path is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogDir(pub &'static str);

impl LogDir {
    /// A new log file `<name>-<pid of this test process>.log` (truncated if it exists) as a
    /// child's stdout or stderr, and its path. `Stdio::null()` when it cannot be created.
    pub fn file(&self, name: &str) -> (Stdio, PathBuf) {
        let dir = std::env::temp_dir().join(self.0);
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join(format!("{name}-{}.log", std::process::id()));
        eprintln!("log: {}", path.display());
        let stdio = std::fs::File::create(&path).map_or_else(|_| Stdio::null(), Stdio::from);
        (stdio, path)
    }
}
