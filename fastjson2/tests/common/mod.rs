//! What the Java-vector tests share: the vectors' directory and the Java `check` of our files.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `tests/vectors`, written by `interop/fastjson2-java` (`gen`) on fastjson2 2.0.52.
pub fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors")
}

/// `tests/vectors-2.0.56`: the same cases written by fastjson2 2.0.56 (Dubbo 3.3.5's).
pub fn vectors_2_0_56() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors-2.0.56")
}

/// Writes `files` (name, bytes) to a fresh directory and has fastjson2 (and, for `.framed`
/// files, Dubbo) read each as it reads the vector of the same name in `java_dir` (`check`);
/// panics unless every file is `ok`. Returns without checking when the Java tool is missing
/// outside CI.
pub fn java_reads_back(tag: &str, java_dir: &Path, files: &[(String, Vec<u8>)]) {
    let Some(jar) = dubbo_test_support::java::fastjson2_jar() else {
        return;
    };
    let ours = std::env::temp_dir().join(format!("fastjson2-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&ours).unwrap();
    for (name, bytes) in files {
        std::fs::write(ours.join(name), bytes).unwrap();
    }
    let out = Command::new("java")
        .arg("-jar")
        .arg(&jar)
        .arg("check")
        .arg(java_dir)
        .arg(&ours)
        .output()
        .expect("run java");
    let _ = std::fs::remove_dir_all(&ours);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "java check failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ok = stdout.lines().filter(|l| l.starts_with("ok ")).count();
    assert_eq!(ok, files.len(), "{stdout}");
}
