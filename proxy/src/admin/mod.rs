//! The admin endpoint: a deliberately small HTTP/1.1 responder on loopback.
//!
//! Hand-written rather than pulling in hyper: it serves the operator URLs of the table below,
//! one request per connection (`Connection: close`), to `curl`, browsers and Prometheus, and
//! must never share a thread or a lock with the call path. A request line, headers up to
//! 16 KiB, a body up to 64 KiB, a `Host` that is loopback; anything else is refused (see
//! [`request`]). What changes state answers `POST`/`PUT` only, so no plain link or image can
//! trigger it.
//!
//! | URL | |
//! |---|---|
//! | `GET /` | the status page for a browser (see [`page`]): listeners, routes, clusters, endpoints, discovery |
//! | `GET /metrics` | Prometheus text |
//! | `GET /healthz` | `ok`, or 503 `warming` until the discovered clusters have their first provider lists (see [`crate::discovery`]), 503 `draining` after SIGTERM, 503 `overloaded` while no new caller can be taken (the file descriptor budget spent, or a listener with its `max_connections` open: see [`crate::core::fd_budget`]), or 503 after a worker panicked |
//! | `GET /config` | the configuration in force, as TOML |
//! | `POST /api/v1/downgrade/on` / `off` | the per-call access log off / back on (MOSN's switch) |
//! | `GET /metadata` | the metadata cache entries |
//! | `POST`/`PUT /metadata?path=..&version=..&interface=..&group=..` | adds an entry (the parameters may also come as a form body) |

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::config::Metadata;
use crate::core::Shared;

pub mod page;
pub mod rates;
pub mod request;

use rates::Rates;
use request::parse_head;

/// What the admin endpoint reads and switches.
#[derive(Clone)]
pub struct AdminState {
    /// The proxy's shared state.
    pub shared: Arc<Shared>,
    /// Set on SIGTERM.
    pub draining: Arc<AtomicBool>,
    /// Set at start while discovered clusters wait for their first provider list.
    pub warming: Arc<AtomicBool>,
}

/// Serves admin requests on `listener` forever.
pub async fn serve(listener: TcpListener, state: AdminState) {
    // The status page's earlier readings of the call counters, for its calls/s.
    let rates = Arc::new(Rates::default());
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            continue;
        };
        let state = state.clone();
        let rates = rates.clone();
        tokio::spawn(async move {
            let _ = tokio::time::timeout(
                std::time::Duration::from_secs(10),
                handle(stream, state, &rates),
            )
            .await;
        });
    }
}

/// Binds the admin address.
pub async fn bind(address: &str) -> std::io::Result<TcpListener> {
    let addr: SocketAddr = address.parse().map_err(|e| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{address}: {e}"))
    })?;
    TcpListener::bind(addr).await
}

struct Response {
    status: u16,
    content_type: &'static str,
    body: String,
}

fn text(status: u16, body: impl Into<String>) -> Response {
    Response {
        status,
        content_type: "text/plain; charset=utf-8",
        body: body.into(),
    }
}

