//! `hessian2-dump --annotate` on the Java vectors: every byte of each stream is shown exactly
//! once, in order, and the lines name what Java wrote where.

use std::path::{Path, PathBuf};
use std::process::Command;

fn dump(args: &[&str], file: &Path) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hessian2-dump"))
        .args(args)
        .arg(file)
        .output()
        .expect("runs hessian2-dump");
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn vectors(generation: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/vectors")
        .join(generation);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .collect();
    files.sort();
    files
}

/// The (offset, byte count) of an annotation line: `OFFSET  HEX... [… (N)]  text`.
fn span(line: &str) -> (usize, usize) {
    let offset = usize::from_str_radix(&line[..6], 16).unwrap();
    let hex = &line[8..];
    let count = match hex.find("… (") {
        Some(i) => hex[i + "… (".len()..]
            .split(')')
            .next()
            .unwrap()
            .parse()
            .unwrap(),
        None => hex
            .split("  ")
            .next()
            .unwrap()
            .split(' ')
            .filter(|b| b.len() == 2 && b.chars().all(|c| c.is_ascii_hexdigit()))
            .count(),
    };
    (offset, count)
}

#[test]
fn every_byte_of_every_java_vector_is_annotated_once_in_order() {
    let mut checked = 0;
    for generation in ["lite3", "lite4"] {
        for file in vectors(generation) {
            let len = std::fs::metadata(&file).unwrap().len() as usize;
            let (ok, out, err) = dump(&["--annotate"], &file);
            assert!(ok, "{}: {err}", file.display());
            let mut next = 0;
            for line in out.lines().skip(1) {
                let (offset, count) = span(line);
                assert_eq!(offset, next, "{}: {line}", file.display());
                next = offset + count;
            }
            assert_eq!(
                next,
                len,
                "{}: annotated up to {next} of {len}",
                file.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 400, "{checked} vectors");
}

#[test]
fn a_java_mix_shows_its_class_definition_types_and_references() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/lite3/mix_self_ref.bin");
    let (ok, out, _) = dump(&["--annotate"], &file);
    assert!(ok);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[1].starts_with("000000  43 "), "{}", lines[1]);
    assert!(
        lines[1].ends_with(
            "class def #0 io.github.hessianrs.interop.model.Mix [D, CD, CA, CC, CB, B, A]"
        ),
        "{}",
        lines[1]
    );
    assert!(lines[2].contains("object #0 (ref 0) io.github.hessianrs.interop.model.Mix {"));
    let floats = lines
        .iter()
        .find(|l| l.contains("=> list (ref 2, 3)"))
        .unwrap();
    assert!(floats.contains("73 07 5b 64 6f 75 62 6c 65"), "{floats}");
    assert!(floats.ends_with("type #0 [double (defined) ["), "{floats}");
    // `m` points back at the Mix itself, `CD` at the list of floats.
    assert!(lines
        .iter()
        .any(|l| l.contains("51 90") && l.ends_with("=> ref -> 0")));
    assert!(lines
        .iter()
        .any(|l| l.contains("51 92") && l.ends_with("CD: ref -> 2")));
    assert!(lines.iter().any(|l| l.ends_with("CB: long 1099511627776")));
}

#[test]
fn a_truncated_stream_reports_its_offset_and_fails() {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/lite3/mix_self_ref.bin");
    let bytes = std::fs::read(&full).unwrap();
    let cut = std::env::temp_dir().join(format!("dump-annotate-cut-{}.bin", std::process::id()));
    std::fs::write(&cut, &bytes[..bytes.len() - 3]).unwrap();
    let (ok, out, err) = dump(&["--annotate"], &cut);
    let _ = std::fs::remove_file(&cut);
    assert!(!ok);
    assert!(
        out.contains("class def #0"),
        "the lines before the cut are printed"
    );
    assert!(err.contains("offset"), "{err}");
}
