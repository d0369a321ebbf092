//! `dubbo-soak provider`: the echo provider the soak kills, stops and restarts. A process of
//! its own, so that SIGKILL and SIGSTOP hit it and nothing else.

use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dubbo_rpc::registration::Registration;
use dubbo_rpc::server::{Reply, Server, Service};
use tokio::net::TcpListener;

/// The interface every soak call goes to.
pub const INTERFACE: &str = "io.github.hessianrs.soak.Echo";

/// The echo service: `echo(String token)` answers the token; `sleep(String token, int ms)`
/// answers it after `ms`, so that calls are in flight when a fault strikes. With
/// `misanswer_every` n > 0, every n-th `echo` is answered with the token of the `echo` before
/// it: what a proxy that mixed answers up would deliver, to show that the soak catches it.
pub fn echo_service(misanswer_every: u64) -> Service {
    // (echo calls so far, the last token echoed)
    let seen = Arc::new(Mutex::new((0u64, String::new())));
    Service::new(INTERFACE)
        .method("echo", move |call| {
            let seen = seen.clone();
            async move {
                let (token,): (String,) = call.args()?;
                let mut seen = seen.lock().unwrap_or_else(|e| e.into_inner());
                seen.0 += 1;
                let previous = std::mem::replace(&mut seen.1, token.clone());
                let misanswer = misanswer_every > 0 && seen.0 % misanswer_every == 0;
                Reply::typed(if misanswer { &previous } else { &token })
            }
        })
        .method("sleep", |call| async move {
            let (token, ms): (String, i32) = call.args()?;
            tokio::time::sleep(Duration::from_millis(ms.max(0) as u64)).await;
            Reply::typed(&token)
        })
}

/// How a provider runs besides its port (what `run` passes to the processes it starts).
#[derive(Debug, Clone, Default)]
pub struct ProviderOptions {
    /// Registers in ZooKeeper (discovery mode).
    pub registered: Option<Registered>,
    /// See [`echo_service`] (0 = never).
    pub misanswer_every: u64,
}

impl ProviderOptions {
    /// The `dubbo-soak provider` arguments that say so.
    pub fn args(&self) -> Vec<String> {
        let mut args = vec![
            "--misanswer-every".to_owned(),
            self.misanswer_every.to_string(),
        ];
        if let Some(r) = &self.registered {
            args.extend([
                "--zookeeper".into(),
                r.registry.clone(),
                "--idc".into(),
                r.idc.clone(),
            ]);
        }
        args
    }
}

/// Where a provider registers itself, in discovery mode.
#[derive(Debug, Clone)]
pub struct Registered {
    /// `zookeeper://127.0.0.1:PORT?session=MS`
    pub registry: String,
    /// Its `idc` URL parameter: the proxy's `idc_weights` take one provider out by it.
    pub idc: String,
}

/// Serves on `127.0.0.1:port` (0 = any), registers in ZooKeeper when `options` say so,
/// prints `READY <port>`, and runs until killed or until its stdin closes (the soak that
/// started it is gone: never outlive it).
pub fn main(port: u16, options: ProviderOptions) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        // A restart binds the port its killed predecessor held; the kernel may take a moment.
        let mut tries = 0;
        let listener = loop {
            match TcpListener::bind(("127.0.0.1", port)).await {
                Ok(l) => break l,
                Err(e) if tries < 50 => {
                    tries += 1;
                    eprintln!("provider: bind 127.0.0.1:{port}: {e}; retrying");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => return Err(e),
            }
        };
        let server = Server::builder()
            .service(echo_service(options.misanswer_every))
            .serve(listener);
        if let Some(r) = options.registered {
            let registry = dubbo_registry::connect(&r.registry)
                .await
                .map_err(std::io::Error::other)?;
            // Its port serves Triple too (the server's `triple` feature): the proxy's
            // Triple-only cluster takes it by `ext.protocol`, as a Java 3.3 port's.
            let how = Registration::new("dubbo-soak")
                .param("idc", &r.idc)
                .param("ext.protocol", "tri");
            server
                .register(registry, &how)
                .await
                .map_err(std::io::Error::other)?;
        }
        println!("READY {}", server.local_addr().port());
        let (eof_tx, eof_rx) = tokio::sync::oneshot::channel::<()>();
        std::thread::spawn(move || {
            let mut sink = [0u8; 64];
            while matches!(std::io::stdin().read(&mut sink), Ok(n) if n > 0) {}
            let _ = eof_tx.send(());
        });
        let _ = eof_rx.await;
        drop(server);
        Ok(())
    })
}
