//! `hessian2-dump FILE`: prints every value of a Hessian 2.0 stream with its Java types.
//! `hessian2-dump --reencode [--lite4] FILE`: writes our re-encoding of the values to stdout
//! (hessian-lite 3.2.x forms by default, 4.x with `--lite4`). `-` reads standard input.
//! Bad input: the error and its byte offset on stderr, exit status 1. Usage errors: status 2.

use std::io::{Read, Write};
use std::process::ExitCode;

use hessian2::encode::{Encoder, LiteVersion};
use hessian2::input::SliceInput;
use hessian2::value::ValueDecoder;

const USAGE: &str = "usage: hessian2-dump [--reencode [--lite4]] FILE|-";

fn main() -> ExitCode {
    let mut reencode = false;
    let mut version = LiteVersion::V3;
    let mut path = None;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--reencode" => reencode = true,
            "--lite4" => version = LiteVersion::V4,
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ if path.is_none() => path = Some(arg),
            _ => return usage(),
        }
    }
    let Some(path) = path else { return usage() };
    let input = match read_input(&path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("hessian2-dump: {path}: {e}");
            return ExitCode::from(2);
        }
    };

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