async fn handle(mut stream: TcpStream, state: AdminState, rates: &Rates) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(1024);
    let head = loop {
        match parse_head(&buf) {
            Ok(Some(head)) => break head,
            Ok(None) => {}
            Err(e) => return write(&mut stream, text(e.status(), format!("{e}\n"))).await,
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let mut body = buf.split_off(head.head_len);
    while body.len() < head.content_length {
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    body.truncate(head.content_length);
    let resp = route(&state, rates, &head.method, &head.target, &body);
    write(&mut stream, resp).await
}

async fn write(stream: &mut TcpStream, r: Response) -> std::io::Result<()> {
    let reason = match r.status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        413 => "Payload Too Large",
        421 => "Misdirected Request",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "",
    };
    let head = format!(
        "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        r.status,
        r.content_type,
        r.body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(r.body.as_bytes()).await?;
    stream.shutdown().await
}

/// What `/healthz` answers now.
fn health(state: &AdminState) -> Response {
    let panics = state.shared.metrics.worker_panics.load(Ordering::Relaxed);
    if panics > 0 {
        text(
            503,
            format!("{panics} worker(s) stopped by a panic: restart the proxy\n"),
        )
    } else if state.draining.load(Ordering::Relaxed) {
        text(503, "draining\n")
    } else if state.warming.load(Ordering::Relaxed) {
        text(503, "warming: waiting for the first provider lists\n")
    } else if let Some(why) = state.shared.overload() {
        text(503, format!("overloaded: {why}\n"))
    } else {
        text(200, "ok\n")
    }
}

fn route(state: &AdminState, rates: &Rates, method: &str, target: &str, body: &[u8]) -> Response {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let shared = &state.shared;
    match (method, path) {
        ("GET", "/") => {
            let h = health(state);
            Response {
                status: 200,
                content_type: "text/html; charset=utf-8",
                body: page::render(state, rates, (h.status, &h.body), std::time::Instant::now()),
            }
        }
        ("GET", "/metrics") => Response {
            status: 200,
            content_type: "text/plain; version=0.0.4",
            body: shared.metrics.render(),
        },
        ("GET", "/healthz") => health(state),
        ("GET", "/config") => Response {
            status: 200,
            content_type: "application/toml",
            body: shared.snapshot().config.to_toml(),
        },
        ("POST" | "PUT", "/api/v1/downgrade/on") => {
            shared.downgrade.store(true, Ordering::Relaxed);
            tracing::info!("downgrade on: per-call logging off");
            text(200, "downgrade on\n")
        }
        ("POST" | "PUT", "/api/v1/downgrade/off") => {
            shared.downgrade.store(false, Ordering::Relaxed);
            tracing::info!("downgrade off: per-call logging as configured");
            text(200, "downgrade off\n")
        }
        ("GET", "/metadata") => {
            let mut out = String::new();
            for m in &shared.snapshot().metadata {
                out.push_str(&format!(
                    "path={} version={} interface={} group={}\n",
                    m.path,
                    m.version,
                    m.interface.as_deref().unwrap_or(&m.path),
                    m.group.as_deref().unwrap_or("")
                ));
            }
            text(200, out)
        }
        ("POST" | "PUT", "/metadata") => {
            let mut m = Metadata {
                path: String::new(),
                version: String::new(),
                interface: None,
                group: None,
            };
            for (k, v) in
                form_urlencoded::parse(query.as_bytes()).chain(form_urlencoded::parse(body))
            {
                match &*k {
                    "path" => m.path = v.into_owned(),
                    "version" => m.version = v.into_owned(),
                    "interface" => m.interface = Some(v.into_owned()).filter(|s| !s.is_empty()),
                    "group" => m.group = Some(v.into_owned()).filter(|s| !s.is_empty()),
                    _ => {}
                }
            }
            if m.path.is_empty() {
                return text(400, "path is required\n");
            }
            shared.register_metadata(m);
            text(200, "registered\n")
        }
        (
            _,
            "/"
            | "/metrics"
            | "/healthz"
            | "/config"
            | "/metadata"
            | "/api/v1/downgrade/on"
            | "/api/v1/downgrade/off",
        ) => text(405, "method not allowed\n"),
        _ => text(404, "not found\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::engine::supervised;

    #[test]
    fn healthz_says_overloaded_while_no_caller_can_be_taken() {
        let shared = Shared::new(Config::default_config(), 1);
        let state = AdminState {
            shared: shared.clone(),
            draining: Arc::new(AtomicBool::new(false)),
            warming: Arc::new(AtomicBool::new(false)),
        };
        let healthz = || route(&state, &Rates::default(), "GET", "/healthz", b"");
        shared.metrics.fds.set_limit(2);
        let first = shared
            .admit_caller(0, std::time::Instant::now())
            .expect("a place");
        assert_eq!(healthz().status, 200);
        let second = shared
            .admit_caller(0, std::time::Instant::now())
            .expect("the last place");
        let full = healthz();
        assert_eq!(full.status, 503);
        assert!(
            full.body.starts_with("overloaded: 2 caller connections"),
            "{}",
            full.body
        );
        assert!(shared.admit_caller(0, std::time::Instant::now()).is_none());
        assert_eq!(
            shared.metrics.listeners[0].rejected.load(Ordering::Relaxed),
            1
        );
        drop((first, second));
        assert_eq!(healthz().status, 200, "back once callers leave");
        // A listener with its max_connections open is overloaded too.
        let max = shared.snapshot().config.listeners[0].max_connections;
        shared.metrics.listeners[0]
            .open
            .store(max as i64, Ordering::Relaxed);
        let full = healthz();
        assert_eq!(full.status, 503);
        assert!(full.body.contains("max_connections"), "{}", full.body);
    }

    #[test]
    fn a_panicking_worker_turns_healthz_to_503() {
        let shared = Shared::new(Config::default_config(), 2);
        let state = AdminState {
            shared: shared.clone(),
            draining: Arc::new(AtomicBool::new(false)),
            warming: Arc::new(AtomicBool::new(true)),
        };
        assert_eq!(
            route(&state, &Rates::default(), "GET", "/healthz", b"").status,
            503
        );
        state.warming.store(false, Ordering::Relaxed);
        assert_eq!(
            route(&state, &Rates::default(), "GET", "/healthz", b"").status,
            200
        );
        // A worker that ends normally changes nothing; one that panics is counted.
        supervised(0, &shared, || {});
        assert_eq!(
            route(&state, &Rates::default(), "GET", "/healthz", b"").status,
            200
        );
        let other = std::thread::spawn({
            let shared = shared.clone();
            move || supervised(1, &shared, || panic!("a bug"))
        });
        other.join().expect("the panic stays inside the worker");
        let health = route(&state, &Rates::default(), "GET", "/healthz", b"");
        assert_eq!(health.status, 503);
        assert!(
            health.body.contains("1 worker(s) stopped"),
            "{}",
            health.body
        );
        let metrics = route(&state, &Rates::default(), "GET", "/metrics", b"").body;
        assert!(
            metrics.contains("dubbo_proxy_worker_panics_total 1"),
            "{metrics}"
        );
    }
}
