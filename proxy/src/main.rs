//! `dubbo-proxy`: **not implemented yet**. Running it prints that and exits with status 2.

fn main() {
    eprintln!("dubbo-proxy: not implemented yet (see the project's issues)");
    std::process::exit(2);
}
