//! A binary of another workspace crate, for tests of a crate that cannot name it: Cargo sets
//! `CARGO_BIN_EXE_<name>` only for the package's own binaries (and artifact dependencies are
//! unstable). [`workspace_binary`] runs `cargo build` for it once per test process, so the
//! binary is never stale, into the same target directory and profile as the running test.

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// The path of binary `bin` of workspace package `package`, built (once per test process, a
/// no-op when it is up to date) with `cargo build -p package --bin bin`. Panics when it does
/// not build: the test cannot run without it.
pub fn workspace_binary(package: &str, bin: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<Vec<PathBuf>>> = OnceLock::new();
    let built = BUILT.get_or_init(|| Mutex::new(Vec::new()));
    // Built one at a time: concurrent tests of one process wait for the first build.
    let mut built = built.lock().unwrap_or_else(|e| e.into_inner());
    let profile_dir = profile_dir();
    let path = profile_dir.join(format!("{bin}{}", std::env::consts::EXE_SUFFIX));
    if built.contains(&path) {
        return path;
    }
    let target_dir = profile_dir.parent().expect("a target directory");
    let mut cargo = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cargo
        .current_dir(crate::workspace_root())
        .args([
            "build",
            "--quiet",
            "-p",
            package,
            "--bin",
            bin,
            "--target-dir",
        ])
        .arg(target_dir);
    if profile_dir.file_name().is_some_and(|n| n == "release") {
        cargo.arg("--release");
    }
    let status = cargo.status().expect("run cargo build");
    assert!(
        status.success(),
        "cargo build -p {package} --bin {bin} failed"
    );
    built.push(path.clone());
    path
}

/// `target/<profile>`: the directory of the running test binary's `deps/`.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let deps = exe.parent().expect("deps/");
    let dir = if deps.file_name().is_some_and(|n| n == "deps") {
        deps.parent().unwrap_or(deps)
    } else {
        deps
    };
    dir.to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_dir_is_the_parent_of_deps() {
        let dir = profile_dir();
        assert!(dir.join("deps").is_dir(), "{}", dir.display());
        assert!(dir.is_absolute());
    }
}
