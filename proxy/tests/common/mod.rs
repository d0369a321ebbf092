//! Test fixtures: the proxy (a server in the test's process, or the binary as a child
//! process), Rust test providers, and a raw frame-level client. Everything listens on 127.0.0.1 with ports chosen by the kernel.

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream as StdTcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use dubbo_codec::response::{Outcome, Response, RpcResult};
use dubbo_codec::{Frame, FrameCodec, FrameKind, Request, Status};
use dubbo_proxy::config::{Config, EngineKind};
use dubbo_proxy::Server;
use hessian2::value::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{broadcast, mpsc};
use tracing_subscriber::EnvFilter;

/// The engines every end-to-end test runs against: each test is generated once per engine,
/// in modules `tokio_engine` and `epoll_engine` (`cargo test epoll_engine` runs one).
#[macro_export]
macro_rules! for_each_engine {
    ($($name:ident),* $(,)?) => {
        $crate::for_each_engine!(@engine tokio_engine, "tokio", $($name),*);
        $crate::for_each_engine!(@engine epoll_engine, "epoll", $($name),*);
    };
    (@engine $module:ident, $engine:literal, $($name:ident),*) => {
        mod $module {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($engine).await
                }
            )*
        }
    };
}

pub const SVC: &str = "com.example.DemoService";

/// The proxy under test: a [`Server`] on a thread of the test's process ([`Proxy::start`],
/// [`Proxy::start_logging`]), or the `dubbo-proxy` binary as a child process where a process
/// is the point: signals, its memory, its file descriptor limit ([`Proxy::start_process`],
/// [`Proxy::start_with_nofile`]).
pub struct Proxy {
    pub listen: Vec<SocketAddr>,
    pub admin: Option<SocketAddr>,
    /// The configuration file: what a SIGHUP rereads (spawned proxies; in-process ones were
    /// started from the same text).
    pub config_path: PathBuf,
    run: Run,
    _dir: TempDir,
}

enum Run {
    Process(Child),
    InProcess(InProcess),
}

/// A [`Server`] on a thread of its own with a current-thread runtime, as the binary's main
/// thread runs it; its log goes to the test's stderr, or to a buffer ([`Proxy::log`]).
struct InProcess {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    log: Option<Arc<Mutex<Vec<u8>>>>,
}

pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new() -> TempDir {
        static N: AtomicU64 = AtomicU64::new(0);
        let p = std::env::temp_dir().join(format!(
            "dubbo-proxy-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A log kept in memory, written by one in-process proxy's threads.
#[derive(Clone)]
struct LogBuffer(Arc<Mutex<Vec<u8>>>);

impl Write for LogBuffer {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The log filter: `filter`, else `PROXY_LOG`, else warnings.
/// (PROXY_LOG=dubbo_proxy=debug,h2=debug shows what the proxy did in a failing test.)
fn log_filter(filter: Option<&str>) -> String {
    filter.map_or_else(
        || std::env::var("PROXY_LOG").unwrap_or("warn".into()),
        str::to_owned,
    )
}

impl Proxy {
    /// Starts a proxy in this process with this configuration (listeners and admin should
    /// use port 0) and `engine`.
    pub fn start(engine: &str, toml: &str) -> Proxy {
        Proxy::in_process(engine, toml, None)
    }

    /// [`Proxy::start`] with its log (`filter`, in `RUST_LOG`'s syntax) kept for
    /// [`Proxy::log`] instead of written to the test's output. The threads the server starts
    /// log to it too (they take on the dispatcher of the thread that started them), and
    /// nothing else does: each proxy has a log of its own, beside the tests running in
    /// parallel.
    pub fn start_logging(engine: &str, toml: &str, filter: Option<&str>) -> Proxy {
        Proxy::in_process(engine, toml, Some(log_filter(filter)))
    }

    /// Starts the `dubbo-proxy` binary as a child process: for tests of what a process does
    /// ([`Proxy::signal`], [`Proxy::wait_exit`], [`Proxy::pid`] for its memory).
    pub fn start_process(engine: &str, toml: &str) -> Proxy {
        Proxy::spawn(
            Command::new(env!("CARGO_BIN_EXE_dubbo-proxy")),
            engine,
            toml,
            None,
        )
    }

    /// [`Proxy::start_process`] with its log (`RUST_LOG` = `filter`) written to `proxy.log`
    /// in its directory ([`Proxy::log`]) instead of the test's output.
    pub fn start_process_logging(engine: &str, toml: &str, filter: Option<&str>) -> Proxy {
        Proxy::spawn(
            Command::new(env!("CARGO_BIN_EXE_dubbo-proxy")),
            engine,
            toml,
            filter,
        )
    }

    /// [`Proxy::start_process`] with `RLIMIT_NOFILE` set to `nofile` (soft and hard: the
    /// proxy cannot raise it), by the shell's `ulimit`.
    pub fn start_with_nofile(engine: &str, toml: &str, nofile: u64) -> Proxy {
        let mut sh = Command::new("sh");
        sh.arg("-c")
            .arg(format!("ulimit -n {nofile} && exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_dubbo-proxy"));
        Proxy::spawn(sh, engine, toml, None)
    }

    fn in_process(engine: &str, toml: &str, log_to_buffer: Option<String>) -> Proxy {
        let dir = TempDir::new();
        let config_path = dir.0.join("proxy.toml");
        std::fs::write(&config_path, toml).unwrap();
        let mut config = Config::from_toml(toml).expect("a valid configuration");
        config.engine = match engine {
            "tokio" => EngineKind::Tokio,
            "epoll" => EngineKind::Epoll,
            other => panic!("no engine {other}"),
        };
        config
            .validate()
            .expect("a valid configuration with this engine");
        let log = log_to_buffer
            .as_ref()
            .map(|_| Arc::new(Mutex::new(Vec::new())));
        let filter = EnvFilter::new(log_to_buffer.unwrap_or_else(|| log_filter(None)));
        let dispatch = match &log {
            Some(buf) => {
                let buf = LogBuffer(buf.clone());
                tracing::Dispatch::new(
                    tracing_subscriber::fmt()
                        .with_env_filter(filter)
                        .with_ansi(false)
                        .with_writer(move || buf.clone())
                        .finish(),
                )
            }
            None => tracing::Dispatch::new(
                tracing_subscriber::fmt()
                    .with_env_filter(filter)
                    .with_writer(std::io::stderr)
                    .finish(),
            ),
        };
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("in-process-proxy".into())
            .spawn(move || {
                let _log = tracing::dispatcher::set_default(&dispatch);
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a runtime");
                rt.block_on(async move {
                    let server = match Server::start(config).await {
                        Ok(s) => s,
                        Err(e) => {
                            let _ = ready_tx.send(Err(e));
                            return;
                        }
                    };
                    let _ =
                        ready_tx.send(Ok((server.listen_addrs().to_vec(), server.admin_addr())));
                    let _ = stopped.await;
                    server.shutdown().await;
                });
            })
            .expect("a thread for the proxy");
        let (listen, admin) = ready_rx
            .recv()
            .expect("the proxy's thread ended")
            .expect("start the proxy");
        Proxy {
            listen,
            admin,
            config_path,
            run: Run::InProcess(InProcess {
                stop: Some(stop),
                log,
            }),
            _dir: dir,
        }
    }

    fn spawn(mut command: Command, engine: &str, toml: &str, filter: Option<&str>) -> Proxy {
        let dir = TempDir::new();
        let config_path = dir.0.join("proxy.toml");
        std::fs::write(&config_path, toml).unwrap();
        let mut child = command
            .arg("--config")
            .arg(&config_path)
            .arg("--engine")
            .arg(engine)
            .env("RUST_LOG", log_filter(filter))
            .stdout(Stdio::piped())
            .stderr(match filter {
                Some(_) => Stdio::from(std::fs::File::create(dir.0.join("proxy.log")).unwrap()),
                None => Stdio::inherit(),
            })
            .spawn()
            .expect("start dubbo-proxy");
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let line = lines
            .next()
            .expect("proxy printed nothing")
            .expect("read proxy stdout");
        assert!(line.starts_with("READY "), "{line}");
        // Keep draining stdout so the proxy never blocks on it.
        std::thread::spawn(move || for _ in lines {});
        let mut listen = Vec::new();
        let mut admin = None;
        for part in line.split_whitespace().skip(1) {
            if let Some(v) = part.strip_prefix("listen=") {
                listen = v.split(',').map(|a| a.parse().unwrap()).collect();
            } else if let Some(v) = part.strip_prefix("admin=") {
                admin = v.parse().ok();
            }
        }
        Proxy {
            listen,
            admin,
            config_path,
            run: Run::Process(child),
            _dir: dir,
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.listen[0]
    }

    /// What it logged so far (started with [`Proxy::start_logging`] or
    /// [`Proxy::start_process_logging`]).
    pub fn log(&self) -> String {
        match &self.run {
            Run::InProcess(p) => p
                .log
                .as_ref()
                .map(|l| String::from_utf8_lossy(&l.lock().unwrap()).into_owned())
                .unwrap_or_default(),
            Run::Process(_) => {
                std::fs::read_to_string(self._dir.0.join("proxy.log")).unwrap_or_default()
            }
        }
    }

    fn child(&mut self) -> &mut Child {
        match &mut self.run {
            Run::Process(c) => c,
            Run::InProcess(_) => panic!("a proxy in the test's process: use Proxy::start_process"),
        }
    }

    /// The proxy process's id.
    pub fn pid(&self) -> u32 {
        match &self.run {
            Run::Process(c) => c.id(),
            Run::InProcess(_) => panic!("a proxy in the test's process: use Proxy::start_process"),
        }
    }

    pub fn signal(&self, sig: i32) {
        let pid = rustix::process::Pid::from_raw(self.pid() as i32).expect("a child's pid");
        let sig = rustix::process::Signal::from_named_raw(sig).expect("a signal");
        rustix::process::kill_process(pid, sig).expect("kill");
    }

    /// Waits for the process to exit; its status code.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<i32> {
        let end = Instant::now() + timeout;
        while Instant::now() < end {
            if let Some(s) = self.child().try_wait().unwrap() {
                return s.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// `GET`/`POST` on the admin endpoint: (status, body).
    pub fn admin(&self, method: &str, path: &str) -> (u16, String) {
        http(self.admin.expect("admin address"), method, path, "")
    }

    /// The value of one series of `/metrics`: its name with its labels as rendered
    /// (`dubbo_proxy_read_pauses_total`, `dubbo_proxy_endpoint_ejected{cluster="x",...}`);
    /// 0 when absent.
    pub fn metric(&self, series: &str) -> f64 {
        let (_, text) = self.admin("GET", "/metrics");
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or(0.0)
    }
}

impl Drop for Proxy {
    /// A child is killed; a server in the process is told to shut down and drains on its
    /// thread in the background (as a killed process's connections close without the test
    /// waiting).
    fn drop(&mut self) {
        match &mut self.run {
            Run::Process(child) => {
                let _ = child.kill();
                let _ = child.wait();
            }
            Run::InProcess(p) => {
                if let Some(stop) = p.stop.take() {
                    let _ = stop.send(());
                }
            }
        }
    }
}

/// A one-shot HTTP/1.1 request.
pub fn http(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    let resp = http_raw(
        addr,
        &format!(
            "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    );
    let status = resp[9..12].parse().unwrap();
    let body = resp
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// `curl --http1.1 -d BODY` to `url` with `headers` (`"name: value"`): the HTTP status and
/// the body (status 0 when curl got none).
pub async fn curl_post(url: String, headers: &[&str], body: &str) -> (u16, String) {
    let mut args = vec![
        "-sS".to_owned(),
        "--http1.1".into(),
        "--max-time".into(),
        "10".into(),
    ];
    for h in headers {
        args.extend(["-H".to_owned(), (*h).to_owned()]);
    }
    args.extend([
        "-d".into(),
        body.to_owned(),
        "-w".into(),
        "\n%{http_code}".into(),
        url,
    ]);
    let out = tokio::task::spawn_blocking(move || Command::new("curl").args(&args).output())
        .await
        .unwrap()
        .expect("curl runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (body, code) = text.rsplit_once('\n').unwrap_or(("", &text));
    (code.trim().parse().unwrap_or(0), body.to_owned())
}

/// Sends `request` as it is and returns the whole response.
pub fn http_raw(addr: SocketAddr, request: &str) -> String {
    let mut s = StdTcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap();
    resp
}

/// What a test provider has seen.
#[derive(Default)]
pub struct Seen {
    pub calls: AtomicU64,
    pub one_way: AtomicU64,
    pub heartbeats: AtomicU64,
    pub connections: AtomicU64,
}

/// A Rust test provider. Every call is answered with the string `"<name>:<method>"`, except:
/// `sleep(int ms)` answers after `ms`, `hang` never answers, `echo(x)` answers `x`.
pub struct Upstream {
    pub addr: SocketAddr,
    pub name: String,
    pub seen: Arc<Seen>,
    control: broadcast::Sender<Control>,
    accept: tokio::task::JoinHandle<()>,
}

#[derive(Clone, Copy, Debug)]
enum Control {
    ReadOnly,
    Kill,
}

impl Upstream {
    pub async fn start(name: &str) -> Upstream {
        Self::start_on("127.0.0.1:0", name).await
    }

    pub async fn start_on(addr: &str, name: &str) -> Upstream {
        let listener = TcpListener::bind(addr).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Seen::default());
        let (control, _) = broadcast::channel(16);
        let accept = tokio::spawn(accept_loop(
            listener,
            name.to_owned(),
            seen.clone(),
            control.clone(),
        ));
        Upstream {
            addr,
            name: name.to_owned(),
            seen,
            control,
            accept,
        }
    }

    pub fn calls(&self) -> u64 {
        self.seen.calls.load(Ordering::SeqCst)
    }

    /// Sends the read-only event on every connection (graceful provider shutdown).
    pub fn read_only(&self) {
        let _ = self.control.send(Control::ReadOnly);
    }

    /// Stops listening and drops every connection.
    pub fn kill(&self) {
        self.accept.abort();
        let _ = self.control.send(Control::Kill);
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn accept_loop(
    listener: TcpListener,
    name: String,
    seen: Arc<Seen>,
    control: broadcast::Sender<Control>,
) {
    loop {
        let Ok((s, _)) = listener.accept().await else {
            return;
        };
        seen.connections.fetch_add(1, Ordering::SeqCst);
        tokio::spawn(serve_conn(
            s,
            name.clone(),
            seen.clone(),
            control.subscribe(),
        ));
    }
}

async fn serve_conn(
    stream: TcpStream,
    name: String,
    seen: Arc<Seen>,
    mut control: broadcast::Receiver<Control>,
) {
    let (mut rd, mut wr) = stream.into_split();
    let (tx, mut rx) = mpsc::unbounded_channel::<Frame>();
    let writer = tokio::spawn(async move {
        let codec = FrameCodec::with_max_payload(u32::MAX);
        let mut buf = BytesMut::new();
        while let Some(f) = rx.recv().await {
            buf.clear();
            codec.encode_frame(&f, &mut buf).unwrap();
            if wr.write_all(&buf).await.is_err() {
                return;
            }
        }
    });
    let mut codec = FrameCodec::with_max_payload(u32::MAX);
    let mut buf = BytesMut::with_capacity(64 * 1024);
    loop {
        tokio::select! {
            c = control.recv() => match c {
                Ok(Control::ReadOnly) => { let _ = tx.send(Frame::read_only_event(1)); }
                _ => { writer.abort(); return; }
            },
            r = rd.read_buf(&mut buf) => {
                match r {
                    Ok(0) | Err(_) => { writer.abort(); return; }
                    Ok(_) => {}
                }
                while let Some(frame) = codec.decode_frame(&mut buf).unwrap() {
                    handle_frame(&name, &seen, &tx, frame);
                }
            }
        }
    }
}

fn handle_frame(name: &str, seen: &Seen, tx: &mpsc::UnboundedSender<Frame>, frame: Frame) {
    match frame.kind() {
        FrameKind::EventRequest(dubbo_codec::Event::Heartbeat) => {
            seen.heartbeats.fetch_add(1, Ordering::SeqCst);
            let _ = tx.send(Frame::heartbeat_response(frame.request_id()));
        }
        FrameKind::OneWayRequest => {
            seen.one_way.fetch_add(1, Ordering::SeqCst);
        }
        FrameKind::Request => {
            seen.calls.fetch_add(1, Ordering::SeqCst);
            let req = Request::decode(frame.body()).unwrap();
            let id = frame.request_id();
            let reply = RpcResult::new(Outcome::Value(Value::String(format!(
                "{name}:{}",
                req.method
            ))))
            .to_frame(id);
            match req.method.as_str() {
                "hang" => {}
                "echo" => {
                    let v = req.args.first().cloned().unwrap_or(Value::Null);
                    let _ = tx.send(RpcResult::new(Outcome::Value(v)).to_frame(id));
                }
                "sleep" => {
                    let ms = match req.args.first() {
                        Some(Value::Int(ms)) => *ms as u64,
                        _ => 100,
                    };
                    let tx = tx.clone();
                    tokio::spawn(async move {
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                        let _ = tx.send(reply);
                    });
                }
                _ => {
                    let _ = tx.send(reply);
                }
            }
        }
        _ => {}
    }
}

/// A frame-level caller: sends frames with chosen ids, collects every frame received.
pub struct Client {
    wr: tokio::net::tcp::OwnedWriteHalf,
    rx: mpsc::UnboundedReceiver<Frame>,
    pending: HashMap<u64, Frame>,
    pub events: Vec<Frame>,
    pub closed: Arc<Mutex<bool>>,
}

impl Client {
    pub async fn connect(addr: SocketAddr) -> Client {
        Client::over(TcpStream::connect(addr).await.unwrap())
    }

    /// A caller on a connection already open.
    pub fn over(s: TcpStream) -> Client {
        s.set_nodelay(true).unwrap();
        let (mut rd, wr) = s.into_split();
        let (tx, rx) = mpsc::unbounded_channel();
        let closed = Arc::new(Mutex::new(false));
        let c2 = closed.clone();
        tokio::spawn(async move {
            let mut codec = FrameCodec::with_max_payload(u32::MAX);
            let mut buf = BytesMut::with_capacity(64 * 1024);
            loop {
                match rd.read_buf(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                while let Ok(Some(f)) = codec.decode_frame(&mut buf) {
                    if tx.send(f).is_err() {
                        return;
                    }
                }
            }
            *c2.lock().unwrap() = true;
        });
        Client {
            wr,
            rx,
            pending: HashMap::new(),
            events: Vec::new(),
            closed,
        }
    }

    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.wr.write_all(bytes).await.unwrap();
    }

    pub async fn send(&mut self, frame: &Frame) {
        let mut buf = BytesMut::new();
        FrameCodec::with_max_payload(u32::MAX)
            .encode_frame(frame, &mut buf)
            .unwrap();
        self.wr.write_all(&buf).await.unwrap();
    }

    /// Sends a two-way call with this id.
    pub async fn send_call(&mut self, id: u64, req: &Request) {
        self.send(&req.to_frame(id, true)).await;
    }

    /// The next frame (responses and events), within 5 s.
    pub async fn next_frame(&mut self) -> Option<Frame> {
        self.next_frame_within(Duration::from_secs(5)).await
    }

    async fn next_frame_within(&mut self, gap: Duration) -> Option<Frame> {
        tokio::time::timeout(gap, self.rx.recv())
            .await
            .ok()
            .flatten()
    }

    /// Waits for the response with this id (no frame for 5 s: a panic).
    pub async fn response(&mut self, id: u64) -> Frame {
        self.response_within(id, Duration::from_secs(5)).await
    }

    /// Waits for the response with this id, as long as frames come at most `gap` apart.
    pub async fn response_within(&mut self, id: u64, gap: Duration) -> Frame {
        if let Some(f) = self.pending.remove(&id) {
            return f;
        }
        loop {
            let f = self
                .next_frame_within(gap)
                .await
                .unwrap_or_else(|| panic!("no response for id {id}"));
            if f.header().is_event() || f.header().is_request() {
                self.events.push(f);
                continue;
            }
            if f.request_id() == id {
                return f;
            }
            self.pending.insert(f.request_id(), f);
        }
    }

    /// A call: (status, the string result or the error message).
    pub async fn call(&mut self, id: u64, req: &Request) -> (Status, String) {
        self.send_call(id, req).await;
        outcome(&self.response(id).await)
    }
}

/// (status, result string or error message) of a response frame.
pub fn outcome(f: &Frame) -> (Status, String) {
    match Response::from_frame(f).unwrap() {
        Response::Result(r) => match r.outcome {
            Outcome::Value(Value::String(s)) => (Status::Ok, s),
            other => (Status::Ok, format!("{other:?}")),
        },
        Response::Error { status, message } => (status, message.unwrap_or_default()),
    }
}

pub fn call(method: &str) -> Request {
    Request::builder(SVC, method)
        .version("1.0.0")
        .arg("java.lang.String", "x")
        .build()
        .unwrap()
}

pub fn call_on(service: &str, method: &str) -> Request {
    Request::builder(service, method).build().unwrap()
}

pub fn sleep_call(ms: i32) -> Request {
    Request::builder(SVC, "sleep")
        .version("1.0.0")
        .arg("int", &ms)
        .build()
        .unwrap()
}

/// A payload of `n` bytes as one String argument.
pub fn big_call(n: usize) -> Request {
    Request::builder(SVC, "echo")
        .version("1.0.0")
        .arg("java.lang.String", &"x".repeat(n))
        .build()
        .unwrap()
}

pub fn body_bytes(req: &Request) -> Bytes {
    req.to_bytes()
}

/// (VmRSS, VmHWM) of a process, in bytes.
pub fn rss(pid: u32) -> (usize, usize) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |k: &str| -> usize {
        status
            .lines()
            .find_map(|l| l.strip_prefix(k))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok())
            .unwrap_or_else(|| panic!("{k} in {status}"))
            * 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Polls `f` until it holds or 5 s pass.
pub async fn eventually(mut f: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + Duration::from_secs(5);
    while Instant::now() < end {
        if f() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    f()
}

/// A config with one listener (port 0), admin on port 0, and the given extra TOML.
pub fn config(workers: usize, rest: &str) -> String {
    format!(
        "workers = {workers}\n[admin]\naddress = \"127.0.0.1:0\"\n[[listeners]]\nname = \"main\"\naddress = \"127.0.0.1:0\"\n{rest}"
    )
}

/// Runs the futures concurrently (each a task), to their ends.
pub async fn futures_join_all(
    fs: impl Iterator<Item = impl std::future::Future<Output = ()> + Send + 'static>,
) {
    let tasks: Vec<_> = fs.map(tokio::spawn).collect();
    for t in tasks {
        t.await.unwrap();
    }
}
