//! `hessian2-dump FILE`: prints every value of a Hessian 2.0 stream with its Java types.
//! `hessian2-dump --annotate FILE`: every value with its byte offset and byte codes in hex,
//! class definitions and reference numbers (see `annotate.rs`).
//! `hessian2-dump --reencode [--lite4] FILE`: writes our re-encoding of the values to stdout
//! (hessian-lite 3.2.x forms by default, 4.x with `--lite4`). `-` reads standard input.
//! Bad input: the error and its byte offset on stderr, exit status 1. Usage errors: status 2.

mod annotate;

use std::io::{Read, Write};
use std::process::ExitCode;

use annotate::{annotate, AnnotateError};

use hessian2::encode::{Encoder, PeerVersion};
use hessian2::input::SliceInput;
use hessian2::value::ValueDecoder;

const USAGE: &str = "usage: hessian2-dump [--annotate | --reencode [--lite4]] FILE|-

  FILE                  every value with its Java types
  --annotate FILE       every value with its byte offset, byte codes, class definitions and
                        reference numbers
  --reencode FILE       our re-encoding to stdout (hessian-lite 3.2 forms; --lite4: 4.x)
  -                     reads standard input

examples:
  hessian2-dump hessian2/tests/vectors/lite3/mix_self_ref.bin
  hessian2-dump --annotate hessian2/tests/vectors/lite3/mix_self_ref.bin
  hessian2-dump --reencode --lite4 in.bin | cmp - in.bin";

fn main() -> ExitCode {
    let mut reencode = false;
    let mut annotated = false;
    let mut version = PeerVersion::V3;
    let mut path = None;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--reencode" => reencode = true,
            "--annotate" => annotated = true,
            "--lite4" => version = PeerVersion::V4,
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ if path.is_none() => path = Some(arg),
            _ => return usage(),
        }
    }
    let Some(path) = path else { return usage() };
    if annotated && reencode {
        return usage();
    }
    let input = match read_input(&path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("hessian2-dump: {path}: {e}");
            return ExitCode::from(2);
        }
    };

    if annotated {
        let stdout = std::io::stdout();
        return match annotate(&input, &mut stdout.lock()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(AnnotateError::Decode(e)) => {
                eprintln!("hessian2-dump: {path}: {e}");
                ExitCode::FAILURE
            }
            Err(AnnotateError::UnexpectedEnd(at)) => {
                eprintln!(
                    "hessian2-dump: {path}: a `Z` (end) where a value begins at byte offset {at}"
                );
                ExitCode::FAILURE
            }
            Err(AnnotateError::Output(e)) => {
                // A closed pipe (`| head`) is the reader's choice, not an error to report.
                if e.kind() != std::io::ErrorKind::BrokenPipe {
                    eprintln!("hessian2-dump: stdout: {e}");
                }
                ExitCode::FAILURE
            }
        };
    }

    let mut decoder = ValueDecoder::new(SliceInput::new(&input));
    let mut encoder = Encoder::with_version(Vec::new(), version);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    loop {
        match decoder.next_value() {
            Ok(None) => break,
            Ok(Some(value)) if reencode => value.encode(&mut encoder),
            Ok(Some(value)) => {
                if writeln!(out, "{value:#}").is_err() {
                    return ExitCode::FAILURE;
                }
            }
            Err(e) => {
                let _ = out.flush();
                eprintln!("hessian2-dump: {path}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    if reencode && out.write_all(encoder.get_ref()).is_err() {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn usage() -> ExitCode {
    eprintln!("{USAGE}");
    ExitCode::from(2)
}

fn read_input(path: &str) -> std::io::Result<Vec<u8>> {
    if path == "-" {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes)?;
        Ok(bytes)
    } else {
        std::fs::read(path)
    }
}
