//! `triple-server`: the Rust servers of `benches/triple-compare`, one process each.
//!
//! ```text
//! triple-server ours|tonic [--listen 127.0.0.1:0] [--threads 2]
//! ```
//!
//! * `ours`: `dubbo_rpc::server::Server` (the Dubbo protocol, Triple over HTTP/2 and HTTP/1.1
//!   on one port) serving `io.github.hessianrs.demo.DemoService:1.0.0` `sayHello(String)`
//!   interface-style (`"Hello, " + name`, as the Java demo provider answers) and the IDL unary
//!   method `/io.github.hessianrs.demo.EchoService/unary` (`google.protobuf.StringValue` in and
//!   out, `"echo: " + value`, as the Java provider's EchoService answers).
//! * `tonic`: tonic 0.12's server with the same IDL method, its service written as
//!   tonic-build would generate it (there is no protoc here).
//!
//! Both run a multi-threaded tokio runtime of `--threads` workers (default 2). Prints
//! `READY <port>` once listening; runs until killed.

use benches::cli::at_least_one;
use benches::triple_peer::{echo_service, serve_tonic};
use dubbo_rpc::server::{Server, Service};

const DEMO: &str = "io.github.hessianrs.demo.DemoService";

/// Which server runs.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Which {
    /// `dubbo_rpc::server::Server`.
    Ours,
    /// tonic's server.
    Tonic,
}

/// The command line (see the module docs).
#[derive(Debug, clap::Parser)]
#[command(
    name = "triple-server",
    about = "The Rust servers of benches/triple-compare"
)]
struct Opts {
    /// Which server runs.
    #[arg(value_enum)]
    which: Which,
    /// Where it listens.
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: String,
    /// Tokio worker threads.
    #[arg(long, default_value_t = 2, value_parser = at_least_one)]
    threads: usize,
}

/// Says why the server cannot run, and exits 2.
fn fail(msg: &str) -> ! {
    eprintln!("triple-server: {msg}");
    std::process::exit(2)
}

fn main() {
    let o = <Opts as clap::Parser>::parse();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(o.threads)
        .enable_all()
        .build()
        .expect("tokio runtime");
    rt.block_on(async move {
        match o.which {
            Which::Ours => ours(&o.listen).await,
            Which::Tonic => tonic_server(&o.listen).await,
        }
    })
}

async fn ours(listen: &str) {
    let demo = Service::new(DEMO)
        .version("1.0.0")
        .method("sayHello", |call| async move {
            let (name,): (Option<String>,) = call.args()?;
            call.typed_reply(&format!("Hello, {}", name.as_deref().unwrap_or("null")))
        })
        .signature("sayHello", &["java.lang.String"], "java.lang.String");
    let server = Server::builder()
        .service(demo)
        .service(echo_service())
        .bind(listen)
        .await
        .unwrap_or_else(|e| fail(&format!("bind {listen}: {e}")));
    println!("READY {}", server.local_addr().port());
    std::future::pending::<()>().await;
}

async fn tonic_server(listen: &str) {
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .unwrap_or_else(|e| fail(&format!("bind {listen}: {e}")));
    println!("READY {}", listener.local_addr().unwrap().port());
    serve_tonic(listener).await.expect("tonic server");
}
