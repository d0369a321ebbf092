//! The stock gRPC tools of `interop/grpc-go` (grpc-go's peer `grpcpeer`, and `grpcurl`), built
//! by its `build` script from the Go module proxy when missing.

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use crate::java::interop_dir;
use crate::missing;

/// `interop/grpc-go/bin/<name>`, built by `interop/grpc-go/build` when missing (one build at a
/// time in this process). `None` (through [`missing`]) when Go is not installed.
pub fn go_tool(name: &str) -> Option<PathBuf> {
    static BUILD: OnceLock<Mutex<()>> = OnceLock::new();
    let _one_at_a_time = BUILD
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let dir = interop_dir("grpc-go");
    let bin = dir.join("bin").join(name);
    if !bin.exists() {
        if Command::new("go").arg("version").output().is_err() {
            return missing("Go (interop/grpc-go needs it)");
        }
        let ok = Command::new("bash")
            .arg(dir.join("build"))
            .status()
            .expect("run interop/grpc-go/build")
            .success();
        assert!(ok, "interop/grpc-go/build failed");
    }
    assert!(bin.exists(), "{} missing after the build", bin.display());
    Some(bin)
}
